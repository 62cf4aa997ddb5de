//! An L0-exclusive order derived from the graph alone, for inputs whose own order cannot give
//! the L0 turns (`super::gate`): the *nested decomposition* of the ops into staging groups.
//!
//! # The decomposition
//! Take a set S of ops (at first every op). A staging tier is *contended* in S when two or more
//! of its buffers have ops in S. For each buffer of a contended tier, its ALLOC, its FREE and
//! every op naming it are joined into one group (union-find); groups whose precedence edges form
//! a cycle through other groups are merged (strongly connected components), so the groups form
//! a DAG. Then S is emitted group after group, in a Kahn traversal of that DAG that takes the
//! ready group holding the op of smallest key, and each group is emitted the same way, with the
//! tiers contended in it. A set with no contended tier is emitted by a Kahn traversal of its ops
//! by key. On a tiled matmul the top level's groups are the output tiles (an L0C accumulator
//! with every L0A/L0B tile its steps read); inside a tile only L0A and L0B are contended, and
//! the groups are its steps.
//!
//! # Why the result is legal and L0-exclusive (no deadlock)
//! - *Every group is emitted contiguously*, by induction on the nesting: a group's emission is a
//!   contiguous run of its own groups' runs, and the traversal of a level emits one group whole
//!   before choosing the next.
//! - *Every edge is kept.* No path between two ops of a group leaves it: an op outside the group
//!   on such a path would put its own group on a cycle with this one in the level's DAG, and
//!   cycles were merged. So an edge u → v inside S joins either two ops of one group (kept by
//!   induction) or two groups, and the Kahn traversal of an acyclic DAG emits u's group first
//!   and never stalls. Edges leaving S are kept one level up by the same argument.
//! - *Every staging tier is exclusive.* Take two buffers b ≠ b' of one staging tier and the
//!   deepest set S of the nesting that holds ops of both. Their tier is contended in S, so all
//!   of b's ops are in one group of S and all of b''s in one group (union-find), and these are
//!   different groups, S being the deepest. Groups are contiguous, so one buffer's whole
//!   lifetime, ALLOC to FREE, comes before the other's ALLOC.
//!
//! # When it gets stuck, and what then
//! A level can fail to split: one group, after merging, holds two buffers of a contended tier
//! (buffers chained through ops of other tiers, or groups forced to interleave). Such a set is
//! emitted by a *gated* Kahn traversal instead — an ALLOC of a staging tier waits while another
//! buffer of its tier is live — which is greedy and can stall. A module whose ops name at most
//! one buffer of each staging tier per group of the decomposition (every cube kernel: an L0C
//! accumulation whose steps each read one L0A and one L0B tile) never gets stuck.
//!
//! **Retrying** ([`exclusive_order_retrying`], what the callers use): the key decides which
//! group and which grant come first, and a key that follows a scrambled numbering can walk the
//! gated traversal into a stall that another key avoids. So when the given key gets stuck the
//! order is tried again with three structural keys — ASAP/ALAP-style levels of the graph, each
//! tie broken by the given key: the longest path through the op (shortest first: ops off the
//! critical paths, whose buffers live briefly, go first), the longest path to a sink (longest
//! first) and the longest path from a source (shortest first). The first key that succeeds
//! wins, so where the given key works the result is unchanged. When all four stall, the
//! decomposition runs once more with the given key, and each set on which the gated traversal
//! stalls is handed to the complete search (`super::backtrack`).
//!
//! # Why it finds an order whenever one exists
//! The decomposition loses nothing: a set S has an L0-exclusive order exactly when each of its
//! groups has one. If π orders S, its restriction to a group G keeps every edge inside G (the
//! relative order of G's ops is π's) and every tier exclusive (the ALLOCs and FREEs of G's
//! buffers keep their relative order, so disjoint lifetimes stay disjoint); G is closed under
//! the paths between its ops (above), so that restriction is an order of G. Conversely the
//! groups' orders, emitted whole in a topological order of the groups, order S (above). So the
//! only place an order can be missed is a set the gated traversal stalls on, and the backtracking
//! search there is complete up to its state limit. When it proves a set has no exclusive order
//! the module has none ([`TurnSearch::Exhausted`]); when it hits its limit the answer is unknown
//! ([`TurnSearch::Limit`]); either way the caller reports the input turns' cycle with that outcome.
//!
//! Deterministic for a given key (ties by op index). O(d · (V + E) log V) for a nesting depth
//! d ≤ staging tiers + 1, five times over when retrying, plus the backtracking search's cost on
//! the sets the gated traversal stalls on (`super::backtrack`).

