//! Speed of the text layer on the largest shipped workload: contest import + print, and
//! parse + print of the resulting LIR (target: each under 300 ms in release); and parse and
//! print alone, in bytes per second of LIR.
//! Run with `cargo bench -p lattice-lir`; needs `../shared/cases` beside the checkout.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::{parse_module, print_module};
use std::path::PathBuf;

fn case(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "shared",
        "cases",
        name,
    ]
    .iter()
    .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the bench needs ../shared beside the checkout)",
            path.display()
        )
    })
}

fn text(c: &mut Criterion) {
    let json = case("Matmul_Case1.json");
    let options = ImportOptions::default();
    let lir = print_module(&import_graph(&json, "Matmul_Case1", &options).expect("imports"));
    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(20);
    group.bench_function("import+print", |b| {
        b.iter(|| print_module(&import_graph(&json, "Matmul_Case1", &options).unwrap()))
    });
    group.bench_function("parse+print", |b| {
        b.iter(|| print_module(&parse_module(&lir).unwrap()))
    });
    group.throughput(Throughput::Bytes(lir.len() as u64));
    group.bench_function("parse", |b| b.iter(|| parse_module(&lir).unwrap()));
    let module = parse_module(&lir).expect("parses");
    group.bench_function("print", |b| b.iter(|| print_module(&module)));
    group.finish();
}

criterion_group!(benches, text);
criterion_main!(benches);
