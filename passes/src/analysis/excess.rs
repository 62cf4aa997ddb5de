//! A lower bound on what the spills of a plan must cost, given buffers known to be live at one
//! position of its order: `order-exact`'s pruning of a fixed prefix (`exact::walk`) and the
//! first-FREE bound ([`super::first_free`]).
//!
//! At the position of an op v, take buffers known to be live there (allocated before v and
//! freed after it; for a fixed prefix, those the prefix allocated and has not freed). Where their bytes exceed a
//! tier's capacity, buffers of at least the excess that v does not name must be out of the tier
//! at v, and each pays for a spill. Covering the excess fractionally, cheapest cost per byte
//! first, bounds that one position's cost from below; the largest such bound over the prefix
//! bounds the whole plan's (for traffic, and for the cycles of each spill pipe). Staging tiers
//! of an L0-exclusive target hold one buffer at a time and never overflow.
//!
//! O(live buffers · log) per position.

use super::cover_bound::spill_cost;
use lattice_lir::{BufferId, Module, OpId, PipeId};

/// What a spill costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Extra DDR bytes.
    Traffic,
    /// Cycles on this spill pipe.
    Cycles(PipeId),
}

/// The cost of covering, at `at`, every tier's excess of the `live` buffers over its capacity.
pub fn position_cost(m: &Module, live: &[BufferId], at: OpId, cost: Cost) -> u64 {
    let named = m.op(at).kind.buffers();
    let mut total = 0u64;
    for (t, tier) in m.target.tiers.iter().enumerate() {
        if tier.staging && m.target.l0_exclusive {
            continue;
        }
        let in_tier = live.iter().filter(|b| m.buffer(**b).tier.index() == t);
        let bytes: u64 = in_tier.clone().map(|&b| m.buffer(b).size).sum();
        let Some(mut excess) = bytes.checked_sub(tier.capacity).filter(|&e| e > 0) else {
            continue;
        };
        // (cost, size) of each candidate, cheapest per byte first: a/b < c/d ⟺ a·d < c·b.
        let mut candidates: Vec<(u64, u64)> = in_tier
            .filter(|b| !named.contains(b) && m.buffer(**b).size > 0)
            .map(|&b| {
                let c = match cost {
                    Cost::Traffic => m.buffer(b).spill_traffic().unwrap_or(u64::MAX),
                    Cost::Cycles(pipe) => spill_cost(m, b, pipe),
                };
                (c, m.buffer(b).size)
            })
            .collect();
        candidates.sort_by(|&(a, b), &(c, d)| {
            (u128::from(a) * u128::from(d)).cmp(&(u128::from(c) * u128::from(b)))
        });
        let mut spent = 0u128;
        for (c, size) in candidates {
            let take = excess.min(size);
            // Rounded down: a bound.
            spent += u128::from(c) * u128::from(take) / u128::from(size);
            excess -= take;
            if excess == 0 {
                break;
            }
        }
        total = total.saturating_add(u64::try_from(spent).unwrap_or(u64::MAX));
    }
    total
}
