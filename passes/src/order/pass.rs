//! The passes `mpas` and `order{policy=…}`: thin wrappers that take C(v) from the analysis
//! manager, call the policy's plain function, install the order as σ and report statistics.
//!
//! Invariants: a module that already carries a memory plan is refused (its offsets, spills and
//! reuse edges are tied to the old order), so the phase only moves forward, to `scheduled`; σ is
//! replaced only by a complete order (the engine returns nothing else), so a failing pass leaves
//! the module as it was. Reordering keeps the dependencies, so the bottom levels stay valid and are
//! preserved. Statistics: `logical-peak-before`/`-after` (bytes live at once over the non-staging
//! tiers, see [`crate::analysis::pressure()`]), `staging-peak-after` (the largest per-tier peak among
//! the staging tiers) and `l0-max-live-before`/`-after` (most buffers live at once in one staging
//! tier). Per-tier peaks are tier-named, so they come from [`crate::analysis::Pressure`] and the
//! order table rather than fixed statistic names. Cost: the policy's plus two O(V) sweeps.

use super::{
    critical_first_order, input_order, memory_first_order, mpas_order, stable_order, MpasOptions,
    OrderError,
};
use crate::analysis::{pressure, BottomLevels};
use lattice::{option_enum, pass_options, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Module, OpId, Phase};

option_enum! {
    /// The orders `order` can produce (the paper's order-sensitivity variants besides MPAS).
    pub enum Policy {
        /// The incoming σ, with L0 ALLOCs held back as exclusivity needs.
        Input = "input",
        /// Kahn by input position, ALLOC just before its first user, FREE as soon as ready.
        Stable = "stable",
        /// Smallest memory raise, then net allocation, then id (baselines.md §2).
        MemoryFirst = "memory-first",
        /// Largest bottom level, then id (baselines.md §2).
        CriticalFirst = "critical-first",
    }
}

pass_options! {
    /// Options of the `order` pass.
    pub struct OrderOptions {
        /// Which order to produce: input, stable, memory-first or critical-first.
        policy: Policy = Policy::Stable,
    }
}

/// The order of `module` under `policy`; `levels` are its bottom levels.
pub fn order_by(
    module: &Module,
    policy: Policy,
    levels: &BottomLevels,
) -> Result<Vec<OpId>, OrderError> {
    match policy {
        Policy::Input => input_order(module),
        Policy::Stable => stable_order(module),
        Policy::MemoryFirst => memory_first_order(module),
        Policy::CriticalFirst => critical_first_order(module, levels),
    }
}

/// The `mpas` pass.
pub struct Mpas(MpasOptions);

impl RegisteredPass for Mpas {
    const NAME: &'static str = "mpas";
    const SUMMARY: &'static str =
        "Memory-pressure-aware topological scheduling (paper §IV-B): choose σ before planning";
    type Options = MpasOptions;
    fn new(options: MpasOptions) -> Self {
        Mpas(options)
    }
}

impl Pass for Mpas {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let options = &self.0;
        reorder(Self::NAME, module, cx, |module, levels| {
            mpas_order(module, levels, options)
        })
    }
}

/// The `order` pass.
pub struct Order(OrderOptions);

impl RegisteredPass for Order {
    const NAME: &'static str = "order";
    const SUMMARY: &'static str =
        "Reorder σ by a reference policy: input, stable, memory-first or critical-first";
    type Options = OrderOptions;
    fn new(options: OrderOptions) -> Self {
        Order(options)
    }
}

impl Pass for Order {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let policy = self.0.policy;
        reorder(Self::NAME, module, cx, |module, levels| {
            order_by(module, policy, levels)
        })
    }
}

/// What every reordering pass (these two and the order-only baselines) does around its policy.
pub(crate) fn reorder(
    pass: &str,
    module: &mut Module,
    cx: &mut PassContext<'_>,
    policy: impl FnOnce(&Module, &BottomLevels) -> Result<Vec<OpId>, OrderError>,
) -> Result<(), PassError> {
    if module.phase.has_plan() {
        return Err(PassError::new(format!(
            "{pass} cannot reorder a `{}` module: its memory plan is bound to the current order; \
             order before planning",
            module.phase
        )));
    }
    let levels = cx.analysis::<BottomLevels>(module);
    let order = policy(module, &levels)?;
    let before = pressure(module, &module.schedule);
    let after = pressure(module, &order);
    module.schedule = order;
    module.phase = Phase::Scheduled;
    let staging_peak = module
        .target
        .tier_ids()
        .filter(|&t| module.target.tier(t).staging)
        .map(|t| after.tier_peak(t))
        .max()
        .unwrap_or(0);
    cx.statistic(
        "logical-peak-before",
        "bytes live at once over the non-staging tiers, incoming order",
        before.logical_peak,
    );
    cx.statistic(
        "logical-peak-after",
        "bytes live at once over the non-staging tiers, new order",
        after.logical_peak,
    );
    cx.statistic(
        "staging-peak-after",
        "largest per-tier peak of the staging (L0) tiers, new order",
        staging_peak,
    );
    cx.statistic(
        "l0-max-live-before",
        "most buffers live at once in one staging tier, incoming order",
        before.l0_max_live,
    );
    cx.statistic(
        "l0-max-live-after",
        "most buffers live at once in one staging tier, new order",
        after.l0_max_live,
    );
    cx.preserve::<BottomLevels>();
    Ok(())
}
