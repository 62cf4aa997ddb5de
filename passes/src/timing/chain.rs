//! Critical-chain extraction: from the op that ends last, walk back along tight links — a
//! predecessor whose end is exactly this op's start — until an op that starts at time zero. Every
//! op of the chain is on a longest path, so shortening the makespan needs one of its links to go.
//!
//! Ties are broken deterministically: the last op is the one with the smallest id among those
//! ending at the makespan; at each step the pipe predecessor is preferred when it is tight (it is
//! the link a pipe-order change can remove), then the dependency with the smallest id. O(V + E).

use super::eval::Times;
use super::graph::FixedGraph;
use super::pipes::PipeOrder;
use lattice_lir::OpId;

/// Why an op of the chain cannot start earlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// It starts at time zero: the chain begins here.
    Start,
    /// It waits for the previous op of its pipe.
    Pipe,
    /// It waits for one of its dependencies.
    Dep,
}

/// One op of a critical chain and the link that holds it back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The op.
    pub op: OpId,
    /// What the previous op of the chain is to it.
    pub via: Via,
}

/// A critical chain of the timing `times` of `graph` under `order`, first op first.
pub fn critical_chain(graph: &FixedGraph, order: Option<&PipeOrder>, times: &Times) -> Vec<Link> {
    let Some(last) = (0..graph.len())
        .map(OpId::new)
        .filter(|v| times.end[v.index()] == times.makespan)
        .min_by_key(|v| (times.start[v.index()] == times.end[v.index()], v.index()))
    else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    let mut v = last;
    loop {
        let start = times.start[v.index()];
        let tight = |p: &OpId| times.end[p.index()] == start;
        let by_pipe = order.and_then(|o| o.prev(graph, v)).filter(tight);
        let (via, next) = if start == 0 {
            (Via::Start, None)
        } else if let Some(p) = by_pipe {
            (Via::Pipe, Some(p))
        } else {
            (Via::Dep, graph.preds(v).iter().copied().find(tight))
        };
        chain.push(Link { op: v, via });
        match next {
            Some(p) => v = p,
            None => break,
        }
    }
    chain.reverse();
    chain
}
