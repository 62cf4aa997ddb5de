//! Downstream bottom levels: C(v) = c_v + max over successors w of C(w), zero past a sink
//! (paper Eq. 3), over every dependency the module has (precedence, and spill and reuse once
//! planned).
//!
//! Computed by one sweep of σ backwards: σ lists every dependency before its user (a verified
//! module guarantees it), so all successors of an op are final when the sweep reaches it.
//! O(V + E) time, O(V) space.

use lattice::{Analysis, AnalysisManager};
use lattice_lir::{Module, OpId};

/// C(v) for every op, indexed by op id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BottomLevels(pub Vec<u64>);

impl BottomLevels {
    /// C(op).
    pub fn of(&self, op: OpId) -> u64 {
        self.0[op.index()]
    }

    /// The length of the longest dependency chain in cycles (max over ops of C).
    pub fn critical_path(&self) -> u64 {
        self.0.iter().copied().max().unwrap_or(0)
    }
}

impl Analysis for BottomLevels {
    const NAME: &'static str = "bottom-levels";
    fn compute(module: &Module, _: &mut AnalysisManager) -> Self {
        bottom_levels(module)
    }
}

/// Computes C(v) for every op of a structurally valid module.
pub fn bottom_levels(module: &Module) -> BottomLevels {
    let mut below = vec![0u64; module.ops.len()];
    let mut level = vec![0u64; module.ops.len()];
    for &id in module.schedule.iter().rev() {
        let op = module.op(id);
        let c = op.kind.cycles().saturating_add(below[id.index()]);
        level[id.index()] = c;
        for dep in &op.deps {
            let slot = &mut below[dep.op.index()];
            *slot = (*slot).max(c);
        }
    }
    BottomLevels(level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn bottom_level_is_own_cycles_plus_longest_successor_chain() {
        let module = parse_module(
            "module @m phase(parsed) {
               target { tiers L1 = 64 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               %0 = alloc @b0
               %1 = OP P 5 (@b0) after(%0)
               %2 = OP P 7 (@b0) after(%0)
               %3 = OP P 1 (@b0) after(%1, %2)
               %4 = free @b0 after(%3)
             }",
        )
        .unwrap();
        let levels = bottom_levels(&module);
        assert_eq!(levels.0, vec![8, 6, 8, 1, 0]);
        assert_eq!(levels.critical_path(), 8);
    }
}
