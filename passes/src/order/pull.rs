//! The pull rule of MPAS's readiness (`Lifecycle::OnDemand`): a *loader* — an op whose every
//! predecessor is an ALLOC, such as a COPY_IN filling a fresh buffer from DDR — is not offered to
//! the policy when it becomes ready. It sleeps until the traversal cannot go on without it, that
//! is until the selector and the FREE queue are both empty; then the engine wakes
//! - the sleeping loaders of the *candidate consumer* of smallest incoming position: an op every
//!   unreleased predecessor of which is a sleeping loader (it could run once they ran);
//! - failing that, the sleeping loader of smallest incoming position.
//!
//! Why: a loader depends on nothing but its buffer's ALLOC, so it is ready from the start, and
//! under the demand rule its ALLOC is demanded at once; the key then issues the load long before
//! the op that reads it can run (an L0 turn or a data input it also needs is still missing) and
//! the loaded tile only sits in L1. A load issued when nothing else can run is issued as late as
//! the order allows, just before the consumer it unblocks.
//!
//! Invariants: a loader sleeps at most once and is woken at most once; every sleeping loader is
//! in the `asleep` heap, so [`Pull::wake_next`] returns an empty list only when no loader sleeps;
//! `waiting[v]` is the number of sleeping predecessors of v, so v is a candidate consumer exactly
//! when `0 < waiting[v] == missing[v]`. Candidates are recorded when that becomes true and checked
//! again when popped (lazy deletion), since a wake can make them stale.
//!
//! O((V + E) log V): each op sleeps and wakes once, each release records at most one candidate,
//! and each wake walks one op's predecessors or successors once.

use super::graph::{Graph, Role};
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The sleeping loaders of one traversal.
pub(crate) struct Pull {
    /// Whether each op is a loader that has not been woken yet.
    holds: Vec<bool>,
    /// Whether each op sleeps now.
    asleep_now: Vec<bool>,
    /// Number of sleeping predecessors of each op.
    waiting: Vec<u32>,
    /// Candidate consumers by incoming position (possibly stale).
    candidates: BinaryHeap<Reverse<(usize, OpId)>>,
    /// Sleeping loaders by incoming position (possibly woken since).
    asleep: BinaryHeap<Reverse<(usize, OpId)>>,
}

impl Pull {
    /// The rule for `graph`; with `on` false no op is held back. O(V + E).
    pub(crate) fn new(graph: &Graph<'_>, on: bool) -> Self {
        let n = graph.len();
        let holds = (0..n)
            .map(OpId::new)
            .map(|v| on && is_loader(graph, v))
            .collect();
        Pull {
            holds,
            asleep_now: vec![false; n],
            waiting: vec![0; n],
            candidates: BinaryHeap::new(),
            asleep: BinaryHeap::new(),
        }
    }

    /// Whether the ready op `op` must sleep rather than go to the selector.
    pub(crate) fn holds(&self, op: OpId) -> bool {
        self.holds[op.index()]
    }

    /// Puts the ready loader `op` to sleep; `missing` counts each op's unreleased predecessors.
    pub(crate) fn sleep(&mut self, graph: &Graph<'_>, op: OpId, missing: &[u32]) {
        self.asleep_now[op.index()] = true;
        self.asleep.push(Reverse((graph.position[op.index()], op)));
        for &s in graph.succs(op) {
            self.waiting[s.index()] += 1;
            self.released_into(graph, s, missing);
        }
    }

    /// `s` lost a pending predecessor (or gained a sleeping one): records it if it now waits only
    /// for sleeping loaders.
    pub(crate) fn released_into(&mut self, graph: &Graph<'_>, s: OpId, missing: &[u32]) {
        if self.is_candidate(s, missing) {
            self.candidates
                .push(Reverse((graph.position[s.index()], s)));
        }
    }

    /// Nothing else can run: wakes the loaders of the first candidate consumer in σ, or else the
    /// first sleeping loader, and returns them (empty when no loader sleeps).
    pub(crate) fn wake_next(&mut self, graph: &Graph<'_>, missing: &[u32]) -> Vec<OpId> {
        while let Some(Reverse((_, s))) = self.candidates.pop() {
            if self.is_candidate(s, missing) {
                let loaders: Vec<OpId> = graph
                    .preds(s)
                    .iter()
                    .copied()
                    .filter(|p| self.asleep_now[p.index()])
                    .collect();
                for &loader in &loaders {
                    self.wake(graph, loader);
                }
                return loaders;
            }
        }
        while let Some(Reverse((_, loader))) = self.asleep.pop() {
            if self.asleep_now[loader.index()] {
                self.wake(graph, loader);
                return vec![loader];
            }
        }
        Vec::new()
    }

    fn is_candidate(&self, s: OpId, missing: &[u32]) -> bool {
        let waiting = self.waiting[s.index()];
        waiting > 0 && waiting == missing[s.index()]
    }

    fn wake(&mut self, graph: &Graph<'_>, loader: OpId) {
        self.asleep_now[loader.index()] = false;
        self.holds[loader.index()] = false;
        for &s in graph.succs(loader) {
            self.waiting[s.index()] -= 1;
        }
    }
}

/// Whether `op` is a loader: an ordinary op with predecessors, all of them ALLOCs.
fn is_loader(graph: &Graph<'_>, op: OpId) -> bool {
    let preds = graph.preds(op);
    graph.role(op) == Role::Work
        && !preds.is_empty()
        && preds
            .iter()
            .all(|&p| matches!(graph.role(p), Role::Alloc(_)))
}
