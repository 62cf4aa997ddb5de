//! A lookahead window over the incoming σ for any selector: a ready op whose incoming position
//! lies `width` or more past the first op not yet emitted is parked, and the wrapped selector
//! ranks only the ops inside the window. FREEs are never parked (releasing is never premature).
//!
//! Why: on tile-parallel traces every greedy key applied to the whole ready set opens work from
//! many tiles at once (see `mpas.rs`); the window lets the key reorder within a neighbourhood of
//! the incoming order instead. Width 1 follows the incoming order wherever it is ready; an
//! unbounded width is the plain selector.
//!
//! Liveness: the window is a preference, never a constraint — when the wrapped selector has
//! nothing, the parked op of smallest position is released into it, so `pop` returns `None` only
//! when nothing at all is ready and the engine's own cycle detection stays exact.
//!
//! O(log V) per push and pop, amortized O(1) per frontier step: O((V + E) log V) in all.

use super::engine::{Selector, State};
use super::graph::Role;
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `S` restricted to a window of `width` positions of the incoming σ.
pub(crate) struct Window<S> {
    inner: S,
    width: usize,
    /// Ops by incoming position.
    by_position: Vec<OpId>,
    /// Smallest position whose op may not be emitted yet.
    frontier: usize,
    /// Ready ops past the window, by position.
    parked: BinaryHeap<Reverse<(usize, OpId)>>,
}

impl<S: Selector> Window<S> {
    /// `inner` limited to ops less than `width` positions past the first one not yet emitted.
    pub(crate) fn new(inner: S, width: usize, position: &[usize]) -> Self {
        let mut by_position = vec![OpId::new(0); position.len()];
        for (op, &p) in position.iter().enumerate() {
            by_position[p] = OpId::new(op);
        }
        Window {
            inner,
            width: width.max(1),
            by_position,
            frontier: 0,
            parked: BinaryHeap::new(),
        }
    }

    fn limit(&self) -> usize {
        self.frontier.saturating_add(self.width)
    }
}

impl<S: Selector> Selector for Window<S> {
    fn push(&mut self, op: OpId, state: &State<'_, '_>) {
        let position = state.graph.position[op.index()];
        if position < self.limit() || matches!(state.graph.role(op), Role::Free(_)) {
            self.inner.push(op, state);
        } else {
            self.parked.push(Reverse((position, op)));
        }
    }

    fn pop(&mut self, state: &State<'_, '_>) -> Option<OpId> {
        while self.frontier < self.by_position.len()
            && state.emitted[self.by_position[self.frontier].index()]
        {
            self.frontier += 1;
        }
        let limit = self.limit();
        while let Some(&Reverse((position, op))) = self.parked.peek() {
            if position >= limit {
                break;
            }
            self.parked.pop();
            self.inner.push(op, state);
        }
        if let Some(op) = self.inner.pop(state) {
            return Some(op);
        }
        let Reverse((_, op)) = self.parked.pop()?;
        self.inner.push(op, state);
        self.inner.pop(state)
    }

    fn released(&mut self, op: OpId, state: &State<'_, '_>) {
        self.inner.released(op, state);
    }

    fn emitted(&mut self, op: OpId, state: &State<'_, '_>) {
        self.inner.emitted(op, state);
    }
}
