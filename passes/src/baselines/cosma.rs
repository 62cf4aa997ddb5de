//! COSMA (Li, Gupta, Malik, arXiv 2311.18246), command-level (baselines.md §5.2 [ADAPT]): the
//! paper's own path for graphs too large for its joint ILP — a min-peak (M_P, §III-E1) schedule,
//! then fixed-schedule allocation and replacement (§III-E2), the ILP replaced by the deterministic
//! greedy of [`super::cosma_plan`]. The result is a `planned` module: COSMA decides placement and
//! replacement itself, so no `dlr` follows it.
//!
//! Order (`order`): `mpmf-window` (default) is E3 over the Base+A0 op order — windows of W
//! commands, each reordered by the exact frontier DP for the smallest cost(peak) from the live
//! vector the prefix leaves (the §III-E1 objective, with windows as the §IV decomposition);
//! `base` keeps the Base order (pure COSMA FS); `traffic-greedy` is E1 keyed by the eviction
//! bytes the placement policy predicts for running a command now, then raise, then id (a greedy
//! on Eq. 12; [`super::cosma_greedy`]).
//!
//! Placement: the greedy by default; with `ilp-window=N` (N > 0; the spec's `cosma_ilp_window`,
//! off by default) the exact per-tier MILP over windows of N steps of [`super::cosma_ilp`], meant
//! to validate the greedy on small inputs (its windows are capped in size).
//! Complexity: O((V/W) · D_W · W) for the windows, or the greedy's O(V · F · (T + k · R)) bound,
//! plus the placement's O(V log V + misses · R), or the MILPs' (exponential in a window's size).

use super::cosma_greedy::traffic_greedy;
use super::cosma_ilp::{place_ilp, IlpError, IlpStats};
use super::cosma_plan::{place, PlaceError, PlaceStats};
use super::projection::Projection;
use super::window::{reschedule, WindowOptions, WindowStats};
use crate::order::{stable_order, OrderError};
use lattice::{option_enum, pass_options};
use lattice_lir::{Module, OpId, Phase};

option_enum! {
    /// The order COSMA places.
    pub enum CosmaOrder {
        /// E3 min-peak windows over the Base order.
        MpmfWindow = "mpmf-window",
        /// The Base order itself (COSMA FS).
        Base = "base",
        /// E1 keyed by the eviction bytes running a command now would cost (Eq. 12 greedy).
        TrafficGreedy = "traffic-greedy",
    }
}

pass_options! {
    /// Options of the `cosma` pass.
    pub struct CosmaOptions {
        /// The order to place: `mpmf-window` (min-peak windows), `base` or `traffic-greedy`.
        order: CosmaOrder = CosmaOrder::MpmfWindow,
        /// W: most commands per min-peak window.
        #[range(1..=64)]
        window: usize = 12,
        /// Beam of the frontier DP inside a window.
        #[range(1..=4096)]
        max_states: usize = 256,
        /// Offsets are multiples of this many bytes.
        #[range(1..=1048576)]
        align: u64 = 1,
        /// Exact placement: 0 = off (the greedy); N = per-tier MILP windows of N steps (small inputs only).
        #[range(0..=64)]
        ilp_window: usize = 0,
    }
}

/// What COSMA did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CosmaStats {
    /// The min-peak windows.
    pub windows: WindowStats,
    /// The placement.
    pub place: PlaceStats,
    /// The exact placement's MILPs (all zero when `ilp-window` is off).
    pub ilp: IlpStats,
}

/// Why COSMA failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CosmaError {
    /// No legal order.
    #[error(transparent)]
    Order(#[from] OrderError),
    /// No room for a buffer.
    #[error(transparent)]
    Place(#[from] PlaceError),
    /// The exact placement failed.
    #[error(transparent)]
    Ilp(#[from] IlpError),
    /// The module already has a memory plan.
    #[error("cosma cannot reorder a `{0}` module: its memory plan is bound to the current order; run it before planning")]
    Planned(Phase),
}

impl From<CosmaError> for lattice::PassError {
    fn from(e: CosmaError) -> Self {
        match e {
            CosmaError::Order(e) => e.into(),
            CosmaError::Place(PlaceError { op: Some(op), kind }) => {
                lattice::PassError::at(op, kind.to_string())
            }
            CosmaError::Ilp(IlpError { op: Some(op), kind }) => {
                lattice::PassError::at(op, kind.to_string())
            }
            e => lattice::PassError::new(e.to_string()),
        }
    }
}

/// COSMA's order of `module`'s ops (ALLOC/FREE placed by A0).
pub fn cosma_order(
    module: &Module,
    options: &CosmaOptions,
) -> Result<(Vec<OpId>, WindowStats), OrderError> {
    let base = stable_order(module)?;
    if options.order == CosmaOrder::Base {
        return Ok((base, WindowStats::default()));
    }
    let proj = Projection::build(module)?;
    if options.order == CosmaOrder::TrafficGreedy {
        let pi = traffic_greedy(&proj, module, options.align);
        return Ok((proj.expand(&pi)?, WindowStats::default()));
    }
    let pi = proj.commands_of(&base);
    let (pi, stats) = reschedule(
        &proj,
        &pi,
        &[],
        &WindowOptions {
            window: options.window.max(1),
            max_states: options.max_states,
            first: 0,
            blocks: false,
        },
    );
    Ok((proj.expand(&pi)?, stats))
}

/// COSMA end to end: its order, then its placement; a `planned` module.
pub fn cosma(module: &Module, options: &CosmaOptions) -> Result<(Module, CosmaStats), CosmaError> {
    if module.phase.has_plan() {
        return Err(CosmaError::Planned(module.phase));
    }
    let (order, windows) = cosma_order(module, options)?;
    let mut scheduled = module.clone();
    scheduled.schedule = order;
    scheduled.phase = Phase::Scheduled;
    if options.ilp_window > 0 {
        let (planned, ilp) = place_ilp(&scheduled, options.ilp_window, options.align)?;
        let place = ilp.place;
        return Ok((
            planned,
            CosmaStats {
                windows,
                place,
                ilp,
            },
        ));
    }
    let (planned, place) = place(&scheduled, options.align)?;
    Ok((
        planned,
        CosmaStats {
            windows,
            place,
            ilp: IlpStats::default(),
        },
    ))
}
