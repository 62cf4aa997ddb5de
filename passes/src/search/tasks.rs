//! Tasks: the groups of ops the order search moves as one block, and the DAG between them.
//!
//! A *task* is a set of ops that L0 exclusivity keeps together: for every buffer of a staging
//! tier, its ALLOC, its FREE and every op naming it are put in one group (union-find), so an
//! accumulation into one L0C buffer, with the L0A/L0B tiles its steps read, is one task. Groups
//! whose precedence edges form a cycle through other groups are merged (strongly connected
//! components), so the tasks form a DAG. Every other op is a task of its own.
//!
//! Each task has a *class* that says where realization puts it (`super::realize`):
//! - `Main`: a task holding a staging buffer (or, on a target without staging tiers, a compute
//!   op that is not a loader). The search permutes these.
//! - `Feeder`: an ALLOC of a non-staging tier, or a *loader* — a single compute op that waits
//!   only for ALLOCs (on the contest traces exactly the COPY_INs). Placed just before the first
//!   main task that needs it, or a few tasks ahead.
//! - `Drain`: everything else (FREEs, COPY_OUTs, vector ops after an accumulation): placed
//!   right after the last task it waits for.
//!
//! Within a task the ops keep the *reference order* τ: a Kahn traversal of the precedence graph
//! (without L0 turns) by incoming position, each FREE moved up to just after the last op it
//! waits for. On a well-formed module (`crate::order::gate`) τ is the order the gate's proof
//! calls σ', whose staging tiers are exclusive; a task's ops in τ order are its restriction, so
//! they are exclusive too. When that order is not exclusive (a renumbered input), τ is the
//! exclusive order the nested decomposition derives with the same keys, or with structural keys
//! when those get stuck (`crate::order::exclusive`).
//!
//! Each main task also has a *flipped* op order: τ with every maximal run of consecutive,
//! pairwise independent ops reversed (in a matmul step, the MOVE of the B tile before the MOVE
//! of the A tile). It is legal — only ops with no edge between them trade places, and no path
//! between two ops of a task leaves the task, since such a path would put the task on a cycle
//! of the task DAG. Its staging lifetimes may overlap where τ's did not (an ALLOC moved before
//! the FREE of the tier's previous buffer); DLR's tightening separates those again, and the
//! score rejects any candidate where it cannot. Which tasks run flipped is part of the search's
//! task orders (`super::realize`): the order of a step's loads decides which tiles an eviction
//! can spare.
//!
//! Deterministic: tasks are numbered by the τ position of their first op. O((V + E) log V),
//! plus O(R² · d) for the flipped orders (runs of R ops, out-degree d; R is 2 on the traces).

use crate::analysis::pressure;
use crate::order::components::{strongly_connected, Partition};
use crate::order::engine::{traverse, KeyHeap, Lifecycle};
use crate::order::exclusive::exclusive_order_retrying;
use crate::order::graph::Graph;
use crate::order::OrderError;
use lattice_lir::{BufferId, Module, OpId, OpKind};

/// Where realization places a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Permuted by the search.
    Main,
    /// Placed just before its first consumer (or a few main tasks ahead).
    Feeder,
    /// Placed right after its last producer.
    Drain,
}

/// The task decomposition of one module.
pub(crate) struct Tasks {
    /// The ops of each task, in τ order.
    pub(crate) ops: Vec<Vec<OpId>>,
    /// The task of each op.
    pub(crate) of_op: Vec<usize>,
    /// Successor tasks, without duplicates.
    pub(crate) succ: Vec<Vec<usize>>,
    /// Predecessor tasks, without duplicates.
    pub(crate) pred: Vec<Vec<usize>>,
    /// The class of each task.
    pub(crate) class: Vec<Class>,
    /// Every task, in a topological order of the task DAG (by first τ position among the ready).
    pub(crate) topo: Vec<usize>,
    /// The main tasks, in τ order; the search's sequences index into this list.
    pub(crate) main: Vec<usize>,
    /// Per op: its index in its task's op list.
    pub(crate) index_in_task: Vec<usize>,
    /// Per task: its flipped op order (see the header); empty when it equals τ's.
    pub(crate) flipped: Vec<Vec<OpId>>,
    /// Per op: its index in its task's flipped order (its τ index when there is none).
    pub(crate) index_in_flipped: Vec<usize>,
    /// Per task: for an *inlinable loader* — a feeder that is one compute op waiting only for
    /// ALLOCs that wait for nothing — the op's successors; empty for every other task.
    pub(crate) loader_succs: Vec<Vec<OpId>>,
}

