//! Realization: turns a sequence of main tasks and a feeder lead into a complete op order σ.
//!
//! Each task gets a priority: a main task its rank in the sequence; a drain the largest
//! priority among the non-feeder tasks it waits for (so it runs right after the last of them);
//! a feeder the smallest priority among the tasks waiting for it, minus `lead` (so loads run
//! just before their first consumer, or `lead` main tasks ahead of it). A Kahn traversal of the
//! task DAG then emits the ready task of smallest (priority, feeder < main < drain, number), and
//! each task's ops in their reference order τ (`super::tasks`).
//!
//! # Why every realized order is legal and L0-exclusive (no deadlock)
//! The task DAG is acyclic (cycles were merged into one task), so a Kahn traversal of it emits
//! every task whatever the priorities: it cannot stall. An edge u → v of the precedence graph
//! (dependency or buffer lifetime) either lies inside one task, where τ — a topological order —
//! puts u first, or joins two tasks, whose DAG edge makes the traversal emit u's task first.
//! So σ respects every edge. Every staging buffer's ALLOC, FREE and uses lie in one task, and
//! tasks are emitted contiguously, so two staging buffers of different tasks are never live at
//! once; inside a task, the ops keep τ's relative order, in which the staging tiers are
//! exclusive on every well-formed module (`crate::order::gate`). Hence at most one buffer per
//! staging tier is live at any point of σ. The turns of each tier simply follow the candidate —
//! there are no fixed turns that could make a sequence unrealizable. (A module outside the
//! gate's well-formedness assumption is caught by the score, which rejects any candidate whose
//! staging tiers are not exclusive.)
//!
//! O(T log T + V) per realization for T tasks.

use super::tasks::{Class, Tasks};
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A point of the task-level search space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TaskOrder {
    /// A permutation of the main tasks (indices into [`Tasks::main`]).
    pub(crate) seq: Vec<usize>,
    /// How many main tasks ahead of their first consumer feeders are placed.
    pub(crate) lead: u32,
}

/// The op order `order` stands for.
pub(crate) fn realize(tasks: &Tasks, order: &TaskOrder) -> Vec<OpId> {
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
    let sub = |task: usize| match tasks.class[task] {
        Class::Feeder => 0u8,
        Class::Main => 1,
        Class::Drain => 2,
    };
    let mut missing: Vec<usize> = tasks.pred.iter().map(Vec::len).collect();
    let mut ready: BinaryHeap<Reverse<(i64, u8, usize)>> = (0..t)
        .filter(|&task| missing[task] == 0)
        .map(|task| Reverse((prio[task], sub(task), task)))
        .collect();
    let mut sigma = Vec::with_capacity(tasks.of_op.len());
    while let Some(Reverse((_, _, task))) = ready.pop() {
        sigma.extend_from_slice(&tasks.ops[task]);
        for &s in &tasks.succ[task] {
            missing[s] -= 1;
            if missing[s] == 0 {
                ready.push(Reverse((prio[s], sub(s), s)));
            }
        }
    }
    sigma
}
