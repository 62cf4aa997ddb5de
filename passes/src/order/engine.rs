//! The Kahn engine every ordering policy shares: it keeps the pending-predecessor counts of the
//! [`Graph`], hands ready ops to the policy's [`Selector`], and emits what the selector picks.
//!
//! Three lifecycle modes:
//! - `Lifecycle::Keyed`: ALLOC and FREE are ordinary nodes the selector ranks (input).
//! - `Lifecycle::OnDemand`: ALLOC and FREE are ranked by the selector, but an ALLOC enters the
//!   ready set only once it is *demanded*: some op that waits for it has all its other
//!   predecessors done (MPAS; see `mpas.rs` for why). Such an op waits, outside the selector,
//!   until its demanded ALLOCs were picked. With `pull`, a ready loader (an op waiting only for
//!   ALLOCs) sleeps instead, and is woken only when the selector and the FREE queue are both
//!   empty ([`Pull`]); its ALLOCs are demanded then.
//! - `Lifecycle::Deferred`: the op-graph projection of baselines.md §1.2 (stable, memory-first,
//!   critical-first). An ALLOC whose own predecessors ran is *armed*: it counts as done for its
//!   successors but is emitted only right before the first of them that runs (several armed
//!   ALLOCs in ascending id). A FREE is emitted as soon as it is ready, before the selector picks
//!   again (several in ascending id). The selector only ever sees the other ops.
//!
//! Invariants: an op is emitted only after every predecessor was emitted (an armed ALLOC is
//! emitted before the successor it released, in the same step), so the order respects every edge;
//! each op is emitted at most once; the result is returned only when it lists every op, and
//! otherwise the engine reports a cycle among the ops left ([`OrderError::Cycle`]) — it never
//! returns a partial order. Progress: every op whose predecessors were all released is in the
//! selector, waits there for a demanded ALLOC that is in the selector, is in the FREE queue, or
//! sleeps; when the first three are empty a sleeper is woken, so the engine stops with ops left
//! only when none is ready at all, which in a Kahn traversal means a cycle. Deterministic when
//! the selector is (the pull rule breaks ties by incoming position). Iterative (no recursion), so
//! deep graphs cannot overflow the stack.
//!
//! O((V + E) log V) with a heap selector: every edge is released once, every op pushed once
//! (plus the re-pushes a dynamic selector makes), put to sleep and woken at most once, and
//! emitted once.

use super::error::{OrderError, Step};
use super::graph::{Graph, Role};
use super::pull::Pull;
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How ALLOC and FREE nodes are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// Ranked by the selector like any op.
    Keyed,
    /// Ranked by the selector, an ALLOC once an op waiting for it is otherwise ready; with
    /// `pull`, loaders are held back until nothing else can run ([`Pull`]).
    OnDemand {
        /// Whether the pull rule holds loaders back.
        pull: bool,
    },
    /// ALLOC deferred to its first user, FREE issued as soon as it is ready.
    Deferred,
}

/// The policy part of a traversal: picks the next op among the ready ones.
pub(crate) trait Selector {
    /// `op` became ready.
    fn push(&mut self, op: OpId, state: &State<'_, '_>);
    /// Removes and returns the op to run next, `None` when no op is ready.
    fn pop(&mut self, state: &State<'_, '_>) -> Option<OpId>;
    /// `op` was just released: its successors' counts no longer include it.
    fn released(&mut self, _op: OpId, _state: &State<'_, '_>) {}
    /// `op` was just appended to the order.
    fn emitted(&mut self, _op: OpId, _state: &State<'_, '_>) {}
}

/// What a selector may read about the traversal so far.
pub(crate) struct State<'g, 'm> {
    /// The graph traversed.
    pub(crate) graph: &'g Graph<'m>,
    /// Number of predecessors of each op not yet released.
    pub(crate) missing: Vec<u32>,
    /// Whether each op was released (emitted, or an armed ALLOC when deferred or on demand).
    pub(crate) released: Vec<bool>,
    /// Whether each op was emitted.
    pub(crate) emitted: Vec<bool>,
    lifecycle: Lifecycle,
    order: Vec<OpId>,
    /// Ready FREEs (and successor-less armed ALLOCs) waiting to be issued, by name.
    immediate: BinaryHeap<Reverse<(u32, OpId)>>,
    /// Ops whose count just reached zero, to be handed on (keeps release iterative).
    newly_ready: Vec<OpId>,
    /// On demand: how many demanded ALLOCs a ready op still waits for.
    awaited: Vec<u32>,
    /// On demand: whether an armed ALLOC was handed to the selector.
    demanded: Vec<bool>,
    /// On demand: the loaders held back until nothing else can run.
    pull: Pull,
}

