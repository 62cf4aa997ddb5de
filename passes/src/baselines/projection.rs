//! A0, the op-graph projection every baseline orders (baselines.md §1.2 [ADAPT]): only the
//! commands are scheduled, each ALLOC runs just before the first command that needs it and each
//! FREE right after the last command it waits for.
//!
//! Built on the order module's precedence graph (dependencies, buffer lifetimes and the L0 turns of
//! the gate), so every baseline inherits L0 exclusivity. The projection keeps:
//! - the *op graph*: one vertex per command (local index, ascending op id), and an edge u → v
//!   whenever v waits for u through a path whose inner nodes are ALLOCs and FREEs — e.g. the L0
//!   turn "last reader of the previous L0A buffer → FREE → ALLOC → first writer of the next";
//! - the *memory model* ([`Model`]): per buffer its openers (the commands right after its ALLOC)
//!   and closers (the commands its FREE waits for).
//!
//! Expanding an op order π back to a full σ is the Kahn engine's `Lifecycle::Deferred` mode
//! (the `stable` order's): keyed by position in π, it emits each armed ALLOC just before its
//! first user and each FREE as soon as it is ready. When π is a topological order of the op
//! graph, the commands of the result are exactly π (every op of π is ready when its turn comes,
//! and the engine pops the smallest key).
//!
//! Two shortcuts keep the walks linear on chains of L0 turns (FREE → ALLOC → FREE → …): the
//! forward walk does not step from an ALLOC to its own FREE when the buffer has users (the FREE
//! waits for those users, whose own edges carry the constraint on), and the backward walk for
//! closers stops at ALLOCs (a buffer's users, which are closers, run after its ALLOC anyway).
//! Cost: O(V + E) plus the lifecycle-only paths walked, linear on every input seen.

use super::model::{Item, Model};
use crate::order::engine::{traverse, KeyHeap, Lifecycle};
use crate::order::graph::{Graph, Role};
use crate::order::OrderError;
use lattice_lir::{Module, OpId};

/// Marks an op that is not a command (no local index).
pub(crate) const NONE: u32 = u32::MAX;

/// The op graph of a module and its memory model.
pub(crate) struct Projection<'m> {
    /// The full precedence graph (with L0 turns) the expansion traverses.
    pub(crate) graph: Graph<'m>,
    /// The commands, by local index (ascending op id).
    pub(crate) ops: Vec<OpId>,
    /// Local index of each op ([`NONE`] for ALLOC and FREE).
    pub(crate) local: Vec<u32>,
    succ_start: Vec<usize>,
    succ: Vec<u32>,
    pred_start: Vec<usize>,
    pred: Vec<u32>,
    /// Who allocates and frees what.
    pub(crate) model: Model,
}

