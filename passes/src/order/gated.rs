//! The gated traversal: an L0-exclusive order of a set of ops that the nested decomposition
//! (`super::exclusive`) cannot split — buffers of several staging tiers chained through shared
//! ops (an L0C accumulator read with several L0A tiles, one of which is also read with the next
//! accumulator, …), where no grouping keeps every tier exclusive at once.
//!
//! A Kahn traversal by key with a dynamic gate:
//! - an ALLOC of a staging tier that waits for nothing is *deferred*: it is emitted only together
//!   with a user that can then run at once, and only while its tier is free — allocating on
//!   demand keeps a tier from being taken by a buffer whose user still waits for other work;
//! - a buffer b of tier T is granted the tier only when that is *safe*: giving T to b puts b
//!   before every buffer of T not yet allocated, which closes a cycle exactly when the FREE of b
//!   waits, through ops still to run, for the ALLOC of such a buffer. The check walks back from
//!   FREE(b) over the ops still to run, and through each tier held now (an ALLOC of a held tier
//!   waits for its holder's FREE); it refuses b when it meets the ALLOC of another buffer of T.
//!
//! Each grant keeps the graph of what is left, with the turns taken so far, acyclic, but a
//! greedy gate can still stall (two safe grants on different tiers that exclude each other
//! later); then no order is returned. Every order it returns keeps every edge (Kahn) and every
//! staging tier exclusive (the gate). It is a heuristic, tried first because it is cheap: a set
//! it gives up on with every key goes to the complete search (`super::backtrack`).
//!
//! O((S + E_S) · (log S + g)) for a set of S ops and E_S edges, with g grants tried per op
//! (each safety walk is O(S + E_S)); the walk is why this runs only on sets the decomposition
//! cannot split.

use super::graph::{Graph, Role};
use lattice_lir::{BufferId, OpId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An L0-exclusive order of `set` (each op's index in it at `local`), ops by smallest `key`
/// where the order is free; `None` when the traversal stalls (see the header).
pub(crate) fn gated_order<K: Ord + Copy>(
    graph: &Graph<'_>,
    set: &[OpId],
    local: &[usize],
    key: &[K],
) -> Option<Vec<OpId>> {
    Gate {
        graph,
        set,
        local,
        key,
    }
    .run()
}

struct Gate<'a, 'm, K> {
    graph: &'a Graph<'m>,
    set: &'a [OpId],
    local: &'a [usize],
    key: &'a [K],
}

/// The traversal's state in one run.
struct Run {
    holder: Vec<Option<BufferId>>,
    done: Vec<bool>,
    free_of: Vec<Option<OpId>>,
}

impl<K: Ord + Copy> Gate<'_, '_, K> {
    fn member(&self, v: OpId) -> bool {
        self.set.get(self.local[v.index()]) == Some(&v)
    }

    fn deferred(&self, v: OpId) -> bool {
        match self.graph.role(v) {
            Role::Alloc(b) => {
                self.graph.staging_tier(b).is_some() && self.graph.preds(v).is_empty()
            }
            _ => false,
        }
    }

    fn run(&self) -> Option<Vec<OpId>> {
        let graph = self.graph;
        let module = graph.module;
        let mut run = Run {
            holder: vec![None; module.target.tiers.len()],
            done: vec![false; self.set.len()],
            free_of: vec![None; module.buffers.len()],
        };
        for &v in self.set {
            if let Role::Free(b) = graph.role(v) {
                run.free_of[b.index()] = Some(v);
            }
        }
        let mut waiting: Vec<OpId> = Vec::new();
        // Per op: predecessors in the set still to run, deferred ALLOCs not counted.
        let mut missing: Vec<usize> = self
            .set
            .iter()
            .map(|&v| {
                let preds = graph.preds(v).iter();
                preds
                    .filter(|&&p| self.member(p) && !self.deferred(p))
                    .count()
            })
            .collect();
        let entry = |v: OpId| Reverse((self.key[v.index()], v));
        let mut ready: BinaryHeap<Reverse<(K, OpId)>> = self
            .set
            .iter()
            .enumerate()
            .filter(|&(i, &v)| missing[i] == 0 && (!self.deferred(v) || graph.succs(v).is_empty()))
            .map(|(_, &v)| entry(v))
            .collect();
        let mut order = Vec::with_capacity(self.set.len());
        while let Some(Reverse((_, v))) = ready.pop() {
            if run.done[self.local[v.index()]] {
                continue;
            }
            // The deferred ALLOCs `v` waits for (its own, when it is one).
            let mut allocs: Vec<OpId> = graph
                .preds(v)
                .iter()
                .copied()
                .chain(std::iter::once(v))
                .filter(|&p| self.member(p) && self.deferred(p))
                .filter(|&p| !run.done[self.local[p.index()]])
                .collect();
            allocs.dedup();
            if allocs.iter().any(|&a| self.blocked(&run, a)) {
                waiting.push(v);
                continue;
            }
            for op in allocs.into_iter().chain(std::iter::once(v)) {
                if run.done[self.local[op.index()]] {
                    continue;
                }
                match graph.role(op) {
                    Role::Alloc(b) => {
                        if let Some(t) = graph.staging_tier(b) {
                            run.holder[t.index()] = Some(b);
                        }
                    }
                    Role::Free(b) => {
                        if let Some(t) = graph.staging_tier(b) {
                            if run.holder[t.index()] == Some(b) {
                                run.holder[t.index()] = None;
                                ready.extend(waiting.drain(..).map(entry));
                            }
                        }
                    }
                    Role::Work => {}
                }
                run.done[self.local[op.index()]] = true;
                order.push(op);
                if self.deferred(op) {
                    continue;
                }
                for &s in graph.succs(op) {
                    if self.member(s) {
                        let i = self.local[s.index()];
                        missing[i] -= 1;
                        if missing[i] == 0 {
                            ready.push(entry(s));
                        }
                    }
                }
            }
        }
        (order.len() == self.set.len()).then_some(order)
    }

    /// Whether the deferred ALLOC `alloc` must wait: its tier is held, or granting it is not
    /// safe (see the header).
    fn blocked(&self, run: &Run, alloc: OpId) -> bool {
        let graph = self.graph;
        let Role::Alloc(b) = graph.role(alloc) else {
            return false;
        };
        let Some(t) = graph.staging_tier(b) else {
            return false;
        };
        if run.holder[t.index()].is_some() {
            return true;
        }
        let Some(free) = run.free_of[b.index()] else {
            return false;
        };
        // Walk back from FREE(b) over the ops still to run.
        let mut seen = vec![false; self.set.len()];
        let mut stack = vec![free];
        while let Some(v) = stack.pop() {
            let i = self.local[v.index()];
            if seen[i] || run.done[i] {
                continue;
            }
            seen[i] = true;
            if let Role::Alloc(x) = graph.role(v) {
                if let Some(u) = graph.staging_tier(x) {
                    if u == t && x != b {
                        return true;
                    }
                    if let Some(h) = run.holder[u.index()].filter(|&h| h != x) {
                        stack.extend(run.free_of[h.index()]);
                    }
                }
            }
            stack.extend(graph.preds(v).iter().filter(|&&p| self.member(p)));
        }
        false
    }
}
