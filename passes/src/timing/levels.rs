//! Downstream criticality: tail(v) = cycles(v) + max tail over v's timed successors and,
//! under a pipe order, the next op of its pipe — the length of the longest chain from v's start
//! to the end of the schedule. max over v of tail equals the makespan of the same graph.
//!
//! One sweep of a topological order backwards, so every successor is final first. O(V + E).

use super::eval::Times;
use super::graph::FixedGraph;
use super::pipes::PipeOrder;

/// tail(v) for every op, indexed by op id; `times` must come from the same graph and order.
pub fn tails(graph: &FixedGraph, order: Option<&PipeOrder>, times: &Times) -> Vec<u64> {
    let mut tail = vec![0u64; graph.len()];
    for &v in times.topo.iter().rev() {
        let below = graph
            .succs(v)
            .iter()
            .copied()
            .chain(order.and_then(|o| o.next(graph, v)))
            .map(|w| tail[w.index()])
            .max()
            .unwrap_or(0);
        tail[v.index()] = graph.cycles(v).saturating_add(below);
    }
    tail
}
