//! Which L0 turns a precedence graph gets: the incoming σ's when they close no cycle, otherwise
//! those of an L0-exclusive order derived from the graph alone ([`super::exclusive`]), so a
//! renumbered input gets turns whenever such an order exists. Deadlock-freedom: turns read off an
//! order that is itself topological and L0-exclusive are consistent with every other edge, so the
//! graph with them is acyclic (that order is a witness).
//!
//! O(V + E + operands + B log B) for the incoming turns; where they close a cycle, plus the
//! derivation's cost (see `exclusive`).

use super::error::OrderError;
use super::exclusive::exclusive_order_retrying;
use super::gate::{l0_turns, L0Turns};
use super::graph::{Graph, Parts};
use lattice_lir::Module;

impl<'m> Graph<'m> {
    /// Builds the graph of `module`, with the L0 turns when its target is L0-exclusive.
    pub(crate) fn build(module: &'m Module) -> Result<Self, OrderError> {
        Self::build_with(module, true)
    }

    /// Builds the graph of `module`; `with_turns: false` leaves the L0 turns out, for a caller
    /// (the order search) that keeps L0 exclusivity by its own construction.
    ///
    /// The turns are the incoming σ's ([`super::gate`]) when they close no cycle; otherwise they
    /// are taken from an order derived from the graph alone ([`super::exclusive`]), keyed like
    /// the gate's witness σ' (incoming position, each FREE just after what it waits for), so a
    /// renumbered input gets turns whenever an exclusive order exists (the decomposition with
    /// those keys, the structural keys it retries, and its complete search). When it finds none
    /// (none exists, or its search hit its state limit), the incoming turns stay and the
    /// traversal reports their cycle, saying how the search ended.
    pub(crate) fn build_with(module: &'m Module, with_turns: bool) -> Result<Self, OrderError> {
        let parts = Parts::of(module);
        if !with_turns || !module.target.l0_exclusive {
            return Ok(Graph::assemble(
                module,
                parts,
                L0Turns::none(module.buffers.len()),
            ));
        }
        let turns = l0_turns(module, &parts.alloc_of, &parts.position)?;
        let mut graph = Graph::assemble(module, parts.clone(), turns);
        if graph.acyclic() {
            return Ok(graph);
        }
        let bare = Graph::assemble(module, parts.clone(), L0Turns::none(module.buffers.len()));
        let witness = match exclusive_order_retrying(&bare, &bare.reference_keys()) {
            Ok(witness) => witness,
            Err(search) => {
                graph.turn_search = Some(search);
                return Ok(graph);
            }
        };
        let mut position = vec![0; witness.len()];
        for (i, op) in witness.iter().enumerate() {
            position[op.index()] = i;
        }
        let turns = l0_turns(module, &parts.alloc_of, &position)?;
        Ok(Graph::assemble(module, parts, turns))
    }
}
