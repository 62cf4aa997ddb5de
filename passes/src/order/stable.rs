//! The `stable` order (the paper's Stable / Base reference): a Kahn traversal by position in the
//! incoming σ over the op-graph projection of baselines.md §1.2 — each ALLOC delayed until its
//! first user is otherwise ready, each FREE issued as soon as it is ready (`Lifecycle::Deferred`).
//! It is the input order with lifetimes made as short as the input order allows, the reference
//! every other order is compared with. O((V + E) log V).

use super::engine::{traverse, KeyHeap, Lifecycle};
use super::error::OrderError;
use super::graph::Graph;
use lattice_lir::{Module, OpId};

/// The stable order of `module`'s ops.
pub fn stable_order(module: &Module) -> Result<Vec<OpId>, OrderError> {
    let graph = Graph::build(module)?;
    let keys = graph.position.clone();
    traverse(&graph, Lifecycle::Deferred, &mut KeyHeap::new(keys))
}
