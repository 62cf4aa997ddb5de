//! Renumbering: the same command DAG under other ids, for tests and benchmarks that check that
//! no result depends on how a workload happens to be numbered, for `order-exact`'s makespan
//! incumbent (`exact/seed.rs`), which runs `order-search` on renumbered copies because the
//! search's result does depend on it, and for the search itself, which runs MPAS on the module
//! renumbered along a structural order (`search::portfolio`). Outside the `generate` feature
//! for those reasons (the generator re-exports it).
//!
//! [`renumber`] gives op `order[i]` the id (arena index, name `%i` and σ position) `i`, and each
//! buffer the id of its rank by the new position of its ALLOC (buffers without one follow, in
//! their old order); dependencies are remapped and listed by the new id of the op they name.
//! The result is isomorphic to the input: the same ops, buffers, sizes, tiers, pipes, cycles and
//! edges, only named differently, with σ = `order`. `order` must list every op once in a
//! topological order of the precedence graph (dependencies and buffer lifetimes), else the
//! function refuses, naming the first op out of place.
//!
//! [`along`] runs an algorithm on such a copy and maps the order it returns back to the
//! module's ops (the copy's op `i` is `order[i]`).
//!
//! [`random_topological`] draws such an order uniformly among the ready ops at each step (a
//! random Kahn traversal, deterministic by seed, [`drawn_topological`], which the search's
//! structural shuffles share); another plan's σ is the other usual `order` (spill ops
//! removed). The renumbered module is unplanned (`parsed`): a plan is bound to its ids.
//!
//! O(V + E + B log B) time, O(V + E + B) memory; the random order O(V + E) (a swap-remove
//! ready list), the structural one O(V · R + E) for at most R ops ready at once.

use crate::order::graph::Graph;
use crate::order::OrderError;
use crate::rng::Rng;
use lattice_lir::{BufferId, Dep, Module, OpId, OpKind, Phase};

/// Why an order cannot renumber a module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenumberError {
    /// The order does not list every op exactly once.
    #[error("the order lists {listed} ops for a module of {ops} ops, or lists one twice")]
    NotAPermutation {
        /// Entries of the order.
        listed: usize,
        /// Ops of the module.
        ops: usize,
    },
    /// An op comes before something it waits for.
    #[error("%{op} comes before %{waits_for}, which it waits for")]
    NotTopological {
        /// The op out of place (its old name).
        op: u32,
        /// What it waits for (its old name).
        waits_for: u32,
    },
    /// The module's edges form a cycle or an op shares an L0 tier.
    #[error(transparent)]
    Order(#[from] OrderError),
}

/// `module` renumbered so that op `order[i]` becomes `%i` (see the header). Spill ops, which
/// only a plan has, are dropped along with the plan.
pub fn renumber(module: &Module, order: &[OpId]) -> Result<Module, RenumberError> {
    let order: Vec<OpId> = order
        .iter()
        .copied()
        .filter(|&op| !module.op(op).kind.is_spill())
        .collect();
    let graph = Graph::build_with(module, false)?;
    let n = module.ops.len();
    let mut new_id = vec![usize::MAX; n];
    for (i, &op) in order.iter().enumerate() {
        if new_id[op.index()] != usize::MAX {
            return Err(RenumberError::NotAPermutation {
                listed: order.len(),
                ops: n,
            });
        }
        new_id[op.index()] = i;
    }
    let spills = module.ops.iter().filter(|op| op.kind.is_spill()).count();
    if order.len() + spills != n {
        return Err(RenumberError::NotAPermutation {
            listed: order.len(),
            ops: n - spills,
        });
    }
    for &op in &order {
        if let Some(&p) = graph
            .preds(op)
            .iter()
            .find(|p| new_id[p.index()] > new_id[op.index()])
        {
            return Err(RenumberError::NotTopological {
                op: module.op(op).name,
                waits_for: module.op(p).name,
            });
        }
    }
    let mut buffer_rank: Vec<(usize, usize)> = module
        .buffer_ids()
        .map(|b| (usize::MAX, b.index()))
        .collect();
    for (i, &op) in order.iter().enumerate() {
        if let OpKind::Alloc { buffer, .. } = module.op(op).kind {
            buffer_rank[buffer.index()].0 = buffer_rank[buffer.index()].0.min(i);
        }
    }
    buffer_rank.sort_unstable();
    let mut new_buffer = vec![BufferId::new(0); module.buffers.len()];
    let mut out = Module::new(module.name.clone(), module.target.clone());
    for (i, &(_, old)) in buffer_rank.iter().enumerate() {
        new_buffer[old] = BufferId::new(i);
        let mut buffer = module.buffers[old].clone();
        buffer.name = i as u32;
        buffer.loc = None;
        out.add_buffer(buffer);
    }
    let map = |b: &BufferId| new_buffer[b.index()];
    for (i, &id) in order.iter().enumerate() {
        let op = module.op(id);
        let kind = match &op.kind {
            OpKind::Alloc { buffer, .. } => OpKind::Alloc {
                buffer: map(buffer),
                offset: None,
            },
            OpKind::Free { buffer } => OpKind::Free {
                buffer: map(buffer),
            },
            OpKind::Compute {
                opcode,
                pipe,
                cycles,
                operands,
            } => OpKind::Compute {
                opcode: opcode.clone(),
                pipe: *pipe,
                cycles: *cycles,
                operands: operands.iter().map(map).collect(),
            },
            // Filtered out above.
            OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => continue,
        };
        let mut deps: Vec<Dep> = op
            .deps
            .iter()
            .filter(|d| d.op.index() < n && !module.op(d.op).kind.is_spill())
            .filter(|d| d.kind == lattice_lir::DepKind::Precedence)
            .map(|d| Dep {
                op: OpId::new(new_id[d.op.index()]),
                kind: d.kind,
            })
            .collect();
        deps.sort_unstable_by_key(|d| d.op);
        deps.dedup();
        out.push_op(lattice_lir::Op {
            name: i as u32,
            kind,
            deps,
            loc: None,
        });
    }
    out.phase = Phase::Parsed;
    Ok(out)
}

