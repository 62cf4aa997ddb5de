//! CPE on every shared workload (`../shared/cases/*.json`, whatever cases are there), after MPAS
//! and DLR as `lattice-opt --mpas --dlr --cpe` runs them. For each case: the refined module
//! passes the independent verifier, is `refined`, keeps every op and dependency, derives the same
//! spill and reuse dependencies from its σ, exports memory and spill files byte-identical to the
//! planned module's, imports back from its trio to a module with the same metrics, keeps the
//! physical and logical peaks (never above Freeze's), spill count and traffic, has a makespan strictly below
//! Freeze's and no lower than the lower bound, and is deterministic. The timing engine and the
//! verifier's replay (two separate implementations of §1.3) agree on both makespans. Prints the
//! per-case makespans (`cargo test -- --nocapture`). A missing `shared/` is a failure.

mod common;

use common::cases;

use lattice_lir::contest::{export_trio, import_solution, SolutionFile};
use lattice_lir::plan_deps::derive_plan_deps;
use lattice_lir::{Dep, Module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::cpe::{refine, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::timing::{evaluate, FixedGraph, PipeOrder};
use lattice_passes::verify::{replay, ReplayOptions};

/// `--mpas --dlr` on an imported case.
fn planned(graph: &Module) -> Module {
    let mut scheduled = graph.clone();
    scheduled.schedule = mpas_order(graph, &bottom_levels(graph), &MpasOptions::default()).unwrap();
    scheduled.phase = Phase::Scheduled;
    plan(&scheduled, &DlrOptions::default()).unwrap().module
}

/// The timing engine's makespan of a module's own σ.
fn engine_makespan(m: &Module) -> u64 {
    let graph = FixedGraph::of(m);
    let order = PipeOrder::of_sigma(&graph, &m.schedule);
    evaluate(&graph, Some(&order)).unwrap().makespan
}

/// Every op's dependencies as a sorted list, the order derivation writes them in aside.
fn dep_sets(m: &Module) -> Vec<Vec<(usize, lattice_lir::DepKind)>> {
    m.ops
        .iter()
        .map(|op| {
            let mut deps: Vec<_> = op
                .deps
                .iter()
                .map(|d: &Dep| (d.op.index(), d.kind))
                .collect();
            deps.sort_unstable();
            deps
        })
        .collect()
}

#[test]
fn cpe_refines_every_case_within_its_plan() {
    for graph in cases() {
        let name = graph.name.clone();
        let freeze = planned(&graph);
        let before = replay(&freeze, &ReplayOptions::default()).metrics;
        assert!(before.valid, "{name}: the plan itself does not verify");

        let refined = refine(&freeze, &CpeOptions::default()).unwrap();
        let m = &refined.module;
        let result = replay(m, &ReplayOptions::default());
        let shown = &result.violations[..result.violations.len().min(5)];
        assert!(result.violations.is_empty(), "{name}: {shown:?}");
        let after = result.metrics;
        assert_eq!(after, refined.metrics, "{name}: reported metrics differ");
        assert_eq!(m.phase, Phase::Refined, "{name}");

        // Only σ changed, and it implies the plan's own dependencies.
        assert_eq!(m.ops, freeze.ops, "{name}: ops changed");
        assert_eq!(m.buffers, freeze.buffers, "{name}: buffers changed");
        let mut derived = m.clone();
        derive_plan_deps(&mut derived);
        assert_eq!(dep_sets(&derived), dep_sets(m), "{name}: reuse orientation");

        // The memory metrics are kept; the makespan drops, within the bound.
        assert!(after.physical_peak <= before.physical_peak, "{name}: peak");
        assert!(
            after.logical_peak <= before.logical_peak,
            "{name}: logical peak"
        );
        assert_eq!(after.spill_count, before.spill_count, "{name}: spills");
        assert_eq!(after.extra_traffic, before.extra_traffic, "{name}: traffic");
        assert!(
            after.makespan < before.makespan,
            "{name}: CPE {} is not below Freeze {}",
            after.makespan,
            before.makespan
        );
        assert!(after.makespan >= after.makespan_lower_bound, "{name}");
        assert_eq!(refined.stats.freeze_makespan, before.makespan, "{name}");
        assert_eq!(refined.stats.final_makespan, after.makespan, "{name}");

        // Two implementations of §1.3 agree.
        assert_eq!(engine_makespan(&freeze), before.makespan, "{name}: Freeze");
        assert_eq!(engine_makespan(m), after.makespan, "{name}: CPE");

        // The trio: memory and spill files as DLR wrote them; it imports back to the same plan.
        let planned_trio = export_trio(&freeze).unwrap();
        let trio = export_trio(m).unwrap();
        assert_eq!(trio.memory, planned_trio.memory, "{name}: memory file");
        assert_eq!(trio.spill, planned_trio.spill, "{name}: spill file");
        let file = |suffix: &str, text: &Option<String>| SolutionFile {
            name: format!("{name}_{suffix}.txt"),
            text: text.clone().unwrap_or_default(),
        };
        let back = import_solution(
            graph.clone(),
            &file("schedule", &Some(trio.schedule.clone())),
            &file("memory", &trio.memory),
            Some(&file("spill", &trio.spill)),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let reimported = replay(&back, &ReplayOptions::default()).metrics;
        assert!(reimported.valid, "{name}: re-imported trio does not verify");
        assert_eq!(reimported.makespan, after.makespan, "{name}");
        assert_eq!(reimported.physical_peak, after.physical_peak, "{name}");

        // Deterministic.
        let again = refine(&freeze, &CpeOptions::default()).unwrap();
        assert_eq!(again.module, *m, "{name}: second run differs");
        assert_eq!(export_trio(&again.module).unwrap(), trio, "{name}");

        eprintln!(
            "{name}: Freeze {} seed {} CPE {} (bound {}, moves {}, peaks {}/{} -> {}/{})",
            before.makespan,
            refined.stats.seed_makespan,
            after.makespan,
            after.makespan_lower_bound,
            refined.stats.moves,
            before.physical_peak,
            before.logical_peak,
            after.physical_peak,
            after.logical_peak
        );
    }
}
