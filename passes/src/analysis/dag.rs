//! The order-free precedence DAG of a module: what every order of its original ops must keep,
//! whatever phase the module is in. It is the DAG the order-independent bounds and `order-exact`
//! reason about.
//!
//! Nodes are the module's ops except spill events (a plan's artefacts). Edges: the precedence
//! dependencies between such ops (spill and reuse dependencies belong to one plan, so they are
//! left out), and the lifetime edges DESIGN §1.3 implies — ALLOC(b) → every op naming b →
//! FREE(b), and ALLOC(b) → FREE(b) — whether or not the input spells them. Edges are stored
//! without duplicates as successor and predecessor lists. `topo` is a topological order (Kahn,
//! ties broken by σ position); results built on reachability do not depend on which one.
//! O(V + E + operands) time and space, plus a sort of each node's edge list.

use lattice_lir::{DepKind, Module, OpId, OpKind};

/// The precedence DAG of a module's original ops.
#[derive(Clone, Debug)]
pub struct Dag {
    /// The original ops in a topological order.
    pub topo: Vec<OpId>,
    /// Per op: its index in `topo` (unused for spill events).
    pub pos: Vec<usize>,
    succ_start: Vec<usize>,
    succ: Vec<OpId>,
    pred_start: Vec<usize>,
    pred: Vec<OpId>,
    /// Per op: whether it is a node (not a spill event).
    present: Vec<bool>,
    /// Per buffer: its ALLOC, if it has one (the first, should the module have several).
    pub alloc_of: Vec<Option<OpId>>,
    /// Per buffer: its FREE, if it has one (likewise).
    pub free_of: Vec<Option<OpId>>,
}

/// The precedence edges of the original ops form a cycle through this op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the dependencies of %{op} form a cycle: no order of the ops exists")]
pub struct CycleError {
    /// The name of an op on or behind the cycle.
    pub op: u32,
}

impl Dag {
    /// The DAG of `module`, or the cycle that makes every order impossible.
    pub fn of(module: &Module) -> Result<Dag, CycleError> {
        let n = module.ops.len();
        let present: Vec<bool> = module.ops.iter().map(|o| !o.kind.is_spill()).collect();
        let mut alloc_of = vec![None; module.buffers.len()];
        let mut free_of = vec![None; module.buffers.len()];
        for id in module.op_ids() {
            match module.op(id).kind {
                OpKind::Alloc { buffer, .. } => {
                    alloc_of[buffer.index()].get_or_insert(id);
                }
                OpKind::Free { buffer } => {
                    free_of[buffer.index()].get_or_insert(id);
                }
                _ => {}
            }
        }
        let mut edges: Vec<(OpId, OpId)> = Vec::with_capacity(module.dep_count() + 2 * n);
        for id in module.op_ids().filter(|id| present[id.index()]) {
            let op = module.op(id);
            edges.extend(
                op.deps
                    .iter()
                    .filter(|d| d.kind == DepKind::Precedence)
                    .filter(|d| d.op.index() < n && present[d.op.index()] && d.op != id)
                    .map(|d| (d.op, id)),
            );
            if let OpKind::Compute { operands, .. } = &op.kind {
                for b in operands {
                    edges.extend(alloc_of[b.index()].map(|a| (a, id)));
                    edges.extend(free_of[b.index()].map(|f| (id, f)));
                }
            }
        }
        for b in 0..module.buffers.len() {
            edges.extend(alloc_of[b].zip(free_of[b]));
        }
        let (succ_start, succ) = lists(n, edges.iter().copied());
        let (pred_start, pred) = lists(n, edges.iter().map(|&(u, v)| (v, u)));
        let mut dag = Dag {
            topo: Vec::new(),
            pos: vec![0; n],
            succ_start,
            succ,
            pred_start,
            pred,
            present,
            alloc_of,
            free_of,
        };
        dag.topo = dag.kahn(module)?;
        for (i, v) in dag.topo.iter().enumerate() {
            dag.pos[v.index()] = i;
        }
        Ok(dag)
    }