/// Orders every op of `graph`, letting `selector` choose among the ready ones.
pub(crate) fn traverse<S: Selector>(
    graph: &Graph<'_>,
    lifecycle: Lifecycle,
    selector: &mut S,
) -> Result<Vec<OpId>, OrderError> {
    let n = graph.len();
    let missing: Vec<u32> = (0..n)
        .map(|v| graph.preds(OpId::new(v)).len() as u32)
        .collect();
    let mut state = State {
        graph,
        missing,
        released: vec![false; n],
        emitted: vec![false; n],
        lifecycle,
        order: Vec::with_capacity(n),
        immediate: BinaryHeap::new(),
        newly_ready: Vec::new(),
        awaited: vec![0; n],
        demanded: vec![false; n],
        pull: Pull::new(graph, lifecycle == Lifecycle::OnDemand { pull: true }),
    };
    let roots: Vec<OpId> = (0..n)
        .map(OpId::new)
        .filter(|&v| state.missing[v.index()] == 0)
        .collect();
    for root in roots {
        state.make_ready(root, selector);
    }
    state.drain(selector);
    loop {
        while let Some(Reverse((_, op))) = state.immediate.pop() {
            state.emit(op, selector);
        }
        let Some(op) = selector.pop(&state) else {
            // Nothing else can run: the pull rule's turn to release sleeping loaders.
            let woken = state.pull.wake_next(graph, &state.missing);
            if woken.is_empty() {
                break;
            }
            for loader in woken {
                state.make_ready(loader, selector);
            }
            continue;
        };
        state.emit(op, selector);
    }
    if state.order.len() == n {
        Ok(state.order)
    } else {
        Err(state.cycle())
    }
}

impl State<'_, '_> {
    /// Emits `op`, preceded (when deferred) by the armed ALLOCs it waits for, and releases its
    /// successors.
    fn emit<S: Selector>(&mut self, op: OpId, selector: &mut S) {
        if self.lifecycle == Lifecycle::Deferred {
            self.emit_armed_before(op, selector);
        }
        self.record(op, selector);
        if matches!(self.lifecycle, Lifecycle::OnDemand { .. })
            && matches!(self.graph.role(op), Role::Alloc(_))
        {
            for &w in self.graph.succs(op) {
                if self.awaited[w.index()] > 0 {
                    self.awaited[w.index()] -= 1;
                    if self.awaited[w.index()] == 0 {
                        selector.push(w, self);
                    }
                }
            }
        }
        if !self.released[op.index()] {
            self.release(op, selector);
            self.drain(selector);
        }
    }

    /// Emits the armed ALLOCs `op` waits for, directly or through other armed ALLOCs: a
    /// post-order walk of its unemitted predecessors (all armed ALLOCs, since `op` is ready),
    /// siblings in ascending name, so each lands after everything it waits for.
    fn emit_armed_before<S: Selector>(&mut self, op: OpId, selector: &mut S) {
        let graph = self.graph;
        if graph.preds(op).iter().all(|p| self.emitted[p.index()]) {
            return;
        }
        let mut stack = vec![(op, false)];
        while let Some((v, expanded)) = stack.pop() {
            if expanded {
                if v != op && !self.emitted[v.index()] {
                    self.record(v, selector);
                }
                continue;
            }
            stack.push((v, true));
            let mut armed: Vec<(u32, OpId)> = graph
                .preds(v)
                .iter()
                .filter(|&&p| !self.emitted[p.index()])
                .map(|&p| (graph.name(p), p))
                .collect();
            // Pushed largest first, so the smallest name is expanded and emitted first.
            armed.sort_unstable_by(|a, b| b.cmp(a));
            stack.extend(armed.into_iter().map(|(_, p)| (p, false)));
        }
    }

    fn record<S: Selector>(&mut self, op: OpId, selector: &mut S) {
        self.emitted[op.index()] = true;
        self.order.push(op);
        selector.emitted(op, self);
    }

    /// Marks `op` released and counts it off its successors.
    fn release<S: Selector>(&mut self, op: OpId, selector: &mut S) {
        self.released[op.index()] = true;
        let graph = self.graph;
        for &w in graph.succs(op) {
            self.missing[w.index()] -= 1;
            if self.missing[w.index()] == 0 {
                self.newly_ready.push(w);
            } else {
                self.pull.released_into(graph, w, &self.missing);
            }
        }
        selector.released(op, self);
    }

