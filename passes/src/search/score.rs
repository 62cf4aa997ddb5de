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
//!
//! **Work.** Every scoring reports the work units it took, the currency of `budget=auto` and
//! `budget=work:N` ([`super::options::Budget`]): V + E to tighten the order, V for its pressure,
//! DLR's own count (ops scanned plus residents and holes visited while evicting, `DlrStats::work`)
//! and, for makespan, the planned module's V + E to build it and [`TIMING_WEIGHT`] × its V + E to
//! time it; realizing a task order costs V ([`realize_work`]), a final-stage run
//! [`FINISH_WEIGHT`] × (V + E) ([`Evaluator::finish_work`]), grouping the tasks and building the
//! portfolio [`BUILD_WEIGHT`] × (V + E) ([`Evaluator::build_work`]). The weights make a unit cost
//! about the same time in each part (measured on Matmul_Case1 and a 36K-node resnet,
//! docs/search.md), and every count is a pure function of the module and the order, so a budget
//! in work is as deterministic as one in steps. [`Allowance`] is what a stage may still spend.
//!
//! Search stage: O((V + E) log V) per candidate, plus the plan and one timing for makespan.

use super::options::{BackEnd, Objective};
use crate::analysis::pressure;
use crate::cpe::{refine, CpeError};
use crate::dlr::{plan_in, scan_tightened, DlrError, Tightened};
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

/// Work units of timing a planned module, per op and dependency.
pub const TIMING_WEIGHT: u64 = 2;
/// Work units of one final-stage run (plan, CPE, verifier), per op and dependency.
pub const FINISH_WEIGHT: u64 = 40;
/// Work units of grouping the tasks and building the portfolio, per op and dependency (about
/// three quarters of a final-stage run's time from 2K to 1M nodes, docs/search.md).
pub const BUILD_WEIGHT: u64 = 30;

/// What a stage of the search may spend: a number of steps, or of work units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Allowance {
    Steps(u64),
    Work(u64),
}

/// What a stage has spent: steps and work units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spent {
    pub(crate) steps: u64,
    pub(crate) work: u64,
}

impl Spent {
    /// What was spent, in `budget`'s currency.
    pub(crate) fn of(self, budget: Allowance) -> Allowance {
        match budget {
            Allowance::Steps(_) => Allowance::Steps(self.steps),
            Allowance::Work(_) => Allowance::Work(self.work),
        }
    }
}

impl std::ops::Sub for Spent {
    type Output = Spent;
    fn sub(self, before: Spent) -> Spent {
        Spent {
            steps: self.steps - before.steps,
            work: self.work - before.work,
        }
    }
}

impl Allowance {
    fn amount(self) -> u64 {
        match self {
            Allowance::Steps(n) | Allowance::Work(n) => n,
        }
    }

    fn with(self, amount: u64) -> Allowance {
        match self {
            Allowance::Steps(_) => Allowance::Steps(amount),
            Allowance::Work(_) => Allowance::Work(amount),
        }
    }

    /// `num / den` of it, rounded down.
    pub(crate) fn part(self, num: u64, den: u64) -> Allowance {
        self.with(self.amount() * num / den)
    }

    /// What is left of it once `part` is taken.
    pub(crate) fn minus(self, part: Allowance) -> Allowance {
        self.with(self.amount().saturating_sub(part.amount()))
    }

    /// Share `c` of `n` equal shares (the first `amount % n` one larger).
    pub(crate) fn share(self, c: usize, n: usize) -> Allowance {
        let (n, c) = (n.max(1) as u64, c as u64);
        self.with(self.amount() / n + u64::from(c < self.amount() % n))
    }

    /// The unit it counts in, as progress is told.
    pub(crate) fn unit(self) -> &'static str {
        match self {
            Allowance::Steps(_) => "steps",
            Allowance::Work(_) => "work units",
        }
    }

    /// How much of it `steps` steps that took `work` units spend.
    pub(crate) fn cost(self, steps: u64, work: u64) -> u64 {
        match self {
            Allowance::Steps(_) => steps,
            Allowance::Work(_) => work,
        }
    }

    /// The amount, in its unit.
    pub(crate) fn total(self) -> u64 {
        self.amount()
    }

    /// Whether nothing is allowed.
    pub(crate) fn is_empty(self) -> bool {
        self.amount() == 0
    }

    /// Whether a stage that has spent `spent` may take another step.
    pub(crate) fn allows(self, spent: Spent) -> bool {
        match self {
            Allowance::Steps(n) => spent.steps < n,
            Allowance::Work(n) => spent.work < n,
        }
    }

    /// How many steps it is worth when a step costs `per_step` work units on average (steps
    /// are steps; at least one).
    pub(crate) fn steps_at(self, per_step: u64) -> u64 {
        match self {
            Allowance::Steps(n) => n,
            Allowance::Work(n) => (n / per_step.max(1)).max(1),
        }
    }
}

/// Work units of realizing a task order of `module`.
pub(crate) fn realize_work(module: &Module) -> u64 {
    module.ops.len() as u64
}

