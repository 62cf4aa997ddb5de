//! Speed of every order on the largest shipped workload, Matmul_Case1 (issue target: each under
//! 50 ms in release), graph building included; the bottom levels are computed once outside, as
//! the analysis manager would cache them. Run with `cargo bench -p lattice-passes`; needs
//! `../shared/cases` beside the checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::ImportOptions;
use lattice_passes::analysis::bottom_levels;
use lattice_passes::order::{mpas_order, order_by, MpasOptions, Policy};

fn orders(c: &mut Criterion) {
    let module = common::case("Matmul_Case1", &ImportOptions::default());
    let levels = bottom_levels(&module);
    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(20);
    group.bench_function("mpas", |b| {
        b.iter(|| mpas_order(&module, &levels, &MpasOptions::default()).unwrap())
    });
    for (name, policy) in [
        ("input", Policy::Input),
        ("stable", Policy::Stable),
        ("memory-first", Policy::MemoryFirst),
        ("critical-first", Policy::CriticalFirst),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| order_by(&module, policy, &levels).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, orders);
criterion_main!(benches);
