//! Speed of the whole pipeline `--mpas --dlr --cpe` with verification — MPAS, DLR and CPE at
//! default settings, the structural verifier after each pass as `lattice-opt` runs it, and the
//! independent replay of the result — on Matmul_Case1 (issue target: under 1 s in release), and
//! on generated attention-like DAGs of 10K, 100K and 1M nodes (target: 1M under 30 s and 4 GB),
//! to show how the time grows with size. CPE alone on the planned Matmul_Case1 too.
//! Run with `cargo bench -p lattice-passes --bench cpe`; needs `../shared` beside the checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::ImportOptions;
use lattice_lir::{verify_module, Module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::cpe::{refine, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::verify::{replay, ReplayOptions};

/// `graph` through MPAS and DLR, structurally verified after each.
fn planned(graph: &Module) -> Module {
    let mut scheduled = graph.clone();
    scheduled.schedule =
        mpas_order(graph, &bottom_levels(graph), &MpasOptions::default()).expect("mpas orders");
    scheduled.phase = Phase::Scheduled;
    verify_module(&scheduled).expect("valid after mpas");
    let planned = plan(&scheduled, &DlrOptions::default())
        .expect("dlr plans")
        .module;
    verify_module(&planned).expect("valid after dlr");
    planned
}

/// The whole pipeline with verification; returns the refined module.
fn pipeline(graph: &Module) -> Module {
    let refined = refine(&planned(graph), &CpeOptions::default())
        .expect("cpe refines")
        .module;
    verify_module(&refined).expect("valid after cpe");
    assert!(replay(&refined, &ReplayOptions::default()).metrics.valid);
    refined
}

fn bench(c: &mut Criterion) {
    let matmul = common::case("Matmul_Case1", &ImportOptions::default());
    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(10);
    group.bench_function("mpas,dlr,cpe,verify", |b| b.iter(|| pipeline(&matmul)));
    let freeze = planned(&matmul);
    group.bench_function("cpe", |b| {
        b.iter(|| refine(&freeze, &CpeOptions::default()).expect("cpe refines"))
    });
    group.finish();

    let mut group = c.benchmark_group("generated-attention");
    group.sample_size(10);
    for nodes in [10_000, 100_000, 1_000_000] {
        let graph = generate(&GenSpec {
            shape: Shape::Attention,
            nodes,
            seed: 1,
        });
        group.bench_function(format!("mpas,dlr,cpe,verify/{nodes}"), |b| {
            b.iter(|| pipeline(&graph))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
