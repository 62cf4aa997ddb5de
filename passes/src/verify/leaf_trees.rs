//! Two trees over a fixed row of leaves that are switched on and off, for the ownership sweep:
//! a Fenwick tree counting the active leaves of a prefix, and a segment tree giving the active
//! leaf of a prefix with the largest value. Both O(log n) per update and query, O(n) space.

/// Counts active leaves in prefixes.
pub(crate) struct PrefixCount {
    tree: Vec<u64>,
}

impl PrefixCount {
    /// `n` inactive leaves.
    pub fn new(n: usize) -> Self {
        PrefixCount {
            tree: vec![0; n + 1],
        }
    }

    /// Switches `leaf` on or off (callers switch each leaf on at most once before off).
    pub fn add(&mut self, leaf: usize, on: bool) {
        let mut i = leaf + 1;
        while i < self.tree.len() {
            self.tree[i] = if on {
                self.tree[i] + 1
            } else {
                self.tree[i].saturating_sub(1)
            };
            i += i & i.wrapping_neg();
        }
    }

    /// Active leaves among the first `k`.
    pub fn prefix(&self, k: usize) -> u64 {
        let mut i = k.min(self.tree.len() - 1);
        let mut sum = 0;
        while i > 0 {
            sum += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        sum
    }
}

/// The active leaf with the largest value in a prefix.
pub(crate) struct PrefixMax {
    size: usize,
    /// `(value, leaf)` per node; `None` where nothing below is active.
    tree: Vec<Option<(u64, usize)>>,
}

impl PrefixMax {
    /// `n` inactive leaves.
    pub fn new(n: usize) -> Self {
        let size = n.next_power_of_two().max(1);
        PrefixMax {
            size,
            tree: vec![None; 2 * size],
        }
    }

    /// Sets `leaf` active with `value`, or inactive.
    pub fn set(&mut self, leaf: usize, value: Option<u64>) {
        let mut i = leaf + self.size;
        self.tree[i] = value.map(|v| (v, leaf));
        while i > 1 {
            i /= 2;
            self.tree[i] = self.tree[2 * i].max(self.tree[2 * i + 1]);
        }
    }

    /// The active `(value, leaf)` with the largest value among the first `k` leaves.
    pub fn prefix(&self, k: usize) -> Option<(u64, usize)> {
        let (mut lo, mut hi) = (self.size, self.size + k.min(self.size));
        let mut best = None;
        while lo < hi {
            if lo % 2 == 1 {
                best = best.max(self.tree[lo]);
                lo += 1;
            }
            if hi % 2 == 1 {
                hi -= 1;
                best = best.max(self.tree[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_follow_switches() {
        let mut count = PrefixCount::new(5);
        let mut max = PrefixMax::new(5);
        for (leaf, value) in [(0, 7), (2, 9), (4, 3)] {
            count.add(leaf, true);
            max.set(leaf, Some(value));
        }
        assert_eq!(count.prefix(3), 2);
        assert_eq!(max.prefix(3), Some((9, 2)));
        count.add(2, false);
        max.set(2, None);
        assert_eq!(count.prefix(5), 2);
        assert_eq!(max.prefix(3), Some((7, 0)));
        assert_eq!(max.prefix(0), None);
    }
}
