//! Speed of every baseline on the largest shipped workload, Matmul_Case1 (target: each well
//! under a few seconds in release), from the imported module to the baseline's result: the order
//! for HMCOS, MAGIS and the EDA placeholder (`dlr` is benched on its own), order and placement
//! for COSMA, stable order and DLR for Base. Run with `cargo bench -p lattice-passes --bench
//! baselines`; needs `../shared/cases` beside the checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::ImportOptions;
use lattice_passes::baselines::{
    base, cosma, eda_order, hmcos_order, magis_order, CosmaOptions, EdaTraversal, HmcosOptions,
    MagisOptions,
};

fn baselines(c: &mut Criterion) {
    let module = common::case("Matmul_Case1", &ImportOptions::default());
    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(10);
    group.bench_function("base", |b| b.iter(|| base(&module).unwrap()));
    group.bench_function("hmcos", |b| {
        b.iter(|| hmcos_order(&module, &HmcosOptions::default()).unwrap())
    });
    group.bench_function("magis", |b| {
        b.iter(|| magis_order(&module, &MagisOptions::default()).unwrap())
    });
    group.bench_function("cosma", |b| {
        b.iter(|| cosma(&module, &CosmaOptions::default()).unwrap())
    });
    group.bench_function("eda-placeholder", |b| {
        b.iter(|| eda_order(&module, EdaTraversal::DfsConsumer).unwrap())
    });
    group.finish();
}

criterion_group!(benches, baselines);
criterion_main!(benches);
