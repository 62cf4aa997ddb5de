//! DLR on every shipped contest case (input σ, L0 exclusivity off): the plan verifies, survives
//! print/parse and trio export/import unchanged, passes an independent residency check, is
//! deterministic, and the cost-aware policy moves no more bytes than LRU in aggregate.

mod common;

use common::{check_plan, Replay};
use lattice_lir::contest::{
    export_trio, import_graph, import_solution, ImportOptions, SolutionFile,
};
use lattice_lir::{parse_module, print_module, verify_module, Phase};
use lattice_passes::dlr::{plan, DlrOptions, Victim};

#[test]
fn every_case_plans_verifies_and_round_trips() {
    let opts = ImportOptions {
        l0_exclusive: false,
        ..ImportOptions::default()
    };
    let mut totals = [0u64; 2];
    for (name, json) in common::case_files() {
        let graph = import_graph(&json, &name, &opts).unwrap();
        let mut scheduled = graph.clone();
        scheduled.phase = Phase::Scheduled;
        for (i, victim) in [Victim::Cost, Victim::Lru].into_iter().enumerate() {
            let planned = plan(&scheduled, &DlrOptions { victim }).unwrap();
            let m = &planned.module;
            verify_module(m).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let replay: Replay = check_plan(m);
            assert_eq!(replay.spills, planned.stats.spills, "{name}");
            assert_eq!(replay.traffic, planned.stats.traffic, "{name}");
            totals[i] += planned.stats.traffic;
            eprintln!(
                "{name} {victim:?}: spills {} drops {} traffic {} peak {} reuse {} frag-evictions {}",
                planned.stats.spills,
                planned.stats.drops,
                planned.stats.traffic,
                planned.stats.physical_peak,
                planned.stats.reuse_edges,
                planned.stats.frag_evictions
            );
            // Deterministic.
            assert_eq!(plan(&scheduled, &DlrOptions { victim }).unwrap().module, *m);
            // Text round trip.
            let text = print_module(m);
            assert_eq!(print_module(&parse_module(&text).unwrap()), text, "{name}");
            // Trio round trip.
            let trio = export_trio(m).unwrap();
            let file = |suffix: &str, text: Option<String>| SolutionFile {
                name: format!("{name}_{suffix}.txt"),
                text: text.unwrap_or_default(),
            };
            let back = import_solution(
                graph.clone(),
                &file("schedule", Some(trio.schedule)),
                &file("memory", trio.memory),
                Some(&file("spill", trio.spill)),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(back, *m, "{name}: re-imported trio differs");
        }
    }
    assert!(
        totals[0] <= totals[1],
        "cost {} > lru {}",
        totals[0],
        totals[1]
    );
}
