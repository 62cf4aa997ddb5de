//! Plan level, static part: offsets present and inside capacity, residencies of one tier that
//! overlap in σ kept apart in address, spill ops on the target's pipes at the §1.3 cost, and
//! `backed` flags that agree with the COPY_INs.
//!
//! Address non-overlap is a sweep over σ with, per tier, the resident byte ranges in a map keyed
//! by offset. The map stays disjoint: a residency that overlaps one already there is reported
//! against every range it overlaps and is left out of the map, so each conflicting pair is found
//! once, at the later start, and a query only visits the ranges it overlaps (ranges are disjoint,
//! so ends ascend with offsets and the backward scan from the new end stops at the first range
//! ending at or before the new start). Spill cost uses the replay's own notion of backing (some
//! COPY_IN names the buffer), not the flag under test. O(V log V + reported pairs).

use super::category::{Category, Violation};
use super::residency::Residencies;
use super::sigma::Sigma;
use lattice_lir::{Module, OpKind, PipeId};
use std::collections::BTreeMap;

/// Runs the static plan checks.
pub(crate) fn check_plan(m: &Module, sigma: &Sigma, r: &Residencies, out: &mut Vec<Violation>) {
    check_backed_flags(m, r, out);
    check_spill_model(m, sigma, r, out);
    check_addresses(m, sigma, r, out);
}

fn check_backed_flags(m: &Module, r: &Residencies, out: &mut Vec<Violation>) {
    for b in m.buffer_ids() {
        let buffer = m.buffer(b);
        let message = match (buffer.backed, r.copied_in[b.index()]) {
            (true, false) => format!(
                "@b{} is declared backed, but no COPY_IN names it, so DDR holds no copy",
                buffer.name
            ),
            (false, true) => format!(
                "@b{} is named by a COPY_IN, so DDR holds a copy, but it is not declared backed",
                buffer.name
            ),
            _ => continue,
        };
        out.push(Violation::new(
            r.alloc[b.index()],
            Category::Backing,
            message,
        ));
    }
}

fn check_spill_model(m: &Module, sigma: &Sigma, r: &Residencies, out: &mut Vec<Violation>) {
    let t = &m.target;
    for &id in &sigma.order {
        let (buffer, pipe, cycles, expected_pipe, expected_cycles, what) = match m.op(id).kind {
            OpKind::SpillOut {
                buffer,
                pipe,
                cycles,
            } => {
                let size = m.buffer(buffer).size;
                let cost = if r.copied_in[buffer.index()] {
                    0
                } else {
                    t.spill_cost.cycles(size)
                };
                (buffer, pipe, cycles, t.spill_out_pipe, cost, "SPILL_OUT")
            }
            OpKind::SpillIn {
                buffer,
                pipe,
                cycles,
                ..
            } => {
                let cost = t.spill_cost.cycles(m.buffer(buffer).size);
                (buffer, pipe, cycles, t.spill_in_pipe, cost, "SPILL_IN")
            }
            _ => continue,
        };
        let name = m.op(id).name;
        let b = m.buffer(buffer).name;
        let pipe_name = |p: PipeId| t.pipe(p).to_owned();
        if pipe != expected_pipe {
            let message = format!(
                "%{name} ({what} of @b{b}) runs on {}, but the target runs it on {}",
                pipe_name(pipe),
                pipe_name(expected_pipe)
            );
            out.push(Violation::new(Some(id), Category::SpillCost, message));
        }
        if cycles != expected_cycles {
            let backing = if r.copied_in[buffer.index()] {
                "backed"
            } else {
                "unbacked"
            };
            let message = format!(
                "%{name} ({what} of {backing} @b{b}, {} bytes) takes {cycles} cycles, but the \
                 spill model says {expected_cycles}",
                m.buffer(buffer).size
            );
            out.push(Violation::new(Some(id), Category::SpillCost, message));
        }
    }
}

/// A resident byte range `[offset, end)` and the segment holding it.
type Ranges = BTreeMap<u64, (u64, usize)>;

fn check_addresses(m: &Module, sigma: &Sigma, r: &Residencies, out: &mut Vec<Violation>) {
    let mut resident: Vec<Ranges> = vec![BTreeMap::new(); m.target.tiers.len()];
    let mut in_map = vec![false; r.segments.len()];
    for &id in &sigma.order {
        if let Some(s) = r.closed_by[id.index()] {
            if in_map[s] {
                let seg = &r.segments[s];
                let tier = m.buffer(seg.buffer).tier.index();
                if let Some(offset) = seg.offset {
                    resident[tier].remove(&offset);
                }
            }
        }
        let Some(s) = r.opened_by[id.index()] else {
            continue;
        };
        let seg = &r.segments[s];
        let buffer = m.buffer(seg.buffer);
        let tier = m.target.tier(buffer.tier);
        let Some(lo) = seg.offset else {
            let message = format!(
                "%{} allocates @b{} without an offset in a planned module",
                m.op(id).name,
                buffer.name
            );
            out.push(Violation::new(Some(id), Category::MissingOffset, message));
            continue;
        };
        let hi = lo.saturating_add(buffer.size);
        if hi > tier.capacity {
            let message = format!(
                "%{} places @b{} at [{lo}, {hi}), past the end of {} (capacity {})",
                m.op(id).name,
                buffer.name,
                tier.name,
                tier.capacity
            );
            out.push(Violation::new(Some(id), Category::Capacity, message));
        }
        if hi == lo {
            continue;
        }
        let map = &mut resident[buffer.tier.index()];
        let clashes: Vec<(u64, u64, usize)> = map
            .range(..hi)
            .rev()
            .take_while(|(_, &(end, _))| end > lo)
            .map(|(&start, &(end, other))| (start, end, other))
            .collect();
        match clashes.last() {
            None => {
                map.insert(lo, (hi, s));
                in_map[s] = true;
            }
            Some(&(start, end, other)) => {
                let other_seg = &r.segments[other];
                let mut message = format!(
                    "%{} places @b{} at [{lo}, {hi}) in {}, overlapping @b{} at [{start}, {end}), \
                     resident since %{}",
                    m.op(id).name,
                    buffer.name,
                    tier.name,
                    m.buffer(other_seg.buffer).name,
                    m.op(other_seg.start).name
                );
                if clashes.len() > 1 {
                    message.push_str(&format!(" (and {} more)", clashes.len() - 1));
                }
                out.push(Violation::new(Some(id), Category::Overlap, message));
            }
        }
    }
}
