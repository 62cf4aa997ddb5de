//! The augmented graph of DESIGN §1.3: the scheduled ops, their dependencies (precedence, spill
//! and, unless left out, reuse) and the per-pipe order of σ (each op waits for the previous op of
//! its pipe, which is what makes every pipe single-issue and in order).
//!
//! Also finds an evaluation order. When σ places every dependency before its user, σ itself is
//! topological (pipe edges follow σ by construction) and is used as is; otherwise Kahn's algorithm
//! decides acyclicity, and on a cycle one cycle is extracted by walking unprocessed predecessors
//! (every node Kahn leaves has one) and σ becomes the evaluation order, in which only edges that
//! point backwards count. Dependencies on ops σ does not list are dropped (reported as coverage).
//! Predecessor lists are sorted, so a direct edge is found by binary search. O((V + E) log V).

use super::sigma::{Sigma, UNSCHEDULED};
use lattice_lir::{DepKind, Module, OpId, PipeId};
use std::collections::VecDeque;

/// The augmented graph and an evaluation order of it.
pub(crate) struct Augmented {
    /// `preds[first[v]..first[v + 1]]` are v's dependencies, sorted, without repeats.
    first: Vec<usize>,
    preds: Vec<OpId>,
    /// The previous op of v's pipe in σ.
    pub pipe_prev: Vec<Option<OpId>>,
    /// Every op's pipe.
    pipe: Vec<Option<PipeId>>,
    /// Every op's position in σ.
    sigma_pos: Vec<usize>,
    /// Scheduled ops in evaluation order.
    pub topo: Vec<OpId>,
    /// Position of every op in `topo` ([`UNSCHEDULED`] when not scheduled).
    pub rank: Vec<usize>,
    /// One cycle (ops in edge order, first not repeated) when the graph has any.
    pub cycle: Option<Vec<OpId>>,
}

impl Augmented {
    /// v's dependencies in this graph.
    pub fn deps(&self, v: OpId) -> &[OpId] {
        &self.preds[self.first[v.index()]..self.first[v.index() + 1]]
    }

    /// Whether an edge of this graph, or a chain of one pipe's order, leads from u to v.
    pub fn orders_directly(&self, u: OpId, v: OpId) -> bool {
        let same_pipe = self.pipe[u.index()].is_some()
            && self.pipe[u.index()] == self.pipe[v.index()]
            && self.sigma_pos[u.index()] < self.sigma_pos[v.index()];
        same_pipe || self.deps(v).binary_search(&u).is_ok()
    }

    /// Whether an edge from p to v counts in the evaluation order (always, unless cyclic).
    pub fn counts(&self, p: OpId, v: OpId) -> bool {
        self.rank[p.index()] < self.rank[v.index()]
    }
}

/// Builds the augmented graph of the scheduled ops; reuse dependencies only if `with_reuse`.
pub(crate) fn augmented(m: &Module, sigma: &Sigma, with_reuse: bool) -> Augmented {
    let n = m.ops.len();
    let mut first = Vec::with_capacity(n + 1);
    let mut preds = Vec::with_capacity(m.dep_count());
    let mut in_order = true;
    for (i, op) in m.ops.iter().enumerate() {
        first.push(preds.len());
        if sigma.pos[i] == UNSCHEDULED {
            continue;
        }
        let from = preds.len();
        for d in &op.deps {
            if sigma.has(d.op) && (with_reuse || d.kind != DepKind::Reuse) {
                preds.push(d.op);
                in_order &= sigma.pos[d.op.index()] < sigma.pos[i];
            }
        }
        preds[from..].sort_unstable();
        let mut kept = from;
        for j in from..preds.len() {
            if j == from || preds[j] != preds[kept - 1] {
                preds[kept] = preds[j];
                kept += 1;
            }
        }
        preds.truncate(kept);
    }
    first.push(preds.len());

    let pipe: Vec<Option<PipeId>> = m.ops.iter().map(|op| op.kind.pipe()).collect();
    let mut pipe_prev = vec![None; n];
    let mut last = vec![None; m.target.pipes.len()];
    for &v in &sigma.order {
        if let Some(p) = pipe[v.index()] {
            pipe_prev[v.index()] = last[p.index()].replace(v);
        }
    }
    let mut g = Augmented {
        first,
        preds,
        pipe_prev,
        pipe,
        sigma_pos: sigma.pos.clone(),
        topo: Vec::new(),
        rank: Vec::new(),
        cycle: None,
    };
    if in_order {
        g.topo = sigma.order.clone();
    } else {
        kahn(&mut g, sigma);
    }
    if g.topo.len() < sigma.order.len() {
        g.cycle = Some(find_cycle(&g));
        g.topo = sigma.order.clone();
    }
    g.rank = vec![UNSCHEDULED; n];
    for (r, &v) in g.topo.iter().enumerate() {
        g.rank[v.index()] = r;
    }
    g
}

/// Kahn's algorithm seeded in σ order; leaves `topo` short when there is a cycle.
fn kahn(g: &mut Augmented, sigma: &Sigma) {
    let n = g.pipe.len();
    let mut indegree = vec![0usize; n];
    let mut succ_count = vec![0usize; n + 1];
    for &v in &sigma.order {
        let preds = g.deps(v).iter().copied().chain(g.pipe_prev[v.index()]);
        for p in preds {
            indegree[v.index()] += 1;
            succ_count[p.index() + 1] += 1;
        }
    }
    for i in 0..n {
        succ_count[i + 1] += succ_count[i];
    }
    let mut fill = succ_count.clone();
    let mut succs = vec![OpId::new(0); succ_count[n]];
    for &v in &sigma.order {
        let preds = g.deps(v).iter().copied().chain(g.pipe_prev[v.index()]);
        for p in preds {
            succs[fill[p.index()]] = v;
            fill[p.index()] += 1;
        }
    }
    let mut queue: VecDeque<OpId> = sigma
        .order
        .iter()
        .copied()
        .filter(|v| indegree[v.index()] == 0)
        .collect();
    let mut topo = Vec::with_capacity(sigma.order.len());
    while let Some(v) = queue.pop_front() {
        topo.push(v);
        for &w in &succs[succ_count[v.index()]..succ_count[v.index() + 1]] {
            indegree[w.index()] -= 1;
            if indegree[w.index()] == 0 {
                queue.push_back(w);
            }
        }
    }
    g.topo = topo;
}

/// A cycle among the ops Kahn could not order: each has an unordered predecessor, so walking
/// predecessors from any of them must revisit one.
fn find_cycle(g: &Augmented) -> Vec<OpId> {
    let n = g.pipe.len();
    let mut ordered = vec![false; n];
    for &v in &g.topo {
        ordered[v.index()] = true;
    }
    let stuck = |v: OpId| g.sigma_pos[v.index()] != UNSCHEDULED && !ordered[v.index()];
    let Some(mut v) = (0..n).map(OpId::new).find(|&v| stuck(v)) else {
        return Vec::new();
    };
    let mut seen_at = vec![usize::MAX; n];
    let mut path = Vec::new();
    while seen_at[v.index()] == usize::MAX {
        seen_at[v.index()] = path.len();
        path.push(v);
        let next = g
            .deps(v)
            .iter()
            .copied()
            .chain(g.pipe_prev[v.index()])
            .find(|&p| stuck(p));
        match next {
            Some(p) => v = p,
            None => return path,
        }
    }
    // The walk went backwards along edges; reverse the loop to list it in edge order.
    let mut cycle = path.split_off(seen_at[v.index()]);
    cycle.reverse();
    cycle
}
