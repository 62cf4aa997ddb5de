//! Plan level, ordering part: the orderings a residency needs are enforced by paths of the
//! augmented graph (DESIGN §1.3 spill edges, and a residency's start before its end).
//!
//! Per segment: its start before its end (ALLOC→OUT, IN→OUT, IN→FREE; ALLOC→FREE for a buffer
//! never spilled, reported as lifecycle); every use before the SPILL_OUT that ends it; the SPILL_IN
//! that starts it before every use; and the previous SPILL_OUT before that SPILL_IN. Together
//! these keep two spills of one buffer from interleaving (IN(previous) → OUT(next) is the start
//! before the end of the segment between them). An explicit `spill` dependency is the usual way
//! to state such an ordering, but any path orders it (see [`super::reach`]). O(uses) queries.

use super::category::{Category, Violation};
use super::graph::Augmented;
use super::reach::reachable;
use super::residency::Residencies;
use lattice_lir::{Module, OpId, OpKind};

/// Why an ordering is needed, for the message.
#[derive(Clone, Copy)]
enum Need {
    StartBeforeEnd,
    UseBeforeOut,
    InBeforeUse,
    OutBeforeIn,
}

/// Reports every ordering a residency needs that no path enforces.
pub(crate) fn check_spill_edges(
    m: &Module,
    r: &Residencies,
    g: &Augmented,
    out: &mut Vec<Violation>,
) {
    let is_out = |op: OpId| matches!(m.op(op).kind, OpKind::SpillOut { .. });
    let is_in = |op: OpId| matches!(m.op(op).kind, OpKind::SpillIn { .. });
    let mut queries: Vec<(OpId, OpId)> = Vec::new();
    let mut needs: Vec<(Need, usize)> = Vec::new();
    for (s, seg) in r.segments.iter().enumerate() {
        let mut need = |from, to, why| {
            queries.push((from, to));
            needs.push((why, s));
        };
        if let Some(end) = seg.end {
            need(seg.start, end, Need::StartBeforeEnd);
            if is_out(end) {
                for &u in &seg.users {
                    need(u, end, Need::UseBeforeOut);
                }
            }
        }
        if is_in(seg.start) {
            for &u in &seg.users {
                need(seg.start, u, Need::InBeforeUse);
            }
            if let Some(previous) = seg.reloads {
                need(previous, seg.start, Need::OutBeforeIn);
            }
        }
    }
    let answers = reachable(g, &queries);
    for ((&(from, to), &(why, s)), ok) in queries.iter().zip(&needs).zip(answers) {
        if ok {
            continue;
        }
        let seg = &r.segments[s];
        let b = m.buffer(seg.buffer).name;
        let (f, t) = (m.op(from).name, m.op(to).name);
        let spilled = is_in(seg.start) || seg.end.is_some_and(is_out);
        let (category, what) = match why {
            Need::StartBeforeEnd if !spilled => (
                Category::Lifecycle,
                format!("the FREE %{t} of @b{b} must follow its ALLOC %{f}"),
            ),
            Need::StartBeforeEnd => (
                Category::SpillEdge,
                format!("%{t}, which ends a residency of @b{b}, must follow %{f}, which starts it"),
            ),
            Need::UseBeforeOut => (
                Category::SpillEdge,
                format!("the SPILL_OUT %{t} of @b{b} must follow %{f}, which uses it before"),
            ),
            Need::InBeforeUse => (
                Category::SpillEdge,
                format!("%{t} uses @b{b} after the SPILL_IN %{f} and must follow it"),
            ),
            Need::OutBeforeIn => (
                Category::SpillEdge,
                format!("the SPILL_IN %{t} of @b{b} must follow its SPILL_OUT %{f}"),
            ),
        };
        let message = format!("{what}, but no dependency path orders them");
        out.push(Violation::new(Some(to), category, message));
    }
}
