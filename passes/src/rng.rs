//! Deterministic random numbers for the generator and the order search: SplitMix64, a 64-bit state advanced by a Weyl step and mixed
//! by a fixed finaliser (Steele, Lea & Flood 2014).
//!
//! Written out here rather than taken from a crate so that a seed names the same workload on every
//! platform and every version of lattice: nothing outside this file decides the sequence.
//! Invariant: the whole output is a pure function of the seed. Every call is O(1).

/// A deterministic stream of random numbers.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// The stream that seed `seed` names.
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (`lo` when the range is empty), by multiply-and-shift, whose bias of
    /// at most 2^-64 per value no workload can notice.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        let span = hi.saturating_sub(lo) as u128 + 1;
        let offset = (u128::from(self.next_u64()) * span) >> 64;
        lo + offset as usize
    }

    /// True with probability `num / den`.
    #[cfg(feature = "generate")]
    pub(crate) fn chance(&mut self, num: usize, den: usize) -> bool {
        self.range(1, den.max(1)) <= num
    }

    /// A uniformly chosen element of `items`, `None` when it is empty.
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        let last = items.len().checked_sub(1)?;
        items.get(self.range(0, last)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = (0..8)
            .scan(Rng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..8)
            .scan(Rng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
        // The reference SplitMix64 output for seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn ranges_stay_inside_and_cover() {
        let mut r = Rng::new(1);
        let mut seen = [false; 4];
        for _ in 0..200 {
            let x = r.range(3, 6);
            assert!((3..=6).contains(&x));
            seen[x - 3] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(r.range(5, 2), 5);
        assert_eq!(r.range(0, 0), 0);
        assert!(r.chance(1, 1));
        assert!(!r.chance(0, 3));
        assert_eq!(r.pick::<u8>(&[]), None);
        assert_eq!(r.pick(&[9]), Some(9));
    }
}
