//! The order-independent lower bounds of a module together — peak, traffic, makespan — as
//! `--metrics`, the bench tables and `order-exact` report them. Each is argued in its own file
//! ([`super::peak_bound`], [`super::cover_bound`], [`super::makespan_bound`]); this one builds
//! the [`Dag`] once and computes the three. Cost: the sum of theirs.

use super::cover_bound::{cover_bound, CoverError};
use super::dag::{CycleError, Dag};
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
    let cover = cover_bound(module, &dag)?;
    Ok(AnyOrderBounds {
        peak: peak_lower_bound(module, &dag).bytes,
        traffic: cover.traffic,
        makespan: makespan_bound(module, &dag, &cover).cycles,
    })
}
