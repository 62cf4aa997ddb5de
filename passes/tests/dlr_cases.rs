//! DLR on every shipped contest case, under the trace's own σ (L0 exclusivity off) and under the
//! MPAS and stable orders (L0 exclusivity on), with the `paper`, `cost` and `lru` victim keys and
//! both L0 placements (`l0=double`, `l0=single`) and both eviction modes (`window`, `rank`): the plan verifies with the same spill count
//! and traffic as DLR reports, survives print/parse and trio export/import unchanged, is
//! deterministic, and per order the paper's key moves no more bytes than LRU over all cases.

mod common;

use common::{check_plan, Replay};
use lattice_lir::contest::{
    export_trio, import_graph, import_solution, ImportOptions, SolutionFile,
};
use lattice_lir::{parse_module, print_module, verify_module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::dlr::{plan, DlrOptions, Evict, L0Mode, Victim};
use lattice_passes::order::{mpas_order, order_by, MpasOptions, Policy};

#[test]
fn every_case_plans_verifies_and_round_trips() {
    // The trace's own order with L0 exclusivity off, and the MPAS and stable orders with it on.
    let orders = [("input", false), ("mpas", true), ("stable", true)];
    let mut totals = [[0u64; 3]; 3];
    for (name, json) in common::case_files() {
        for (o, &(order, l0_exclusive)) in orders.iter().enumerate() {
            let opts = ImportOptions {
                l0_exclusive,
                ..ImportOptions::default()
            };
            let graph = import_graph(&json, &name, &opts).unwrap();
            let levels = bottom_levels(&graph);
            let mut scheduled = graph.clone();
            scheduled.schedule = match order {
                "mpas" => mpas_order(&graph, &levels, &MpasOptions::default()).unwrap(),
                "stable" => order_by(&graph, Policy::Stable, &levels).unwrap(),
                _ => graph.schedule.clone(),
            };
            scheduled.phase = Phase::Scheduled;
            let name = format!("{name} / {order}");
            let policies = [Victim::Paper, Victim::Cost, Victim::Lru]
                .into_iter()
                .enumerate();
            // Each placement with its own eviction mode (`auto`) and with the other one.
            let modes = [
                (L0Mode::Double, Evict::Auto),
                (L0Mode::Single, Evict::Auto),
                (L0Mode::Double, Evict::Rank),
                (L0Mode::Single, Evict::Window),
            ];
            for ((i, victim), (l0, evict)) in policies.flat_map(|p| modes.map(|m| (p, m))) {
                let options = DlrOptions {
                    victim,
                    l0,
                    evict,
                    prefetch: 0,
                };
                let planned = plan(&scheduled, &options).unwrap();
                let m = &planned.module;
                verify_module(m).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                let replay: Replay = check_plan(m);
                assert_eq!(replay.spills, planned.stats.spills, "{name}");
                assert_eq!(replay.traffic, planned.stats.traffic, "{name}");
                totals[o][i] += planned.stats.traffic;
                eprintln!(
                "{name} {victim:?} {l0:?} {evict:?}: spills {} drops {} traffic {} peak {} reuse {} frag-evictions {}",
                planned.stats.spills,
                planned.stats.drops,
                planned.stats.traffic,
                planned.stats.physical_peak,
                planned.stats.reuse_edges,
                planned.stats.frag_evictions
            );
                // Deterministic.
                assert_eq!(plan(&scheduled, &options).unwrap().module, *m);
                // Text round trip.
                let text = print_module(m);
                assert_eq!(print_module(&parse_module(&text).unwrap()), text, "{name}");
                // Trio round trip.
                let trio = export_trio(m).unwrap();
                let file = |suffix: &str, text: Option<String>| SolutionFile {
                    name: format!("case_{suffix}.txt"),
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
    }
    for ((order, _), [paper, _, lru]) in orders.iter().zip(totals) {
        assert!(paper <= lru, "{order}: paper {paper} > lru {lru}");
    }
}
