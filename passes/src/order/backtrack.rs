//! The complete search for an L0-exclusive order of a set of ops that the nested decomposition
//! (`super::exclusive`) cannot split and on which the greedy gated traversal (`super::gated`)
//! stalled: a depth-first search over the L0 grants, with backtracking, a memo of the states
//! known to fail, a pruning test, and a limit on the states it visits.
//!
//! # The search
//! A *state* is the set D of ops already emitted, always *closed*: every op of the set that is
//! ready (all its predecessors in the set emitted) and is not the ALLOC of a staging buffer has
//! been emitted, in a Kahn traversal by key. A staging tier is *held* by the buffer whose ALLOC
//! is in D and whose FREE is not. The only choices are the *grants*: emit a ready staging ALLOC
//! whose tier is not held, then close again. Candidates are tried in the order of the smallest
//! key among the ops each one enables, then by their own key, so the search first follows the
//! order the key asks for.
//!
//! # Why it finds an order whenever one exists
//! Let π be an L0-exclusive completion of a closed state D, and a the first staging ALLOC in π.
//! Every op before a in π waits for nothing but D and earlier ops of π, none of them a staging
//! ALLOC, so the closure emitted them: they are in D, and a is ready. a's tier T is not held:
//! a holder h of T would have its FREE before a in π (exclusivity), so in D. Granting a and
//! closing gives a state D'; π without the ops of D' is an exclusive completion of D', because
//! the closure only moved ops earlier that cannot break exclusivity there — a FREE ends a
//! lifetime sooner, a non-staging ALLOC is free to move, and any other op lies inside the
//! lifetimes of its buffers (their ALLOCs precede it, their FREEs follow it). By induction the
//! search, trying every candidate, reaches a state holding every op. The prunings keep this:
//! - *Dead states.* While T is held by h, every buffer of T still to be allocated must wait for
//!   FREE(h). A state whose remaining ops, with these waits added, form a cycle has no
//!   completion, and is skipped (a Kahn count over the remaining ops).
//! - *Failed states.* Whether a closed state has a completion depends only on D (holders follow
//!   from D), so a state whose candidates all failed is remembered by a 128-bit Zobrist hash of
//!   D and not explored again. Two different sets colliding (odds about 2^-128 per pair) could
//!   only make the search give up on a state that has a completion — never return an order that
//!   is not exclusive.
//!
//! Whatever the search returns is a legal, L0-exclusive order of the set: it is a Kahn
//! traversal (every edge kept) in which a staging ALLOC is emitted only while its tier is free.
//! When every candidate of the first state failed, no L0-exclusive order of the set exists
//! ([`TurnSearch::Exhausted`]); when the search visited [`STATE_LIMIT`] states it stops
//! ([`TurnSearch::Limit`]). Either way no order is returned, never a partial one.
//!
//! Deterministic (ties by op index; the hash only answers membership). Iterative, so deep
//! searches cannot overflow the stack. O((S + E_S + B_S) · states) for a set of S ops, E_S
//! edges and B_S staging buffers, the states at most [`STATE_LIMIT`]; exponential in the worst
//! case (the problem contains deadlock-free scheduling of lock-holding transactions), which is
//! why the limit exists and why this runs only where the greedy traversal stalled.

