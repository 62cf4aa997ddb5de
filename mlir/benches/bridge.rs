//! Speed of lattice passes inside an MLIR `PassManager` against lattice's own pass manager, on
//! the largest shipped workload, Matmul_Case1 (issue 20's target: the bridge within 1.3× of
//! lattice). Both run `mpas`, `dlr`, `cpe` from the imported module, each pass checked after it
//! runs; neither counts reading or printing text.
//! - `lattice`: lattice's pass manager on the LIR module, verifying after every pass, as
//!   `lattice-opt --mpas --dlr --cpe` does;
//! - `bridge`: `builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)` in an MLIR `PassManager`
//!   on the module parsed from MLIR text (outside the timing), MLIR's verifier off: the bridge's
//!   own cost (reading the module once, writing each result in place) beside the passes, which
//!   verify their results themselves;
//! - `bridge+verify-each`: the same with MLIR's verifier after every pass (MLIR's default, and
//!   `mlir-opt`'s unless `--verify-each=0`).
//!
//! Run with `cargo bench -p lattice-mlir --features mlir --bench bridge`; needs `../shared/cases`
//! beside the checkout.

use criterion::{criterion_group, criterion_main, Criterion};
use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_mlir::{add_pipeline, dialect, lir_to_mlir_text};
use lattice_passes::REGISTRY;
use melior::ir::Module as MlirModule;
use melior::pass::PassManager as MlirPassManager;
use std::time::{Duration, Instant};

fn bridge(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/cases/Matmul_Case1.json"
    );
    let json = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e} (the bench needs ../shared beside the checkout)"));
    let module = import_graph(&json, "Matmul_Case1", &ImportOptions::default()).expect("imports");
    let text = lir_to_mlir_text(&module).expect("exports");

    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(10);
    group.bench_function("lattice", |b| {
        let pipeline = parse_pipeline("mpas,dlr,cpe", &REGISTRY).expect("parses");
        b.iter_batched(
            || module.clone(),
            |mut m| {
                let mut sink = Vec::new();
                let mut session = Session::new(&mut sink);
                let manager = PassManager::new(REGISTRY, pipeline.clone());
                manager.run(&mut m, &mut session).expect("runs");
                m
            },
            criterion::BatchSize::LargeInput,
        )
    });
    for (name, verify) in [("bridge", false), ("bridge+verify-each", true)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let context = dialect::context().expect("loads the dialect");
                    let mut mlir = MlirModule::parse(&context, &text).expect("parses");
                    let manager = MlirPassManager::new(&context);
                    manager.enable_verifier(verify);
                    let pipeline = "builtin.module(lattice-mpas,lattice-dlr,lattice-cpe)";
                    add_pipeline(&manager, pipeline, REGISTRY).expect("builds");
                    let start = Instant::now();
                    manager.run(&mut mlir).expect("runs");
                    total += start.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bridge);
criterion_main!(benches);
