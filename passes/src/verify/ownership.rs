//! Timing level: under the replayed timing, no two residencies that share bytes of a tier are held
//! at the same time — the ownership conflicts of the paper's Table III.
//!
//! A residency holds its byte range from its acquisition (the earliest start among its opening
//! ALLOC/SPILL_IN and its uses) until its release (the latest end among its closing FREE/SPILL_OUT
//! — the makespan when σ never closes it — and its uses): every access and the closing event of
//! the earlier owner must end before the next owner acquires (paper, Observation 2). Holding
//! intervals are half-open, so a zero-length one holds nothing and a release at t followed by an
//! acquisition at t is no conflict. Conflicting pairs are counted by a sweep in acquisition order
//! per tier: among the residencies still held, those overlapping [lo, hi) are the ones starting
//! below hi minus those ending at or below lo (two prefix counters over leaves sorted by start and
//! by end), and a prefix-max tree names the one reaching furthest. One violation per residency
//! that acquires bytes still held, at its opening op. O(S log S) for S residencies.

use super::category::{Category, Violation};
use super::leaf_trees::{PrefixCount, PrefixMax};
use super::residency::{Residencies, Segment};
use super::timing::Timing;
use lattice_lir::Module;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

/// One residency as a rectangle: bytes `[lo, hi)` held during `[acquire, release)`.
struct Held {
    segment: usize,
    lo: u64,
    hi: u64,
    acquire: u64,
    release: u64,
}

/// Counts conflicting pairs under `t` and reports each residency that meets one.
pub(crate) fn check_ownership(
    m: &Module,
    r: &Residencies,
    t: &Timing,
    out: &mut Vec<Violation>,
) -> u64 {
    let mut per_tier: Vec<Vec<Held>> = (0..m.target.tiers.len()).map(|_| Vec::new()).collect();
    for (s, seg) in r.segments.iter().enumerate() {
        let Some(lo) = seg.offset else { continue };
        let buffer = m.buffer(seg.buffer);
        let hi = lo.saturating_add(buffer.size);
        let Range {
            start: acquire,
            end: release,
        } = holding(seg, t);
        if hi > lo && release > acquire {
            per_tier[buffer.tier.index()].push(Held {
                segment: s,
                lo,
                hi,
                acquire,
                release,
            });
        }
    }
    per_tier
        .iter()
        .map(|held| sweep_tier(m, r, held, out))
        .sum()
}

/// The cycles `[acquire, release)` during which `seg` holds its bytes under `t` (see the header);
/// empty when it holds them for no time.
pub(crate) fn holding(seg: &Segment, t: &Timing) -> Range<u64> {
    let closing = seg.end.map_or(t.makespan, |e| t.end[e.index()]);
    let acquire = seg
        .users
        .iter()
        .map(|u| t.start[u.index()])
        .fold(t.start[seg.start.index()], u64::min);
    let release = seg
        .users
        .iter()
        .map(|u| t.end[u.index()])
        .fold(closing, u64::max);
    acquire..release
}

fn sweep_tier(m: &Module, r: &Residencies, held: &[Held], out: &mut Vec<Violation>) -> u64 {
    let n = held.len();
    let leaves = |key: &dyn Fn(&Held) -> u64| {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (key(&held[i]), i));
        let mut leaf = vec![0; n];
        for (l, &i) in order.iter().enumerate() {
            leaf[i] = l;
        }
        let keys: Vec<u64> = order.iter().map(|&i| key(&held[i])).collect();
        (leaf, keys, order)
    };
    let (lo_leaf, los, at_lo_leaf) = leaves(&|h| h.lo);
    let (hi_leaf, his, _) = leaves(&|h| h.hi);
    let mut by_lo = PrefixCount::new(n);
    let mut by_hi = PrefixCount::new(n);
    let mut furthest = PrefixMax::new(n);
    let mut acquisitions: Vec<usize> = (0..n).collect();
    acquisitions.sort_by_key(|&i| (held[i].acquire, held[i].segment));
    let mut releases: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut conflicts = 0;
    for i in acquisitions {
        let h = &held[i];
        while let Some(&Reverse((release, j))) = releases.peek() {
            if release > h.acquire {
                break;
            }
            releases.pop();
            by_lo.add(lo_leaf[j], false);
            by_hi.add(hi_leaf[j], false);
            furthest.set(lo_leaf[j], None);
        }
        let below_hi = los.partition_point(|&lo| lo < h.hi);
        let ending_by_lo = his.partition_point(|&hi| hi <= h.lo);
        let overlapping = by_lo
            .prefix(below_hi)
            .saturating_sub(by_hi.prefix(ending_by_lo));
        if overlapping > 0 {
            conflicts += overlapping;
            if let Some((_, leaf)) = furthest.prefix(below_hi) {
                out.push(conflict(m, r, h, &held[at_lo_leaf[leaf]], overlapping));
            }
        }
        by_lo.add(lo_leaf[i], true);
        by_hi.add(hi_leaf[i], true);
        furthest.set(lo_leaf[i], Some(h.hi));
        releases.push(Reverse((h.release, i)));
    }
    conflicts
}

fn conflict(m: &Module, r: &Residencies, h: &Held, other: &Held, count: u64) -> Violation {
    let seg = &r.segments[h.segment];
    let prev = &r.segments[other.segment];
    let tier = &m.target.tier(m.buffer(seg.buffer).tier).name;
    let mut message = format!(
        "%{} acquires [{}, {}) of {tier} for @b{} at cycle {}, but @b{} (from %{}) holds [{}, {}) \
         until cycle {}",
        m.op(seg.start).name,
        h.lo,
        h.hi,
        m.buffer(seg.buffer).name,
        h.acquire,
        m.buffer(prev.buffer).name,
        m.op(prev.start).name,
        other.lo,
        other.hi,
        other.release
    );
    if count > 1 {
        message.push_str(&format!(" ({count} residencies in conflict)"));
    }
    Violation::new(Some(seg.start), Category::Ownership, message)
}
