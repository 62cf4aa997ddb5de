//! Earliest start times (DESIGN §1.3): start(v) = max(end of every predecessor in the graph, end
//! of the previous op on v's pipe), end(v) = start(v) + cycles(v); makespan = max end. With no
//! pipe order this is the earliest start under G_fixed alone (the pipes are then unbounded).
//!
//! Kahn's algorithm over G_fixed (timed and order-only edges) plus the pipe chains, in FIFO order
//! seeded by op id, so every predecessor is final when its successor is reached and the result is
//! deterministic; only timed edges and pipe chains delay a start. If some op is never reached,
//! the graph with that pipe order has a cycle (no σ can carry it) and there is no timing. Sums
//! saturate. O(V + E).

use super::graph::FixedGraph;
use super::pipes::PipeOrder;
use lattice_lir::OpId;
use std::collections::VecDeque;

/// Start and end of every op, indexed by op id, and the evaluation order used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Times {
    /// When each op starts.
    pub start: Vec<u64>,
    /// When each op ends.
    pub end: Vec<u64>,
    /// Max end.
    pub makespan: u64,
    /// Every op, each after all its predecessors (graph and pipe).
    pub topo: Vec<OpId>,
}

/// The graph together with the pipe order has a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the dependencies and pipe order form a cycle through {unordered} op(s)")]
pub struct Cyclic {
    /// Ops that no topological order reaches.
    pub unordered: usize,
}

/// The earliest timing of `graph` under `order` (`None`: no pipe order, G_fixed alone).
pub fn evaluate(graph: &FixedGraph, order: Option<&PipeOrder>) -> Result<Times, Cyclic> {
    let n = graph.len();
    let prev = |v: OpId| order.and_then(|o| o.prev(graph, v));
    let next = |v: OpId| order.and_then(|o| o.next(graph, v));
    let mut waiting: Vec<usize> = (0..n)
        .map(OpId::new)
        .map(|v| graph.preds(v).len() + graph.order_preds(v).len() + usize::from(prev(v).is_some()))
        .collect();
    let mut queue: VecDeque<OpId> = (0..n)
        .map(OpId::new)
        .filter(|v| waiting[v.index()] == 0)
        .collect();
    let mut ready = vec![0u64; n];
    let mut t = Times {
        start: vec![0; n],
        end: vec![0; n],
        makespan: 0,
        topo: Vec::with_capacity(n),
    };
    while let Some(v) = queue.pop_front() {
        let i = v.index();
        t.start[i] = ready[i];
        t.end[i] = ready[i].saturating_add(graph.cycles(v));
        t.makespan = t.makespan.max(t.end[i]);
        t.topo.push(v);
        for w in graph.succs(v).iter().copied().chain(next(v)) {
            ready[w.index()] = ready[w.index()].max(t.end[i]);
        }
        let released = graph.succs(v).iter().chain(graph.order_succs(v));
        for &w in released.chain(next(v).as_ref()) {
            waiting[w.index()] -= 1;
            if waiting[w.index()] == 0 {
                queue.push_back(w);
            }
        }
    }
    if t.topo.len() < n {
        return Err(Cyclic {
            unordered: n - t.topo.len(),
        });
    }
    Ok(t)
}
