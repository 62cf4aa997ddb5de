//! The orders `order-exact` chooses among: sequences of *decision ops*, each step running one
//! decision op with the lifecycle ops DLR's tightening would put around it.
//!
//! DLR plans an order only through its tightened form (`dlr::lifetimes`): every ALLOC that is
//! not pinned (linked by a dependency to another buffer's ALLOC or FREE) moves to just before
//! its first dependent, every unpinned FREE to just after its last dependency, and nothing else
//! moves. So the decision ops are the compute ops plus the pinned lifecycle ops and the ALLOCs
//! of buffers nobody uses; a step for decision op v emits the movable ALLOCs v is the first
//! dependent of (in one of their orders), then v, then the movable FREEs whose dependencies are
//! now all done. Every order tightens to exactly one such step sequence, and each step
//! sequence's order is already tight, so the step sequences are the tightened orders.
//! Tightening only shortens lifetimes, so it keeps an L0-exclusive order L0-exclusive and
//! never raises the logical peak.
//!
//! A state is the set of decision ops run, as a bitset of at most [`MAX_DECISIONS`]; from it
//! follow the lifecycle ops emitted and the live buffers. Building is O(V + E); a step costs
//! O(its lifecycle ops + staging buffers).

use crate::analysis::Dag;
use lattice_lir::{BufferId, Module, OpId, OpKind};

/// The most decision ops a state can name.
pub const MAX_DECISIONS: usize = 128;

/// A set of decision ops.
pub type Set = u128;

/// What one step emits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// Movable ALLOCs emitted before the decision op (in their order of appearance in `allocs`).
    pub allocs: Vec<OpId>,
    /// Movable FREEs emitted after it.
    pub frees: Vec<OpId>,
}

/// The step structure of one module.
pub struct Space<'m> {
    /// The module.
    pub module: &'m Module,
    /// The decision ops, indexed by decision number.
    pub ops: Vec<OpId>,
    /// Per decision op: the decision ops that must run first (directly, or through the movable
    /// lifecycle ops emitted with it).
    pub needs: Vec<Set>,
    /// Per decision op: the movable ALLOCs it depends on.
    alloc_preds: Vec<Vec<OpId>>,
    /// Per op: the decision ops that depend on it (for a movable ALLOC: once one has run, it
    /// has been emitted).
    dependents: Vec<Set>,
    /// Per op: the decision ops it depends on (for a movable FREE: once all have run, it has
    /// been emitted).
    depends: Vec<Set>,
    /// Per decision op: the movable FREEs that depend on it.
    free_succs: Vec<Vec<OpId>>,
    /// Per op: its decision number, if it is one.
    decision: Vec<Option<usize>>,
    /// The staging buffers of an L0-exclusive target, with their ALLOC and FREE.
    staging: Vec<(BufferId, Option<OpId>, Option<OpId>)>,
}

/// Why the module is too large for exact solving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooWide {
    /// The decision ops it has.
    pub decisions: usize,
}

fn is_lifecycle(kind: &OpKind) -> bool {
    matches!(kind, OpKind::Alloc { .. } | OpKind::Free { .. })
}

