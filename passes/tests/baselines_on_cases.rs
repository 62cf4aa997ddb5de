//! Every baseline on every shared workload (`../shared/cases/*.json`, whatever cases are there):
//! the planned module (the baseline's own plan for COSMA and Base, `dlr` after the order-only
//! ones) passes the independent replay with its recomputed spill count and traffic equal to the
//! planner's, is deterministic, and keeps the structural invariants; Base is exactly
//! `order{policy=stable}` then `dlr{victim=lru}`; the EDA placeholders all verify too. Prints the
//! per-case numbers (`cargo test -- --nocapture`). A missing `shared/` is a failure.

mod common;

use common::{cases, check_plan};
use lattice_lir::Module;
use lattice_lir::{verify_module, Phase};
use lattice_passes::baselines::{
    base, cosma, magis_order, run_baseline, Baseline, CosmaOptions, CosmaOrder, EdaTraversal,
    MagisOptions, RpoGraph,
};
use lattice_passes::dlr::{plan, DlrOptions, L0Mode, Victim};
use lattice_passes::order::stable_order;

/// `baseline` on every case: a planned module that passes the structural verifier and the
/// replay, the same on a second run.
fn plans_verify_and_are_deterministic(baseline: Baseline) {
    for module in cases() {
        let what = format!("{} / {}", module.name, baseline.label());
        let planned = run_baseline(&module, baseline).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(planned.phase, Phase::Planned, "{what}");
        verify_module(&planned).unwrap_or_else(|e| panic!("{what}: {:?}", &e[..1]));
        let replay = check_plan(&planned);
        assert_eq!(
            run_baseline(&module, baseline).unwrap(),
            planned,
            "{what}: not deterministic"
        );
        println!(
            "{what}: spills {} traffic {}",
            replay.spills, replay.traffic
        );
    }
}

#[test]
fn base_verifies_on_every_case() {
    plans_verify_and_are_deterministic(Baseline::Base);
}

#[test]
fn hmcos_verifies_on_every_case() {
    plans_verify_and_are_deterministic(Baseline::Hmcos);
}

#[test]
fn magis_verifies_on_every_case() {
    plans_verify_and_are_deterministic(Baseline::Magis);
}

#[test]
fn cosma_verifies_on_every_case() {
    plans_verify_and_are_deterministic(Baseline::Cosma);
}

#[test]
fn every_eda_placeholder_verifies_on_every_case() {
    for traversal in [
        EdaTraversal::DfsConsumer,
        EdaTraversal::BfsLevel,
        EdaTraversal::InductorBfs,
        EdaTraversal::InductorDfs,
    ] {
        plans_verify_and_are_deterministic(Baseline::EdaPlaceholder(traversal));
    }
}

#[test]
fn planners_counters_match_the_replay_and_base_is_stable_then_lru() {
    for module in cases() {
        let planned = base(&module).unwrap();
        let replay = check_plan(&planned.module);
        assert_eq!(replay.spills, planned.stats.spills, "{}", module.name);
        assert_eq!(replay.traffic, planned.stats.traffic, "{}", module.name);
        let mut stable = module.clone();
        stable.schedule = stable_order(&module).unwrap();
        stable.phase = Phase::Scheduled;
        let lru = plan(
            &stable,
            &DlrOptions {
                victim: Victim::Lru,
                l0: L0Mode::Single,
                ..DlrOptions::default()
            },
        )
        .unwrap();
        assert_eq!(lru.module, planned.module, "{}: base differs", module.name);

        let (cosma_plan, stats) = cosma(&module, &CosmaOptions::default()).unwrap();
        let replay = check_plan(&cosma_plan);
        assert_eq!(replay.spills, stats.place.spills, "{}", module.name);
        assert_eq!(replay.traffic, stats.place.traffic, "{}", module.name);
    }
}

/// The MAGIS order with `options`, planned by `dlr` with its defaults, checked by the replay.
fn magis_planned(module: &Module, options: &MagisOptions) -> Module {
    let (order, _) = magis_order(module, options).unwrap();
    let mut scheduled = module.clone();
    scheduled.schedule = order;
    scheduled.phase = Phase::Scheduled;
    verify_module(&scheduled).unwrap_or_else(|e| panic!("{}: {:?}", module.name, &e[..1]));
    let planned = plan(&scheduled, &DlrOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", module.name))
        .module;
    check_plan(&planned);
    planned
}

#[test]
fn magis_raw_rpo_is_planned_on_every_case() {
    // The structural verifier checks L0 exclusivity of the scheduled order; DLR must plan it.
    let raw = MagisOptions {
        rpo_graph: RpoGraph::Raw,
        ..MagisOptions::default()
    };
    for module in cases() {
        let planned = magis_planned(&module, &raw);
        assert_eq!(magis_planned(&module, &raw), planned, "{}", module.name);
        let r = check_plan(&planned);
        println!(
            "{} magis{{rpo-graph=raw}},dlr: spills {} traffic {}",
            module.name, r.spills, r.traffic
        );
    }
}

#[test]
fn extend_bound_changes_the_order_exactly_when_it_moves_a_window_end() {
    for module in cases() {
        let off = MagisOptions {
            extend_bound: false,
            ..MagisOptions::default()
        };
        let (order_off, stats_off) = magis_order(&module, &off).unwrap();
        let (order_on, stats_on) = magis_order(&module, &MagisOptions::default()).unwrap();
        assert_eq!(stats_off.extended, 0);
        // Moving no end leaves the windows, hence the order, as they were; moving some merges
        // windows (each end moves forward only).
        assert_eq!(
            stats_on.extended == 0,
            order_on == order_off,
            "{}",
            module.name
        );
        assert!(stats_on.windows <= stats_off.windows, "{}", module.name);
        magis_planned(&module, &MagisOptions::default());
        println!(
            "{}: ExtendBound moved {} of {} window ends",
            module.name, stats_on.extended, stats_off.windows
        );
    }
}

#[test]
fn cosma_traffic_greedy_verifies_and_is_deterministic_on_every_case() {
    let greedy = CosmaOptions {
        order: CosmaOrder::TrafficGreedy,
        ..CosmaOptions::default()
    };
    for module in cases() {
        let (planned, stats) = cosma(&module, &greedy).unwrap_or_else(|e| panic!("{e}"));
        verify_module(&planned).unwrap_or_else(|e| panic!("{}: {:?}", module.name, &e[..1]));
        let r = check_plan(&planned);
        assert_eq!(r.spills, stats.place.spills, "{}", module.name);
        assert_eq!(r.traffic, stats.place.traffic, "{}", module.name);
        assert_eq!(
            cosma(&module, &greedy).unwrap().0,
            planned,
            "{}",
            module.name
        );
        println!(
            "{} cosma{{order=traffic-greedy}}: spills {} traffic {}",
            module.name, r.spills, r.traffic
        );
    }
}