impl<'m> Projection<'m> {
    /// Projects `module`; fails like the ordering passes when no legal order exists.
    pub(crate) fn build(module: &'m Module) -> Result<Self, OrderError> {
        let graph = Graph::build(module)?;
        let n = graph.len();
        let mut local = vec![NONE; n];
        let mut ops = Vec::new();
        for (v, slot) in local.iter_mut().enumerate() {
            if graph.role(OpId::new(v)) == Role::Work {
                *slot = ops.len() as u32;
                ops.push(OpId::new(v));
            }
        }
        let has_users: Vec<bool> = (0..n)
            .map(|v| match graph.role(OpId::new(v)) {
                Role::Alloc(_) => graph
                    .succs(OpId::new(v))
                    .iter()
                    .any(|&w| graph.role(w) == Role::Work),
                _ => false,
            })
            .collect();

        // Forward walks from every command through lifecycle nodes.
        let mut seen = vec![usize::MAX; n];
        let mut stack = Vec::new();
        let mut succ_start = Vec::with_capacity(ops.len() + 1);
        let mut succ = Vec::new();
        succ_start.push(0);
        for (i, &u) in ops.iter().enumerate() {
            seen[u.index()] = i;
            stack.clear();
            stack.push(u);
            let first = succ.len();
            while let Some(x) = stack.pop() {
                let from_alloc = matches!(graph.role(x), Role::Alloc(_)) && has_users[x.index()];
                for &w in graph.succs(x) {
                    if seen[w.index()] == i {
                        continue;
                    }
                    if from_alloc && matches!(graph.role(w), Role::Free(_)) {
                        continue;
                    }
                    seen[w.index()] = i;
                    match graph.role(w) {
                        Role::Work => succ.push(local[w.index()]),
                        _ => stack.push(w),
                    }
                }
            }
            succ[first..].sort_unstable();
            succ_start.push(succ.len());
        }
        let (pred_start, pred) = transpose(ops.len(), &succ_start, &succ);

        let mut items = Vec::new();
        let mut alloc_of = vec![None; module.buffers.len()];
        let mut free_of = vec![None; module.buffers.len()];
        for v in 0..n {
            match graph.role(OpId::new(v)) {
                Role::Alloc(b) => alloc_of[b.index()] = Some(OpId::new(v)),
                Role::Free(b) => free_of[b.index()] = Some(OpId::new(v)),
                Role::Work => {}
            }
        }
        let mut seen = vec![usize::MAX; n];
        for buffer in module.buffer_ids() {
            let (Some(alloc), Some(free)) = (alloc_of[buffer.index()], free_of[buffer.index()])
            else {
                continue;
            };
            let stamp = 2 * buffer.index();
            // Openers: commands after the ALLOC through ALLOCs only.
            let mut openers = Vec::new();
            stack.clear();
            stack.push(alloc);
            seen[alloc.index()] = stamp;
            while let Some(x) = stack.pop() {
                for &w in graph.succs(x) {
                    if seen[w.index()] == stamp {
                        continue;
                    }
                    seen[w.index()] = stamp;
                    match graph.role(w) {
                        Role::Work => openers.push(local[w.index()]),
                        Role::Alloc(_) => stack.push(w),
                        Role::Free(_) => {}
                    }
                }
            }
            // Closers: commands before the FREE through FREEs only.
            let stamp = stamp + 1;
            let mut closers = Vec::new();
            stack.clear();
            stack.push(free);
            while let Some(x) = stack.pop() {
                for &w in graph.preds(x) {
                    if seen[w.index()] == stamp {
                        continue;
                    }
                    seen[w.index()] = stamp;
                    match graph.role(w) {
                        Role::Work => closers.push(local[w.index()]),
                        Role::Free(_) => stack.push(w),
                        Role::Alloc(_) => {}
                    }
                }
            }
            openers.sort_unstable();
            closers.sort_unstable();
            let b = module.buffer(buffer);
            items.push(Item {
                buffer,
                tier: b.tier.index(),
                size: b.size,
                openers,
                closers,
            });
        }
        let model = Model::new(&module.target, ops.len(), items);
        Ok(Projection {
            graph,
            ops,
            local,
            succ_start,
            succ,
            pred_start,
            pred,
            model,
        })
    }

    /// Number of commands.
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    /// The commands that wait for command `u` (ascending).
    pub(crate) fn succs(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.succ[self.succ_start[u]..self.succ_start[u + 1]]
    }

    /// The commands command `u` waits for (ascending).
    pub(crate) fn preds(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.pred[self.pred_start[u]..self.pred_start[u + 1]]
    }

    /// The user-visible name of command `u`, the tie-break of every baseline.
    pub(crate) fn name(&self, u: u32) -> u32 {
        self.graph.name(self.ops[u as usize])
    }

    /// The commands of a full σ, as local indices in σ order.
    pub(crate) fn commands_of(&self, order: &[OpId]) -> Vec<u32> {
        order
            .iter()
            .map(|op| self.local[op.index()])
            .filter(|&u| u != NONE)
            .collect()
    }

    /// The full σ whose commands follow `pi` (a topological order of the op graph), ALLOCs and
    /// FREEs placed by A0.
    pub(crate) fn expand(&self, pi: &[u32]) -> Result<Vec<OpId>, OrderError> {
        debug_assert!(
            self.is_topological(pi),
            "expanding an order that is not topological"
        );
        let mut keys = vec![usize::MAX; self.graph.len()];
        for (position, &u) in pi.iter().enumerate() {
            keys[self.ops[u as usize].index()] = position;
        }
        traverse(&self.graph, Lifecycle::Deferred, &mut KeyHeap::new(keys))
    }

    /// Whether `pi` lists every command once and after everything it waits for.
    pub(crate) fn is_topological(&self, pi: &[u32]) -> bool {
        let mut position = vec![usize::MAX; self.len()];
        for (p, &u) in pi.iter().enumerate() {
            match position.get_mut(u as usize) {
                Some(slot) if *slot == usize::MAX => *slot = p,
                _ => return false,
            }
        }
        pi.len() == self.len()
            && pi
                .iter()
                .enumerate()
                .all(|(p, &u)| self.preds(u).iter().all(|&w| position[w as usize] < p))
    }
}

