//! Peak repair: the last phase of a chain under the peak objective, a hill climb over single op
//! moves that evaluates each move only over the span of σ it changes.
//!
//! Model: DLR's tightening keeps a non-staging buffer resident from its first use to its last
//! (ALLOCs as late, FREEs as early as they can go), so the logical peak of an order is the
//! highest `live[p]`, the bytes of the buffers whose first..last use spans position `p`; ALLOCs
//! and FREEs only carry their buffer's bytes between uses and never set the peak. On the tiled
//! attention cases the peak recurs at dozens of places, one per loop iteration, and only moves
//! that lower *every* place lower it; the number of places at the peak is the guide, and a full
//! evaluation per move (O(V log V)) is far too slow to count them down.
//!
//! A move takes a position at the peak, an op near it (at most [`REACH`] away) and moves it
//! across that position, inside its window, carrying the ALLOCs and FREEs it would pass
//! (`super::moves::relocate`: the same legal, L0-exclusive moves as the op phase). Only the
//! positions between the op's old and new place change, and only the buffers used there change
//! their first or last use, so the move is evaluated in O(span + uses of those buffers): every
//! other buffer is either resident over the whole span or not at all. A move is kept when the
//! (peak, places at the peak) pair does not grow — sideways moves let the climb cross plateaus —
//! and undone otherwise. The model is only a guide: the chain scores the repaired order with
//! the full evaluator like any other candidate.
//!
//! Invariants: `live` always equals a recount from `first`/`last`; the order stays a legal,
//! L0-exclusive topological order (see `super::local`'s header). Deterministic for the chain's
//! random stream. O(V + B) set-up, then per move O(REACH + uses) to evaluate, a scan for a place
//! at the peak from a random position (O(V / places) expected, O(V) at worst), and an O(V)
//! rescan when the peak drops.

use super::moves::{relocate, shift, window};
use crate::order::graph::{Graph, Role};
use crate::rng::Rng;
use lattice_lir::{BufferId, OpId, OpKind};

/// Farthest an op moves, and farthest from the peak place the moved op starts.
const REACH: usize = 64;

/// The tightened residency profile of one order.
struct Profile {
    /// Per op: the non-staging buffers it uses (once each); empty for ALLOCs and FREEs.
    uses: Vec<Vec<BufferId>>,
    /// Per buffer: the ops that use it, its size, and its first and last use position.
    users: Vec<Vec<OpId>>,
    size: Vec<u64>,
    first: Vec<usize>,
    last: Vec<usize>,
    /// Bytes resident at every position, the highest, and how many positions reach it.
    live: Vec<u64>,
    peak: u64,
    places: usize,
}

impl Profile {
    fn of(graph: &Graph<'_>, order: &[OpId], pos: &[usize]) -> Self {
        let module = graph.module;
        let nb = module.buffers.len();
        let mut uses = vec![Vec::new(); order.len()];
        let mut users = vec![Vec::new(); nb];
        for v in module.op_ids() {
            if graph.role(v) != Role::Work {
                continue;
            }
            if let OpKind::Compute { operands, .. } = &module.op(v).kind {
                for &b in operands {
                    let staging = module.target.tier(module.buffer(b).tier).staging;
                    if !staging && !uses[v.index()].contains(&b) {
                        uses[v.index()].push(b);
                        users[b.index()].push(v);
                    }
                }
            }
        }
        let size = module.buffers.iter().map(|b| b.size).collect();
        let mut profile = Profile {
            uses,
            users,
            size,
            first: vec![0; nb],
            last: vec![0; nb],
            live: Vec::new(),
            peak: 0,
            places: 0,
        };
        for b in 0..nb {
            (profile.first[b], profile.last[b]) = profile.span(b, pos);
        }
        let mut delta = vec![0i128; order.len() + 1];
        for b in 0..nb {
            if !profile.users[b].is_empty() {
                delta[profile.first[b]] += i128::from(profile.size[b]);
                delta[profile.last[b] + 1] -= i128::from(profile.size[b]);
            }
        }
        let mut running = 0i128;
        profile.live = delta[..order.len()]
            .iter()
            .map(|d| {
                running += d;
                u64::try_from(running).unwrap_or(0)
            })
            .collect();
        profile.recount();
        profile
    }

