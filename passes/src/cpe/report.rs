//! The results table of issue 7: for every case, the makespan of Freeze (MPAS then DLR, σ as
//! planned), of the seed and of CPE at default settings, the lower bound of DESIGN §1.3
//! (max of the critical path and the busiest pipe, which no pipe order can beat), and the ratio
//! CPE/Freeze, with the geometric mean of the ratios as the last line — as Markdown.
//!
//! Each case goes through the same pipeline as `lattice-opt --mpas --dlr --cpe`, so the table
//! is deterministic and follows the cases as given. Cost: that pipeline once per case.

use super::{refine, CpeError, CpeOptions};
use crate::analysis::bottom_levels;
use crate::dlr::{plan, DlrError, DlrOptions};
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
}

/// MPAS, DLR and CPE (default options) on an imported case.
pub fn case_result(graph: &Module) -> Result<CaseResult, TableError> {
    let case = || graph.name.clone();
    let mut scheduled = graph.clone();
    scheduled.schedule = mpas_order(graph, &bottom_levels(graph), &MpasOptions::default())
        .map_err(|error| TableError::Order {
            case: case(),
            error,
        })?;
    scheduled.phase = Phase::Scheduled;
    let planned = plan(&scheduled, &DlrOptions::default()).map_err(|error| TableError::Plan {
        case: case(),
        error,
    })?;
    let refined =
        refine(&planned.module, &CpeOptions::default()).map_err(|error| TableError::Refine {
            case: case(),
            error,
        })?;
    Ok(CaseResult {
        freeze: refined.stats.freeze_makespan,
        seed: refined.stats.seed_makespan,
        cpe: refined.stats.final_makespan,
        lower_bound: refined.metrics.makespan_lower_bound,
    })
}

/// The Markdown table over imported `cases`.
pub fn results_table(cases: &[Module]) -> Result<String, TableError> {
    let mut md = String::from(
        "| case | Freeze | seed | CPE | lower bound | CPE/Freeze |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    let mut log_sum = 0.0f64;
    for graph in cases {
        let r = case_result(graph)?;
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
            "| {} | {} | {seed} | {} | {} | {ratio:.3} |",
            graph.name, r.freeze, r.cpe, r.lower_bound
        );
    }
    if !cases.is_empty() {
        let geomean = (log_sum / cases.len() as f64).exp();
        let _ = writeln!(md, "| **geomean** | | | | | {geomean:.3} |");
    }
    Ok(md)
}
