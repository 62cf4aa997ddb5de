//! The `critical-first` order (baselines.md §2, HLFET list scheduling): over the op-graph
//! projection (`Lifecycle::Deferred`: ALLOC just before its first user, FREE as soon as ready),
//! the ready op of largest bottom level C(v) runs first, ties by id (the op's name). ALLOC and
//! FREE take zero cycles, as in [`BottomLevels`]. O((V + E) log V).

use super::engine::{traverse, KeyHeap, Lifecycle};
use super::error::OrderError;
use super::graph::Graph;
use crate::analysis::BottomLevels;
use lattice_lir::{Module, OpId};
use std::cmp::Reverse;

/// The critical-first order of `module`'s ops, C(v) taken from `levels`.
pub fn critical_first_order(
    module: &Module,
    levels: &BottomLevels,
) -> Result<Vec<OpId>, OrderError> {
    let graph = Graph::build(module)?;
    let keys = module
        .op_ids()
        .map(|op| {
            let level = levels.0.get(op.index()).copied().unwrap_or(0);
            (Reverse(level), module.op(op).name)
        })
        .collect();
    traverse(&graph, Lifecycle::Deferred, &mut KeyHeap::new(keys))
}
