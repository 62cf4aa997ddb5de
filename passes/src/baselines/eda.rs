//! EDA (Pao et al. 2025): **placeholder traversals only**. The paper's rule could not be found in
//! any public source (baselines.md §6), so nothing here is EDA's algorithm; these are the
//! stand-ins the spec lists [ADAPT, NOT the EDA paper], each a list schedule of the A0 op graph on
//! the shared Kahn engine (`Lifecycle::Deferred`: ALLOC just before its first user, FREE as soon
//! as ready), ties by op name:
//! - `dfs-consumer` (default): LIFO — the ready commands released by the most recently run
//!   command first, so a tile is finished depth-first;
//! - `bfs-level`: by ASAP level in the op graph;
//! - `inductor-bfs`: by the ascending list of the predecessors' positions in the order so far
//!   [SRC `torch/_inductor/memory.py` `topological_sort_bfs`];
//! - `inductor-dfs`: a DFS post-order visiting commands, and each command's predecessors, by
//!   ascending operand bytes [SRC `topological_sort_dfs`], expanded by A0.
//!
//! Reports must not call these numbers "EDA" until the paper is identified. Allocation and
//! replacement: the backend's (`dlr`). Complexity: O((V + E) log V), `inductor-bfs` O(E log V)
//! key comparisons of length up to the in-degree.