    fn kahn(&self, module: &Module) -> Result<Vec<OpId>, CycleError> {
        let n = self.present.len();
        let mut waiting: Vec<usize> = (0..n).map(|i| self.preds(OpId::new(i)).len()).collect();
        // Ready ops in σ order: a heap keyed by σ position (ops outside σ last, by index).
        let position = module.schedule_positions();
        let mut ready = std::collections::BinaryHeap::new();
        for id in module.op_ids() {
            if self.present[id.index()] && waiting[id.index()] == 0 {
                ready.push(std::cmp::Reverse((position[id.index()], id)));
            }
        }
        let mut topo = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse((_, u))) = ready.pop() {
            topo.push(u);
            for &v in self.succs(u) {
                waiting[v.index()] -= 1;
                if waiting[v.index()] == 0 {
                    ready.push(std::cmp::Reverse((position[v.index()], v)));
                }
            }
        }
        let nodes = self.present.iter().filter(|&&p| p).count();
        if topo.len() < nodes {
            let stuck = (0..n)
                .find(|&i| self.present[i] && waiting[i] > 0)
                .unwrap_or(0);
            return Err(CycleError {
                op: module.ops[stuck].name,
            });
        }
        Ok(topo)
    }

    /// Number of op slots (nodes are indexed by op id; spill events are slots without edges).
    pub fn slots(&self) -> usize {
        self.present.len()
    }

    /// Whether `op` is a node (an original op, not a spill event).
    pub fn has(&self, op: OpId) -> bool {
        self.present[op.index()]
    }

    /// The ops that must come right after `op`, without duplicates.
    pub fn succs(&self, op: OpId) -> &[OpId] {
        &self.succ[self.succ_start[op.index()]..self.succ_start[op.index() + 1]]
    }

    /// The ops `op` waits for, without duplicates.
    pub fn preds(&self, op: OpId) -> &[OpId] {
        &self.pred[self.pred_start[op.index()]..self.pred_start[op.index() + 1]]
    }
}

/// Compressed adjacency lists of `edges` (from → to), each list sorted and without duplicates.
fn lists(n: usize, edges: impl Iterator<Item = (OpId, OpId)> + Clone) -> (Vec<usize>, Vec<OpId>) {
    let mut start = vec![0usize; n + 1];
    for (u, _) in edges.clone() {
        start[u.index() + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut to = vec![OpId::new(0); start[n]];
    for (u, v) in edges {
        to[fill[u.index()]] = v;
        fill[u.index()] += 1;
    }
    // Sort and dedup each list in place, then compact.
    let mut out_start = vec![0usize; n + 1];
    let mut out = Vec::with_capacity(to.len());
    for u in 0..n {
        let list = &mut to[start[u]..start[u + 1]];
        list.sort_unstable();
        let before = out.len();
        for &v in list.iter() {
            if out.len() == before || out.last() != Some(&v) {
                out.push(v);
            }
        }
        out_start[u + 1] = out.len();
    }
    (out_start, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn lifetime_edges_are_added_and_spill_and_reuse_dependencies_left_out() {
        let module = parse_module(
            "module @m phase(planned) {
               target { tiers L1 = 64 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               buffer @b1 : L1[8]
               %0 = alloc @b0 at 0
               %1 = OP P 5 (@b0) after(%0)
               %5 = spill_out @b0 P 0 after(%1 spill)
               %6 = spill_in @b0 at 0 P 0 after(%5 spill)
               %2 = OP P 7 (@b0) after(%1, %6 spill)
               %3 = free @b0 after(%2)
               %4 = alloc @b1 at 0 after(%3 reuse)
               %7 = free @b1 after(%4)
             }",
        )
        .expect("parses");
        let dag = Dag::of(&module).expect("acyclic");
        let ids = |v: &[usize]| v.iter().map(|&i| OpId::new(i)).collect::<Vec<_>>();
        // ALLOC(b0) → its users and its FREE, whether spelt or not.
        assert_eq!(dag.succs(OpId::new(0)), ids(&[1, 4, 5]));
        // The spill ops are no nodes, and the reuse dependency %3 → %4 is no edge.
        assert!(!dag.has(OpId::new(2)) && !dag.has(OpId::new(3)));
        assert!(dag.preds(OpId::new(6)).is_empty());
        assert_eq!(dag.topo.len(), 6);
    }
}
