//! The graph every ordering policy traverses: one node per op, and an edge u → v whenever u must
//! come before v — an `after(...)` dependency, a buffer lifetime (ALLOC(b) → each op naming b →
//! FREE(b), and ALLOC(b) → FREE(b)), or an L0 turn of the gate ([`super::gate`]). Which turns a
//! graph gets (the input's or a derived order's) is decided in [`super::turns`]; this file only
//! assembles and answers questions.
//!
//! Lifetime edges are added even when the input spells them as dependencies (the contest traces
//! do), so every emitted order keeps every buffer's uses inside its lifetime whatever the input
//! says. Edges are stored as compressed successor and predecessor lists without duplicates, so a
//! node's pending-predecessor count drops to zero exactly when all its distinct predecessors ran.
//! Dependencies naming an op outside the arena are ignored (the structural verifier reports them).
//! O(V + E + operands + B log B) time and space.

use super::error::{Link, TurnSearch};
use super::gate::L0Turns;
use lattice_lir::{BufferId, Module, OpId, OpKind, TierId};

/// What a node is, as far as ordering cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Starts the lifetime of a buffer.
    Alloc(BufferId),
    /// Ends the lifetime of a buffer.
    Free(BufferId),
    /// Any other op.
    Work,
}

/// What the graph is assembled from, besides the edges.
#[derive(Clone)]
pub(super) struct Parts {
    /// Position of every op in the incoming σ.
    pub(super) position: Vec<usize>,
    roles: Vec<Role>,
    /// Per buffer: its first ALLOC.
    pub(super) alloc_of: Vec<Option<OpId>>,
    free_of: Vec<Option<OpId>>,
}

impl Parts {
    /// The roles, lifetimes and positions of `module`'s ops. O(V + B).
    pub(super) fn of(module: &Module) -> Self {
        let mut alloc_of = vec![None; module.buffers.len()];
        let mut free_of = vec![None; module.buffers.len()];
        let roles: Vec<Role> = module
            .op_ids()
            .map(|id| match module.op(id).kind {
                OpKind::Alloc { buffer, .. } => {
                    alloc_of[buffer.index()].get_or_insert(id);
                    Role::Alloc(buffer)
                }
                OpKind::Free { buffer } => {
                    free_of[buffer.index()].get_or_insert(id);
                    Role::Free(buffer)
                }
                _ => Role::Work,
            })
            .collect();
        Parts {
            position: module.schedule_positions(),
            roles,
            alloc_of,
            free_of,
        }
    }
}

/// The precedence graph of one module.
pub(crate) struct Graph<'m> {
    /// The module the graph describes.
    pub(crate) module: &'m Module,
    /// Position of every op in the incoming σ.
    pub(crate) position: Vec<usize>,
    roles: Vec<Role>,
    succ_start: Vec<usize>,
    succ: Vec<OpId>,
    pred_start: Vec<usize>,
    pred: Vec<OpId>,
    free_of: Vec<Option<OpId>>,
    turns: L0Turns,
    /// How the search for turns from the graph ended, when the input's own turns close a cycle
    /// and it found none.
    pub(crate) turn_search: Option<TurnSearch>,
}

impl<'m> Graph<'m> {
    /// The graph of `module` with the L0 turns `turns` (none, the input's, or a witness order's).
    pub(super) fn assemble(module: &'m Module, parts: Parts, turns: L0Turns) -> Self {
        let n = module.ops.len();
        let Parts {
            position,
            roles,
            alloc_of,
            free_of,
        } = parts;
        let mut edges: Vec<(OpId, OpId)> = Vec::with_capacity(module.dep_count() + 2 * n);
        for id in module.op_ids() {
            let op = module.op(id);
            edges.extend(
                op.deps
                    .iter()
                    .filter(|d| d.op.index() < n)
                    .map(|d| (d.op, id)),
            );
            if roles[id.index()] != Role::Work {
                continue;
            }
            for &buffer in op.kind.buffers() {
                edges.extend(alloc_of[buffer.index()].map(|a| (a, id)));
                edges.extend(free_of[buffer.index()].map(|f| (id, f)));
            }
        }
        for buffer in module.buffer_ids() {
            let (alloc, free) = (alloc_of[buffer.index()], free_of[buffer.index()]);
            edges.extend(alloc.zip(free));
            let previous_free = turns.previous(buffer).and_then(|p| free_of[p.index()]);
            edges.extend(previous_free.zip(alloc));
        }

        let (succ_start, succ) = adjacency(n, edges.iter().copied());
        let (pred_start, pred) = adjacency(
            n,
            (0..n).flat_map(|u| {
                succ[succ_start[u]..succ_start[u + 1]]
                    .iter()
                    .map(move |&v| (v, OpId::new(u)))
            }),
        );
        Graph {
            module,
            position,
            roles,
            succ_start,
            succ,
            pred_start,
            pred,
            free_of,
            turns,
            turn_search: None,
        }
    }

