//! CPE on generated workloads (property test over shapes, seeds and sizes): after MPAS and DLR,
//! the refined module passes the verifier, keeps the plan (ops, exported memory and spill files,
//! spill count, traffic, physical and logical peaks no higher), never has a higher makespan than Freeze,
//! agrees with the timing engine, and is deterministic. Also the same with the non-staging tiers
//! squeezed, which forces spills. Each case is O((V + E) log V) plus a few replays.

use lattice_lir::contest::export_trio;
use lattice_lir::{Module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::cpe::{refine, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::timing::{evaluate, FixedGraph, PipeOrder};
use lattice_passes::verify::{replay, ReplayOptions};
use proptest::prelude::*;

/// `--mpas --dlr`. DLR compacts a tier whose room pinned operands split, so it fails only when
/// one command's operands exceed a tier, which neither the generator nor `squeeze` allows.
fn planned(graph: &Module) -> Module {
    let mut scheduled = graph.clone();
    scheduled.schedule =
        mpas_order(graph, &bottom_levels(graph), &MpasOptions::default()).expect("mpas orders");
    scheduled.phase = Phase::Scheduled;
    plan(&scheduled, &DlrOptions::default())
        .unwrap_or_else(|e| panic!("{}: dlr: {e:?}", graph.name))
        .module
}

fn check(freeze: &Module, graph: &Module, options: &CpeOptions) {
    let before = replay(freeze, &ReplayOptions::default()).metrics;
    assert!(before.valid, "{}: plan invalid", graph.name);
    let refined = refine(freeze, options).expect("cpe refines");
    let m = &refined.module;
    let result = replay(m, &ReplayOptions::default());
    let shown = &result.violations[..result.violations.len().min(3)];
    assert!(result.violations.is_empty(), "{}: {shown:?}", graph.name);
    let after = result.metrics;
    assert!(after.makespan <= before.makespan, "{}", graph.name);
    assert!(
        after.physical_peak <= before.physical_peak,
        "{}",
        graph.name
    );
    assert_eq!(after.spill_count, before.spill_count, "{}", graph.name);
    assert_eq!(after.extra_traffic, before.extra_traffic, "{}", graph.name);
    assert_eq!(m.ops, freeze.ops, "{}", graph.name);
    let (a, b) = (export_trio(freeze).unwrap(), export_trio(m).unwrap());
    assert_eq!((a.memory, a.spill), (b.memory, b.spill), "{}", graph.name);
    let g = FixedGraph::of(m);
    let order = PipeOrder::of_sigma(&g, &m.schedule);
    assert_eq!(
        evaluate(&g, Some(&order)).unwrap().makespan,
        after.makespan,
        "{}",
        graph.name
    );
    assert_eq!(
        refine(freeze, options).unwrap().module,
        *m,
        "{}",
        graph.name
    );
}

/// Shrinks every non-staging tier to a quarter of its capacity, but never below twice what one op
/// needs resident at once, so DLR has to spill.
fn squeeze(graph: &mut Module) {
    let mut need = vec![0u64; graph.target.tiers.len()];
    for op in &graph.ops {
        let mut per_tier = vec![0u64; need.len()];
        for &b in op.kind.buffers() {
            let buffer = graph.buffer(b);
            per_tier[buffer.tier.index()] += buffer.size;
        }
        for (n, p) in need.iter_mut().zip(per_tier) {
            *n = (*n).max(p);
        }
    }
    for (tier, need) in graph.target.tiers.iter_mut().zip(need) {
        if !tier.staging {
            tier.capacity = (tier.capacity / 4).max(2 * need);
        }
    }
}

fn shape() -> impl Strategy<Value = Shape> {
    prop::sample::select(Shape::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn cpe_keeps_generated_plans(shape in shape(), nodes in 3usize..1500, seed in 0u64..1000) {
        let graph = generate(&GenSpec { shape, nodes, seed });
        check(&planned(&graph), &graph, &CpeOptions::default());
    }

    #[test]
    fn cpe_keeps_plans_with_spills(shape in shape(), nodes in 200usize..1200, seed in 0u64..1000) {
        let mut graph = generate(&GenSpec { shape, nodes, seed });
        squeeze(&mut graph);
        let options = CpeOptions { passes: 4, candidates: 8, ..CpeOptions::default() };
        check(&planned(&graph), &graph, &options);
    }
}