use super::backtrack::searched_order;
use super::components::{strongly_connected, Partition};
use super::error::TurnSearch;
use super::gated::gated_order;
use super::graph::Graph;
use lattice_lir::{BufferId, OpId, TierId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An L0-exclusive topological order of `graph` (built without L0 turns), groups and ops taken
/// by smallest `key` where the order is free; with `complete`, the sets the gated traversal
/// stalls on are searched (`super::backtrack`). `Err(None)`: stalled without a search.
fn exclusive_order<K: Ord + Copy>(
    graph: &Graph<'_>,
    key: &[K],
    complete: bool,
) -> Result<Vec<OpId>, Option<TurnSearch>> {
    let n = graph.len();
    let mut nesting = Nesting {
        graph,
        key,
        complete,
        local: vec![usize::MAX; n],
        out: Vec::with_capacity(n),
    };
    let all: Vec<OpId> = (0..n).map(OpId::new).collect();
    nesting.emit(&all).map(|()| nesting.out)
}

/// [`exclusive_order`] by `key`; when that gets stuck, by structural keys, each with `key`
/// breaking its ties: the longest path through the op, shortest first; the longest path to a
/// sink, longest first; the longest path from a source, shortest first; when those get stuck
/// too, by `key` with the complete search (see the header).
pub(crate) fn exclusive_order_retrying<K: Ord + Copy>(
    graph: &Graph<'_>,
    key: &[K],
) -> Result<Vec<OpId>, TurnSearch> {
    if let Ok(order) = exclusive_order(graph, key, false) {
        return Ok(order);
    }
    let n = graph.len();
    let topo = graph.topological();
    let mut depth = vec![0usize; n];
    for &v in &topo {
        for &s in graph.succs(v) {
            depth[s.index()] = depth[s.index()].max(depth[v.index()] + 1);
        }
    }
    let mut height = vec![0usize; n];
    for &v in topo.iter().rev() {
        for &p in graph.preds(v) {
            height[p.index()] = height[p.index()].max(height[v.index()] + 1);
        }
    }
    let tallest = height.iter().copied().max().unwrap_or(0);
    let through: Vec<usize> = (0..n).map(|v| depth[v] + height[v]).collect();
    let to_sink: Vec<usize> = height.iter().map(|&h| tallest - h).collect();
    let structural = [through, to_sink, depth].iter().find_map(|primary| {
        let keys: Vec<(usize, K)> = (0..n).map(|v| (primary[v], key[v])).collect();
        exclusive_order(graph, &keys, false).ok()
    });
    match structural {
        Some(order) => Ok(order),
        None => exclusive_order(graph, key, true)
            .map_err(|outcome| outcome.unwrap_or(TurnSearch::Exhausted)),
    }
}

struct Nesting<'g, 'm, K> {
    graph: &'g Graph<'m>,
    key: &'g [K],
    /// Whether a set the gated traversal stalls on is searched (`super::backtrack`).
    complete: bool,
    /// Per op: its index in the set being processed (stale entries are checked against it).
    local: Vec<usize>,
    out: Vec<OpId>,
}

impl<K: Ord + Copy> Nesting<'_, '_, K> {
    /// Whether `v` belongs to `set`, whose `local` indices are current.
    fn member(&self, set: &[OpId], v: OpId) -> bool {
        set.get(self.local[v.index()]) == Some(&v)
    }

    /// Emits `set` (see the header); an error when it got stuck, the gated traversal stalled
    /// and (with `complete`) the search found no order.
    fn emit(&mut self, set: &[OpId]) -> Result<(), Option<TurnSearch>> {
        for (i, &v) in set.iter().enumerate() {
            self.local[v.index()] = i;
        }
        let graph = self.graph;
        let module = graph.module;
        // (tier, buffer, op) for every staging buffer an op of the set names.
        let mut named: Vec<(TierId, BufferId, usize)> = set
            .iter()
            .enumerate()
            .flat_map(|(i, &v)| {
                module
                    .op(v)
                    .kind
                    .buffers()
                    .iter()
                    .filter_map(move |&b| graph.staging_tier(b).map(|t| (t, b, i)))
            })
            .collect();
        named.sort_unstable();
        let contended = |t: TierId| {
            let same: Vec<_> = named.iter().filter(|e| e.0 == t).collect();
            same.first()
                .zip(same.last())
                .is_some_and(|(a, z)| a.1 != z.1)
        };
        let mut tiers: Vec<TierId> = named.iter().map(|e| e.0).collect();
        tiers.dedup();
        let tiers: Vec<TierId> = tiers.into_iter().filter(|&t| contended(t)).collect();
        if tiers.is_empty() {
            self.kahn(set);
            return Ok(());
        }
        let mut part = Partition::new(set.len());
        for pair in named.windows(2) {
            if pair[0].1 == pair[1].1 && tiers.contains(&pair[0].0) {
                part.union(pair[0].2, pair[1].2);
            }
        }
        let root: Vec<usize> = (0..set.len()).map(|i| part.find(i)).collect();
        let mut edges = Vec::new();
        for (i, &u) in set.iter().enumerate() {
            for &v in self.graph.succs(u) {
                if self.member(set, v) && root[i] != root[self.local[v.index()]] {
                    edges.push((root[i], root[self.local[v.index()]]));
                }
            }
        }
        let scc = strongly_connected(set.len(), &edges);
        // Dense group numbers in set order.
        let mut group_of_scc = vec![usize::MAX; set.len()];
        let mut groups: Vec<Vec<OpId>> = Vec::new();
        let mut group = vec![0; set.len()];
        for (i, &v) in set.iter().enumerate() {
            let s = scc[root[i]];
            if group_of_scc[s] == usize::MAX {
                group_of_scc[s] = groups.len();
                groups.push(Vec::new());
            }
            group[i] = group_of_scc[s];
            groups[group[i]].push(v);
        }
        if groups.len() == 1 {
            return self.gated(set);
        }
        let g = groups.len();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); g];
        let mut missing = vec![0usize; g];
        for &(a, b) in &edges {
            let (ga, gb) = (group[a], group[b]);
            if ga != gb {
                succ[ga].push(gb);
            }
        }
        for list in &mut succ {
            list.sort_unstable();
            list.dedup();
            for &b in list.iter() {
                missing[b] += 1;
            }
        }
        let first = |members: &[OpId]| {
            members
                .iter()
                .map(|&v| (self.key[v.index()], v))
                .min()
                .expect("groups are not empty")
        };
        let firsts: Vec<(K, OpId)> = groups.iter().map(|m| first(m)).collect();
        let mut ready: BinaryHeap<Reverse<((K, OpId), usize)>> = (0..g)
            .filter(|&k| missing[k] == 0)
            .map(|k| Reverse((firsts[k], k)))
            .collect();
        while let Some(Reverse((_, k))) = ready.pop() {
            self.emit(&groups[k])?;
            for &s in &succ[k] {
                missing[s] -= 1;
                if missing[s] == 0 {
                    ready.push(Reverse((firsts[s], s)));
                }
            }
        }
        Ok(())
    }

    /// Kahn over `set` (whose `local` indices are current) by key; `set` is closed under the
    /// paths between its ops, so this never stalls.
    fn kahn(&mut self, set: &[OpId]) {
        let mut missing: Vec<usize> = set
            .iter()
            .map(|&v| {
                let preds = self.graph.preds(v);
                preds.iter().filter(|&&p| self.member(set, p)).count()
            })
            .collect();
        let mut ready: BinaryHeap<Reverse<(K, OpId)>> = set
            .iter()
            .enumerate()
            .filter(|&(i, _)| missing[i] == 0)
            .map(|(_, &v)| Reverse((self.key[v.index()], v)))
            .collect();
        while let Some(Reverse((_, v))) = ready.pop() {
            self.out.push(v);
            for &s in self.graph.succs(v) {
                if self.member(set, s) {
                    let i = self.local[s.index()];
                    missing[i] -= 1;
                    if missing[i] == 0 {
                        ready.push(Reverse((self.key[s.index()], s)));
                    }
                }
            }
        }
    }

    /// A set the decomposition cannot split, by the gated traversal (`super::gated`), and
    /// where that stalls, with `complete`, by the search (`super::backtrack`).
    fn gated(&mut self, set: &[OpId]) -> Result<(), Option<TurnSearch>> {
        let order = match gated_order(self.graph, set, &self.local, self.key) {
            Some(order) => order,
            None if self.complete => searched_order(self.graph, set, &self.local, self.key)?,
            None => return Err(None),
        };
        self.out.extend(order);
        Ok(())
    }
}