    /// Whether the graph has no cycle (a Kahn count). O(V + E).
    pub(super) fn acyclic(&self) -> bool {
        self.topological().len() == self.len()
    }

    /// The ops in a topological order; shorter than [`Graph::len`] when there is a cycle (its
    /// ops and everything after them are left out).
    pub(crate) fn topological(&self) -> Vec<OpId> {
        let mut missing: Vec<usize> = (0..self.len())
            .map(|v| self.preds(OpId::new(v)).len())
            .collect();
        let mut ready: Vec<OpId> = (0..self.len())
            .filter(|&v| missing[v] == 0)
            .map(OpId::new)
            .collect();
        let mut order = Vec::with_capacity(self.len());
        while let Some(v) = ready.pop() {
            order.push(v);
            for &s in self.succs(v) {
                missing[s.index()] -= 1;
                if missing[s.index()] == 0 {
                    ready.push(s);
                }
            }
        }
        order
    }

    /// The key of the gate's witness σ' per op: (incoming position, 0), and for a FREE
    /// (position of the last op it waits for, 1), so each FREE sorts just after what it waits
    /// for; the op's own position breaks ties.
    pub(crate) fn reference_keys(&self) -> Vec<(usize, u8, usize)> {
        (0..self.len())
            .map(|v| {
                let op = OpId::new(v);
                let p = self.position[v];
                match self.role(op) {
                    Role::Free(_) => {
                        let last = self
                            .preds(op)
                            .iter()
                            .map(|q| self.position[q.index()])
                            .max();
                        (last.unwrap_or(p), 1, p)
                    }
                    _ => (p, 0, p),
                }
            })
            .collect()
    }

    /// Number of nodes (ops).
    pub(crate) fn len(&self) -> usize {
        self.roles.len()
    }

    /// What `op` is.
    pub(crate) fn role(&self, op: OpId) -> Role {
        self.roles[op.index()]
    }

    /// The staging tier of `buffer`, if it is one.
    pub(crate) fn staging_tier(&self, buffer: BufferId) -> Option<TierId> {
        let tier = self.module.buffer(buffer).tier;
        self.module.target.tier(tier).staging.then_some(tier)
    }

    /// The user-visible name of `op` (`%<name>`), the paper's id(v).
    pub(crate) fn name(&self, op: OpId) -> u32 {
        self.module.op(op).name
    }

    /// The ops that must come right after `op` could run, without duplicates.
    pub(crate) fn succs(&self, op: OpId) -> &[OpId] {
        &self.succ[self.succ_start[op.index()]..self.succ_start[op.index() + 1]]
    }

    /// The ops `op` waits for, without duplicates.
    pub(crate) fn preds(&self, op: OpId) -> &[OpId] {
        &self.pred[self.pred_start[op.index()]..self.pred_start[op.index() + 1]]
    }

    /// Why `to` must come after `from` (an edge of this graph), for error messages.
    pub(crate) fn link(&self, from: OpId, to: OpId) -> Link {
        if let (Role::Free(previous), Role::Alloc(buffer)) = (self.role(from), self.role(to)) {
            if self.turns.previous(buffer) == Some(previous) {
                let tier = self.module.buffer(buffer).tier;
                return Link::L0Turn {
                    tier: self.module.target.tier(tier).name.clone(),
                };
            }
        }
        let named = |op: OpId, b: BufferId| self.module.op(op).kind.buffers().contains(&b);
        let lifetime = match (self.role(from), self.role(to)) {
            (Role::Alloc(b), _) if named(to, b) || self.free_of[b.index()] == Some(to) => Some(b),
            (_, Role::Free(b)) if named(from, b) => Some(b),
            _ => None,
        };
        let declared = self.module.op(to).deps.iter().any(|d| d.op == from);
        match lifetime {
            Some(b) if !declared => Link::Lifetime {
                buffer: self.module.buffer(b).name,
            },
            _ => Link::Dependency,
        }
    }
}

/// Compressed adjacency lists of `n` nodes from `(from, to)` pairs, each list in first-seen order
/// with repeated pairs dropped. O(n + pairs).
fn adjacency(
    n: usize,
    pairs: impl Iterator<Item = (OpId, OpId)> + Clone,
) -> (Vec<usize>, Vec<OpId>) {
    let mut start = vec![0usize; n + 1];
    for (from, _) in pairs.clone() {
        start[from.index() + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![OpId::new(0); start[n]];
    for (from, to) in pairs {
        list[fill[from.index()]] = to;
        fill[from.index()] += 1;
    }
    // Drop repeats per node with a stamp array: seen[to] == from + 1 marks `to` as already listed.
    let mut seen = vec![0usize; n];
    let mut kept = Vec::with_capacity(list.len());
    let mut kept_start = Vec::with_capacity(n + 1);
    kept_start.push(0);
    for from in 0..n {
        for &to in &list[start[from]..start[from + 1]] {
            if seen[to.index()] != from + 1 {
                seen[to.index()] = from + 1;
                kept.push(to);
            }
        }
        kept_start.push(kept.len());
    }
    (kept_start, kept)
}
