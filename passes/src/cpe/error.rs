//! Why CPE refused a module, as a typed error. Every variant concerns the whole module (CPE
//! changes σ only, so there is no single op to blame), and converts into a pass failure. O(1).

use crate::timing::Cyclic;
use lattice_lir::Phase;

/// CPE cannot refine this module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CpeError {
    /// The module carries no memory plan to preserve.
    #[error("cpe refines `planned` modules, but this one is `{0}`; run dlr first")]
    Phase(Phase),
    /// The incoming plan does not pass the verifier, so there is no valid Freeze to start from.
    #[error("cpe needs a valid plan to start from, but the verifier reports {count} violation(s), first: {first}; run verify for all of them")]
    InvalidPlan {
        /// How many violations.
        count: usize,
        /// The first, as text.
        first: String,
    },
    /// σ, the dependencies and the residency edges form a cycle (only possible in a module
    /// the verifier rejects, which the check above catches first).
    #[error("cpe found no order: {0}")]
    Cyclic(#[from] Cyclic),
}

impl From<CpeError> for lattice::PassError {
    fn from(e: CpeError) -> Self {
        lattice::PassError::new(e.to_string())
    }
}
