//! Aligned first-fit placement in one tier: the allocator of the trivial plan, which the generator
//! also runs while it emits σ so that it knows the plan will succeed.
//!
//! A buffer of size `s` is placed at the lowest offset that is a multiple of `s` rounded up to a
//! power of two and whose bytes `[offset, offset + s)` are free and inside the capacity.
//!
//! Guarantee (why the generator's workloads always fit): when every size is a power of two, a
//! request of size `s` succeeds whenever `s + Σ max(p, s) ≤ span` over the live buffers' sizes
//! `p`, `span` being any power of two not above the capacity. A live buffer of size `p` sits at a
//! multiple of `p`, so it lies inside one `s`-aligned block of the span when `p ≤ s` and covers
//! exactly `p / s` of them otherwise; at most `span / s − 1` of the `span / s` blocks are touched,
//! and the scan below finds the lowest free one. Complexity: O(L) per operation for L live
//! buffers in the tier.

use lattice_lir::BufferId;

/// The live buffers of one tier, as disjoint byte ranges sorted by offset.
#[derive(Clone, Debug)]
pub(crate) struct TierSpace {
    capacity: u64,
    used: Vec<(u64, u64, BufferId)>,
}

impl TierSpace {
    /// An empty tier of `capacity` bytes.
    pub(crate) fn new(capacity: u64) -> Self {
        TierSpace {
            capacity,
            used: Vec::new(),
        }
    }

    /// Where a buffer of `size` bytes would go, if it fits.
    pub(crate) fn find(&self, size: u64) -> Option<u64> {
        let align = size.checked_next_power_of_two()?.max(1);
        let fits = |cursor: u64, limit: u64| {
            let at = cursor.checked_next_multiple_of(align)?;
            (at.checked_add(size)? <= limit).then_some(at)
        };
        let mut cursor = 0;
        for &(start, end, _) in &self.used {
            if let Some(at) = fits(cursor, start) {
                return Some(at);
            }
            cursor = cursor.max(end);
        }
        fits(cursor, self.capacity)
    }

    /// Records `buffer` at `offset` (a place [`Self::find`] returned).
    pub(crate) fn take(&mut self, buffer: BufferId, offset: u64, size: u64) {
        let at = self.used.partition_point(|&(start, ..)| start < offset);
        self.used
            .insert(at, (offset, offset.saturating_add(size), buffer));
    }

    /// Frees the bytes of `buffer`, if it holds any.
    pub(crate) fn release(&mut self, buffer: BufferId) {
        if let Some(at) = self.used.iter().position(|&(.., b)| b == buffer) {
            self.used.remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(space: &mut TierSpace, id: usize, size: u64) -> Option<u64> {
        let at = space.find(size)?;
        space.take(BufferId::new(id), at, size);
        Some(at)
    }

    #[test]
    fn first_fit_at_aligned_offsets() {
        let mut s = TierSpace::new(16);
        assert_eq!(place(&mut s, 0, 1), Some(0));
        assert_eq!(place(&mut s, 1, 4), Some(4));
        assert_eq!(place(&mut s, 2, 2), Some(2));
        assert_eq!(place(&mut s, 3, 8), Some(8));
        assert_eq!(place(&mut s, 4, 1), Some(1));
        assert_eq!(s.find(1), None);
        s.release(BufferId::new(1));
        assert_eq!(place(&mut s, 5, 3), Some(4));
        assert_eq!(s.find(2), None);
        s.release(BufferId::new(9));
        assert_eq!(TierSpace::new(10).find(16), None);
        assert_eq!(TierSpace::new(10).find(0), Some(0));
    }

    #[test]
    fn the_guarantee_holds_for_power_of_two_sizes() {
        // Fragment a 64-byte tier with small buffers, then ask for sizes the bound allows.
        let mut s = TierSpace::new(64);
        let mut live: Vec<(usize, u64)> = Vec::new();
        let mut next = 0;
        for round in 0..2000u64 {
            let size = 1u64 << (round * 7 % 5);
            let need: u64 = size + live.iter().map(|&(_, p)| p.max(size)).sum::<u64>();
            if need <= 64 {
                let at = place(&mut s, next, size);
                assert!(
                    at.is_some(),
                    "round {round}: {size} bytes with {live:?} live"
                );
                live.push((next, size));
                next += 1;
            }
            if round % 3 == 0 && !live.is_empty() {
                let (id, _) = live.remove((round as usize * 5) % live.len());
                s.release(BufferId::new(id));
            }
        }
    }
}
