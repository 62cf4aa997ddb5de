//! Op moves inside their dependency window, shared by the local search's op phase
//! (`super::local`) and the repair of L0 turns (`super::repair`).
//!
//! An op may take any place after its last predecessor and before its first successor, except
//! that *carried* neighbours — an ALLOC of a non-staging buffer with no predecessor, a FREE of one
//! with no successor — move along with it instead of bounding it (see `super::local`'s header for
//! why that keeps the order topological and L0-exclusive). Invariant: `pos` stays the inverse of
//! `order` after every move. [`window`] is O(degree); [`relocate`] rewrites O(|p − q| · carried)
//! positions; [`shift`] O(|from − to|).

use crate::order::graph::{Graph, Role};
use lattice_lir::OpId;

/// Whether `u`, a neighbour of the moved op, moves along with it instead of bounding its window:
/// a non-staging ALLOC with no predecessor (it can go anywhere earlier) or FREE with no successor
/// (anywhere later).
fn carried(graph: &Graph<'_>, u: OpId) -> bool {
    let module = graph.module;
    match graph.role(u) {
        Role::Alloc(b) => {
            !module.target.tier(module.buffer(b).tier).staging && graph.preds(u).is_empty()
        }
        Role::Free(b) => {
            !module.target.tier(module.buffer(b).tier).staging && graph.succs(u).is_empty()
        }
        Role::Work => false,
    }
}

/// The window of positions `v` may take: after its last predecessor, before its first successor,
/// carried ones aside.
pub(super) fn window(graph: &Graph<'_>, order: &[OpId], pos: &[usize], v: OpId) -> (usize, usize) {
    let lo = graph
        .preds(v)
        .iter()
        .filter(|&&u| !carried(graph, u))
        .map(|u| pos[u.index()] + 1)
        .max()
        .unwrap_or(0);
    let hi = graph
        .succs(v)
        .iter()
        .filter(|&&w| !carried(graph, w))
        .map(|w| pos[w.index()])
        .min()
        .unwrap_or(order.len())
        - 1;
    (lo, hi)
}

/// Moves the op at `p` to `q` (a place of its [`window`]) with the carried neighbours it would
/// pass: carried ALLOCs at or after `q` go just before it, carried FREEs at or before `q` just
/// after it. `shifts` receives the [`shift`]s made, in order, so the move can be undone.
/// O(|p − q| · carried) positions rewritten.
pub(super) fn relocate(
    graph: &Graph<'_>,
    order: &mut [OpId],
    pos: &mut [usize],
    p: usize,
    q: usize,
    shifts: &mut Vec<(usize, usize)>,
) {
    shifts.clear();
    let v = order[p];
    let mut apply = |order: &mut [OpId], pos: &mut [usize], from: usize, to: usize| {
        shift(order, pos, from, to);
        shifts.push((from, to));
    };
    if q < p {
        // Each carried ALLOC between q and p goes to q, pushing the rest (v included) right.
        let mut at = q;
        for &u in graph.preds(v) {
            let pu = pos[u.index()];
            if carried(graph, u) && pu >= at {
                apply(order, pos, pu, at);
                at += 1;
            }
        }
        apply(order, pos, pos[v.index()], at);
    } else {
        // Each carried FREE between p and q goes to q, pulling the rest (v included) left.
        let mut at = q;
        for &w in graph.succs(v) {
            let pw = pos[w.index()];
            if carried(graph, w) && pw <= at {
                apply(order, pos, pw, at);
                at -= 1;
            }
        }
        apply(order, pos, pos[v.index()], at);
    }
}

/// Moves the op at position `from` to position `to`, shifting the ones between by one.
pub(super) fn shift(order: &mut [OpId], pos: &mut [usize], from: usize, to: usize) {
    let (lo, hi) = (from.min(to), from.max(to));
    if from < to {
        order[lo..=hi].rotate_left(1);
    } else {
        order[lo..=hi].rotate_right(1);
    }
    for (p, op) in order.iter().enumerate().take(hi + 1).skip(lo) {
        pos[op.index()] = p;
    }
}
