//! Scoring candidate orders, in two stages.
//!
//! - **Search stage** (`Evaluator::measure`): DLR's scan alone (no IR built) gives spills and
//!   traffic; the logical peak is the pressure of the tightened order DLR would plan. Only the
//!   makespan objective builds the plan, and times it under its own σ (Freeze) — CPE is too slow
//!   to run per candidate, and Freeze is what CPE starts from and never exceeds.
//! - **Final stage** (`Evaluator::finish`): a few finalists run through the real back end
//!   (DLR, then CPE when the pipeline has it) and the independent verifier's replay; those are
//!   the pipeline's own numbers, and the one reported.
//!
//! A candidate whose tightened order would keep two buffers of a staging tier live at once on
//! an L0-exclusive target, or that DLR cannot plan, is infeasible (no score).
//!
//! Keys compare lexicographically: the objective, then the other two metrics, then spills. In
//! the search stage the makespan of the peak and traffic objectives is not measured (0).
//! Search stage: O((V + E) log V) per candidate, plus the plan and one timing for makespan.

use super::options::{BackEnd, Objective};
use crate::analysis::pressure;
use crate::cpe::{refine, CpeError};
use crate::dlr::{plan, scan_tightened, DlrError, Tightened};
use crate::timing::{evaluate, FixedGraph, PipeOrder};
use crate::verify::metrics;
use lattice_lir::{Module, OpId};

/// What one candidate measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measure {
    /// Logical peak (L1+UB) in bytes.
    pub peak: u64,
    /// Extra DDR traffic in bytes.
    pub traffic: u64,
    /// SPILL_OUT events.
    pub spills: u64,
    /// Makespan in cycles (search stage: Freeze's, and only for the makespan objective).
    pub makespan: u64,
    /// Search stage, peak objective: how many points of σ reach the peak (0 otherwise).
    pub peak_points: u64,
}

/// A lexicographic score: smaller is better.
pub(crate) type Key = [u64; 5];

/// The key of `m` under `objective`. For the peak, the number of points at the peak comes
/// second in the search stage (fewer is progress towards a lower peak); it is 0 in the final
/// stage, whose tie-break is the other two metrics, then spills.
pub(crate) fn key(objective: Objective, m: &Measure) -> Key {
    match objective {
        Objective::Peak => [m.peak, m.peak_points, m.traffic, m.makespan, m.spills],
        Objective::Traffic => [m.traffic, m.peak, m.makespan, m.spills, 0],
        Objective::Makespan => [m.makespan, m.peak, m.traffic, m.spills, 0],
    }
}

/// The objective's own value in a measure.
pub(crate) fn value(objective: Objective, m: &Measure) -> u64 {
    key(objective, m)[0]
}

/// Why the final stage failed (a bug or a module no order can plan).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FinishError {
    /// DLR could not plan the order.
    #[error(transparent)]
    Plan(#[from] DlrError),
    /// CPE failed.
    #[error(transparent)]
    Refine(#[from] CpeError),
}

/// The search-stage measure of `order` for a `scheduled` `module` (what one search step
/// computes after realizing its candidate), `None` when the order is infeasible. Public for the
/// criterion bench and for callers that score their own orders.
pub fn measure(
    module: &Module,
    order: &[OpId],
    objective: Objective,
    back_end: &BackEnd,
) -> Option<Measure> {
    Evaluator {
        module,
        objective,
        back_end,
    }
    .measure(order, None)
}

/// Scores orders of one module with one back end.
pub(crate) struct Evaluator<'m> {
    /// The module, in phase `scheduled` (its σ is irrelevant).
    pub(crate) module: &'m Module,
    pub(crate) objective: Objective,
    pub(crate) back_end: &'m BackEnd,
}

impl Evaluator<'_> {
    /// The search-stage measure of `order`, `None` when it is infeasible, or when its key is
    /// sure to exceed `bound` (for the peak, the logical peak and its points, from the tightened
    /// order alone, decide that before DLR's scan runs).
    pub(crate) fn measure(&self, order: &[OpId], bound: Option<&Key>) -> Option<Measure> {
        if self.objective == Objective::Makespan {
            // The plan is needed for the timing anyway; its σ is the tightened order with the
            // spill events added, which leave the logical peak unchanged.
            let planned = plan(&self.with_order(order), &self.back_end.dlr).ok()?;
            let sigma = &planned.module.schedule;
            let p = pressure(&planned.module, sigma);
            if self.module.target.l0_exclusive && p.l0_max_live > 1 {
                return None;
            }
            let graph = FixedGraph::of(&planned.module);
            let pipes = PipeOrder::of_sigma(&graph, sigma);
            return Some(Measure {
                peak: p.logical_peak,
                traffic: planned.stats.traffic,
                spills: planned.stats.spills,
                makespan: evaluate(&graph, Some(&pipes)).ok()?.makespan,
                peak_points: 0,
            });
        }
        let tightened = Tightened::of(self.module, order);
        let p = pressure(self.module, tightened.order());
        if self.module.target.l0_exclusive && p.l0_max_live > 1 {
            return None;
        }
        let peak = self.objective == Objective::Peak;
        if peak && bound.is_some_and(|b| [p.logical_peak, p.peak_points] > [b[0], b[1]]) {
            return None;
        }
        let stats = scan_tightened(self.module, &tightened, &self.back_end.dlr).ok()?;
        Some(Measure {
            peak: p.logical_peak,
            traffic: stats.traffic,
            spills: stats.spills,
            makespan: 0,
            peak_points: if peak { p.peak_points } else { 0 },
        })
    }

    /// The pipeline's own measure of `order`: the back end run for real, replayed by the
    /// verifier.
    pub(crate) fn finish(&self, order: &[OpId]) -> Result<Measure, FinishError> {
        let planned = plan(&self.with_order(order), &self.back_end.dlr)?.module;
        let last = match &self.back_end.cpe {
            Some(options) => refine(&planned, options)?.module,
            None => planned,
        };
        let m = metrics(&last);
        Ok(Measure {
            peak: m.logical_peak,
            traffic: m.extra_traffic,
            spills: m.spill_count,
            makespan: m.makespan,
            peak_points: 0,
        })
    }

    fn with_order(&self, order: &[OpId]) -> Module {
        Module {
            schedule: order.to_vec(),
            ..self.module.clone()
        }
    }
}