    /// First and last use position of buffer `b` (0, 0 when unused).
    fn span(&self, b: usize, pos: &[usize]) -> (usize, usize) {
        let mut it = self.users[b].iter().map(|v| pos[v.index()]);
        let Some(p) = it.next() else {
            return (0, 0);
        };
        it.fold((p, p), |(lo, hi), p| (lo.min(p), hi.max(p)))
    }

    fn recount(&mut self) {
        self.peak = self.live.iter().copied().max().unwrap_or(0);
        self.places = self.live.iter().filter(|&&x| x == self.peak).count();
    }

    /// A position at the peak: the first at or after a random one, cyclically.
    fn peak_place(&self, rng: &mut Rng) -> usize {
        let n = self.live.len();
        let start = rng.range(0, n - 1);
        (start..n)
            .chain(0..start)
            .find(|&p| self.live[p] == self.peak)
            .unwrap_or(start)
    }
}

/// Scratch space of one evaluation, reused across moves.
#[derive(Default)]
struct Scratch {
    touched: Vec<usize>,
    spans: Vec<(usize, usize)>,
    live: Vec<u64>,
    shifts: Vec<(usize, usize)>,
    seen: Vec<bool>,
}

/// Runs `moves` repair moves on `order` (a legal order of `graph`'s module); returns how many
/// were kept.
pub(crate) fn repair(graph: &Graph<'_>, order: &mut [OpId], rng: &mut Rng, moves: u64) -> u64 {
    if order.len() < 2 {
        return 0;
    }
    let mut pos = vec![0; order.len()];
    for (p, op) in order.iter().enumerate() {
        pos[op.index()] = p;
    }
    let mut profile = Profile::of(graph, order, &pos);
    climb(graph, order, &mut pos, &mut profile, rng, moves)
}

/// The moves of [`repair`] on an order, its positions and its profile, kept in step.
fn climb(
    graph: &Graph<'_>,
    order: &mut [OpId],
    pos: &mut [usize],
    profile: &mut Profile,
    rng: &mut Rng,
    moves: u64,
) -> u64 {
    let n = order.len();
    let mut scratch = Scratch {
        seen: vec![false; graph.module.buffers.len()],
        ..Scratch::default()
    };
    let mut kept = 0;
    for _ in 0..moves {
        let at = profile.peak_place(rng);
        let i = rng.range(at.saturating_sub(REACH), (at + REACH).min(n - 1));
        let v = order[i];
        if profile.uses[v.index()].is_empty() {
            continue;
        }
        let (lo, hi) = window(graph, order, pos, v);
        let forward = i < at || (i == at && rng.range(0, 1) == 0);
        let target = if forward {
            let from = at.max(i + 1);
            let to = hi.min(i + REACH);
            (from <= to).then(|| rng.range(from, to))
        } else {
            let from = lo.max(i.saturating_sub(REACH));
            let to = i.checked_sub(1).map(|j| j.min(at));
            to.filter(|&to| from <= to).map(|to| rng.range(from, to))
        };
        let Some(q) = target else {
            continue;
        };
        relocate(graph, order, pos, i, q, &mut scratch.shifts);
        if try_keep(profile, order, pos, i.min(q), i.max(q), &mut scratch) {
            kept += 1;
        } else {
            for &(from, to) in scratch.shifts.iter().rev() {
                shift(order, pos, to, from);
            }
        }
    }
    kept
}

