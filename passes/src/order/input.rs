//! The `input` order: the ops as given. A Kahn traversal by position in the incoming σ with ALLOC
//! and FREE ranked like any op, so a legal σ comes back unchanged except where the L0 gate holds an
//! ALLOC back until the FREE of the previous buffer of its tier has run (a contest trace lists
//! every FREE at its end, so there the held-back ALLOC and what waits for it run once nothing
//! earlier in σ is ready and that FREE's turn comes). O((V + E) log V).

use super::engine::{traverse, KeyHeap, Lifecycle};
use super::error::OrderError;
use super::graph::Graph;
use lattice_lir::{Module, OpId};

/// The incoming σ, made L0-exclusive when the target asks for it.
pub fn input_order(module: &Module) -> Result<Vec<OpId>, OrderError> {
    let graph = Graph::build(module)?;
    let keys = graph.position.clone();
    traverse(&graph, Lifecycle::Keyed, &mut KeyHeap::new(keys))
}
