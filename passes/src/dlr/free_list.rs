//! The offset-ordered free list of one tier, with deterministic best fit.
//!
//! Holes are kept twice: by offset (to coalesce neighbours on release) and by `(length, offset)`
//! (so that best fit is one ordered lookup). Invariants: holes are disjoint, non-empty, never
//! adjacent (a release merges with both neighbours), and lie in `[0, capacity)`; both indexes hold
//! the same holes. Best fit is the paper's lexicographic `argmin (ℓ − s, o)` over holes with
//! `ℓ ≥ s`, which is exactly the first `(ℓ, o) ≥ (s, 0)` in the length index; the block is placed
//! at the hole's start. Every operation is O(log H) for H holes, but best fit away from a range
//! (`l0=double`, on staging tiers with a handful of holes), which walks the holes: O(H).

use std::collections::{BTreeMap, BTreeSet};

/// The free byte ranges of one tier.
#[derive(Clone, Debug)]
pub(crate) struct FreeList {
    /// Hole start → length.
    by_offset: BTreeMap<u64, u64>,
    /// `(length, start)` of every hole.
    by_length: BTreeSet<(u64, u64)>,
}

impl FreeList {
    /// A tier of `capacity` bytes, all free.
    pub(crate) fn new(capacity: u64) -> Self {
        let mut list = FreeList {
            by_offset: BTreeMap::new(),
            by_length: BTreeSet::new(),
        };
        list.insert(0, capacity);
        list
    }

    fn insert(&mut self, start: u64, len: u64) {
        if len > 0 {
            self.by_offset.insert(start, len);
            self.by_length.insert((len, start));
        }
    }

    fn remove(&mut self, start: u64, len: u64) {
        self.by_offset.remove(&start);
        self.by_length.remove(&(len, start));
    }

    /// The best-fit offset for `size` bytes, if some hole is large enough.
    pub(crate) fn best_fit(&self, size: u64) -> Option<u64> {
        self.by_length.range((size, 0)..).next().map(|&(_, o)| o)
    }

    /// The best-fit offset for `size` bytes sharing no byte with `[avoid.0, avoid.1)`: holes are
    /// cut around that range and the tightest piece wins, then the lowest. O(H).
    pub(crate) fn best_fit_avoiding(&self, size: u64, avoid: (u64, u64)) -> Option<u64> {
        let (lo, hi) = avoid;
        self.by_offset
            .iter()
            .flat_map(|(&start, &len)| {
                let end = start + len;
                [(start, end.min(lo)), (start.max(hi), end)]
            })
            .filter(|&(a, b)| b > a && b - a >= size)
            .min_by_key(|&(a, b)| (b - a - size, a))
            .map(|(a, _)| a)
    }

    /// The length of the largest hole (0 when the tier is full).
    pub(crate) fn largest(&self) -> u64 {
        self.by_length.last().map_or(0, |&(len, _)| len)
    }

    /// Marks `[offset, offset + size)` used; the range must lie inside one hole.
    pub(crate) fn occupy(&mut self, offset: u64, size: u64) {
        let Some((&start, &len)) = self.by_offset.range(..=offset).next_back() else {
            return;
        };
        debug_assert!(
            offset + size <= start + len,
            "occupying bytes that are not free"
        );
        self.remove(start, len);
        self.insert(start, offset - start);
        self.insert(offset + size, start + len - (offset + size));
    }

    /// Returns `[offset, offset + size)` to the list, merging it with adjacent holes.
    pub(crate) fn release(&mut self, offset: u64, size: u64) {
        let mut start = offset;
        let mut end = offset + size;
        if let Some((&s, &l)) = self.by_offset.range(..offset).next_back() {
            if s + l == offset {
                self.remove(s, l);
                start = s;
            }
        }
        if let Some(&l) = self.by_offset.get(&end) {
            self.remove(end, l);
            end += l;
        }
        self.insert(start, end - start);
    }
}

#[cfg(test)]
mod tests {
    use super::FreeList;

    #[test]
    fn best_fit_avoiding_keeps_clear_of_the_last_range() {
        let list = FreeList::new(256);
        assert_eq!(list.best_fit_avoiding(128, (0, 128)), Some(128));
        assert_eq!(list.best_fit_avoiding(128, (128, 256)), Some(0));
        assert_eq!(list.best_fit_avoiding(128, (64, 192)), None);
        assert_eq!(list.best_fit_avoiding(200, (0, 128)), None);
        assert_eq!(list.best_fit(200), Some(0));
    }

    #[test]
    fn best_fit_prefers_the_tightest_then_the_lowest_hole() {
        let mut list = FreeList::new(100);
        list.occupy(0, 100);
        list.release(0, 30); // hole [0, 30)
        list.release(40, 20); // hole [40, 60)
        list.release(70, 20); // hole [70, 90)
        assert_eq!(list.best_fit(20), Some(40));
        assert_eq!(list.best_fit(25), Some(0));
        assert_eq!(list.best_fit(31), None);
        assert_eq!(list.largest(), 30);
        list.release(30, 10); // merges [0, 60)
        assert_eq!(list.largest(), 60);
        list.occupy(10, 5);
        assert_eq!(list.best_fit(10), Some(0));
        assert_eq!(list.best_fit(45), Some(15));
    }
}
