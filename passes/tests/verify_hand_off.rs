//! The mutation class "a pipe order that breaks a reuse hand-off", on real plans: DLR plans every
//! shared workload (stable order, L0 exclusivity on), the plan replays clean, and then one reuse
//! hand-off `end → start` (the previous owner's FREE, the new owner's ALLOC) is attacked three
//! ways:
//!
//! - the reuse dependency is dropped, σ kept: nothing orders the hand-off any more (`hand-off`);
//! - σ is rewritten so that a user of the new owner runs on its pipe before a user of the previous
//!   owner — the order a timing pass would produce if it ignored the reuse edge — with the reuse
//!   dependency kept: the replay names the broken edge (`edge-order`, naming both ops) and the
//!   cycle the pipe order closes through it (`cycle`);
//! - both: σ respects every remaining edge, but both owners hold the bytes at once in σ
//!   (`overlap`), and nothing else is blamed on the order.
//!
//! Cost per case: one plan, four replays, and a Kahn pass per tried candidate (the first
//! candidate usually works).

mod common;

use common::categories;

use lattice_lir::{DepKind, Module, OpId, OpKind};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::order::{order_by, Policy};
use lattice_passes::verify::{replay, Category, ReplayOptions};
use std::collections::{BTreeSet, BinaryHeap};

/// A reuse hand-off `end → start` (the previous owner's FREE or SPILL_OUT, the new owner's ALLOC
/// or SPILL_IN) with a pipe op `x` that `end` waits for and a pipe op `y` that waits for `start`,
/// both on one pipe.
struct HandOff {
    end: OpId,
    start: OpId,
    x: OpId,
    y: OpId,
}

fn hand_offs(m: &Module) -> Vec<HandOff> {
    let mut users_of: Vec<Vec<OpId>> = vec![Vec::new(); m.ops.len()];
    for id in m.op_ids() {
        for dep in &m.op(id).deps {
            users_of[dep.op.index()].push(id);
        }
    }
    let mut out = Vec::new();
    for start in m.op_ids() {
        for dep in m.op(start).deps.iter().filter(|d| d.kind == DepKind::Reuse) {
            let end = dep.op;
            for x in m.op(end).deps.iter().map(|d| d.op) {
                let Some(pipe) = m.op(x).kind.pipe() else {
                    continue;
                };
                for &y in &users_of[start.index()] {
                    if m.op(y).kind.pipe() == Some(pipe) {
                        out.push(HandOff { end, start, x, y });
                    }
                }
            }
        }
    }
    out
}

/// A topological order of `m`'s dependencies, minus `end → start` and plus `y → x`, that stays
/// as close to `m.schedule` as it can (smallest σ position first); `None` if that graph is cyclic.
fn reordered(m: &Module, h: &HandOff) -> Option<Vec<OpId>> {
    let position = m.schedule_positions();
    let mut preds: Vec<Vec<OpId>> = vec![Vec::new(); m.ops.len()];
    for id in m.op_ids() {
        for dep in &m.op(id).deps {
            if !(id == h.start && dep.op == h.end && dep.kind == DepKind::Reuse) {
                preds[id.index()].push(dep.op);
            }
        }
    }
    preds[h.x.index()].push(h.y);
    let mut succs: Vec<Vec<OpId>> = vec![Vec::new(); m.ops.len()];
    let mut indegree: Vec<usize> = preds.iter().map(Vec::len).collect();
    for id in m.op_ids() {
        for &p in &preds[id.index()] {
            succs[p.index()].push(id);
        }
    }
    let mut ready: BinaryHeap<std::cmp::Reverse<(usize, usize)>> = m
        .op_ids()
        .filter(|id| indegree[id.index()] == 0)
        .map(|id| std::cmp::Reverse((position[id.index()], id.index())))
        .collect();
    let mut order = Vec::with_capacity(m.ops.len());
    while let Some(std::cmp::Reverse((_, i))) = ready.pop() {
        let id = OpId::new(i);
        order.push(id);
        for &s in &succs[i] {
            indegree[s.index()] -= 1;
            if indegree[s.index()] == 0 {
                ready.push(std::cmp::Reverse((position[s.index()], s.index())));
            }
        }
    }
    (order.len() == m.ops.len()).then_some(order)
}

fn name(m: &Module, id: OpId) -> String {
    format!("%{}", m.op(id).name)
}

#[test]
fn a_pipe_order_against_a_reuse_hand_off_is_rejected_on_every_case() {
    for case in common::cases() {
        let mut scheduled = case.clone();
        scheduled.schedule = order_by(&case, Policy::Stable, &bottom_levels(&case)).unwrap();
        scheduled.phase = lattice_lir::Phase::Scheduled;
        let planned = plan(&scheduled, &DlrOptions::default()).unwrap().module;
        common::check_plan(&planned);

        let (h, sigma) = hand_offs(&planned)
            .into_iter()
            .filter(|h| matches!(planned.op(h.start).kind, OpKind::Alloc { .. }))
            .find_map(|h| reordered(&planned, &h).map(|sigma| (h, sigma)))
            .unwrap_or_else(|| panic!("{}: no reuse hand-off can be reordered", case.name));

        // An ALLOC is a root: without its reuse dependency no path reaches it.
        let mut unordered = planned.clone();
        unordered.op_mut(h.start).deps.retain(|d| d.op != h.end);
        let c = categories(&unordered);
        assert!(c.contains(&Category::HandOff), "{}: {c:?}", case.name);

        let mut kept = planned.clone();
        kept.schedule = sigma;
        let found = replay(&kept, &ReplayOptions::default()).violations;
        let c: BTreeSet<Category> = found.iter().map(|v| v.category).collect();
        assert!(
            c.contains(&Category::EdgeOrder) && c.contains(&Category::Cycle),
            "{}: {c:?}",
            case.name
        );
        let (end, start) = (name(&kept, h.end), name(&kept, h.start));
        assert!(
            found.iter().any(|v| v.category == Category::EdgeOrder
                && v.message.contains(&end)
                && v.message.contains(&start)),
            "{}: no edge-order finding names {end} -> {start}: {found:?}",
            case.name
        );

        let mut both = unordered;
        both.schedule = kept.schedule;
        let c = categories(&both);
        assert!(c.contains(&Category::Overlap), "{}: {c:?}", case.name);
        assert!(
            c.is_disjoint(&[Category::EdgeOrder, Category::Cycle, Category::Lifecycle].into()),
            "{}: σ respects every remaining edge, yet {c:?}",
            case.name
        );
    }
}
