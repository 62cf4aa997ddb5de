//! Buffer lifetimes in σ: for every buffer, the positions of its ALLOC and FREE and of the first
//! and last op between them that names it (compute and spill ops).
//!
//! One sweep of σ; O(V + total operand count) time, O(B) space.

use lattice::{Analysis, AnalysisManager};
use lattice_lir::{BufferId, Module, OpKind};

/// Where one buffer lives in σ (positions; `None` when the op is absent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lifetime {
    /// Position of the ALLOC.
    pub alloc: Option<usize>,
    /// Position of the first op using the buffer.
    pub first_use: Option<usize>,
    /// Position of the last op using the buffer.
    pub last_use: Option<usize>,
    /// Position of the FREE.
    pub free: Option<usize>,
}

/// The lifetime of every buffer, indexed by buffer id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferUses(pub Vec<Lifetime>);

impl BufferUses {
    /// The lifetime of `buffer`.
    pub fn of(&self, buffer: BufferId) -> Lifetime {
        self.0[buffer.index()]
    }
}

impl Analysis for BufferUses {
    const NAME: &'static str = "buffer-uses";
    fn compute(module: &Module, _: &mut AnalysisManager) -> Self {
        buffer_uses(module)
    }
}

/// Computes every buffer's lifetime positions.
pub fn buffer_uses(module: &Module) -> BufferUses {
    let mut lifetimes = vec![Lifetime::default(); module.buffers.len()];
    for (pos, &id) in module.schedule.iter().enumerate() {
        let kind = &module.op(id).kind;
        for buffer in kind.buffers() {
            let life = &mut lifetimes[buffer.index()];
            match kind {
                OpKind::Alloc { .. } => life.alloc = Some(pos),
                OpKind::Free { .. } => life.free = Some(pos),
                _ => {
                    life.first_use.get_or_insert(pos);
                    life.last_use = Some(pos);
                }
            }
        }
    }
    BufferUses(lifetimes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn lifetimes_record_alloc_uses_and_free_positions() {
        let module = parse_module(
            "module @m phase(parsed) {
               target { tiers L1 = 64 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               buffer @b1 : L1[8]
               %0 = alloc @b0
               %1 = alloc @b1
               %2 = OP P 5 (@b0) after(%0)
               %3 = OP P 1 (@b0, @b1) after(%1, %2)
               %4 = free @b0 after(%3)
             }",
        )
        .unwrap();
        let uses = buffer_uses(&module);
        let b0 = uses.of(BufferId::new(0));
        assert_eq!(
            b0,
            Lifetime {
                alloc: Some(0),
                first_use: Some(2),
                last_use: Some(3),
                free: Some(4)
            }
        );
        assert_eq!(uses.of(BufferId::new(1)).free, None);
    }
}
