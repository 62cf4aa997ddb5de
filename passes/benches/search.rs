//! Speed of one `order-search` step on the Matmul cases: scoring MPAS's order for the traffic
//! objective (DLR's scan, no IR built) and, for the makespan objective, with the plan built and
//! timed under Freeze. Issue targets, per core in release: ≥ 1,000 traffic evaluations per
//! second on Matmul_Case0 (≤ 1 ms each) and ≥ 100 on Matmul_Case1 (≤ 10 ms each).
//! Run with `cargo bench -p lattice-passes --bench search`; needs `../shared/cases` beside the
//! checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::ImportOptions;
use lattice_lir::Phase;
use lattice_passes::analysis::bottom_levels;
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::search::score::measure;
use lattice_passes::search::{BackEnd, Objective};

fn search_step(c: &mut Criterion) {
    let back_end = BackEnd::default();
    for case in ["Matmul_Case0", "Matmul_Case1"] {
        let mut module = common::case(case, &ImportOptions::default());
        let order = mpas_order(&module, &bottom_levels(&module), &MpasOptions::default())
            .expect("mpas orders");
        module.phase = Phase::Scheduled;
        let mut group = c.benchmark_group(case);
        group.sample_size(20);
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