impl Tasks {
    /// Decomposes `module` (structurally verified, unplanned).
    pub(crate) fn of(module: &Module) -> Result<Self, OrderError> {
        let graph = Graph::build_with(module, false)?;
        let reference = reference_order(&graph)?;
        let n = module.ops.len();
        let mut tau = vec![0; n];
        for (p, &op) in reference.iter().enumerate() {
            tau[op.index()] = p;
        }
        let staging = |b: BufferId| module.target.tier(module.buffer(b).tier).staging;

        // Union-find over staging buffers' lifecycles.
        let mut part = Partition::new(n);
        let mut anchor = vec![None; module.buffers.len()];
        for id in module.op_ids() {
            for &b in module.op(id).kind.buffers() {
                if staging(b) {
                    match anchor[b.index()] {
                        None => anchor[b.index()] = Some(id.index()),
                        Some(a) => part.union(a, id.index()),
                    }
                }
            }
        }
        let component: Vec<usize> = (0..n).map(|v| part.find(v)).collect();

        // Merge components on cycles: SCCs of the component graph.
        let comp_edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|u| {
                let cu = component[u];
                graph
                    .succs(OpId::new(u))
                    .iter()
                    .map(move |v| (cu, v.index()))
            })
            .map(|(cu, v)| (cu, component[v]))
            .filter(|(a, b)| a != b)
            .collect();
        let scc = strongly_connected(n, &comp_edges);

        // Number tasks by the τ position of their first op.
        let mut task_of_scc = vec![usize::MAX; n];
        let mut ops: Vec<Vec<OpId>> = Vec::new();
        let mut of_op = vec![0; n];
        for &op in &reference {
            let s = scc[component[op.index()]];
            if task_of_scc[s] == usize::MAX {
                task_of_scc[s] = ops.len();
                ops.push(Vec::new());
            }
            of_op[op.index()] = task_of_scc[s];
            ops[task_of_scc[s]].push(op);
        }
        let t = ops.len();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); t];
        let mut pred: Vec<Vec<usize>> = vec![Vec::new(); t];
        for u in 0..n {
            for v in graph.succs(OpId::new(u)) {
                let (a, b) = (of_op[u], of_op[v.index()]);
                if a != b {
                    succ[a].push(b);
                    pred[b].push(a);
                }
            }
        }
        for list in succ.iter_mut().chain(pred.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        let topo = topological(&succ, &pred);

        let has_staging = ops.iter().any(|task| {
            task.iter()
                .any(|&op| module.op(op).kind.buffers().iter().any(|&b| staging(b)))
        });
        let mut class = vec![Class::Drain; t];
        for &task in &topo {
            let only = (ops[task].len() == 1).then(|| ops[task][0]);
            let feeder = only.is_some_and(|op| match module.op(op).kind {
                OpKind::Alloc { buffer, .. } => !staging(buffer),
                OpKind::Compute { ref operands, .. } => {
                    operands.iter().all(|&b| !staging(b))
                        && pred[task].iter().all(|&p| {
                            ops[p].len() == 1
                                && matches!(module.op(ops[p][0]).kind, OpKind::Alloc { .. })
                        })
                }
                _ => false,
            });
            let holds_staging = ops[task]
                .iter()
                .any(|&op| module.op(op).kind.buffers().iter().any(|&b| staging(b)));
            class[task] = if feeder {
                Class::Feeder
            } else if holds_staging
                || (!has_staging
                    && only.is_some_and(|op| matches!(module.op(op).kind, OpKind::Compute { .. })))
            {
                Class::Main
            } else {
                Class::Drain
            };
        }
        let main = (0..t).filter(|&k| class[k] == Class::Main).collect();
        let mut index_in_task = vec![0; n];
        for list in &ops {
            for (i, op) in list.iter().enumerate() {
                index_in_task[op.index()] = i;
            }
        }
        let flipped: Vec<Vec<OpId>> = (0..t)
            .map(|k| {
                let order = flip_runs(&graph, &ops[k]);
                if class[k] == Class::Main && order != ops[k] {
                    order
                } else {
                    Vec::new()
                }
            })
            .collect();
        let mut index_in_flipped = index_in_task.clone();
        for list in &flipped {
            for (i, op) in list.iter().enumerate() {
                index_in_flipped[op.index()] = i;
            }
        }
        let loader_succs = (0..t)
            .map(|k| {
                let inlinable = class[k] == Class::Feeder
                    && matches!(module.op(ops[k][0]).kind, OpKind::Compute { .. })
                    && pred[k].iter().all(|&p| pred[p].is_empty());
                if inlinable {
                    graph.succs(ops[k][0]).to_vec()
                } else {
                    Vec::new()
                }
            })
            .collect();
        Ok(Tasks {
            ops,
            of_op,
            succ,
            pred,
            class,
            topo,
            main,
            index_in_task,
            flipped,
            index_in_flipped,
            loader_succs,
        })
    }

    /// The ops of `task` in the order realization emits them: flipped or τ.
    pub(crate) fn ops_of(&self, task: usize, flipped: bool) -> &[OpId] {
        if flipped && !self.flipped[task].is_empty() {
            &self.flipped[task]
        } else {
            &self.ops[task]
        }
    }

    /// The index of `op` in the order [`Tasks::ops_of`] gives for its task.
    pub(crate) fn index_of(&self, op: OpId, flipped: bool) -> usize {
        if flipped {
            self.index_in_flipped[op.index()]
        } else {
            self.index_in_task[op.index()]
        }
    }

    /// The main tasks (indices into [`Tasks::main`]) whose flipped order differs from τ's.
    pub(crate) fn flippable(&self) -> Vec<usize> {
        (0..self.main.len())
            .filter(|&i| !self.flipped[self.main[i]].is_empty())
            .collect()
    }

    /// Number of tasks.
    pub(crate) fn len(&self) -> usize {
        self.ops.len()
    }

    /// The region of each task: the weakly connected components of the task DAG without its
    /// sinks — and, unless `with_feeders`, without its feeders — so a tile freed or an input
    /// loaded once for many consumers does not join them. A left-out task takes the region of
    /// its first kept predecessor (its own when it has none). With feeders, a region is a *cluster*
    /// (a matmul unit sharing one A panel, an attention head sharing its key/value tiles);
    /// without, a *row* (one query block's online-softmax chain). Ids are the smallest task
    /// number in the region: compare them only for equality. O(T + E_T).
    pub(crate) fn regions(&self, with_feeders: bool) -> Vec<usize> {
        let t = self.len();
        let kept =
            |k: usize| !self.succ[k].is_empty() && (with_feeders || self.class[k] != Class::Feeder);
        let mut part = Partition::new(t);
        for a in (0..t).filter(|&a| kept(a)) {
            for &b in self.succ[a].iter().filter(|&&b| kept(b)) {
                part.union(a, b);
            }
        }
        (0..t)
            .map(|k| {
                let at = if kept(k) {
                    k
                } else {
                    self.pred[k].iter().copied().find(|&p| kept(p)).unwrap_or(k)
                };
                part.find(at)
            })
            .collect()
    }

    /// The main tasks of `order` (a legal op order), each listed once, by first appearance: the
    /// task sequence an op order follows, as indices into [`Tasks::main`].
    pub(crate) fn sequence_of(&self, order: &[OpId]) -> Vec<usize> {
        let mut index = vec![usize::MAX; self.len()];
        for (i, &task) in self.main.iter().enumerate() {
            index[task] = i;
        }
        let mut seen = vec![false; self.main.len()];
        let mut seq = Vec::with_capacity(self.main.len());
        for &op in order {
            let i = index[self.of_op[op.index()]];
            if i != usize::MAX && !seen[i] {
                seen[i] = true;
                seq.push(i);
            }
        }
        seq
    }
}