    /// Hands on every op that became ready, including those an armed ALLOC readies in turn.
    fn drain<S: Selector>(&mut self, selector: &mut S) {
        while let Some(op) = self.newly_ready.pop() {
            self.make_ready(op, selector);
        }
    }

    fn make_ready<S: Selector>(&mut self, op: OpId, selector: &mut S) {
        let role = self.graph.role(op);
        match self.lifecycle {
            Lifecycle::Keyed => selector.push(op, self),
            Lifecycle::Deferred => match role {
                Role::Alloc(_) => {
                    self.release(op, selector);
                    if self.graph.succs(op).is_empty() {
                        self.immediate.push(Reverse((self.graph.name(op), op)));
                    }
                }
                Role::Free(_) => self.immediate.push(Reverse((self.graph.name(op), op))),
                Role::Work => selector.push(op, self),
            },
            Lifecycle::OnDemand { .. } => match role {
                Role::Alloc(_) => {
                    self.release(op, selector);
                    if self.graph.succs(op).is_empty() {
                        self.demand(op, selector);
                    }
                }
                Role::Work if self.pull.holds(op) => self.pull.sleep(self.graph, op, &self.missing),
                _ => {
                    // Ready means every predecessor is done or an armed ALLOC: demand those.
                    let graph = self.graph;
                    let mut awaited = 0;
                    for &p in graph.preds(op) {
                        if !self.emitted[p.index()] {
                            awaited += 1;
                            self.demand(p, selector);
                        }
                    }
                    self.awaited[op.index()] = awaited;
                    if awaited == 0 {
                        selector.push(op, self);
                    }
                }
            },
        }
    }

    /// Hands an armed ALLOC to the selector, once.
    fn demand<S: Selector>(&mut self, alloc: OpId, selector: &mut S) {
        if !self.demanded[alloc.index()] {
            self.demanded[alloc.index()] = true;
            selector.push(alloc, self);
        }
    }

    /// A cycle among the ops left: each op left waits for some unreleased predecessor (the
    /// selector and the FREE queue are empty), so walking to one repeatedly must revisit an op.
    /// Starts at the first op left in the incoming σ, takes the first such predecessor and
    /// reports the cycle from its first op in σ, so the report is deterministic. O(V + E).
    fn cycle(&self) -> OrderError {
        let graph = self.graph;
        let left: Vec<OpId> = (0..graph.len())
            .map(OpId::new)
            .filter(|v| !self.released[v.index()])
            .collect();
        let start = left
            .iter()
            .copied()
            .min_by_key(|v| graph.position[v.index()]);
        let mut visit = vec![usize::MAX; graph.len()];
        let mut path: Vec<OpId> = Vec::new();
        let mut current = start;
        while let Some(op) = current {
            if visit[op.index()] != usize::MAX {
                path.drain(..visit[op.index()]);
                break;
            }
            visit[op.index()] = path.len();
            path.push(op);
            current = graph
                .preds(op)
                .iter()
                .copied()
                .find(|p| !self.released[p.index()]);
        }
        // `path` walks against the edges; the cycle runs the other way, from its first op in σ.
        path.reverse();
        if let Some(first) = (0..path.len()).min_by_key(|&i| graph.position[path[i].index()]) {
            path.rotate_left(first);
        }
        let cycle = (0..path.len())
            .map(|i| {
                let (op, next) = (path[i], path[(i + 1) % path.len()]);
                Step {
                    op,
                    name: graph.name(op),
                    link: graph.link(op, next),
                }
            })
            .collect();
        OrderError::Cycle {
            left: graph.len() - self.order.len(),
            total: graph.len(),
            cycle,
            search: graph.turn_search,
        }
    }
}

/// A selector with a fixed key per op: pops the ready op of smallest key.
pub(crate) struct KeyHeap<K> {
    keys: Vec<K>,
    heap: BinaryHeap<Reverse<(K, OpId)>>,
}

impl<K: Ord + Copy> KeyHeap<K> {
    /// A heap ranking op `v` by `keys[v]`.
    pub(crate) fn new(keys: Vec<K>) -> Self {
        KeyHeap {
            keys,
            heap: BinaryHeap::new(),
        }
    }
}

impl<K: Ord + Copy> Selector for KeyHeap<K> {
    fn push(&mut self, op: OpId, _: &State<'_, '_>) {
        self.heap.push(Reverse((self.keys[op.index()], op)));
    }
    fn pop(&mut self, _: &State<'_, '_>) -> Option<OpId> {
        self.heap.pop().map(|Reverse((_, op))| op)
    }
}
