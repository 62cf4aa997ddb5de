//! Speed of `dlr` on the largest shipped workload, Matmul_Case1 in its input order with L0
//! exclusivity off (issue target: under 100 ms in release), for both victim policies.
//! Run with `cargo bench -p lattice-passes --bench dlr`; needs `../shared/cases` beside the checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::ImportOptions;
use lattice_lir::Phase;
use lattice_passes::dlr::{plan, DlrOptions, Victim};

fn dlr(c: &mut Criterion) {
    let options = ImportOptions {
        l0_exclusive: false,
        ..ImportOptions::default()
    };
    let mut module = common::case("Matmul_Case1", &options);
    module.phase = Phase::Scheduled;
    let mut group = c.benchmark_group("Matmul_Case1");
    group.sample_size(20);
    for victim in [Victim::Paper, Victim::Cost, Victim::Lru] {
        let options = DlrOptions {
            victim,
            ..DlrOptions::default()
        };
        group.bench_function(format!("dlr{{victim={victim:?}}}"), |b| {
            b.iter(|| plan(&module, &options).expect("plans"))
        });
    }
    group.finish();
}

criterion_group!(benches, dlr);
criterion_main!(benches);
