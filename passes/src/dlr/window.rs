//! Eviction by address (`dlr{evict=window}`): when no hole of a tier fits a request, choose the
//! contiguous byte range for the block whose eviction costs least, in one pass over the tier.
//!
//! The tier is a sequence of segments in address order — holes and residents — in which pinned
//! residents (the command's operands) are barriers. A window is `[o, o + s)` inside a run
//! between barriers; evicting it means evicting every resident that overlaps it. Each resident
//! has an additive cost under the active key ([`super::victim::cost`]), and a window's cost is the
//! sum over the residents it overlaps. The set of residents a window overlaps only changes when
//! `o` crosses a segment boundary or `o + s` does, so some cheapest window starts at a segment's
//! start or ends at a segment's end: two sweeps with two monotone pointers and prefix sums try
//! every such window. Ties go to the window that evicts fewer bytes, then to the lower offset, so
//! the choice is deterministic.
//!
//! Unlike evicting by rank until some hole fits (`evict=rank`, the paper's loop), this never
//! evicts a resident that does not overlap the block, so no victim is put back, and its cost does
//! not grow with the number of victims: O(R + H) per request for R residents and H holes of the
//! tier (H ≤ R + 1), whatever the fragmentation.

use super::victim::Cost;

/// One segment of a tier, in address order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// Free bytes.
    Hole { start: u64, end: u64 },
    /// A resident that may be evicted, with its cost.
    Victim { start: u64, end: u64, cost: Cost },
    /// A resident that must stay (an operand of the command being served).
    Pinned { start: u64, end: u64 },
}

impl Segment {
    fn start(&self) -> u64 {
        match *self {
            Segment::Hole { start, .. }
            | Segment::Victim { start, .. }
            | Segment::Pinned { start, .. } => start,
        }
    }

    fn end(&self) -> u64 {
        match *self {
            Segment::Hole { end, .. }
            | Segment::Victim { end, .. }
            | Segment::Pinned { end, .. } => end,
        }
    }
}

/// The chosen window: the block's offset and the range `first..=last` of segments it overlaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) offset: u64,
    pub(crate) first: usize,
    pub(crate) last: usize,
}

/// Prefix sums over a run of segments: cost and resident bytes of `segments[..i]`.
struct Prefix {
    cost: Vec<Cost>,
    bytes: Vec<u64>,
}

impl Prefix {
    fn of(run: &[Segment]) -> Self {
        let mut cost = Vec::with_capacity(run.len() + 1);
        let mut bytes = Vec::with_capacity(run.len() + 1);
        let (mut c, mut b) = (Cost::ZERO, 0);
        cost.push(c);
        bytes.push(b);
        for seg in run {
            if let Segment::Victim {
                start,
                end,
                cost: x,
            } = *seg
            {
                c = c.plus(x);
                b += end - start;
            }
            cost.push(c);
            bytes.push(b);
        }
        Prefix { cost, bytes }
    }

    /// (cost, bytes) of segments `i..=j`.
    fn range(&self, i: usize, j: usize) -> (Cost, u64) {
        (
            self.cost[j + 1].minus(self.cost[i]),
            self.bytes[j + 1] - self.bytes[i],
        )
    }
}

