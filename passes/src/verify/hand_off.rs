//! Timing level: every address hand-off is ordered. When a residency starts (ALLOC or SPILL_IN)
//! on bytes of its tier last held by an earlier residency, the earlier one's end (FREE or
//! SPILL_OUT) must reach the new start by a path of the augmented graph — an explicit `reuse`
//! dependency, or any other path (see [`super::reach`]).
//!
//! Only the last previous holder of each byte is checked: holders before it are ordered through
//! it, since its own start reaches its end (checked by [`super::spill_edges`]). The last holders
//! are kept per tier as disjoint byte ranges in a map keyed by offset; a new residency splits the
//! ranges it covers, so each start touches O(1) amortized ranges. A previous holder whose end σ
//! does not place before the new start overlaps it in σ, which the plan level reports as overlap.
//! O(S log S) for S residencies, plus the reachability queries.

use super::category::{Category, Violation};
use super::graph::Augmented;
use super::reach::reachable;
use super::residency::Residencies;
use super::sigma::Sigma;
use lattice_lir::{Module, OpId};
use std::collections::BTreeMap;

/// Reports every hand-off that no path of `g` orders.
pub(crate) fn check_hand_offs(
    m: &Module,
    sigma: &Sigma,
    r: &Residencies,
    g: &Augmented,
    out: &mut Vec<Violation>,
) {
    let mut holders: Vec<BTreeMap<u64, (u64, usize)>> = vec![BTreeMap::new(); m.target.tiers.len()];
    let mut queries: Vec<(OpId, OpId)> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for &id in &sigma.order {
        let Some(s) = r.opened_by[id.index()] else {
            continue;
        };
        let seg = &r.segments[s];
        let Some(lo) = seg.offset else { continue };
        let buffer = m.buffer(seg.buffer);
        let hi = lo.saturating_add(buffer.size);
        if hi == lo {
            continue;
        }
        let map = &mut holders[buffer.tier.index()];
        let covered: Vec<(u64, u64, usize)> = map
            .range(..hi)
            .rev()
            .take_while(|(_, &(end, _))| end > lo)
            .map(|(&start, &(end, holder))| (start, end, holder))
            .collect();
        let mut previous: Vec<usize> = Vec::new();
        for (start, end, holder) in covered {
            map.remove(&start);
            if start < lo {
                map.insert(start, (lo, holder));
            }
            if end > hi {
                map.insert(hi, (end, holder));
            }
            previous.push(holder);
        }
        map.insert(lo, (hi, s));
        previous.sort_unstable();
        previous.dedup();
        for p in previous {
            if let Some(end) = r.segments[p].end {
                if sigma.pos[end.index()] < sigma.pos[id.index()] {
                    queries.push((end, id));
                    pairs.push((p, s));
                }
            }
        }
    }
    let answers = reachable(g, &queries);
    for ((&(end, start), &(p, s)), ok) in queries.iter().zip(&pairs).zip(answers) {
        if ok {
            continue;
        }
        let (before, after) = (&r.segments[p], &r.segments[s]);
        let tier = &m.target.tier(m.buffer(after.buffer).tier).name;
        let message = format!(
            "%{} starts @b{} on bytes of {tier} that @b{} held until %{}, but no dependency path \
             orders %{} before %{}",
            m.op(start).name,
            m.buffer(after.buffer).name,
            m.buffer(before.buffer).name,
            m.op(end).name,
            m.op(end).name,
            m.op(start).name
        );
        out.push(Violation::new(Some(start), Category::HandOff, message));
    }
}