/// The predecessor lists of a successor CSR, each ascending. O(V + E).
fn transpose(n: usize, start: &[usize], list: &[u32]) -> (Vec<usize>, Vec<u32>) {
    let mut count = vec![0usize; n + 1];
    for &v in list {
        count[v as usize + 1] += 1;
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut out = vec![0u32; list.len()];
    for u in 0..n {
        for &v in &list[start[u]..start[u + 1]] {
            out[fill[v as usize]] = u as u32;
            fill[v as usize] += 1;
        }
    }
    (count, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::pressure;
    use crate::baselines::fixtures::{random_module, Lcg};
    use lattice_lir::{parse_module, OpKind};

    /// A random topological order of the op graph (Kahn with a random pick).
    fn random_order(proj: &Projection<'_>, seed: u64) -> Vec<u32> {
        let mut rng = Lcg(seed);
        let mut missing: Vec<usize> = (0..proj.len() as u32)
            .map(|u| proj.preds(u).len())
            .collect();
        let mut ready: Vec<u32> = (0..proj.len() as u32)
            .filter(|&u| missing[u as usize] == 0)
            .collect();
        let mut order = Vec::new();
        while !ready.is_empty() {
            let u = ready.swap_remove(rng.below(ready.len() as u64) as usize);
            order.push(u);
            for &w in proj.succs(u) {
                missing[w as usize] -= 1;
                if missing[w as usize] == 0 {
                    ready.push(w);
                }
            }
        }
        order
    }

    #[test]
    fn expansion_keeps_the_commands_and_the_model_predicts_every_tier_peak() {
        for seed in 0..30 {
            let module = random_module(seed, 20, 1 << 16, true);
            let proj = Projection::build(&module).unwrap();
            let pi = random_order(&proj, seed);
            assert!(proj.is_topological(&pi));
            let sigma = proj.expand(&pi).unwrap();
            assert_eq!(proj.commands_of(&sigma), pi, "seed {seed}");
            // Lazy ALLOC: each ALLOC is followed (after other ALLOCs) by a command using it.
            for (p, &id) in sigma.iter().enumerate() {
                if let OpKind::Alloc { buffer, .. } = module.op(id).kind {
                    let next = sigma[p..]
                        .iter()
                        .find(|&&x| !matches!(module.op(x).kind, OpKind::Alloc { .. }))
                        .unwrap();
                    assert!(
                        module.op(*next).kind.buffers().contains(&buffer),
                        "seed {seed}"
                    );
                }
            }
            let replayed = pressure(&module, &sigma).tier_peaks;
            assert_eq!(proj.model.peak_of(&pi), replayed, "seed {seed}");
        }
    }

    #[test]
    fn l0_turns_become_edges_between_commands() {
        let module = parse_module(
            "module @t phase(parsed) {
               target { tiers L1 = 64, L0A = 16 l0 pipes P spill_out P, spill_in P, spill_cost = 0 + 1 * size l0_exclusive = true }
               buffer @b0 : L0A[16]
               buffer @b1 : L0A[16]
               %0 = alloc @b0
               %1 = W P 1 (@b0) after(%0)
               %2 = R P 1 (@b0) after(%1)
               %3 = free @b0 after(%2)
               %4 = alloc @b1
               %5 = W P 1 (@b1) after(%4)
               %6 = R P 1 (@b1) after(%5)
               %7 = free @b1 after(%6)
             }",
        )
        .unwrap();
        let proj = Projection::build(&module).unwrap();
        let local = |name: u32| {
            (0..proj.len() as u32)
                .find(|&u| proj.name(u) == name)
                .unwrap()
        };
        // Every user of @b0 comes before every user of @b1: FREE(@b0) → ALLOC(@b1), the turn.
        assert_eq!(proj.succs(local(2)), &[local(5), local(6)]);
        assert_eq!(proj.succs(local(1)), &[local(2), local(5), local(6)]);
        assert!(proj.preds(local(1)).is_empty());
        let items = proj.model.items();
        // Every user waits for the ALLOC, so each may be the one that allocates.
        assert_eq!(items[1].openers, vec![local(5), local(6)]);
        assert_eq!(items[1].closers, vec![local(5), local(6)]);
    }
}