use super::projection::Projection;
use crate::order::engine::{traverse, KeyHeap, Lifecycle, Selector, State};
use crate::order::graph::Role;
use crate::order::{stable_order, OrderError};
use lattice::{option_enum, pass_options};
use lattice_lir::{Module, OpId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

option_enum! {
    /// The placeholder traversal.
    pub enum EdaTraversal {
        /// Ready successors of the most recent command first (LIFO).
        DfsConsumer = "dfs-consumer",
        /// ASAP level, then name.
        BfsLevel = "bfs-level",
        /// Predecessors' positions, earliest first (Inductor BFS).
        InductorBfs = "inductor-bfs",
        /// DFS by ascending operand bytes (Inductor DFS).
        InductorDfs = "inductor-dfs",
    }
}

pass_options! {
    /// Options of the `eda` pass.
    pub struct EdaOptions {
        /// Placeholder traversal: dfs-consumer, bfs-level, inductor-bfs or inductor-dfs.
        traversal: EdaTraversal = EdaTraversal::DfsConsumer,
    }
}

/// The placeholder order of `module`'s ops under `traversal`.
pub fn eda_order(module: &Module, traversal: EdaTraversal) -> Result<Vec<OpId>, OrderError> {
    // Fails first, with the ordering passes' error, on inputs without a legal order.
    stable_order(module)?;
    let proj = Projection::build(module)?;
    match traversal {
        EdaTraversal::DfsConsumer => traverse(
            &proj.graph,
            Lifecycle::Deferred,
            &mut Lifo {
                step: 0,
                heap: BinaryHeap::new(),
            },
        ),
        EdaTraversal::BfsLevel => {
            let level = asap_levels(&proj);
            let keys = (0..proj.graph.len())
                .map(|v| {
                    let u = proj.local[v];
                    let level = level.get(u as usize).copied().unwrap_or(0);
                    (level, proj.graph.name(OpId::new(v)))
                })
                .collect();
            traverse(&proj.graph, Lifecycle::Deferred, &mut KeyHeap::new(keys))
        }
        EdaTraversal::InductorBfs => traverse(
            &proj.graph,
            Lifecycle::Deferred,
            &mut ByPredecessors {
                proj: &proj,
                position: vec![usize::MAX; proj.len()],
                emitted: 0,
                heap: BinaryHeap::new(),
            },
        ),
        EdaTraversal::InductorDfs => proj.expand(&inductor_dfs(module, &proj)),
    }
}

/// LIFO by the step at which a command became ready.
struct Lifo {
    step: u64,
    heap: BinaryHeap<Reverse<(Reverse<u64>, u32, OpId)>>,
}

impl Selector for Lifo {
    fn push(&mut self, op: OpId, state: &State<'_, '_>) {
        self.heap
            .push(Reverse((Reverse(self.step), state.graph.name(op), op)));
    }
    fn pop(&mut self, _: &State<'_, '_>) -> Option<OpId> {
        self.heap.pop().map(|Reverse((_, _, op))| op)
    }
    fn emitted(&mut self, op: OpId, state: &State<'_, '_>) {
        if state.graph.role(op) == Role::Work {
            self.step += 1;
        }
    }
}

/// Inductor BFS: the sorted positions of a command's predecessors, fixed when it becomes ready
/// (they have all run by then).
struct ByPredecessors<'p, 'm> {
    proj: &'p Projection<'m>,
    position: Vec<usize>,
    emitted: usize,
    heap: BinaryHeap<Reverse<(Vec<usize>, u32, OpId)>>,
}

impl Selector for ByPredecessors<'_, '_> {
    fn push(&mut self, op: OpId, state: &State<'_, '_>) {
        let u = self.proj.local[op.index()];
        let mut key: Vec<usize> = self
            .proj
            .preds(u)
            .iter()
            .map(|&w| self.position[w as usize])
            .collect();
        key.sort_unstable();
        self.heap.push(Reverse((key, state.graph.name(op), op)));
    }
    fn pop(&mut self, _: &State<'_, '_>) -> Option<OpId> {
        self.heap.pop().map(|Reverse((_, _, op))| op)
    }
    fn emitted(&mut self, op: OpId, _: &State<'_, '_>) {
        let u = self.proj.local[op.index()];
        if let Some(slot) = self.position.get_mut(u as usize) {
            *slot = self.emitted;
            self.emitted += 1;
        }
    }
}

/// Longest path from a source, in edges, of every command. O(V + E).
fn asap_levels(proj: &Projection<'_>) -> Vec<u32> {
    let mut level = vec![0u32; proj.len()];
    let mut missing: Vec<usize> = (0..proj.len() as u32)
        .map(|u| proj.preds(u).len())
        .collect();
    let mut ready: Vec<u32> = (0..proj.len() as u32)
        .filter(|&u| missing[u as usize] == 0)
        .collect();
    while let Some(u) = ready.pop() {
        for &w in proj.succs(u) {
            level[w as usize] = level[w as usize].max(level[u as usize] + 1);
            missing[w as usize] -= 1;
            if missing[w as usize] == 0 {
                ready.push(w);
            }
        }
    }
    level
}

/// Inductor DFS: commands by ascending (operand bytes, name); each visit emits the unvisited
/// predecessors first, in the same order. Iterative post-order.
fn inductor_dfs(module: &Module, proj: &Projection<'_>) -> Vec<u32> {
    let bytes = |u: u32| -> u64 {
        let op = module.op(proj.ops[u as usize]);
        op.kind
            .buffers()
            .iter()
            .map(|&b| module.buffer(b).size)
            .sum()
    };
    let key = |u: u32| (bytes(u), proj.name(u));
    let mut by_size: Vec<u32> = (0..proj.len() as u32).collect();
    by_size.sort_by_key(|&u| key(u));
    let mut visited = vec![false; proj.len()];
    let mut out = Vec::with_capacity(proj.len());
    for root in by_size {
        if visited[root as usize] {
            continue;
        }
        visited[root as usize] = true;
        let mut stack: Vec<(u32, Vec<u32>)> = vec![(root, sorted_preds(proj, root, &key))];
        while let Some((v, preds)) = stack.last_mut() {
            let v = *v;
            match preds.pop() {
                Some(p) if !visited[p as usize] => {
                    visited[p as usize] = true;
                    let next = sorted_preds(proj, p, &key);
                    stack.push((p, next));
                }
                Some(_) => {}
                None => {
                    out.push(v);
                    stack.pop();
                }
            }
        }
    }
    out
}

/// Predecessors of `u`, largest key first (so popping visits them smallest first).
fn sorted_preds(proj: &Projection<'_>, u: u32, key: &impl Fn(u32) -> (u64, u32)) -> Vec<u32> {
    let mut preds = proj.preds(u).to_vec();
    preds.sort_by_key(|&w| Reverse(key(w)));
    preds
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::{parse_module, verify_module, OpKind};

    #[test]
    fn lifo_finishes_a_chain_while_levels_interleave_chains() {
        // Two chains a1 → a2 → a3 and b1 → b2 → b3, names interleaved.
        let mut text = String::from(
            "module @c phase(parsed) {
               target { tiers L1 = 4096 pipes P spill_out P, spill_in P, spill_cost = 0 + 1 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               buffer @b1 : L1[8]
               %0 = alloc @b0
               %1 = alloc @b1\n",
        );
        // a_k = %(2k + 2) on @b0, b_k = %(2k + 3) on @b1.
        for k in 0..3u32 {
            for (chain, buffer) in [(0u32, 0), (1, 1)] {
                let name = 2 * k + 2 + chain;
                let prev = if k == 0 { buffer } else { name - 2 };
                text.push_str(&format!("  %{name} = OP P 1 (@b{buffer}) after(%{prev})\n"));
            }
        }
        text.push_str("  %8 = free @b0 after(%6)\n  %9 = free @b1 after(%7)\n}\n");
        let module = parse_module(&text).unwrap();
        let commands = |order: &[OpId]| -> Vec<u32> {
            order
                .iter()
                .filter(|&&id| matches!(module.op(id).kind, OpKind::Compute { .. }))
                .map(|&id| module.op(id).name)
                .collect()
        };
        let order = |t| {
            let order = eda_order(&module, t).unwrap();
            let mut m = module.clone();
            m.schedule = order.clone();
            verify_module(&m).unwrap();
            commands(&order)
        };
        assert_eq!(order(EdaTraversal::DfsConsumer), vec![2, 4, 6, 3, 5, 7]);
        assert_eq!(order(EdaTraversal::BfsLevel), vec![2, 3, 4, 5, 6, 7]);
        assert_eq!(order(EdaTraversal::InductorBfs), vec![2, 3, 4, 5, 6, 7]);
        assert_eq!(order(EdaTraversal::InductorDfs), vec![2, 3, 4, 5, 6, 7]);
    }
}
