//! Every baseline on every shared workload (`../shared/cases/*.json`, whatever cases are there):
//! the planned module (the baseline's own plan for COSMA and Base, `dlr` after the order-only
//! ones) passes the independent replay with its recomputed spill count and traffic equal to the
//! planner's, is deterministic, and keeps the structural invariants; Base is exactly
//! `order{policy=stable}` then `dlr{victim=lru}`; the EDA placeholders all verify too. Prints the
//! per-case numbers (`cargo test -- --nocapture`). A missing `shared/` is a failure.

mod common;

use common::{cases, check_plan};
use lattice_lir::{verify_module, Phase};
use lattice_passes::baselines::{base, cosma, run_baseline, Baseline, CosmaOptions, EdaTraversal};
use lattice_passes::dlr::{plan, DlrOptions, Victim};
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
