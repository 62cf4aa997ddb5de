//! Realization: turns a sequence of main tasks and a feeder placement into a complete op order σ.
//!
//! Each task gets a priority: a main task its rank in the sequence; a drain the largest
//! priority among the non-feeder tasks it waits for (so it runs right after the last of them);
//! a feeder the smallest priority among the tasks waiting for it, minus `lead` (so loads run
//! just before their first consumer task, or `lead` main tasks ahead of it). With `inline`, an
//! inlinable loader (one op waiting only for ALLOCs that wait for nothing; on the contest traces
//! a COPY_IN) is instead *hosted* by the first main task, by rank, that waits for it, and
//! emitted inside that task right before the first of its ops that waits for the load: a task
//! then loads its tiles step by step instead of all at once, which shrinks its working set.
//! A Kahn traversal of the task DAG, each hosted loader merged into its host, then emits the
//! ready task of smallest (priority, feeder < main < drain, number), with its ops in their
//! reference order τ (`super::tasks`), or in the task's flipped order when the task order flips
//! it, and its hosted loaders in place.
//!
//! # Why every realized order is legal and L0-exclusive (no deadlock)
//! The task DAG is acyclic (cycles were merged into one task), so a Kahn traversal of it emits
//! every task whatever the priorities: it cannot stall. Merging a hosted loader into its host can
//! close a cycle — when another task that waits for the load is itself waited for by the host —
//! and then the traversal stops with tasks left; realization detects that (σ shorter than the
//! module) and realizes the same sequence without hosting, which is the plain DAG again. So a
//! complete order is always returned. An edge u → v of the
//! precedence graph (dependency or buffer lifetime) either lies inside one emitted block —
//! where τ, a topological order, puts u first (so does the flipped order, which only swaps
//! ops without an edge between them), and a hosted loader is placed before the first
//! op of its host that waits for it, after its ALLOCs (which wait for nothing and which the host
//! waited for) — or joins two
//! blocks, whose merged DAG edge makes the traversal emit u's block first. So σ respects every
//! edge. Every staging buffer's ALLOC, FREE and uses lie in one task, tasks are emitted
//! contiguously, and a hosted loader touches no staging buffer, so two staging buffers of
//! different tasks are never live at once; inside a task, the staging ops keep τ's relative
//! order, in which the staging tiers are exclusive on every well-formed module
//! (`crate::order::gate`). Hence at most one buffer per staging tier is live at any point of
//! σ — for a flipped task after DLR's tightening, which the score checks (`super::tasks`). The
//! turns of each tier follow the candidate — there are no fixed turns that could make a
//! sequence unrealizable. (A module outside the gate's well-formedness assumption is caught by
//! the score, which rejects any candidate whose staging tiers are not exclusive.)
//!
//! O(T log T + V + E) per realization for T tasks.

use super::tasks::{Class, Tasks};
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// A point of the task-level search space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TaskOrder {
    /// A permutation of the main tasks (indices into [`Tasks::main`]).
    pub(crate) seq: Vec<usize>,
    /// How many main tasks ahead of their first consumer feeders are placed.
    pub(crate) lead: u32,
    /// Whether inlinable loaders are hosted inside their first consumer task.
    pub(crate) inline: bool,
    /// The main tasks (indices into [`Tasks::main`]) emitted in their flipped op order.
    pub(crate) flips: BTreeSet<usize>,
}

/// The op order `order` stands for.
pub(crate) fn realize(tasks: &Tasks, order: &TaskOrder) -> Vec<OpId> {
    let sigma = traverse(tasks, order);
    if sigma.len() == tasks.of_op.len() {
        return sigma;
    }
    // Hosting closed a cycle (see the header): realize without it.
    traverse(
        tasks,
        &TaskOrder {
            inline: false,
            ..order.clone()
        },
    )
}

/// One Kahn traversal; stops short of every op only when hosting closed a cycle.
fn traverse(tasks: &Tasks, order: &TaskOrder) -> Vec<OpId> {
    let t = tasks.len();
    let mut prio = vec![i64::MIN; t];
    for (rank, &m) in order.seq.iter().enumerate() {
        prio[tasks.main[m]] = rank as i64;
    }
    for &task in &tasks.topo {
        if tasks.class[task] == Class::Drain {
            prio[task] = tasks.pred[task]
                .iter()
                .filter(|&&p| tasks.class[p] != Class::Feeder)
                .map(|&p| prio[p])
                .max()
                .unwrap_or(i64::MIN);
        }
    }
    for &task in tasks.topo.iter().rev() {
        if tasks.class[task] == Class::Feeder {
            prio[task] = tasks.succ[task]
                .iter()
                .map(|&s| prio[s])
                .min()
                .unwrap_or(i64::MIN)
                .saturating_sub(i64::from(order.lead));
        }
    }
    let mut flipped = vec![false; t];
    for &m in &order.flips {
        flipped[tasks.main[m]] = true;
    }
    // Hosts: each task is its own, except a hosted loader.
    let mut host: Vec<usize> = (0..t).collect();
    let mut hosted: Vec<Vec<(usize, OpId)>> = vec![Vec::new(); t];
    if order.inline {
        for (task, succs) in tasks.loader_succs.iter().enumerate() {
            let Some(&first) = tasks.succ[task]
                .iter()
                .filter(|&&s| tasks.class[s] == Class::Main)
                .min_by_key(|&&s| prio[s])
            else {
                continue;
            };
            let at = succs
                .iter()
                .filter(|op| tasks.of_op[op.index()] == first)
                .map(|&op| tasks.index_of(op, flipped[first]))
                .min();
            if let Some(at) = at {
                host[task] = first;
                hosted[first].push((at, tasks.ops[task][0]));
            }
        }
        for list in &mut hosted {
            list.sort_unstable();
        }
    }
    let sub = |task: usize| match tasks.class[task] {
        Class::Feeder => 0u8,
        Class::Main => 1,
        Class::Drain => 2,
    };
    let mut missing = vec![0usize; t];
    for u in 0..t {
        for &v in &tasks.succ[u] {
            if host[u] != host[v] {
                missing[host[v]] += 1;
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<(i64, u8, usize)>> = (0..t)
        .filter(|&task| host[task] == task && missing[task] == 0)
        .map(|task| Reverse((prio[task], sub(task), task)))
        .collect();
    let mut sigma = Vec::with_capacity(tasks.of_op.len());
    while let Some(Reverse((_, _, task))) = ready.pop() {
        let mut loads = hosted[task].iter().peekable();
        for (i, &op) in tasks.ops_of(task, flipped[task]).iter().enumerate() {
            while let Some(&(_, load)) = loads.next_if(|(at, _)| *at == i) {
                sigma.push(load);
            }
            sigma.push(op);
        }
        let members = std::iter::once(task).chain(
            hosted[task]
                .iter()
                .map(|&(_, load)| tasks.of_op[load.index()]),
        );
        for member in members {
            for &s in &tasks.succ[member] {
                let h = host[s];
                if h != task {
                    missing[h] -= 1;
                    if missing[h] == 0 {
                        ready.push(Reverse((prio[h], sub(h), h)));
                    }
                }
            }
        }
    }
    sigma
}