/// V + E of `module`.
fn size(module: &Module) -> u64 {
    module.ops.len() as u64
        + module
            .ops
            .iter()
            .map(|op| op.deps.len() as u64)
            .sum::<u64>()
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
    Evaluator::new(module, objective, back_end)
        .measure(order, None)
        .0
}

/// Scores orders of one module with one back end.
pub(crate) struct Evaluator<'m> {
    /// The module, in phase `scheduled` (its σ is irrelevant).
    pub(crate) module: &'m Module,
    pub(crate) objective: Objective,
    pub(crate) back_end: &'m BackEnd,
    /// V + E of the module.
    size: u64,
}

impl<'m> Evaluator<'m> {
    /// An evaluator of `module`'s orders.
    pub(crate) fn new(module: &'m Module, objective: Objective, back_end: &'m BackEnd) -> Self {
        Evaluator {
            module,
            objective,
            back_end,
            size: size(module),
        }
    }

    /// The same evaluator with another back end (a final-stage run under another victim key).
    pub(crate) fn with_back_end<'b>(&self, back_end: &'b BackEnd) -> Evaluator<'b>
    where
        'm: 'b,
    {
        Evaluator {
            back_end,
            module: self.module,
            objective: self.objective,
            size: self.size,
        }
    }

    /// The work units of tightening an order (V + E).
    pub(crate) fn tighten_work(&self) -> u64 {
        self.size
    }

    /// The work units of one final-stage run ([`Self::finish`]).
    pub(crate) fn finish_work(&self) -> u64 {
        FINISH_WEIGHT * self.size
    }

    /// The work units of grouping the tasks and building the portfolio, counted in full
    /// whatever part of the portfolio a time limit lets the search build.
    pub(crate) fn build_work(&self) -> u64 {
        BUILD_WEIGHT * self.size
    }

    /// The search-stage measure of `order`, `None` when it is infeasible, or when its key is
    /// sure to exceed `bound` (for the peak, the logical peak and its points, from the tightened
    /// order alone, decide that before DLR's scan runs); and the work units it took.
    pub(crate) fn measure(&self, order: &[OpId], bound: Option<&Key>) -> (Option<Measure>, u64) {
        if self.objective == Objective::Makespan {
            // The plan is needed for the timing anyway; its σ is the tightened order with the
            // spill events added, which leave the logical peak unchanged.
            let Ok(planned) = plan_in(self.module, order, &self.back_end.dlr) else {
                return (None, self.size);
            };
            let built = size(&planned.module);
            let work = self.size + planned.stats.work + built + (1 + TIMING_WEIGHT) * built;
            let sigma = &planned.module.schedule;
            let p = pressure(&planned.module, sigma);
            if self.module.target.l0_exclusive && p.l0_max_live > 1 {
                return (None, work);
            }
            let graph = FixedGraph::of(&planned.module);
            let pipes = PipeOrder::of_sigma(&graph, sigma);
            let measure = evaluate(&graph, Some(&pipes)).ok().map(|t| Measure {
                peak: p.logical_peak,
                traffic: planned.stats.traffic,
                spills: planned.stats.spills,
                makespan: t.makespan,
                peak_points: 0,
            });
            return (measure, work);
        }
        self.measure_tightened(&Tightened::of(self.module, order), bound)
    }

    /// [`Self::measure`] of an order already tightened, for the peak and traffic objectives
    /// (the makespan objective plans the order itself), so a caller that tightened it for its
    /// own use does not tighten it again. The work units are those of [`Self::measure`],
    /// tightening included.
    pub(crate) fn measure_tightened(
        &self,
        tightened: &Tightened,
        bound: Option<&Key>,
    ) -> (Option<Measure>, u64) {
        debug_assert!(self.objective != Objective::Makespan);
        let ops = self.module.ops.len() as u64;
        let p = pressure(self.module, tightened.order());
        let work = self.size + ops;
        if self.module.target.l0_exclusive && p.l0_max_live > 1 {
            return (None, work);
        }
        let peak = self.objective == Objective::Peak;
        if peak && bound.is_some_and(|b| [p.logical_peak, p.peak_points] > [b[0], b[1]]) {
            return (None, work);
        }
        match scan_tightened(self.module, tightened, &self.back_end.dlr) {
            Ok(stats) => (
                Some(Measure {
                    peak: p.logical_peak,
                    traffic: stats.traffic,
                    spills: stats.spills,
                    makespan: 0,
                    peak_points: if peak { p.peak_points } else { 0 },
                }),
                work + stats.work,
            ),
            // A failed scan stopped early; it still walked about the whole order.
            Err(_) => (None, work + ops),
        }
    }

    /// The pipeline's own measure of `order`: the back end run for real, replayed by the
    /// verifier.
    pub(crate) fn finish(&self, order: &[OpId]) -> Result<Measure, FinishError> {
        let planned = plan_in(self.module, order, &self.back_end.dlr)?.module;
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
}
