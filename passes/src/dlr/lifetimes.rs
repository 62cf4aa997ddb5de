//! Tightens buffer lifetimes: ALLOCs move later and FREEs earlier inside their legal windows, so
//! that each residency starts at the first use and ends at the last. No other op moves.
//!
//! Rule. Every op keeps its σ position `p` as a sort key `(p, 1, p)`. A movable ALLOC(b) gets
//! `(a, 0, p)` — just before the op at position `a`, the earliest of b's users and the ALLOC's
//! other dependents (the ALLOC is a root of its window's end: nothing before `a` needs it). A
//! movable FREE(b) gets `(f, 2, p)` — just after the op at `f`, the latest of b's users and the
//! FREE's other dependencies (a FREE is a sink of its window's start). A buffer without users or
//! other neighbours keeps its ALLOC in place and frees right after it. ALLOCs and FREEs linked by
//! a dependency to another ALLOC/FREE keep their place, since two moving lifecycle ops could
//! otherwise cross. Stable sorting by the keys gives the new order; every dependency still points
//! backwards because only ops without such links move, and only towards their anchor.
//!
//! The result also lists, per buffer, the positions of its uses in the new order (the accesses
//! the scan's next-use queries walk) and, per ALLOC, the op it was anchored to (whose operands
//! are pinned while the ALLOC is placed). Complexity: O((V + E) + V log V).

use lattice_lir::{BufferId, Module, OpId, OpKind};

/// The tightened order and the access structure the scan needs.
#[derive(Clone, Debug)]
pub(crate) struct Lifetimes {
    /// σ with ALLOCs and FREEs moved.
    pub(crate) order: Vec<OpId>,
    /// Per buffer: positions in `order` of the compute ops that name it, ascending.
    pub(crate) uses: Vec<Vec<usize>>,
    /// Per buffer: the position of its FREE in `order`.
    pub(crate) free_pos: Vec<usize>,
    /// Per op: for a moved ALLOC, the op it now sits just before.
    pub(crate) anchor: Vec<Option<OpId>>,
}

fn is_lifecycle(kind: &OpKind) -> bool {
    matches!(kind, OpKind::Alloc { .. } | OpKind::Free { .. })
}

/// Computes the tightened order of a verified, unplanned `module` whose ops run in `schedule`
/// (its σ, or a candidate order listing every op once).
pub(crate) fn tighten(module: &Module, schedule: &[OpId]) -> Lifetimes {
    let n = module.ops.len();
    let mut pos = vec![usize::MAX; n];
    for (i, &id) in schedule.iter().enumerate() {
        pos[id.index()] = i;
    }
    let mut alloc_of = vec![None; module.buffers.len()];
    let mut free_of = vec![None; module.buffers.len()];
    // Positions of each buffer's users in the old σ, ascending.
    let mut old_uses: Vec<Vec<usize>> = vec![Vec::new(); module.buffers.len()];
    for (p, &id) in schedule.iter().enumerate() {
        match &module.op(id).kind {
            OpKind::Alloc { buffer, .. } => alloc_of[buffer.index()] = Some(id),
            OpKind::Free { buffer } => free_of[buffer.index()] = Some(id),
            kind => {
                for b in kind.buffers() {
                    let list = &mut old_uses[b.index()];
                    if list.last() != Some(&p) {
                        list.push(p);
                    }
                }
            }
        }
    }
    // Lifecycle ops with a lifecycle neighbour (other than their own ALLOC/FREE pair) stay put;
    // for the others, the earliest dependent and the latest dependency outside the pair.
    let mut pinned = vec![false; n];
    let mut first_dependent = vec![usize::MAX; n];
    let mut last_dependency: Vec<Option<usize>> = vec![None; n];
    for id in module.op_ids() {
        let op = module.op(id);
        for dep in &op.deps {
            let from = module.op(dep.op);
            let same_pair = from.kind.buffers().first() == op.kind.buffers().first()
                && is_lifecycle(&from.kind)
                && is_lifecycle(&op.kind);
            if same_pair {
                continue;
            }
            if is_lifecycle(&from.kind) && is_lifecycle(&op.kind) {
                pinned[id.index()] = true;
                pinned[dep.op.index()] = true;
            }
            let slot = &mut first_dependent[dep.op.index()];
            *slot = (*slot).min(pos[id.index()]);
            let last = &mut last_dependency[id.index()];
            *last = Some(last.map_or(pos[dep.op.index()], |l| l.max(pos[dep.op.index()])));
        }
    }
    let mut keys: Vec<(usize, u8, usize)> = schedule
        .iter()
        .enumerate()
        .map(|(p, _)| (p, 1, p))
        .collect();
    for b in module.buffer_ids() {
        let (Some(alloc), Some(free)) = (alloc_of[b.index()], free_of[b.index()]) else {
            continue;
        };
        let (pa, pf) = (pos[alloc.index()], pos[free.index()]);
        if !pinned[alloc.index()] {
            let first = old_uses[b.index()]
                .first()
                .copied()
                .unwrap_or(usize::MAX)
                .min(first_dependent[alloc.index()]);
            if first != usize::MAX && first > pa {
                keys[pa] = (first, 0, pa);
            }
        }
        if !pinned[free.index()] {
            let last = old_uses[b.index()]
                .last()
                .copied()
                .max(last_dependency[free.index()]);
            keys[pf] = (last.unwrap_or(0).max(keys[pa].0), 2, pf);
        }
    }
    let mut slots: Vec<usize> = (0..schedule.len()).collect();
    // The keys are distinct (the last field is the old position), so an unstable sort is stable.
    slots.sort_unstable_by_key(|&p| keys[p]);
    let order: Vec<OpId> = slots.iter().map(|&p| schedule[p]).collect();

    let mut anchor = vec![None; n];
    for &p in &slots {
        let (slot, phase, _) = keys[p];
        if phase == 0 {
            anchor[schedule[p].index()] = Some(schedule[slot]);
        }
    }
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); module.buffers.len()];
    let mut free_pos = vec![0; module.buffers.len()];
    for (q, &id) in order.iter().enumerate() {
        match &module.op(id).kind {
            OpKind::Free { buffer } => free_pos[buffer.index()] = q,
            OpKind::Alloc { .. } => {}
            kind => {
                for b in kind.buffers() {
                    let list = &mut uses[b.index()];
                    if list.last() != Some(&q) {
                        list.push(q);
                    }
                }
            }
        }
    }
    Lifetimes {
        order,
        uses,
        free_pos,
        anchor,
    }
}

/// The operands of `op` (none unless it is a compute op).
pub(crate) fn operands(module: &Module, op: OpId) -> &[BufferId] {
    match &module.op(op).kind {
        OpKind::Compute { operands, .. } => operands,
        _ => &[],
    }
}
