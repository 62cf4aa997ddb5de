//! `order-exact`: a provably optimal σ for one objective, for modules small or narrow enough to
//! enumerate, or a clean refusal.
//!
//! - **peak**: exact over all orders. Every order tightens (DLR's `lifetimes`) into a step
//!   sequence of the [`space`] with a peak no higher, and the planned peak of an order is its
//!   tightened order's, so the least peak over step sequences — found by a best-first search
//!   over the sets of decision ops run ([`peak`]) — is the least over all orders and plans.
//! - **traffic** and **makespan**: exact over all orders *as lattice's back end plans them*
//!   (DLR, and CPE when the back end has it, as they are — not over every conceivable plan):
//!   the back end sees an order only through its tightened form, and [`walk`] scores every
//!   step sequence (with every order of the ALLOCs a step emits together).
//!
//! Every walk stops as soon as an order meets the order-independent bound of its objective
//! ([`crate::analysis::any_order`]; for makespan also the [`cases`] bound of the empty prefix,
//! searched with at most [`ROOT_BUDGET`] bounds, and the [`windows`] bound: the time buffers
//! that cannot share a tier hold it, plus what runs outside it). The makespan walk starts from
//! the best of `order-search`'s orders of the module and of renumbered copies ([`seed`]) and
//! prunes prefixes by the timing paths and SPILL_INs that buffers which cannot share a tier
//! force ([`conflict`]), over the ways each such pair can still be settled ([`cases`]). The
//! state limit makes the pass refuse with an error rather than run away; orders are
//! L0-exclusive by construction and are planned by the pipeline's own back end
//! ([`crate::search::BackEnd`], scored as `order-search` scores its finalists), so
//! `order-exact{…},dlr{…},cpe{…}` yields exactly the plan reported.
//!
//! Cost: peak O(S · d · (s + k) · log S); traffic and makespan O(P · (d + k)) plus a back-end
//! run per complete order, makespan also a prefix bound per step tried, the windows bound and
//! one to four `order-search` runs (see the files). Both are exponential in the width of the
//! module in the worst case, which is what the state limit is for.

mod cases;
mod conflict;
pub mod options;
pub mod pass;
mod peak;
#[cfg(feature = "generate")]
pub mod report;
mod seed;
pub mod space;
mod walk;
mod windows;

pub use options::ExactOptions;
pub use pass::OrderExact;

use crate::analysis::{any_order_bounds, AnyOrderBounds, BoundError};
use crate::search::score::{Evaluator, FinishError, Measure};
use crate::search::Objective;
use conflict::Conflicts;
use lattice_lir::{Module, OpId, Phase};
use space::{Space, TooWide, MAX_DECISIONS};

/// The most bounds the makespan's case split computes for the empty prefix (once per module).
const ROOT_BUDGET: usize = 4096;

/// An optimal order and what the back end makes of it.
#[derive(Clone, Debug)]
pub struct Exact {
    /// The order (legal, L0-exclusive, already tight).
    pub order: Vec<OpId>,
    /// Its metrics through the back end (the verifier's replay).
    pub measure: Measure,
    /// The optimal value of the objective.
    pub optimum: u64,
    /// The order-independent bounds of the module.
    pub bounds: AnyOrderBounds,
    /// States the search visited.
    pub states: u64,
}

/// Why no optimum was returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExactError {
    /// The module already has a memory plan.
    #[error("order-exact cannot reorder a `{0}` module: its memory plan is bound to the current order; run it before planning")]
    Phase(Phase),
    /// The bounds cannot be computed: no order can be planned.
    #[error(transparent)]
    Bound(#[from] BoundError),
    /// Too many decision ops for a state's bitset.
    #[error("order-exact handles at most {MAX_DECISIONS} ops that are not ALLOCs or FREEs; this module has {0}: too large to solve exactly")]
    TooWide(usize),
    /// The search reached its state limit.
    #[error("order-exact gave up after {limit} states without proving an optimum: the module is too large or too wide to solve exactly (raise max-states, or use order-search)")]
    TooManyStates {
        /// The limit.
        limit: u64,
    },
    /// No order keeps one buffer per staging tier live at a time (or none the back end plans).
    #[error("no L0-exclusive order of this module can be planned")]
    NoExclusiveOrder,
    /// The back end failed on the optimal order.
    #[error(transparent)]
    Finish(#[from] FinishError),
}

impl From<TooWide> for ExactError {
    fn from(e: TooWide) -> Self {
        ExactError::TooWide(e.decisions)
    }
}

/// The bound of `objective` among `bounds`.
pub fn bound_of(bounds: &AnyOrderBounds, objective: Objective) -> u64 {
    match objective {
        Objective::Peak => bounds.peak,
        Objective::Traffic => bounds.traffic,
        Objective::Makespan => bounds.makespan,
    }
}

/// An optimal order of an unplanned, structurally verified `module` for `options.objective`.
pub fn exact_order(module: &Module, options: &ExactOptions) -> Result<Exact, ExactError> {
    if module.phase.has_plan() {
        return Err(ExactError::Phase(module.phase));
    }
    let bounds = any_order_bounds(module)?;
    let dag = crate::analysis::Dag::of(module).map_err(BoundError::from)?;
    let space = Space::of(module, &dag)?;
    let work = Module {
        phase: Phase::Scheduled,
        ..module.clone()
    };
    let evaluator = Evaluator::new(&work, options.objective, &options.back_end);
    let limit = options.max_states.get();
    let (order, states) = match options.objective {
        Objective::Peak => {
            let (steps, states) = peak::least_peak(&space, limit)?;
            let mut order = Vec::with_capacity(module.ops.len());
            let mut done = 0u128;
            for d in steps {
                let step = space.step(done, d).ok_or(ExactError::NoExclusiveOrder)?;
                space.emit(d, &step.allocs, &step.frees, &mut order);
                done |= 1u128 << d;
            }
            (order, states)
        }
        objective => {
            let conflicts = (objective == Objective::Makespan).then(|| Conflicts::of(&work, &dag));
            let mut seed = conflicts
                .as_ref()
                .and_then(|_| seed::searched(module, &space, &evaluator));
            let mut lower = bound_of(&bounds, objective);
            if let Some(c) = &conflicts {
                let threshold = seed.as_ref().map_or(u64::MAX, |s| s.0);
                lower = lower.max(cases::split_bound(c, &[], threshold, ROOT_BUDGET));
                lower = lower.max(windows::window_bound(c));
                seed = seed::improved(module, &space, &evaluator, seed, lower);
            }
            let w = walk::least_by_back_end(
                &space,
                &evaluator,
                conflicts.as_ref(),
                seed,
                lower,
                limit,
            )?;
            (w.order, w.states)
        }
    };
    let measure = evaluator.finish(&order)?;
    let optimum = crate::search::score::value(options.objective, &measure);
    Ok(Exact {
        order,
        measure,
        optimum,
        bounds,
        states,
    })
}
