//! Writes a pipe order back as σ: a linear extension of the constraint graph (timed and
//! order-only edges) plus the pipe chains, so §1.3 reads exactly that pipe order off it, staying
//! as close as it can to a reference σ (the incumbent's).
//!
//! σ also decides the residency peaks (DESIGN §1.3 measures them along σ), so residencies open
//! lazily: every ready op that opens nothing (commands, FREEs, SPILL_OUTs) goes before any that
//! opens a residency (ALLOC, SPILL_IN); within each group the earliest in the reference σ goes
//! first. Taking an op that opens nothing never raises the resident bytes and can only make more
//! closers ready.
//!
//! Kahn's algorithm with two min-heaps: O((V + E) log V). Fails when the chains and the graph
//! form a cycle.

use super::footprint::Footprint;
use crate::timing::{Cyclic, FixedGraph, PipeOrder};
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// σ for `order` over `graph`; `rank` is every op's position in the reference σ.
pub(crate) fn linear_extension(
    graph: &FixedGraph,
    footprint: &Footprint,
    order: &PipeOrder,
    rank: &[usize],
) -> Result<Vec<OpId>, Cyclic> {
    let n = graph.len();
    let mut waiting: Vec<usize> = (0..n)
        .map(OpId::new)
        .map(|v| {
            graph.preds(v).len()
                + graph.order_preds(v).len()
                + usize::from(order.prev(graph, v).is_some())
        })
        .collect();
    let mut others = BinaryHeap::new();
    let mut openers = BinaryHeap::new();
    let push = |v: OpId, others: &mut BinaryHeap<_>, openers: &mut BinaryHeap<_>| {
        let heap = if footprint.opens[v.index()] > 0 {
            openers
        } else {
            others
        };
        heap.push(Reverse((rank[v.index()], v)));
    };
    for v in (0..n).map(OpId::new).filter(|v| waiting[v.index()] == 0) {
        push(v, &mut others, &mut openers);
    }
    let mut sigma = Vec::with_capacity(n);
    while let Some(Reverse((_, v))) = others.pop().or_else(|| openers.pop()) {
        sigma.push(v);
        let next = order.next(graph, v);
        let released = graph.succs(v).iter().chain(graph.order_succs(v));
        for &w in released.chain(next.as_ref()) {
            waiting[w.index()] -= 1;
            if waiting[w.index()] == 0 {
                push(w, &mut others, &mut openers);
            }
        }
    }
    if sigma.len() < n {
        return Err(Cyclic {
            unordered: n - sigma.len(),
        });
    }
    Ok(sigma)
}
