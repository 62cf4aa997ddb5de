//! MPAS, the paper's Memory-Pressure-Aware Topological Scheduling (§IV-B, Alg. 1): a Kahn
//! traversal whose ready heap pops the op of lexicographically smallest
//! K(v) = (L(v), Δ(v), −C(v), inputpos(v), id(v)):
//! - L(v): 0 for a FREE, 1 for an ordinary op, 2 for an ALLOC (advance releases, delay allocations);
//! - Δ(v): −size of the buffer for a FREE, +size for an ALLOC, 0 otherwise (larger releases and
//!   smaller allocations first within a class);
//! - C(v): the downstream bottom level ([`BottomLevels`], paper Eq. 3), larger first;
//! - inputpos(v): position in the incoming σ; id(v): the op's name (`%<id>`). inputpos is a
//!   permutation, so id only decides between keys built outside a module.
//!
//! ALLOC and FREE are keyed like every op, but an ALLOC joins the ready heap only once it is
//! demanded — some op waiting for it has every other predecessor done (`Lifecycle::OnDemand`).
//! Alg. 1 read literally inserts every indegree-0 node, and on the contest traces every ALLOC is
//! one: whenever no FREE or ordinary op is ready, it then pops the smallest ALLOC anywhere in the
//! graph, mostly for ops that cannot run yet, which only lengthens lifetimes (logical peak on
//! Conv_Case0 80,170 B literally, 39,010 B on demand; FlashAttention_Case1 129,520 B against
//! 14,236 B). The key itself is unchanged. The L0 gate of the shared graph keeps the order
//! L0-exclusive when the target asks for it. Keys are computed once: O((V + E) log V) in all.

use super::engine::{traverse, KeyHeap, Lifecycle};
use super::error::OrderError;
use super::graph::Graph;
use crate::analysis::BottomLevels;
use lattice_lir::{Module, OpId, OpKind};
use std::cmp::Reverse;

/// K_MPAS(v), compared field by field in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MpasKey {
    /// L(v).
    pub lifecycle: u8,
    /// Δ(v) in bytes.
    pub delta: i128,
    /// −C(v), as C(v) in reverse.
    pub bottom_level: Reverse<u64>,
    /// inputpos(v).
    pub input_position: usize,
    /// id(v).
    pub id: u32,
}

/// K_MPAS of `op`; `position` is its place in the incoming σ.
pub fn mpas_key(module: &Module, op: OpId, levels: &BottomLevels, position: usize) -> MpasKey {
    let size = |buffer: lattice_lir::BufferId| i128::from(module.buffer(buffer).size);
    let (lifecycle, delta) = match module.op(op).kind {
        OpKind::Free { buffer } => (0, -size(buffer)),
        OpKind::Alloc { buffer, .. } => (2, size(buffer)),
        _ => (1, 0),
    };
    MpasKey {
        lifecycle,
        delta,
        // A levels table of another module must not panic here; it only weakens the key.
        bottom_level: Reverse(levels.0.get(op.index()).copied().unwrap_or(0)),
        input_position: position,
        id: module.op(op).name,
    }
}

/// The MPAS order of `module`'s ops, C(v) taken from `levels`.
pub fn mpas_order(module: &Module, levels: &BottomLevels) -> Result<Vec<OpId>, OrderError> {
    let graph = Graph::build(module)?;
    let keys = module
        .op_ids()
        .map(|op| mpas_key(module, op, levels, graph.position[op.index()]))
        .collect();
    traverse(&graph, Lifecycle::OnDemand, &mut KeyHeap::new(keys))
}