use super::error::TurnSearch;
use super::graph::{Graph, Role};
use crate::rng::Rng;
use lattice_lir::{BufferId, OpId, TierId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// The most states one search visits before it gives up.
pub(crate) const STATE_LIMIT: u64 = 20_000;

/// An L0-exclusive order of `set` (each op's index in it at `local`), following `key` where it
/// can, or why there is none (see the header).
pub(crate) fn searched_order<K: Ord + Copy>(
    graph: &Graph<'_>,
    set: &[OpId],
    local: &[usize],
    key: &[K],
) -> Result<Vec<OpId>, TurnSearch> {
    Search::new(graph, set, local, key).run()
}

/// One emitted op and what it changed: the tier it took or gave back, with the holder before.
type Entry = (OpId, Option<(TierId, Option<BufferId>)>);

struct Search<'a, 'm, K> {
    graph: &'a Graph<'m>,
    set: &'a [OpId],
    local: &'a [usize],
    key: &'a [K],
    /// Per op of the set: predecessors in the set not yet emitted.
    missing: Vec<usize>,
    done: Vec<bool>,
    holder: Vec<Option<BufferId>>,
    /// The staging ALLOCs of the set, with their tiers.
    allocs: Vec<(OpId, TierId)>,
    /// Per op of the set: its Zobrist code.
    code: Vec<u128>,
    hash: u128,
    trail: Vec<Entry>,
}

/// A state on the search's stack: where its ops start on the trail, its hash, its candidates.
struct Frame {
    mark: usize,
    hash: u128,
    candidates: Vec<OpId>,
    next: usize,
}

impl<'a, 'm, K: Ord + Copy> Search<'a, 'm, K> {
    fn new(graph: &'a Graph<'m>, set: &'a [OpId], local: &'a [usize], key: &'a [K]) -> Self {
        let member = |v: OpId| set.get(local[v.index()]) == Some(&v);
        let missing = set
            .iter()
            .map(|&v| graph.preds(v).iter().filter(|&&p| member(p)).count())
            .collect();
        let allocs = set
            .iter()
            .filter_map(|&v| match graph.role(v) {
                Role::Alloc(b) => graph.staging_tier(b).map(|t| (v, t)),
                _ => None,
            })
            .collect();
        let mut rng = Rng::new(0x1a77_1ce0);
        let code = set
            .iter()
            .map(|_| (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64()))
            .collect();
        Search {
            graph,
            set,
            local,
            key,
            missing,
            done: vec![false; set.len()],
            holder: vec![None; graph.module.target.tiers.len()],
            allocs,
            code,
            hash: 0,
            trail: Vec::with_capacity(set.len()),
        }
    }

    fn member(&self, v: OpId) -> bool {
        self.set.get(self.local[v.index()]) == Some(&v)
    }

    fn idx(&self, v: OpId) -> usize {
        self.local[v.index()]
    }

    /// Whether `v` is a staging ALLOC, which only a grant emits.
    fn granted(&self, v: OpId) -> bool {
        matches!(self.graph.role(v), Role::Alloc(b) if self.graph.staging_tier(b).is_some())
    }

    fn run(mut self) -> Result<Vec<OpId>, TurnSearch> {
        let roots: Vec<OpId> = self
            .set
            .iter()
            .copied()
            .filter(|&v| self.missing[self.idx(v)] == 0)
            .collect();
        self.close(roots);
        if self.trail.len() == self.set.len() {
            return Ok(self.into_order());
        }
        if self.dead() {
            return Err(TurnSearch::Exhausted);
        }
        let mut failed: HashSet<u128> = HashSet::new();
        let mut stack = vec![Frame {
            mark: 0,
            hash: self.hash,
            candidates: self.candidates(),
            next: 0,
        }];
        let mut states: u64 = 1;
        while let Some(top) = stack.last_mut() {
            let Some(&grant) = top.candidates.get(top.next) else {
                failed.insert(top.hash);
                let mark = top.mark;
                stack.pop();
                self.undo(mark);
                continue;
            };
            top.next += 1;
            let mark = self.trail.len();
            self.emit(grant);
            let ready = self.released(grant);
            self.close(ready);
            if self.trail.len() == self.set.len() {
                return Ok(self.into_order());
            }
            if failed.contains(&self.hash) || self.dead() {
                self.undo(mark);
                continue;
            }
            states += 1;
            if states > STATE_LIMIT {
                return Err(TurnSearch::Limit(STATE_LIMIT));
            }
            stack.push(Frame {
                mark,
                hash: self.hash,
                candidates: self.candidates(),
                next: 0,
            });
        }
        Err(TurnSearch::Exhausted)
    }

    fn into_order(self) -> Vec<OpId> {
        self.trail.into_iter().map(|(v, _)| v).collect()
    }

    /// The grants possible now, most wanted first (see the header).
    fn candidates(&self) -> Vec<OpId> {
        let mut ranked: Vec<(Option<K>, K, OpId)> = self
            .allocs
            .iter()
            .filter(|&&(a, t)| {
                let i = self.idx(a);
                !self.done[i] && self.missing[i] == 0 && self.holder[t.index()].is_none()
            })
            .map(|&(a, _)| {
                let enabled = self.graph.succs(a).iter().filter(|&&s| self.member(s));
                let first = enabled.map(|&s| self.key[s.index()]).min();
                (first, self.key[a.index()], a)
            })
            .collect();
        ranked.sort_unstable_by(|x, y| {
            // Allocs that enable nothing in the set go last.
            (x.0.is_none(), x.0, x.1, x.2).cmp(&(y.0.is_none(), y.0, y.1, y.2))
        });
        ranked.into_iter().map(|(_, _, a)| a).collect()
    }

    /// Emits `v`, taking or giving back its tier.
    fn emit(&mut self, v: OpId) {
        let i = self.idx(v);
        self.done[i] = true;
        self.hash ^= self.code[i];
        let change = match self.graph.role(v) {
            Role::Alloc(b) => self.graph.staging_tier(b).map(|t| {
                let before = self.holder[t.index()].replace(b);
                (t, before)
            }),
            Role::Free(b) => self
                .graph
                .staging_tier(b)
                .filter(|t| self.holder[t.index()] == Some(b))
                .map(|t| (t, self.holder[t.index()].take())),
            Role::Work => None,
        };
        self.trail.push((v, change));
    }

    /// Counts `v` off its successors in the set; returns those that became ready.
    fn released(&mut self, v: OpId) -> Vec<OpId> {
        let mut ready = Vec::new();
        for &s in self.graph.succs(v) {
            if self.member(s) {
                let j = self.idx(s);
                self.missing[j] -= 1;
                if self.missing[j] == 0 {
                    ready.push(s);
                }
            }
        }
        ready
    }

    /// Emits, by key, every op that `ready` and what it releases make ready, except grants.
    fn close(&mut self, ready: Vec<OpId>) {
        let mut heap: BinaryHeap<Reverse<(K, OpId)>> = ready
            .into_iter()
            .filter(|&v| !self.granted(v))
            .map(|v| Reverse((self.key[v.index()], v)))
            .collect();
        while let Some(Reverse((_, v))) = heap.pop() {
            self.emit(v);
            for s in self.released(v) {
                if !self.granted(s) {
                    heap.push(Reverse((self.key[s.index()], s)));
                }
            }
        }
    }

    /// Takes back every op emitted after the first `mark`.
    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let Some((v, change)) = self.trail.pop() else {
                break;
            };
            let i = self.idx(v);
            self.done[i] = false;
            self.hash ^= self.code[i];
            if let Some((t, before)) = change {
                self.holder[t.index()] = before;
            }
            for &s in self.graph.succs(v) {
                if self.member(s) {
                    let j = self.idx(s);
                    self.missing[j] += 1;
                }
            }
        }
    }

    /// Whether the ops left, with every held tier's wait added (the other buffers of the tier
    /// wait for its holder's FREE), form a cycle.
    fn dead(&self) -> bool {
        let mut missing: Vec<usize> = self.missing.clone();
        let mut waiting: Vec<Vec<OpId>> = vec![Vec::new(); self.holder.len()];
        for &(a, t) in &self.allocs {
            let i = self.idx(a);
            if !self.done[i] && self.holder[t.index()].is_some() {
                missing[i] += 1;
                waiting[t.index()].push(a);
            }
        }
        let mut ready: Vec<OpId> = self
            .set
            .iter()
            .copied()
            .filter(|&v| !self.done[self.idx(v)] && missing[self.idx(v)] == 0)
            .collect();
        let mut left = self.set.len() - self.trail.len();
        while let Some(v) = ready.pop() {
            left -= 1;
            if let Role::Free(b) = self.graph.role(v) {
                if let Some(t) = self.graph.staging_tier(b) {
                    if self.holder[t.index()] == Some(b) {
                        for &a in &waiting[t.index()] {
                            let j = self.idx(a);
                            missing[j] -= 1;
                            if missing[j] == 0 {
                                ready.push(a);
                            }
                        }
                    }
                }
            }
            for &s in self.graph.succs(v) {
                if self.member(s) {
                    let j = self.idx(s);
                    missing[j] -= 1;
                    if missing[j] == 0 {
                        ready.push(s);
                    }
                }
            }
        }
        left > 0
    }
}
