//! Resource-order slack (paper Eq. 9): slack(v) = start under Freeze − earliest start under
//! G_fixed alone. Positive slack is delay that comes from the pipe order, not from the memory
//! plan's dependencies, so it is what a refinement of the pipe order can win back. Never negative:
//! adding the pipe chains only adds constraints. O(V).

use super::eval::Times;

/// slack(v) for every op, indexed by op id.
pub fn slack(freeze: &Times, fixed: &Times) -> Vec<u64> {
    freeze
        .start
        .iter()
        .zip(&fixed.start)
        .map(|(&s, &e)| s.saturating_sub(e))
        .collect()
}
