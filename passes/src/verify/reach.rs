//! Exact reachability queries "does a path of the augmented graph lead from u to v?", the
//! meaning of "ordered" for spill edges and hand-offs: a path orders u before v under every
//! choice of durations, while an ordering that only happens to hold in one timing does not.
//!
//! A query is settled at once when an edge or one pipe's order links u to v (the case for every
//! ordering a planner states explicitly). The rest are answered together: sources are grouped 64
//! at a time, and one forward sweep of the evaluation order per group, from the group's first
//! source to its last target, ORs 64-bit masks of "reached from source i" along every edge.
//! Cost: O(Q log V) for the direct checks plus, per group, the nodes and edges inside its window
//! — linear when few orderings are implicit and windows are short, O((V + E)·Q/64) at worst.

use super::graph::Augmented;
use super::sigma::UNSCHEDULED;
use lattice_lir::OpId;

/// For each query (u, v): whether v is reachable from u.
pub(crate) fn reachable(g: &Augmented, queries: &[(OpId, OpId)]) -> Vec<bool> {
    let mut answer = vec![false; queries.len()];
    let mut pending: Vec<usize> = Vec::new();
    for (q, &(u, v)) in queries.iter().enumerate() {
        let (ru, rv) = (g.rank[u.index()], g.rank[v.index()]);
        if ru == UNSCHEDULED || rv == UNSCHEDULED {
            continue;
        }
        if u == v || (ru < rv && g.orders_directly(u, v)) {
            answer[q] = true;
        } else if ru < rv {
            pending.push(q);
        }
    }
    pending.sort_by_key(|&q| g.rank[queries[q].0.index()]);
    let mut mask = vec![0u64; g.topo.len()];
    let mut bit_of = vec![0u64; g.topo.len()];
    let mut rest = pending.as_slice();
    while !rest.is_empty() {
        // Take queries until a 65th distinct source would be needed.
        let mut sources = 0;
        let mut last = None;
        let mut take = 0;
        for &q in rest {
            let u = queries[q].0;
            if last != Some(u) {
                if sources == 64 {
                    break;
                }
                sources += 1;
                last = Some(u);
            }
            take += 1;
        }
        let (group, tail) = rest.split_at(take);
        rest = tail;
        sweep(g, queries, group, &mut mask, &mut bit_of, &mut answer);
    }
    answer
}

/// Answers one group of queries (at most 64 distinct sources, sorted by source rank).
fn sweep(
    g: &Augmented,
    queries: &[(OpId, OpId)],
    group: &[usize],
    mask: &mut [u64],
    bit_of: &mut [u64],
    answer: &mut [bool],
) {
    let lo = g.rank[queries[group[0]].0.index()];
    let hi = group
        .iter()
        .map(|&q| g.rank[queries[q].1.index()])
        .max()
        .unwrap_or(lo);
    let mut next_bit = 0;
    for &q in group {
        let r = g.rank[queries[q].0.index()];
        if bit_of[r] == 0 {
            bit_of[r] = 1 << next_bit;
            next_bit += 1;
        }
    }
    for r in lo..=hi {
        let v = g.topo[r];
        let mut bits = bit_of[r];
        for &p in g.deps(v).iter().chain(g.pipe_prev[v.index()].as_ref()) {
            let rp = g.rank[p.index()];
            if rp >= lo && rp < r {
                bits |= mask[rp];
            }
        }
        mask[r] = bits;
    }
    for &q in group {
        let (u, v) = queries[q];
        answer[q] = mask[g.rank[v.index()]] & bit_of[g.rank[u.index()]] != 0;
    }
    for &q in group {
        bit_of[g.rank[queries[q].0.index()]] = 0;
    }
}
