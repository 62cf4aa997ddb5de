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
//! Each query "does `to` depend on `from`" is first answered by `to`'s own dependency list; only
//! the rest search backwards from `to` over dependencies, pruned to the ops σ places after
//! `from` (σ is a topological order by the time this runs, so no path to `from` can pass through
//! an earlier op). The searches of one buffer share their marks: a node fully explored without
//! reaching the ALLOC never reaches it. Complexity: O(V + E) when every lifecycle edge is direct;
//! otherwise O(V + E + Σ_b W_b), where W_b counts the ops and dependencies between ALLOC(b) and
//! FREE(b) in σ that are ancestors of one of b's ops (O(B·(V + E)) at worst, a few window-sized
//! walks on tiled workloads).

use crate::ids::{BufferId, OpId};
use crate::module::Module;

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
                if id != a && id != f {
                    users[b.index()].push(id);
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
        search.next_epoch();
        for &op in uses {
            if !search.reaches(m, pos, op, alloc) {
                missing.push(Missing::UseAfterAlloc {
                    op,
                    buffer: b,
                    alloc,
                });
            }
        }
        // The FREE must follow the ALLOC and every use; one walk back from it finds them all.
        let direct = |op: OpId| m.op(free).deps.iter().any(|d| d.op == op);
        let targets: Vec<OpId> = std::iter::once(alloc)
            .chain(uses.iter().copied())
            .filter(|&op| !direct(op))
            .collect();
        if targets.is_empty() {
            continue;
        }
        for op in search.unreached(m, pos, free, &targets) {
            missing.push(Missing::FreeAfterUse {
                op,
                buffer: b,
                free,
            });
        }
    }
    missing
}

/// Marks shared by the walks of one buffer; an epoch counter makes clearing them O(1).
struct Search {
    epoch: u32,
    /// The epoch in which each node was last marked.
    seen: Vec<u32>,
    /// For nodes marked in this epoch by [`Search::reaches`]: whether they reach the ALLOC.
    reach: Vec<bool>,
    stack: Vec<(OpId, usize)>,
}

impl Search {
    fn new(ops: usize) -> Self {
        Search {
            epoch: 0,
            seen: vec![0; ops],
            reach: vec![false; ops],
            stack: Vec::new(),
        }
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // After 2³² buffers the stamps could collide; start over with cleared marks.
            self.seen.fill(0);
            self.epoch = 1;
        }
    }

    fn mark(&mut self, op: OpId, reaches: bool) {
        self.seen[op.index()] = self.epoch;
        self.reach[op.index()] = reaches;
    }

    /// Whether `to` depends on `from`, through any path. A depth-first walk back from `to` that
    /// never steps to an op σ places at or before `from`; when it finds `from`, every op on the
    /// walk's stack reaches it, and every op it finished without finding it does not.
    fn reaches(&mut self, m: &Module, pos: &[usize], to: OpId, from: OpId) -> bool {
        let floor = pos[from.index()];
        if self.seen[to.index()] == self.epoch {
            return self.reach[to.index()];
        }
        self.mark(to, false);
        self.stack.clear();
        self.stack.push((to, 0));
        while let Some(&mut (v, ref mut next)) = self.stack.last_mut() {
            let Some(dep) = m.op(v).deps.get(*next).map(|d| d.op) else {
                self.stack.pop();
                continue;
            };
            *next += 1;
            if dep == from || (self.seen[dep.index()] == self.epoch && self.reach[dep.index()]) {
                while let Some((on_path, _)) = self.stack.pop() {
                    self.mark(on_path, true);
                }
                return true;
            }
            if self.seen[dep.index()] != self.epoch && pos[dep.index()] > floor {
                self.mark(dep, false);
                self.stack.push((dep, 0));
            }
        }
        false
    }

    /// Those of `targets` that `to` does not depend on. One walk back from `to`, pruned to ops σ
    /// places at or after the earliest target, stopping once every target is found. It uses its
    /// own epoch, so the marks of [`Search::reaches`] for this buffer are spent.
    fn unreached(&mut self, m: &Module, pos: &[usize], to: OpId, targets: &[OpId]) -> Vec<OpId> {
        self.next_epoch();
        let floor = targets.iter().map(|t| pos[t.index()]).min().unwrap_or(0);
        let target_epoch = self.epoch;
        self.next_epoch();
        // Targets carry the earlier epoch so that finding one is a single comparison.
        for &t in targets {
            self.seen[t.index()] = target_epoch;
        }
        let mut left = targets.len();
        let mut walk = vec![to];
        self.seen[to.index()] = self.epoch;
        while let Some(v) = walk.pop() {
            for d in &m.op(v).deps {
                let i = d.op.index();
                if self.seen[i] == self.epoch || pos[i] < floor {
                    continue;
                }
                if self.seen[i] == target_epoch {
                    left -= 1;
                }
                self.seen[i] = self.epoch;
                walk.push(d.op);
            }
            if left == 0 {
                return Vec::new();
            }
        }
        // A target the walk reached carries this walk's epoch now; the others kept theirs.
        targets
            .iter()
            .copied()
            .filter(|t| self.seen[t.index()] != self.epoch)
            .collect()
    }
}
