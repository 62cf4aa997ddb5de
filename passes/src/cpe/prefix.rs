//! The highest running total of a sequence of signed values under point updates: a segment tree
//! whose nodes hold (sum, best prefix sum) of their range. The seed keeps the resident-byte
//! changes of the ops it has not placed yet, in reference order, so that it can ask how high the
//! resident bytes would climb if the rest followed that order. O(n) to build, O(log n) per update,
//! O(1) per query of the whole sequence, O((k + 1) log n) per query with k values read as zero (the seed's safety test asks that for an
//! op and its armed predecessors, instead of writing the tree twice per candidate).

/// Sums and best prefix sums over a fixed-length sequence.
pub(crate) struct PrefixMax {
    /// Leaves start at `size`; node i covers its children 2i and 2i + 1.
    sum: Vec<i64>,
    best: Vec<i64>,
    size: usize,
}

impl PrefixMax {
    /// The tree over `values`.
    pub fn new(values: &[i64]) -> Self {
        let size = values.len().next_power_of_two().max(1);
        let mut tree = PrefixMax {
            sum: vec![0; 2 * size],
            best: vec![0; 2 * size],
            size,
        };
        for (i, &v) in values.iter().enumerate() {
            tree.sum[size + i] = v;
            tree.best[size + i] = v.max(0);
        }
        for node in (1..size).rev() {
            tree.pull(node);
        }
        tree
    }

    fn pull(&mut self, node: usize) {
        let (l, r) = (2 * node, 2 * node + 1);
        (self.sum[node], self.best[node]) =
            join((self.sum[l], self.best[l]), (self.sum[r], self.best[r]));
    }

    /// (sum, best prefix sum) of values `l..r`.
    fn range(&self, l: usize, r: usize) -> (i64, i64) {
        let (mut left, mut right) = ((0, 0), (0, 0));
        let (mut l, mut r) = (l + self.size, r + self.size);
        while l < r {
            if l & 1 == 1 {
                left = join(left, (self.sum[l], self.best[l]));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                right = join((self.sum[r], self.best[r]), right);
            }
            l /= 2;
            r /= 2;
        }
        join(left, right)
    }

    /// The largest sum of a prefix of the sequence (the empty prefix counts, so never below 0).
    pub fn best_prefix(&self) -> i64 {
        self.best[1]
    }

    /// The largest sum of a prefix of the sequence with the values at `zeroed` (increasing
    /// indices) read as 0; the empty prefix counts, so never below 0.
    pub fn best_prefix_without(&self, zeroed: &[usize]) -> i64 {
        let mut acc = (0, 0);
        let mut from = 0;
        for &i in zeroed {
            acc = join(acc, self.range(from, i));
            from = i + 1;
        }
        join(acc, self.range(from, self.size)).1
    }

    /// Sets value `i`.
    pub fn set(&mut self, i: usize, value: i64) {
        let mut node = self.size + i;
        self.sum[node] = value;
        self.best[node] = value.max(0);
        while node > 1 {
            node /= 2;
            self.pull(node);
        }
    }
}

/// Two adjacent ranges as one: sums add, the best prefix ends in the first or runs into the second.
fn join((s1, b1): (i64, i64), (s2, b2): (i64, i64)) -> (i64, i64) {
    (s1.saturating_add(s2), b1.max(s1.saturating_add(b2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_prefix_follows_updates() {
        let mut t = PrefixMax::new(&[3, -5, 4, 1, -2]);
        assert_eq!(t.best_prefix(), 3);
        t.set(1, 0);
        assert_eq!(t.best_prefix(), 8);
        assert_eq!(t.best_prefix_without(&[]), 8);
        t.set(0, -1);
        assert_eq!(t.best_prefix(), 4);
        assert_eq!(PrefixMax::new(&[]).best_prefix_without(&[]), 0);
        assert_eq!(PrefixMax::new(&[-1, -1]).best_prefix_without(&[]), 0);
    }

    /// Reading values as zero answers what writing zeros would, on every subset of a sequence.
    #[test]
    fn zeroed_query_matches_updates() {
        let values = [3, -5, 4, 1, -2, 7, -9, 2];
        let t = PrefixMax::new(&values);
        for mask in 0u32..(1 << values.len()) {
            let zeroed: Vec<usize> = (0..values.len()).filter(|i| mask >> i & 1 == 1).collect();
            let mut written = PrefixMax::new(&values);
            for &i in &zeroed {
                written.set(i, 0);
            }
            assert_eq!(
                t.best_prefix_without(&zeroed),
                written.best_prefix_without(&[]),
                "{zeroed:?}"
            );
        }
    }
}