/// Re-evaluates positions `a..=b` after a move that only rearranged them; keeps the new profile
/// and returns true when (peak, places) did not grow, else leaves `profile` as it was.
fn try_keep(
    profile: &mut Profile,
    order: &[OpId],
    pos: &[usize],
    a: usize,
    b: usize,
    s: &mut Scratch,
) -> bool {
    // The buffers used inside the span: only their residencies change.
    s.touched.clear();
    for &v in &order[a..=b] {
        for &buf in &profile.uses[v.index()] {
            if !s.seen[buf.index()] {
                s.seen[buf.index()] = true;
                s.touched.push(buf.index());
            }
        }
    }
    for &buf in &s.touched {
        s.seen[buf] = false;
    }
    // Bytes resident over the whole span from buffers not used in it, read off position a.
    let mut base = profile.live[a];
    for &buf in &s.touched {
        if profile.first[buf] <= a && a <= profile.last[buf] {
            base -= profile.size[buf];
        }
    }
    s.spans.clear();
    s.live.clear();
    s.live.resize(b - a + 2, 0);
    let mut delta = std::mem::take(&mut s.live);
    for &buf in &s.touched {
        let (first, last) = profile.span(buf, pos);
        s.spans.push((first, last));
        let (lo, hi) = (first.max(a), last.min(b));
        if lo <= hi {
            delta[lo - a] = delta[lo - a].wrapping_add(profile.size[buf]);
            delta[hi - a + 1] = delta[hi - a + 1].wrapping_sub(profile.size[buf]);
        }
    }
    // Prefix sums in wrapping arithmetic: every partial sum is a real byte count.
    let mut running = base;
    for d in delta.iter_mut().take(b - a + 1) {
        running = running.wrapping_add(*d);
        *d = running;
    }
    let span_max = delta[..=b - a].iter().copied().max().unwrap_or(0);
    let old_places = profile.live[a..=b]
        .iter()
        .filter(|&&x| x == profile.peak)
        .count();
    let new_places = delta[..=b - a]
        .iter()
        .filter(|&&x| x == profile.peak)
        .count();
    let keep = span_max < profile.peak || (span_max == profile.peak && new_places <= old_places);
    if keep {
        profile.live[a..=b].copy_from_slice(&delta[..=b - a]);
        for (&buf, &(first, last)) in s.touched.iter().zip(&s.spans) {
            profile.first[buf] = first;
            profile.last[buf] = last;
        }
        profile.places = profile.places - old_places + new_places;
        if profile.places == 0 {
            profile.recount();
        }
    }
    s.live = delta;
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::pressure;
    use crate::dlr::Tightened;
    use crate::generate::{generate, GenSpec, Shape};
    use crate::order::graph::Graph;

    /// The incremental profile equals a recount after the moves, the order stays legal, and
    /// the tightened peak (what the evaluator measures) never rises.
    #[test]
    fn repair_keeps_a_true_profile_and_never_raises_the_peak() {
        for shape in [Shape::Attention, Shape::Matmul, Shape::Conv, Shape::Random] {
            for seed in 1..=3 {
                let module = generate(&GenSpec {
                    shape,
                    nodes: 600,
                    seed,
                });
                let graph = Graph::build_with(&module, false).expect("acyclic");
                let mut order = module.schedule.clone();
                let before = pressure(&module, Tightened::of(&module, &order).order());
                let mut pos = vec![0; order.len()];
                for (p, op) in order.iter().enumerate() {
                    pos[op.index()] = p;
                }
                let mut profile = Profile::of(&graph, &order, &pos);
                let mut rng = Rng::new(seed);
                let kept = climb(&graph, &mut order, &mut pos, &mut profile, &mut rng, 3_000);
                assert!(kept > 0, "{shape:?}/{seed}: no move kept");
                for v in module.op_ids() {
                    for u in graph.preds(v) {
                        assert!(pos[u.index()] < pos[v.index()], "{shape:?}/{seed}: order");
                    }
                }
                let fresh = Profile::of(&graph, &order, &pos);
                assert_eq!(profile.live, fresh.live, "{shape:?}/{seed}: live");
                assert_eq!(
                    (profile.peak, profile.places),
                    (fresh.peak, fresh.places),
                    "{shape:?}/{seed}: peak"
                );
                let after = pressure(&module, Tightened::of(&module, &order).order());
                assert!(
                    after.logical_peak <= before.logical_peak,
                    "{shape:?}/{seed}: {} > {}",
                    after.logical_peak,
                    before.logical_peak
                );
            }
        }
    }
}