impl<'m> Space<'m> {
    /// The step structure of an unplanned `module` with DAG `dag`.
    pub fn of(module: &'m Module, dag: &Dag) -> Result<Space<'m>, TooWide> {
        let n = module.ops.len();
        // Pinned lifecycle ops, as DLR's tightening finds them.
        let mut pinned = vec![false; n];
        for id in module.op_ids().filter(|&id| dag.has(id)) {
            let op = module.op(id);
            for dep in op.deps.iter().filter(|d| dag.has(d.op)) {
                let from = module.op(dep.op);
                let both = is_lifecycle(&from.kind) && is_lifecycle(&op.kind);
                let same_pair = from.kind.buffers().first() == op.kind.buffers().first();
                if both && !same_pair {
                    pinned[id.index()] = true;
                    pinned[dep.op.index()] = true;
                }
            }
        }
        let movable = |id: OpId| {
            let kind = &module.op(id).kind;
            !pinned[id.index()]
                && match kind {
                    // An ALLOC whose only dependent is its own FREE stays in place.
                    OpKind::Alloc { .. } => dag
                        .succs(id)
                        .iter()
                        .any(|&s| !matches!(module.op(s).kind, OpKind::Free { .. })),
                    OpKind::Free { .. } => true,
                    _ => false,
                }
        };
        let mut decision = vec![None; n];
        let mut ops = Vec::new();
        for &id in &dag.topo {
            if !movable(id) {
                decision[id.index()] = Some(ops.len());
                ops.push(id);
            }
        }
        if ops.len() > MAX_DECISIONS {
            return Err(TooWide {
                decisions: ops.len(),
            });
        }
        let bit = |id: OpId| decision[id.index()].map_or(0, |d| 1u128 << d);
        let mut depends = vec![0u128; n];
        let mut dependents = vec![0u128; n];
        for &id in &dag.topo {
            for &p in dag.preds(id) {
                depends[id.index()] |= bit(p);
                dependents[p.index()] |= bit(id);
            }
        }
        let mut needs = vec![0u128; ops.len()];
        let mut alloc_preds = vec![Vec::new(); ops.len()];
        let mut free_succs = vec![Vec::new(); ops.len()];
        for (d, &id) in ops.iter().enumerate() {
            needs[d] = depends[id.index()];
            for &p in dag.preds(id) {
                if decision[p.index()].is_none() {
                    // A movable ALLOC's own dependencies, or a movable FREE's: both must have
                    // run for it to be emitted before this op.
                    needs[d] |= depends[p.index()];
                    if matches!(module.op(p).kind, OpKind::Alloc { .. }) {
                        alloc_preds[d].push(p);
                    }
                }
            }
            for &s in dag.succs(id) {
                if decision[s.index()].is_none() && matches!(module.op(s).kind, OpKind::Free { .. })
                {
                    free_succs[d].push(s);
                }
            }
        }
        let mut staging = Vec::new();
        if module.target.l0_exclusive {
            let (alloc_of, free_of) = (&dag.alloc_of, &dag.free_of);
            for b in module.buffer_ids() {
                if module.target.tier(module.buffer(b).tier).staging {
                    staging.push((b, alloc_of[b.index()], free_of[b.index()]));
                }
            }
        }
        Ok(Space {
            module,
            ops,
            needs,
            alloc_preds,
            dependents,
            depends,
            free_succs,
            decision,
            staging,
        })
    }

    /// Every decision op.
    pub fn all(&self) -> Set {
        if self.ops.len() == 128 {
            u128::MAX
        } else {
            (1u128 << self.ops.len()) - 1
        }
    }

    /// Whether lifecycle op `id` has been emitted once the decision ops in `done` have run.
    fn emitted(&self, id: OpId, done: Set) -> bool {
        match (self.decision[id.index()], &self.module.op(id).kind) {
            (Some(d), _) => done >> d & 1 == 1,
            (None, OpKind::Alloc { .. }) => done & self.dependents[id.index()] != 0,
            (None, _) => done & self.depends[id.index()] == self.depends[id.index()],
        }
    }

    /// The decision number of `id`, if it is a decision op.
    pub fn decision_of(&self, id: OpId) -> Option<usize> {
        self.decision[id.index()]
    }

    /// The decision ops that may run next from `done`.
    pub fn ready(&self, done: Set) -> impl Iterator<Item = usize> + '_ {
        (0..self.ops.len()).filter(move |&d| done >> d & 1 == 0 && self.needs[d] & !done == 0)
    }

    /// What running decision op `d` from `done` emits, or `None` when it would make two buffers
    /// of one staging tier live at once on an L0-exclusive target.
    pub fn step(&self, done: Set, d: usize) -> Option<Step> {
        let after = done | 1u128 << d;
        let allocs: Vec<OpId> = self.alloc_preds[d]
            .iter()
            .copied()
            .filter(|&a| !self.emitted(a, done))
            .collect();
        let frees: Vec<OpId> = self.free_succs[d]
            .iter()
            .copied()
            .filter(|&f| self.emitted(f, after))
            .collect();
        if !self.staging.is_empty() && !self.exclusive(done, d, &allocs) {
            return None;
        }
        Some(Step { allocs, frees })
    }

    /// Whether the step keeps one live buffer per staging tier: the buffers live before it plus
    /// those it allocates (its own ALLOC too, when the decision op is one).
    fn exclusive(&self, done: Set, d: usize, allocs: &[OpId]) -> bool {
        let m = self.module;
        let mut count = vec![0u32; m.target.tiers.len()];
        for &(b, alloc, free) in &self.staging {
            let Some(alloc) = alloc else { continue };
            let live = self.emitted(alloc, done) && !free.is_some_and(|f| self.emitted(f, done));
            let starts = allocs.contains(&alloc) || self.ops[d] == alloc;
            if live || starts {
                let t = m.buffer(b).tier.index();
                count[t] += 1;
                if count[t] > 1 {
                    return false;
                }
            }
        }
        true
    }

    /// The bytes of the non-staging tiers that a step's lifecycle ops (and the decision op, when
    /// it is an ALLOC or FREE) allocate and free: `(allocated, freed)`.
    pub fn bytes(&self, d: usize, step: &Step) -> (u64, u64) {
        let m = self.module;
        let size = |id: OpId| match m.op(id).kind {
            OpKind::Alloc { buffer, .. } | OpKind::Free { buffer }
                if !m.target.tier(m.buffer(buffer).tier).staging =>
            {
                m.buffer(buffer).size
            }
            _ => 0,
        };
        let own = self.ops[d];
        let (mut up, mut down) = (0, 0);
        match m.op(own).kind {
            OpKind::Alloc { .. } => up += size(own),
            OpKind::Free { .. } => down += size(own),
            _ => {}
        }
        up += step.allocs.iter().map(|&a| size(a)).sum::<u64>();
        down += step.frees.iter().map(|&f| size(f)).sum::<u64>();
        (up, down)
    }

    /// Appends the ops of a step to `order`, with the ALLOCs in the order `allocs` gives.
    pub fn emit(&self, d: usize, allocs: &[OpId], frees: &[OpId], order: &mut Vec<OpId>) {
        order.extend_from_slice(allocs);
        order.push(self.ops[d]);
        order.extend_from_slice(frees);
    }
}
