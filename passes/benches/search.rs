//! Speed of one `order-search` step on the Matmul cases and on the generated conv network with
//! fragmented L1 (`common::fragmented`, 36K nodes): scoring MPAS's order for the traffic
//! objective (DLR's scan, no IR built) and, for the makespan objective, with the plan built and
//! timed under Freeze. Targets, per core in release: ≥ 1,000 traffic evaluations per second on
//! Matmul_Case0 (≤ 1 ms each) and ≥ 100 on Matmul_Case1 (≤ 10 ms each); on the conv network at
//! most 3× Matmul_Case1's time per op (the `thrpt` lines).
//! Run with `cargo bench -p lattice-passes --bench search`; needs `../shared/cases` beside the
//! checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lattice_lir::contest::ImportOptions;
use lattice_lir::Phase;
use lattice_passes::analysis::bottom_levels;
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::search::score::measure;
use lattice_passes::search::{BackEnd, Objective};

fn search_step(c: &mut Criterion) {
    let back_end = BackEnd::default();
    let modules = [
        (
            "Matmul_Case0",
            common::case("Matmul_Case0", &ImportOptions::default()),
        ),
        (
            "Matmul_Case1",
            common::case("Matmul_Case1", &ImportOptions::default()),
        ),
        ("resnet-36K", common::fragmented()),
    ];
    for (case, mut module) in modules {
        let order = mpas_order(&module, &bottom_levels(&module), &MpasOptions::default())
            .expect("mpas orders");
        module.phase = Phase::Scheduled;
        let mut group = c.benchmark_group(case);
        group.sample_size(20);
        group.throughput(Throughput::Elements(module.ops.len() as u64));
        for objective in [Objective::Traffic, Objective::Makespan] {
            group.bench_function(format!("evaluate {objective:?}"), |b| {
                b.iter(|| measure(&module, &order, objective, &back_end).expect("feasible"))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, search_step);
criterion_main!(benches);
