//! The highest running total of a sequence of signed values under point updates: a segment tree
//! whose nodes hold (sum, best prefix sum) of their range. The seed keeps the resident-byte
//! changes of the ops it has not placed yet, in reference order, so that it can ask how high the
//! resident bytes would climb if the rest followed that order. O(n) to build, O(log n) per update,
//! O(1) per query.

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
        self.sum[node] = self.sum[l].saturating_add(self.sum[r]);
        self.best[node] = self.best[l].max(self.sum[l].saturating_add(self.best[r]));
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

    /// The largest sum of a prefix of the sequence (the empty prefix counts, so never below 0).
    pub fn best_prefix(&self) -> i64 {
        self.best[1]
    }
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
        t.set(0, -1);
        assert_eq!(t.best_prefix(), 4);
        assert_eq!(PrefixMax::new(&[]).best_prefix(), 0);
        assert_eq!(PrefixMax::new(&[-1, -1]).best_prefix(), 0);
    }
}