/// `run`'s order of `module` renumbered along `order` (a topological order of its non-spill
/// ops), mapped back to `module`'s ops: the copy's op `i` is the `i`-th of `order`. `None` when
/// the renumbering fails, `run` gives nothing, or its order names an op the copy lacks. This is
/// how a numbering-dependent algorithm (MPAS's L0 turns, the search) is run in a chosen
/// numbering.
pub fn along(
    module: &Module,
    order: &[OpId],
    run: impl FnOnce(&Module) -> Option<Vec<OpId>>,
) -> Option<Vec<OpId>> {
    let order: Vec<OpId> = order
        .iter()
        .copied()
        .filter(|&op| !module.op(op).kind.is_spill())
        .collect();
    let copy = renumber(module, &order).ok()?;
    run(&copy)?
        .iter()
        .map(|v| order.get(v.index()).copied())
        .collect()
}

/// A random topological order of `module`'s precedence graph (dependencies and buffer
/// lifetimes, no L0 turns): at each step a uniformly drawn ready op. Deterministic by `seed`.
pub fn random_topological(module: &Module, seed: u64) -> Result<Vec<OpId>, OrderError> {
    Ok(drawn_topological(
        &Graph::build_with(module, false)?,
        seed,
        None,
    ))
}

/// A topological order of `graph` whose every step takes the ready op at a uniformly drawn
/// index of the ready list (deterministic by `seed`). Without `print` the list holds the ready
/// ops in the order they became ready (swap-removed, O(1) a step); with it, sorted by
/// (`print`, id), so that a draw names an op by its place in the structure
/// (`crate::search::shuffle`; O(R) a step for R ready ops).
pub(crate) fn drawn_topological(graph: &Graph<'_>, seed: u64, print: Option<&[u64]>) -> Vec<OpId> {
    let n = graph.len();
    let key = |v: OpId| (print.map_or(0, |p| p[v.index()]), v);
    let mut missing: Vec<usize> = (0..n).map(|v| graph.preds(OpId::new(v)).len()).collect();
    let mut ready: Vec<OpId> = (0..n).filter(|&v| missing[v] == 0).map(OpId::new).collect();
    if print.is_some() {
        ready.sort_unstable_by_key(|&v| key(v));
    }
    let mut rng = Rng::new(seed);
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let at = rng.range(0, ready.len() - 1);
        let op = if print.is_some() {
            ready.remove(at)
        } else {
            ready.swap_remove(at)
        };
        order.push(op);
        for &s in graph.succs(op) {
            missing[s.index()] -= 1;
            if missing[s.index()] == 0 {
                if print.is_some() {
                    let at = ready.partition_point(|&r| key(r) < key(s));
                    ready.insert(at, s);
                } else {
                    ready.push(s);
                }
            }
        }
    }
    order
}