/// The cheapest window of `size` bytes among `segments` (address-ordered, covering the tier
/// without gaps), or `None` when every range of `size` bytes overlaps a pinned resident.
/// `visited` counts the segments looked at (the scan's work). O(segments).
pub(crate) fn cheapest(segments: &[Segment], size: u64, visited: &mut u64) -> Option<Window> {
    let mut best: Option<((Cost, u64, u64), Window)> = None;
    let mut offer = |key: (Cost, u64, u64), window: Window| {
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, window));
        }
    };
    let mut base = 0;
    for run in segments.split(|s| matches!(s, Segment::Pinned { .. })) {
        *visited += run.len() as u64 + 1;
        if let (Some(first), Some(last)) = (run.first(), run.last()) {
            if last.end() - first.start() >= size {
                let prefix = Prefix::of(run);
                let at = |i: usize, j: usize, offset: u64| {
                    let (cost, bytes) = prefix.range(i, j);
                    let window = Window {
                        offset,
                        first: base + i,
                        last: base + j,
                    };
                    ((cost, bytes, offset), window)
                };
                // Windows that start where a segment starts.
                let mut j = 0;
                for (i, seg) in run.iter().enumerate() {
                    let o = seg.start();
                    if o + size > last.end() {
                        break;
                    }
                    j = j.max(i);
                    while run[j].end() < o + size {
                        j += 1;
                    }
                    let (key, window) = at(i, j, o);
                    offer(key, window);
                }
                // Windows that end where a segment ends.
                let mut i = 0;
                for (j, seg) in run.iter().enumerate() {
                    let Some(o) = seg.end().checked_sub(size).filter(|&o| o >= first.start())
                    else {
                        continue;
                    };
                    while run[i].end() <= o {
                        i += 1;
                    }
                    let (key, window) = at(i, j, o);
                    offer(key, window);
                }
            }
        }
        base += run.len() + 1;
    }
    best.map(|(_, window)| window)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hole(start: u64, end: u64) -> Segment {
        Segment::Hole { start, end }
    }

    fn victim(start: u64, end: u64, cost: u128) -> Segment {
        Segment::Victim {
            start,
            end,
            cost: Cost([0, cost]),
        }
    }

    fn pinned(start: u64, end: u64) -> Segment {
        Segment::Pinned { start, end }
    }

    fn best(segments: &[Segment], size: u64) -> Option<(u64, usize, usize)> {
        let mut visited = 0;
        cheapest(segments, size, &mut visited).map(|w| (w.offset, w.first, w.last))
    }

    /// Every offset of the tier, tried one by one: the cheapest (cost, bytes, offset).
    fn brute(segments: &[Segment], size: u64) -> Option<(Cost, u64, u64)> {
        let end = segments.last().map_or(0, Segment::end);
        (0..=end.saturating_sub(size))
            .filter_map(|o| {
                let over: Vec<&Segment> = segments
                    .iter()
                    .filter(|s| s.start() < o + size && o < s.end())
                    .collect();
                let mut key = (Cost::ZERO, 0, o);
                for s in over {
                    match *s {
                        Segment::Pinned { .. } => return None,
                        Segment::Victim { start, end, cost } => {
                            key.0 = key.0.plus(cost);
                            key.1 += end - start;
                        }
                        Segment::Hole { .. } => {}
                    }
                }
                Some(key)
            })
            .min()
    }

    #[test]
    fn evicts_only_what_overlaps_the_cheapest_window() {
        // [0,10) a:5 | [10,12) hole | [12,20) b:1 | [20,24) pinned | [24,32) c:2 | [32,40) hole
        let segs = [
            victim(0, 10, 5),
            hole(10, 12),
            victim(12, 20, 1),
            pinned(20, 24),
            victim(24, 32, 2),
            hole(32, 40),
        ];
        // 8 bytes: b alone (ending at 20, cost 1) beats c (cost 2) and the hole at 32.
        assert_eq!(best(&segs, 8), Some((32, 5, 5)));
        assert_eq!(best(&segs, 10), Some((10, 1, 2)));
        assert_eq!(best(&segs, 16), Some((24, 4, 5)));
        assert_eq!(best(&segs, 17), Some((0, 0, 2)));
        assert_eq!(best(&segs, 21), None);
    }

    #[test]
    fn matches_trying_every_offset() {
        // A deterministic pseudo-random family of tiers.
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        for _ in 0..3000 {
            let mut segs = Vec::new();
            let mut at = 0;
            for _ in 0..1 + next(8) {
                let len = 1 + next(6);
                segs.push(match next(4) {
                    0 => hole(at, at + len),
                    1 => pinned(at, at + len),
                    _ => victim(at, at + len, u128::from(next(5))),
                });
                at += len;
            }
            // Adjacent holes are merged in a real tier.
            segs.dedup_by(|b, a| {
                if let (Segment::Hole { end, .. }, Segment::Hole { end: e2, .. }) = (a, &*b) {
                    *end = *e2;
                    true
                } else {
                    false
                }
            });
            for size in 1..=at {
                let mut visited = 0;
                let got = cheapest(&segs, size, &mut visited).map(|w| {
                    let mut key = (Cost::ZERO, 0, w.offset);
                    for s in &segs[w.first..=w.last] {
                        assert!(s.start() < w.offset + size && w.offset < s.end());
                        if let Segment::Victim { start, end, cost } = *s {
                            key.0 = key.0.plus(cost);
                            key.1 += end - start;
                        }
                    }
                    key
                });
                assert_eq!(got, brute(&segs, size), "{segs:?} size {size}");
            }
        }
    }
}
