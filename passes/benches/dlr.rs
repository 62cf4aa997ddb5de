//! Speed of `dlr` on the largest shipped workload, Matmul_Case1 in its input order with L0
//! exclusivity off (issue target: under 100 ms in release), for both victim policies.
//! Run with `cargo bench -p lattice-passes --bench dlr`; needs `../shared/cases` beside the checkout.

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::Phase;
use lattice_passes::dlr::{plan, DlrOptions, Victim};
use std::path::PathBuf;

fn dlr(c: &mut Criterion) {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "shared",
        "cases",
        "Matmul_Case1.json",
    ]
    .iter()
    .collect();
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the bench needs ../shared beside the checkout)",
            path.display()
        )
    });
    let options = ImportOptions {
        l0_exclusive: false,
        ..ImportOptions::default()
    };
    let mut module = import_graph(&json, "Matmul_Case1", &options).expect("imports");
    module.phase = Phase::Scheduled;
    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(20);
    for victim in [Victim::Cost, Victim::Lru] {
        let options = DlrOptions { victim };
        group.bench_function(format!("dlr{{victim={victim:?}}}"), |b| {
            b.iter(|| plan(&module, &options).expect("plans"))
        });
    }
    group.finish();
}

criterion_group!(benches, dlr);
criterion_main!(benches);
