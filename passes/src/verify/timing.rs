//! The timing of DESIGN §1.3 over an augmented graph: start(v) = max(end of every dependency, end
//! of the previous op of v's pipe), end(v) = start(v) + cycles(v), ALLOC and FREE taking zero
//! cycles and no pipe; makespan = max end. Also the critical path (the same recurrence without
//! pipe order, i.e. the longest dependency chain) and every pipe's busy cycles.
//!
//! One sweep in the graph's evaluation order, so every dependency that counts is final when its
//! user is reached; sums saturate instead of wrapping. Single issue holds by construction: each op
//! starts no earlier than its pipe predecessor ends. O(V + E).

use super::graph::Augmented;
use lattice_lir::Module;

/// Start and end of every op, indexed by op id (zero for ops σ does not list).
pub(crate) struct Timing {
    /// When each op starts.
    pub start: Vec<u64>,
    /// When each op ends.
    pub end: Vec<u64>,
    /// Max end.
    pub makespan: u64,
    /// Longest chain of dependencies, in cycles.
    pub critical_path: u64,
    /// Total cycles of each pipe's ops, indexed by pipe id.
    pub busy: Vec<u64>,
}

/// Times every scheduled op of `m` over `g`.
pub(crate) fn timing(m: &Module, g: &Augmented) -> Timing {
    let n = m.ops.len();
    let mut t = Timing {
        start: vec![0; n],
        end: vec![0; n],
        makespan: 0,
        critical_path: 0,
        busy: vec![0; m.target.pipes.len()],
    };
    let mut chain_end = vec![0u64; n];
    for &v in &g.topo {
        let kind = &m.op(v).kind;
        let cycles = kind.cycles();
        let mut ready = 0;
        let mut chain = 0;
        for &p in g.deps(v) {
            if g.counts(p, v) {
                ready = ready.max(t.end[p.index()]);
                chain = chain.max(chain_end[p.index()]);
            }
        }
        if let Some(p) = g.pipe_prev[v.index()] {
            if g.counts(p, v) {
                ready = ready.max(t.end[p.index()]);
            }
        }
        t.start[v.index()] = ready;
        t.end[v.index()] = ready.saturating_add(cycles);
        t.makespan = t.makespan.max(t.end[v.index()]);
        chain_end[v.index()] = chain.saturating_add(cycles);
        t.critical_path = t.critical_path.max(chain_end[v.index()]);
        if let Some(pipe) = kind.pipe() {
            t.busy[pipe.index()] = t.busy[pipe.index()].saturating_add(cycles);
        }
    }
    t
}