/// `ops` (a task in τ order) with each maximal run of consecutive, pairwise independent ops
/// reversed.
fn flip_runs(graph: &Graph<'_>, ops: &[OpId]) -> Vec<OpId> {
    let linked = |u: OpId, v: OpId| graph.succs(u).contains(&v) || graph.succs(v).contains(&u);
    let mut out = Vec::with_capacity(ops.len());
    let mut run: Vec<OpId> = Vec::new();
    for &op in ops {
        if run.iter().any(|&u| linked(u, op)) {
            out.extend(run.drain(..).rev());
        }
        run.push(op);
    }
    out.extend(run.drain(..).rev());
    out
}

/// τ: Kahn by incoming position, a FREE keyed just after the last op it waits for — when that
/// keeps every staging tier exclusive; otherwise (a renumbered input, say) the order the nested
/// decomposition derives from the graph with the same keys (`crate::order::exclusive`).
fn reference_order(graph: &Graph<'_>) -> Result<Vec<OpId>, OrderError> {
    let keys = graph.reference_keys();
    let tau = traverse(graph, Lifecycle::Keyed, &mut KeyHeap::new(keys.clone()))?;
    let module = graph.module;
    if !module.target.l0_exclusive || pressure(module, &tau).l0_max_live <= 1 {
        return Ok(tau);
    }
    Ok(exclusive_order_retrying(graph, &keys).unwrap_or(tau))
}

/// A topological order of the task DAG, ready tasks taken by smallest number (first τ position).
fn topological(succ: &[Vec<usize>], pred: &[Vec<usize>]) -> Vec<usize> {
    let mut missing: Vec<usize> = pred.iter().map(Vec::len).collect();
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..succ.len())
        .filter(|&t| missing[t] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(succ.len());
    while let Some(std::cmp::Reverse(t)) = ready.pop() {
        order.push(t);
        for &s in &succ[t] {
            missing[s] -= 1;
            if missing[s] == 0 {
                ready.push(std::cmp::Reverse(s));
            }
        }
    }
    order
}
