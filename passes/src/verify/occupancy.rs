//! What σ keeps on chip, position by position: logical bytes (ALLOC..FREE, the contest's V_stay),
//! resident bytes (residency segments, so spilled buffers do not count), and how many buffers each
//! tier holds — with the L0 exclusivity check of the order level.
//!
//! "L1+UB" of DESIGN §1.3 is read from the target, not from tier names: the logical peak sums the
//! tiers that are not staging tiers (on the contest target exactly L1 and UB), and exclusivity
//! applies to the staging tiers (L0A, L0B, L0C) when `target.l0_exclusive` is set. Each op opens or
//! closes at most one segment, so a running sum per tier gives every peak in one walk; the live
//! segments of each tier are kept in an ordered set to name the buffer already there. Each peak
//! remembers the first ALLOC that reaches it (where a trace marks it).
//! O(V log B).

use super::category::{Category, Violation};
use super::residency::Residencies;
use super::sigma::Sigma;
use lattice_lir::{Module, OpId};
use std::collections::BTreeSet;

/// Peaks of one walk of σ.
pub(crate) struct Occupancy {
    /// Max ALLOC-minus-FREE bytes of each tier, indexed by tier id.
    pub logical_by_tier: Vec<u64>,
    /// The first ALLOC reaching each tier's max, indexed by tier id.
    pub logical_by_tier_at: Vec<Option<OpId>>,
    /// Max ALLOC-minus-FREE bytes summed over the non-staging tiers.
    pub logical_peak: u64,
    /// The first ALLOC reaching that max.
    pub logical_peak_at: Option<OpId>,
    /// Max bytes resident over every tier.
    pub physical_peak: u64,
    /// Max number of resident buffers of each tier, indexed by tier id.
    pub max_live: Vec<u64>,
}

/// Walks σ once; reports second live buffers in exclusive staging tiers.
pub(crate) fn occupancy(
    m: &Module,
    sigma: &Sigma,
    r: &Residencies,
    out: &mut Vec<Violation>,
) -> Occupancy {
    let tiers = &m.target.tiers;
    let mut logical = vec![0u64; tiers.len()];
    let mut logical_main = 0u64;
    let mut physical = 0u64;
    let mut live: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); tiers.len()];
    let mut o = Occupancy {
        logical_by_tier: vec![0; tiers.len()],
        logical_by_tier_at: vec![None; tiers.len()],
        logical_peak: 0,
        logical_peak_at: None,
        physical_peak: 0,
        max_live: vec![0; tiers.len()],
    };
    for &id in &sigma.order {
        let Some(b) = m.op(id).kind.buffers().first().copied() else {
            continue;
        };
        let buffer = m.buffer(b);
        let t = buffer.tier.index();
        let main = !tiers[t].staging;
        if r.alloc[b.index()] == Some(id) {
            logical[t] = logical[t].saturating_add(buffer.size);
            if logical[t] > o.logical_by_tier[t] {
                o.logical_by_tier[t] = logical[t];
                o.logical_by_tier_at[t] = Some(id);
            }
            if main {
                logical_main = logical_main.saturating_add(buffer.size);
                if logical_main > o.logical_peak {
                    o.logical_peak = logical_main;
                    o.logical_peak_at = Some(id);
                }
            }
        } else if r.free[b.index()] == Some(id) {
            logical[t] = logical[t].saturating_sub(buffer.size);
            if main {
                logical_main = logical_main.saturating_sub(buffer.size);
            }
        }
        if let Some(s) = r.closed_by[id.index()] {
            physical = physical.saturating_sub(buffer.size);
            live[t].remove(&s);
        }
        if let Some(s) = r.opened_by[id.index()] {
            physical = physical.saturating_add(buffer.size);
            o.physical_peak = o.physical_peak.max(physical);
            if m.target.l0_exclusive && tiers[t].staging {
                if let Some(&other) = live[t].iter().next() {
                    let other = m.buffer(r.segments[other].buffer).name;
                    let message = format!(
                        "%{} makes @b{} live in {} while @b{other} still is; the tier holds one \
                         live buffer at a time",
                        m.op(id).name,
                        buffer.name,
                        tiers[t].name
                    );
                    out.push(Violation::new(Some(id), Category::L0Exclusive, message));
                }
            }
            live[t].insert(s);
            o.max_live[t] = o.max_live[t].max(live[t].len() as u64);
        }
    }
    o
}
