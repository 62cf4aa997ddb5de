//! The order-independent lower bounds of a module together — peak, traffic, makespan — as
//! `--metrics`, the bench tables and `order-exact` report them. Each is argued in its own file
//! ([`super::peak_bound`], [`super::cover_bound`], [`super::first_free`],
//! [`super::makespan_bound`]); this one builds the [`Dag`] once and takes, for peak and traffic
//! and the spill cycles the makespan bound adds, the larger of the must-live and the first-FREE
//! bounds (each holds for every order and plan, so their maximum does). Cost: the sum of theirs.

use super::cover_bound::{cover_bound, CoverError};
use super::dag::{CycleError, Dag};
use super::first_free::first_free;
use super::makespan_bound::makespan_bound;
use super::peak_bound::peak_lower_bound;
use lattice_lir::Module;

/// No order and plan of the module does better than any of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnyOrderBounds {
    /// Logical peak (L1+UB) in bytes.
    pub peak: u64,
    /// Extra DDR traffic in bytes.
    pub traffic: u64,
    /// Makespan in cycles.
    pub makespan: u64,
    /// The first-FREE search stopped at its work cap: peak, traffic and makespan may be weaker
    /// than it would prove uncapped (still sound).
    pub capped: bool,
}

/// Why the bounds do not exist: no order of the module can be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoundError {
    /// The dependencies form a cycle.
    #[error(transparent)]
    Cycle(#[from] CycleError),
    /// An op's operands overfill a tier, or the LP failed.
    #[error(transparent)]
    Cover(#[from] CoverError),
}

/// The three bounds of `module` (any phase).
pub fn any_order_bounds(module: &Module) -> Result<AnyOrderBounds, BoundError> {
    let dag = Dag::of(module)?;
    let mut cover = cover_bound(module, &dag)?;
    let first = first_free(module, &dag);
    cover.traffic = cover.traffic.max(first.traffic);
    for (pipe, cycles) in &mut cover.spill_cycles {
        let forced = first.spill_cycles.iter().find(|(p, _)| p == pipe);
        *cycles = (*cycles).max(forced.map_or(0, |f| f.1));
    }
    let staging = |t: usize| module.target.tiers[t].staging;
    let per_tier = (0..first.live.len()).filter(|&t| !staging(t));
    Ok(AnyOrderBounds {
        peak: per_tier
            .map(|t| first.live[t])
            .fold(peak_lower_bound(module, &dag).bytes, u64::max),
        traffic: cover.traffic,
        makespan: makespan_bound(module, &dag, &cover).cycles,
        capped: first.capped,
    })
}
