//! Base, the paper's normalisation reference (baselines.md §2 [INFER]): the `stable` order (the
//! input order with each ALLOC just before its first user and each FREE as soon as it is ready,
//! A0), planned by DLR with the LRU victim, and no CPE — the plan's own per-pipe order is the
//! timing ("Freeze"). The paper's stage-attribution start, "Original+LRU+Freeze", is the same
//! pipeline.
//!
//! `lattice-opt --base` is exactly `--pass-pipeline='order{policy=stable},dlr{victim=lru l0=single}'`
//! (a test checks that both print the same module); the pass exists so that every baseline of
//! the evaluation is one flag. Complexity: the stable order's O((V + E) log V) plus DLR's.

use crate::dlr::{plan, DlrError, DlrOptions, L0Mode, Plan, Victim};
use crate::order::{stable_order, OrderError};
use lattice_lir::{Module, Phase};

/// Why Base failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BaseError {
    /// No legal order.
    #[error(transparent)]
    Order(#[from] OrderError),
    /// DLR could not plan the order.
    #[error(transparent)]
    Plan(#[from] DlrError),
    /// The module already has a memory plan.
    #[error("base cannot reorder a `{0}` module: its memory plan is bound to the current order; run it before planning")]
    Planned(Phase),
}

impl From<BaseError> for lattice::PassError {
    fn from(e: BaseError) -> Self {
        match e {
            BaseError::Order(e) => e.into(),
            BaseError::Plan(e) => e.into(),
            e => lattice::PassError::new(e.to_string()),
        }
    }
}

/// Base on `module`: the stable order planned by DLR with LRU victims.
pub fn base(module: &Module) -> Result<Plan, BaseError> {
    if module.phase.has_plan() {
        return Err(BaseError::Planned(module.phase));
    }
    let mut scheduled = module.clone();
    scheduled.schedule = stable_order(module)?;
    scheduled.phase = Phase::Scheduled;
    Ok(plan(
        &scheduled,
        &DlrOptions {
            victim: Victim::Lru,
            l0: L0Mode::Single,
            ..DlrOptions::default()
        },
    )?)
}
