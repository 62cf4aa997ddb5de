//! CPE's results tables, as Markdown. The first: for every case, the makespan of Freeze (MPAS
//! then DLR, σ as planned), of the seed and of CPE at default settings, the lower bound of
//! DESIGN §1.3 (max of the critical path and the busiest pipe, which no pipe order can beat),
//! the ratio CPE/Freeze (geometric mean last), the spill-in pipe's busy time (MTE2 on the
//! contest core: every load and reload), the physical peak, and the traffic against the
//! fixed-order traffic lower bound of the plan's σ. The second compares the staging placements:
//! the same pipeline with `dlr{l0=single}` (the paper's plans) and with `dlr{l0=double}`.
//!
//! Each case goes through the same pipeline as `lattice-opt --mpas --dlr --cpe`, so the tables
//! are deterministic and follow the cases as given. Cost: that pipeline once per case and
//! placement, plus one traffic bound per case.

use super::{refine, CpeError, CpeOptions};
use crate::analysis::{bottom_levels, traffic_lower_bound};
use crate::dlr::report::gap;
use crate::dlr::{plan, DlrError, DlrOptions, L0Mode};
use crate::order::{mpas_order, MpasOptions, OrderError};
use lattice_lir::{Module, Phase};
use std::fmt::Write as _;

/// Why a case could not be tabulated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// MPAS found no order.
    #[error("{case}: {error}")]
    Order {
        /// The case.
        case: String,
        /// Why.
        error: OrderError,
    },
    /// DLR found no plan.
    #[error("{case}: {error}")]
    Plan {
        /// The case.
        case: String,
        /// Why.
        error: DlrError,
    },
    /// CPE refused the plan.
    #[error("{case}: {error}")]
    Refine {
        /// The case.
        case: String,
        /// Why.
        error: CpeError,
    },
}

/// One case's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// Makespan of the planned σ.
    pub freeze: u64,
    /// Makespan of the seed (0 when none kept the memory budget).
    pub seed: u64,
    /// Makespan after CPE.
    pub cpe: u64,
    /// max(critical path, busiest pipe) of the plan.
    pub lower_bound: u64,
    /// Busy cycles of the target's spill-in pipe after CPE.
    pub spill_in_busy: u64,
    /// Most bytes resident at once.
    pub physical_peak: u64,
    /// Extra DDR traffic of the plan.
    pub traffic: u64,
    /// The fixed-order traffic lower bound of the plan's σ.
    pub traffic_bound: u64,
}

/// MPAS, DLR and CPE (default options) on an imported case.
pub fn case_result(graph: &Module) -> Result<CaseResult, TableError> {
    case_result_with(graph, &DlrOptions::default())
}

/// MPAS, DLR with `dlr` and CPE (default options) on an imported case.
pub fn case_result_with(graph: &Module, dlr: &DlrOptions) -> Result<CaseResult, TableError> {
    let case = || graph.name.clone();
    let mut scheduled = graph.clone();
    scheduled.schedule = mpas_order(graph, &bottom_levels(graph), &MpasOptions::default())
        .map_err(|error| TableError::Order {
            case: case(),
            error,
        })?;
    scheduled.phase = Phase::Scheduled;
    let planned = plan(&scheduled, dlr).map_err(|error| TableError::Plan {
        case: case(),
        error,
    })?;
    let refined =
        refine(&planned.module, &CpeOptions::default()).map_err(|error| TableError::Refine {
            case: case(),
            error,
        })?;
    let metrics = &refined.metrics;
    let spill_in = &graph.target.pipes[graph.target.spill_in_pipe.index()];
    Ok(CaseResult {
        freeze: refined.stats.freeze_makespan,
        seed: refined.stats.seed_makespan,
        cpe: refined.stats.final_makespan,
        lower_bound: metrics.makespan_lower_bound,
        spill_in_busy: metrics.pipe_busy.get(spill_in).copied().unwrap_or(0),
        physical_peak: metrics.physical_peak,
        traffic: metrics.extra_traffic,
        // DLR planned the module, so every op's operands fit their tiers and the bound exists.
        traffic_bound: traffic_lower_bound(&refined.module).map_or(0, |b| b.bytes),
    })
}

/// Both Markdown tables over imported `cases` (the results at default settings, then the
/// staging placements side by side), separated by a blank line. Each case runs the pipeline once
/// per placement: the default is `l0=double`, whose results both tables show.
pub fn results_tables(cases: &[Module]) -> Result<String, TableError> {
    let mut results = Vec::with_capacity(cases.len());
    for graph in cases {
        let single = DlrOptions {
            l0: L0Mode::Single,
            ..DlrOptions::default()
        };
        results.push((case_result(graph)?, case_result_with(graph, &single)?));
    }
    Ok(format!(
        "{}\n{}",
        results_table(cases, &results),
        l0_table(cases, &results)
    ))
}

/// The results table: per case, its default result (`results[i].0`).
fn results_table(cases: &[Module], results: &[(CaseResult, CaseResult)]) -> String {
    let mut md = String::from(
        "| case | Freeze | seed | CPE | lower bound | CPE/Freeze | spill-in pipe busy | physical peak | traffic | traffic bound | gap |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut log_sum = 0.0f64;
    for (graph, (r, _)) in cases.iter().zip(results) {
        let ratio = if r.freeze == 0 {
            1.0
        } else {
            r.cpe as f64 / r.freeze as f64
        };
        log_sum += ratio.ln();
        let seed = if r.seed == 0 {
            "—".to_string()
        } else {
            r.seed.to_string()
        };
        let _ = writeln!(
            md,
            "| {} | {} | {seed} | {} | {} | {ratio:.3} | {} | {} | {} | {} | {} |",
            graph.name,
            r.freeze,
            r.cpe,
            r.lower_bound,
            r.spill_in_busy,
            r.physical_peak,
            r.traffic,
            r.traffic_bound,
            gap(r.traffic, r.traffic_bound)
        );
    }
    if !cases.is_empty() {
        let geomean = (log_sum / cases.len() as f64).exp();
        let _ = writeln!(md, "| **geomean** | | | | | {geomean:.3} | | | | | |");
    }
    md
}

/// The staging placements side by side: `mpas,dlr{l0=single},cpe` (the paper's plans,
/// `results[i].1`) against the default `mpas,dlr{l0=double},cpe` (`results[i].0`), makespan,
/// spill-in pipe busy time and physical peak of each.
fn l0_table(cases: &[Module], results: &[(CaseResult, CaseResult)]) -> String {
    let mut md = String::from(
        "| case | makespan, l0=single | makespan, l0=double | change | spill-in busy, single / double | physical peak, single / double |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for (graph, (double, single)) in cases.iter().zip(results) {
        let change = if single.cpe == 0 {
            0.0
        } else {
            (double.cpe as f64 - single.cpe as f64) * 100.0 / single.cpe as f64
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {change:+.1}% | {} / {} | {} / {} |",
            graph.name,
            single.cpe,
            double.cpe,
            single.spill_in_busy,
            double.spill_in_busy,
            single.physical_peak,
            double.physical_peak
        );
    }
    md
}
