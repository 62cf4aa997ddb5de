//! What the integration tests share: the shipped workloads (`../shared/cases/*.json`, whatever
//! cases are there, sorted by name; a missing `shared/` is a failure, not a skip), and the
//! independent check DLR's tests hold plans to: the `verify` replay (written from DESIGN §1.3 and
//! sharing no code with DLR) must find no violation, and its recomputed spill count and traffic
//! are returned for comparison with DLR's own statistics; the verifier tests compare the set of
//! violation categories a replay finds.

// Each test binary compiles this module and uses a subset of it.
#![allow(dead_code)]

use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::{Module, OpId, Phase, Target};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::cpe::refine;
use lattice_passes::dlr::plan;
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::search::{BackEnd, Measure};
use lattice_passes::verify::{replay, Category, ReplayOptions};
use std::collections::BTreeSet;
use std::path::Path;

/// What the replay recomputed.
#[derive(Debug)]
pub struct Replay {
    /// SPILL_OUT count.
    pub spills: u64,
    /// Extra DDR traffic.
    pub traffic: u64,
}

/// Panics with the first violations the replay finds.
pub fn check_plan(m: &Module) -> Replay {
    let result = replay(m, &ReplayOptions::default());
    let shown = &result.violations[..result.violations.len().min(5)];
    assert!(result.violations.is_empty(), "{}: {shown:?}", m.name);
    Replay {
        spills: result.metrics.spill_count,
        traffic: result.metrics.extra_traffic,
    }
}

/// The back end (`dlr`, then `cpe` when `back_end` has it) run on `order` for real: the replay's
/// metrics, after checking the plan.
pub fn pipeline(m: &Module, order: &[OpId], back_end: &BackEnd) -> Measure {
    let scheduled = Module {
        schedule: order.to_vec(),
        phase: Phase::Scheduled,
        ..m.clone()
    };
    let planned = plan(&scheduled, &back_end.dlr)
        .unwrap_or_else(|e| panic!("{}: dlr: {e}", m.name))
        .module;
    let last = match &back_end.cpe {
        Some(options) => {
            refine(&planned, options)
                .unwrap_or_else(|e| panic!("{}: cpe: {e}", m.name))
                .module
        }
        None => planned,
    };
    let result = replay(&last, &ReplayOptions::default());
    let shown = &result.violations[..result.violations.len().min(3)];
    assert!(result.violations.is_empty(), "{}: {shown:?}", m.name);
    let r = result.metrics;
    Measure {
        peak: r.logical_peak,
        traffic: r.extra_traffic,
        spills: r.spill_count,
        makespan: r.makespan,
        peak_points: 0,
    }
}

/// The categories of every violation the default replay finds in `m`.
pub fn categories(m: &Module) -> BTreeSet<Category> {
    replay(m, &ReplayOptions::default())
        .violations
        .iter()
        .map(|v| v.category)
        .collect()
}

/// Every shipped case as `(name, contest JSON)`, sorted by name.
pub fn case_files() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (shared/ must sit beside the checkout)",
            dir.display()
        )
    });
    let mut out: Vec<(String, String)> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no cases in {}", dir.display());
    out
}

/// Every shipped case imported with the default options (L0 exclusivity on).
pub fn cases() -> Vec<Module> {
    case_files()
        .iter()
        .map(|(name, json)| import_graph(json, name, &ImportOptions::default()).unwrap())
        .collect()
}

/// The contest core with every non-staging tier cut to `percent` % of its capacity (at least
/// the generator's minimum), so plans of generated workloads must spill.
pub fn shrunk(percent: u64) -> Target {
    let mut target = Target::contest();
    for tier in &mut target.tiers {
        if !tier.staging {
            tier.capacity =
                (tier.capacity * percent / 100).max(lattice_passes::generate::MIN_CAPACITY);
        }
    }
    target
}

/// `m` in MPAS's order, `scheduled`, ready for DLR.
pub fn scheduled(m: &Module) -> Module {
    let order = mpas_order(m, &bottom_levels(m), &MpasOptions::default()).expect("mpas orders");
    Module {
        schedule: order,
        phase: Phase::Scheduled,
        ..m.clone()
    }
}
