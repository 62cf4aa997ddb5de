//! σ as the replay uses it: the schedule without repeats, and every op's position in it.
//!
//! Coverage is checked here (every op exactly once). Later checks walk `order`, which keeps the
//! first occurrence of each op, so a repeated or missing op is reported once, here, and does not
//! derail them. Requires ids in range ([`super::ids`]). O(V).

use super::category::{Category, Violation};
use lattice_lir::{Module, OpId};

/// Position of an op that σ does not list.
pub(crate) const UNSCHEDULED: usize = usize::MAX;

/// σ without repeats.
pub(crate) struct Sigma {
    /// Ops in σ order, each once.
    pub order: Vec<OpId>,
    /// Position in `order` of every op, indexed by op id; [`UNSCHEDULED`] when missing.
    pub pos: Vec<usize>,
}

impl Sigma {
    /// Whether `op` is scheduled.
    pub fn has(&self, op: OpId) -> bool {
        self.pos[op.index()] != UNSCHEDULED
    }
}

/// Builds σ and reports ops that it misses or repeats.
pub(crate) fn sigma(m: &Module, out: &mut Vec<Violation>) -> Sigma {
    let mut count = vec![0usize; m.ops.len()];
    let mut order = Vec::with_capacity(m.ops.len());
    let mut pos = vec![UNSCHEDULED; m.ops.len()];
    for &id in &m.schedule {
        count[id.index()] += 1;
        if pos[id.index()] == UNSCHEDULED {
            pos[id.index()] = order.len();
            order.push(id);
        }
    }
    for (i, &c) in count.iter().enumerate() {
        if c != 1 {
            let message = format!(
                "σ lists %{} {c} times; every op must appear exactly once",
                m.ops[i].name
            );
            out.push(Violation::new(
                Some(OpId::new(i)),
                Category::Coverage,
                message,
            ));
        }
    }
    Sigma { order, pos }
}
