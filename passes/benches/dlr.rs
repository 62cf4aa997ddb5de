//! Speed of `dlr` on the largest shipped workload, Matmul_Case1 in its input order with L0
//! exclusivity off (target: under 100 ms in release), for each victim key; per op, one plan of
//! MPAS's order with the paper and cost keys in both eviction modes on Matmul_Case1 and on the
//! generated deep conv network with fragmented L1 (`common::fragmented`; target: `window` at most
//! 3× Matmul_Case1's time per op, compare the `thrpt` lines; each plan's traffic is printed
//! once, so the time can be read against what it buys); and of the fixed-order traffic
//! lower bound of every shipped case planned by `mpas,dlr` (target: 2 s each). Run with
//! `cargo bench -p lattice-passes --bench dlr`; needs `../shared/cases` beside the checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lattice_lir::contest::ImportOptions;
use lattice_lir::Phase;
use lattice_passes::analysis::{bottom_levels, traffic_lower_bound};
use lattice_passes::dlr::{plan, DlrOptions, Evict, Victim};
use lattice_passes::order::{mpas_order, MpasOptions};

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

/// One plan per op: MPAS's order of Matmul_Case1 and of the fragmented conv network, with the
/// paper and cost keys, evicting by address (the default) and by rank (the paper's loop).
fn dlr_per_op(c: &mut Criterion) {
    let matmul = common::case("Matmul_Case1", &ImportOptions::default());
    let mut group = c.benchmark_group("dlr-per-op");
    group.sample_size(10);
    for (name, mut module) in [
        ("Matmul_Case1", matmul),
        ("resnet-36K", common::fragmented()),
    ] {
        module.schedule = mpas_order(&module, &bottom_levels(&module), &MpasOptions::default())
            .expect("mpas orders");
        module.phase = Phase::Scheduled;
        group.throughput(Throughput::Elements(module.ops.len() as u64));
        for victim in [Victim::Paper, Victim::Cost] {
            for evict in [Evict::Window, Evict::Rank] {
                let options = DlrOptions {
                    victim,
                    evict,
                    ..DlrOptions::default()
                };
                let traffic = plan(&module, &options).expect("plans").stats.traffic;
                println!("{name}/{victim:?}/{evict:?}: traffic {traffic} B");
                group.bench_function(format!("{name}/{victim:?}/{evict:?}"), |b| {
                    b.iter(|| plan(&module, &options).expect("plans"))
                });
            }
        }
    }
    group.finish();
}

/// The stems of `../shared/cases/*.json`, sorted.
fn case_names() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/cases");
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
    let mut names: Vec<String> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let is_case = path.extension().is_some_and(|e| e == "json");
            is_case.then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    names
}

fn traffic_bound(c: &mut Criterion) {
    let mut group = c.benchmark_group("traffic_lower_bound");
    group.sample_size(10);
    for name in case_names() {
        let mut module = common::case(&name, &ImportOptions::default());
        let levels = bottom_levels(&module);
        module.schedule = mpas_order(&module, &levels, &MpasOptions::default()).expect("orders");
        module.phase = Phase::Scheduled;
        let planned = plan(&module, &DlrOptions::default()).expect("plans").module;
        group.bench_function(&name, |b| {
            b.iter(|| traffic_lower_bound(&planned).expect("bounds"))
        });
    }
    group.finish();
}

criterion_group!(benches, dlr, dlr_per_op, traffic_bound);
criterion_main!(benches);
