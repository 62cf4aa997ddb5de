//! The scalarisation every baseline compares per-tier memory vectors with (baselines.md §1.3
//! [ADAPT]): for a vector P of bytes per tier and capacities C,
//! `cost(P) = (Σ_τ max(0, P_τ − C_τ)/C_τ, max_τ P_τ/C_τ, Σ_τ P_τ/C_τ)`, compared
//! lexicographically. The overflow sum comes first because a plain `max` ratio stops seeing the
//! other tiers once one tier saturates.
//!
//! Invariants: ratios are `f64` summed in tier order with capacities of at least one byte, so a
//! cost is a deterministic function of the vector; [`Cost`] is totally ordered (`total_cmp`), so
//! it can key sorts and heaps. O(T) per evaluation for T tiers.

use lattice_lir::Target;
use std::cmp::Ordering;

/// A scalarised memory vector; smaller is better.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cost(pub [f64; 3]);

impl PartialEq for Cost {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Cost {}
impl PartialOrd for Cost {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Cost {
    fn cmp(&self, other: &Self) -> Ordering {
        (0..3)
            .map(|i| self.0[i].total_cmp(&other.0[i]))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }
}

/// The tiers' capacities, ready to scalarise vectors indexed by tier.
#[derive(Clone, Debug)]
pub struct Scale {
    capacity: Vec<u64>,
    inverse: Vec<f64>,
}

impl Scale {
    /// The scale of `target`'s tiers.
    pub fn new(target: &Target) -> Self {
        let capacity: Vec<u64> = target.tiers.iter().map(|t| t.capacity.max(1)).collect();
        let inverse = capacity.iter().map(|&c| 1.0 / c as f64).collect();
        Scale { capacity, inverse }
    }

    /// Number of tiers.
    pub fn tiers(&self) -> usize {
        self.capacity.len()
    }

    /// The capacity of tier `t` (at least one byte).
    pub fn capacity(&self, t: usize) -> u64 {
        self.capacity[t]
    }

    /// `cost(P)`.
    pub fn cost(&self, p: &[u64]) -> Cost {
        let (mut over, mut max, mut sum) = (0.0, 0.0f64, 0.0);
        for (t, &bytes) in p.iter().enumerate() {
            let ratio = bytes as f64 * self.inverse[t];
            if bytes > self.capacity[t] {
                over += (bytes - self.capacity[t]) as f64 * self.inverse[t];
            }
            max = max.max(ratio);
            sum += ratio;
        }
        Cost([over, max, sum])
    }

    /// Σ_τ v_τ / C_τ of a signed per-tier change, the scalar "net" of baselines.md §2.
    pub fn net(&self, inc: &[u64], dec: &[u64]) -> f64 {
        (0..self.tiers())
            .map(|t| (inc[t] as f64 - dec[t] as f64) * self.inverse[t])
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_dominates_then_the_largest_ratio_then_the_sum() {
        let scale = Scale::new(&Target::contest());
        // L1 4096, UB 1024, L0A 256, L0B 256, L0C 512.
        let saturated = scale.cost(&[4096, 1024, 256, 256, 512]);
        let over_l0a = scale.cost(&[0, 0, 512, 0, 0]);
        assert!(
            saturated < over_l0a,
            "no tier over capacity beats any overflow"
        );
        let half = scale.cost(&[2048, 0, 0, 0, 0]);
        let half_two = scale.cost(&[2048, 512, 0, 0, 0]);
        assert!(half < half_two);
        assert_eq!(scale.cost(&[2048, 0, 0, 0, 0]), half);
        assert!(scale.cost(&[0, 0, 128, 0, 0]) < scale.cost(&[0, 0, 0, 0, 384]));
        assert_eq!(scale.net(&[4096, 0, 0, 0, 0], &[0, 512, 0, 0, 0]), 0.5);
    }
}
