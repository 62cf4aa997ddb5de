//! Memory pressure of an order: the logical peak (DESIGN §1.3: the running sum of ALLOC sizes minus
//! FREE sizes over the non-staging tiers together, L1+UB on the contest target) and at how many
//! points of the order it is reached, the peak live bytes of every tier, and the most buffers
//! live at once in one staging (L0) tier.
//!
//! Which tiers count towards the logical peak comes from the target (`staging` flag), never from tier
//! names: every tier a target declares is on-chip, and the staging ones are excluded as in the paper.
//! Only ALLOC and FREE move the counters (a buffer is logically live from its ALLOC to its FREE
//! whatever spills happen in between). Sums are kept in `i128`, so no order of any module can
//! overflow them; a FREE before its ALLOC (a broken order) drives a counter negative instead of
//! wrapping, and peaks never drop below zero. One sweep of the order: O(V + T) time, O(T) space.

use lattice::{Analysis, AnalysisManager};
use lattice_lir::{Module, OpId, OpKind, TierId};

/// The pressure of one order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pressure {
    /// Max over the order of the live bytes summed over the non-staging tiers.
    pub logical_peak: u64,
    /// How many ALLOCs bring those live bytes to the logical peak: a search minimizing the peak
    /// makes progress by lowering this count before the peak itself drops.
    pub peak_points: u64,
    /// Max over the order of the live bytes of each tier, indexed by [`TierId`].
    pub tier_peaks: Vec<u64>,
    /// Max over the order and the staging tiers of the number of live buffers in one tier
    /// (at most 1 in an L0-exclusive order).
    pub l0_max_live: u64,
}

impl Pressure {
    /// The peak live bytes of `tier`.
    pub fn tier_peak(&self, tier: TierId) -> u64 {
        self.tier_peaks[tier.index()]
    }
}

impl Analysis for Pressure {
    const NAME: &'static str = "pressure";
    fn compute(module: &Module, _: &mut AnalysisManager) -> Self {
        pressure(module, &module.schedule)
    }
}

/// The pressure of `module` when its ops run in `order` (usually σ, or a candidate order).
pub fn pressure(module: &Module, order: &[OpId]) -> Pressure {
    let tiers = module.target.tiers.len();
    let mut bytes = vec![0i128; tiers];
    let mut count = vec![0i128; tiers];
    let mut tier_peaks = vec![0i128; tiers];
    let (mut logical, mut logical_peak, mut l0_max_live) = (0i128, 0i128, 0i128);
    let mut peak_points = 0u64;
    for &id in order {
        let (buffer, sign) = match module.op(id).kind {
            OpKind::Alloc { buffer, .. } => (buffer, 1),
            OpKind::Free { buffer } => (buffer, -1),
            _ => continue,
        };
        let buffer = module.buffer(buffer);
        let t = buffer.tier.index();
        let delta = sign * i128::from(buffer.size);
        bytes[t] += delta;
        count[t] += sign;
        tier_peaks[t] = tier_peaks[t].max(bytes[t]);
        if module.target.tiers[t].staging {
            l0_max_live = l0_max_live.max(count[t]);
        } else {
            // Only an ALLOC can raise the live bytes, so the peak is reached at ALLOCs.
            logical += delta;
            if sign > 0 && logical > logical_peak {
                (logical_peak, peak_points) = (logical, 1);
            } else if sign > 0 && logical == logical_peak {
                peak_points += 1;
            }
        }
    }
    let clamp = |v: i128| u64::try_from(v).unwrap_or(u64::MAX);
    Pressure {
        logical_peak: clamp(logical_peak),
        peak_points,
        tier_peaks: tier_peaks.into_iter().map(clamp).collect(),
        l0_max_live: clamp(l0_max_live),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn logical_peak_sums_non_staging_tiers_and_l0_counts_live_buffers() {
        let module = parse_module(
            "module @m phase(parsed) {
               target { tiers L1 = 64, UB = 64, L0A = 64 l0 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               buffer @b1 : UB[4]
               buffer @b2 : L0A[16]
               buffer @b3 : L0A[16]
               %0 = alloc @b0
               %1 = alloc @b2
               %2 = alloc @b3
               %3 = alloc @b1
               %4 = OP P 1 (@b0, @b1, @b2, @b3) after(%0, %1, %2, %3)
               %5 = free @b0 after(%4)
               %6 = free @b1 after(%4)
               %7 = free @b2 after(%4)
               %8 = free @b3 after(%4)
             }",
        )
        .unwrap();
        let p = pressure(&module, &module.schedule);
        assert_eq!(p.logical_peak, 12);
        assert_eq!(p.tier_peaks, vec![8, 4, 32]);
        assert_eq!(p.l0_max_live, 2);
        let mut early_free = module.schedule.clone();
        early_free.swap(1, 5);
        assert_eq!(pressure(&module, &[]).logical_peak, 0);
        assert_eq!(pressure(&module, &early_free).logical_peak, 8);
        let points = |order: &[OpId]| {
            let p = pressure(&module, order);
            (p.logical_peak, p.peak_points)
        };
        assert_eq!(points(&module.schedule), (12, 1));
        assert_eq!(points(&early_free), (8, 1));
    }
}
