//! Lifecycle dependencies: every op that names a buffer depends on the buffer's ALLOC, and the
//! buffer's FREE depends on every such op, directly or through other ops.
//!
//! Why the structural verifier demands them rather than the pipeline deriving them: σ alone
//! orders an ALLOC before its uses, but the timing model (DESIGN §1.3) starts an op as soon as its
//! dependencies and its pipe allow, so a use with no path from its ALLOC may run before the
//! buffer's bytes are held, and a FREE with no path from a use may hand the bytes to another
//! buffer while the use still runs. Every plan of such a module would be rejected by the replay,
//! and which edge the author meant (use after ALLOC, or a producer that should have been there)
//! cannot be guessed without changing the program's meaning, so the module is refused at parse or
//! import with the missing edge named. Contest graphs always carry these paths; a front end that
//! drops one has a bug worth hearing about.
//!
//! Each query "which of these does `to` depend on" is first answered by `to`'s own dependency
//! list; only the rest are looked for by a breadth-first walk back from `to` over dependencies,
//! pruned to the ops σ places at or after the earliest one asked about (σ is a topological order
//! by the time this runs, so no path to it can pass through an earlier op), and stopped as soon
//! as all are found. Complexity: O(V + E) when every lifecycle edge is direct; otherwise each
//! walk visits at most the ancestors of its op inside its buffer's σ window and, lifecycle paths
//! being short, usually a few levels of them: O(Σ over walks of the dependencies within the
//! walk's depth), O(B·(V + E)) at worst (a module whose uses all miss their paths).

use crate::ids::{BufferId, OpId};
use crate::module::Module;
use std::collections::VecDeque;

/// A lifecycle dependency the module lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// `op` names the buffer but does not depend on its ALLOC.
    UseAfterAlloc {
        /// The op naming the buffer.
        op: OpId,
        /// The buffer.
        buffer: BufferId,
        /// Its ALLOC.
        alloc: OpId,
    },
    /// The buffer's FREE does not depend on `op`, which names the buffer (or is its ALLOC).
    FreeAfterUse {
        /// The op the FREE must follow.
        op: OpId,
        /// The buffer.
        buffer: BufferId,
        /// Its FREE.
        free: OpId,
    },
}

/// The lifecycle dependencies missing from `m`, per buffer in declaration order and, within a
/// buffer, in σ order. `pos` is σ position by op id and σ must respect every dependency;
/// `spans[b]` is buffer b's (ALLOC, FREE), or `None` for a buffer whose lifecycle is already
/// reported broken (it is skipped).
pub(crate) fn missing_lifecycle_deps(
    m: &Module,
    pos: &[usize],
    spans: &[Option<(OpId, OpId)>],
) -> Vec<Missing> {
    let mut users: Vec<Vec<OpId>> = vec![Vec::new(); m.buffers.len()];
    for &id in &m.schedule {
        let kind = &m.op(id).kind;
        for &b in kind.buffers() {
            if let Some((a, f)) = spans[b.index()] {
                // An op naming the buffer twice is one use (σ visits it once, so a repeat is
                // the last one pushed).
                let list = &mut users[b.index()];
                if id != a && id != f && list.last() != Some(&id) {
                    list.push(id);
                }
            }
        }
    }
    let mut search = Search::new(m.ops.len());
    let mut missing = Vec::new();
    for b in m.buffer_ids() {
        let Some((alloc, free)) = spans[b.index()] else {
            continue;
        };
        let uses = &users[b.index()];
        for &op in uses {
            if !search.reaches(m, pos, op, &[alloc]).is_empty() {
                missing.push(Missing::UseAfterAlloc {
                    op,
                    buffer: b,
                    alloc,
                });
            }
        }
        // The FREE must follow the ALLOC and every use; one walk back from it finds them all.
        let targets: Vec<OpId> = std::iter::once(alloc).chain(uses.iter().copied()).collect();
        for op in search.reaches(m, pos, free, &targets) {
            missing.push(Missing::FreeAfterUse {
                op,
                buffer: b,
                free,
            });
        }
    }
    missing
}

/// Marks of the walks; an epoch counter makes clearing them O(1).
struct Search {
    epoch: u32,
    /// The epoch in which each op was last reached by a walk.
    seen: Vec<u32>,
    /// The epoch in which each op was last made a target.
    target: Vec<u32>,
    queue: VecDeque<OpId>,
}

impl Search {
    fn new(ops: usize) -> Self {
        Search {
            epoch: 0,
            seen: vec![0; ops],
            target: vec![0; ops],
            queue: VecDeque::new(),
        }
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After 2³² walks the stamps could collide; start over with cleared marks.
            self.seen.fill(0);
            self.target.fill(0);
            self.epoch = 1;
        }
    }

    /// Those of `targets` that `to` does not depend on, in the order given. `to`'s own
    /// dependency list answers most; the rest are looked for by a breadth-first walk back from
    /// `to` that never steps to an op σ places before the earliest target and stops once every
    /// target is found. Breadth first because a lifecycle path is short (a use's producer
    /// depends on the ALLOC, a FREE on the last use): a depth-first walk would wander through a
    /// long-lived buffer's whole window before coming back to them.
    fn reaches(&mut self, m: &Module, pos: &[usize], to: OpId, targets: &[OpId]) -> Vec<OpId> {
        self.next_epoch();
        let epoch = self.epoch;
        for &t in targets {
            self.target[t.index()] = epoch;
        }
        let mut left = targets.len();
        for d in &m.op(to).deps {
            let i = d.op.index();
            if self.target[i] == epoch && self.seen[i] != epoch {
                self.seen[i] = epoch;
                left -= 1;
            }
        }
        if left > 0 {
            let floor = targets.iter().map(|t| pos[t.index()]).min().unwrap_or(0);
            self.queue.clear();
            self.queue.push_back(to);
            while let Some(v) = self.queue.pop_front() {
                for d in &m.op(v).deps {
                    let i = d.op.index();
                    if pos[i] < floor {
                        continue;
                    }
                    if self.seen[i] != epoch {
                        self.seen[i] = epoch;
                        if self.target[i] == epoch {
                            left -= 1;
                        }
                        self.queue.push_back(d.op);
                    } else if v == to {
                        // A direct dependency already counted above; walk on from it.
                        self.queue.push_back(d.op);
                    }
                }
                if left == 0 {
                    break;
                }
            }
        }
        if left == 0 {
            return Vec::new();
        }
        targets
            .iter()
            .copied()
            .filter(|t| self.seen[t.index()] != epoch)
            .collect()
    }
}
