//! Early write-backs and reload prefetch (`dlr{prefetch=H}`): moves the spill events of a
//! finished scan earlier in σ, without changing any offset or evicting anything, so that MTE3
//! and MTE2 can run ahead of the compute pipes instead of waiting in σ just before a use.
//!
//! 1. **Write-backs.** Each SPILL_OUT moves up to just after the last earlier event that touches
//!    its buffer (a use, its ALLOC or its reload), never past another SPILL_OUT: the contest
//!    numbers spills in σ order of their SPILL_OUTs, so spill k stays the k-th SPILL_OUT.
//!    No use lies between the old and the new place, so the residency only ends earlier.
//! 2. **Reloads.** Each SPILL_IN then moves up to H events earlier while its bytes are free all
//!    the way: it stops at its own SPILL_OUT, at the end (FREE or SPILL_OUT) of any residency of
//!    its tier that shares a byte with it — before that end those bytes were taken — and, in a
//!    staging tier of an L0-exclusive target, at any residency start or end of that tier, so σ
//!    never holds two buffers of such a tier. A residency start between the new and old place
//!    that shares bytes would need its end in between too, so it is never crossed.
//!
//! Invariants: offsets, spills and spill order are unchanged, so are the traffic and the
//! logical peak; every residency still holds the uses it held; the address-reuse dependencies
//! are derived afterwards from the new σ, so the plan contract stays complete in the IR. The
//! physical peak can rise (reloads become resident sooner) and is recomputed.
//!
//! Complexity: O(V log V) for the two re-sorts plus O(S·H) for the reload walks (S spills).

use super::scan::Scan;
use lattice_lir::spill::PlanStep;
use lattice_lir::{BufferId, Module, OpKind};

/// Moves `scan`'s SPILL_OUTs and SPILL_INs earlier as described above (nothing when `horizon`
/// is 0) and recomputes its physical peak.
pub(crate) fn prefetch(m: &Module, scan: &mut Scan, horizon: u32) {
    if horizon == 0 || scan.spills.is_empty() {
        return;
    }
    scan.events = early_write_backs(m, scan);
    scan.events = early_reloads(m, scan, horizon as usize);
    scan.stats.physical_peak = physical_peak(m, scan);
}

/// The buffer a step touches, besides a compute op's operands.
fn step_buffers<'a>(m: &'a Module, scan: &'a Scan, step: PlanStep) -> &'a [BufferId] {
    match step {
        PlanStep::Op(id) => m.op(id).kind.buffers(),
        PlanStep::Out(k) | PlanStep::In(k) => std::slice::from_ref(&scan.spills[k].buffer),
    }
}

/// `events` reordered by sort keys `(slot, moved first, old index)`: a moved step goes just
/// before the step that held `slot`, after other steps moved there earlier in the old order.
fn reorder(events: &[PlanStep], keys: &mut [(usize, u8, usize)]) -> Vec<PlanStep> {
    keys.sort_unstable();
    keys.iter().map(|&(_, _, i)| events[i]).collect()
}

fn early_write_backs(m: &Module, scan: &Scan) -> Vec<PlanStep> {
    let mut last_touch: Vec<Option<usize>> = vec![None; m.buffers.len()];
    let mut last_out: Option<usize> = None;
    let mut keys = Vec::with_capacity(scan.events.len());
    for (i, &step) in scan.events.iter().enumerate() {
        let mut key = (i, 1, i);
        if let PlanStep::Out(k) = step {
            let b = scan.spills[k].buffer.index();
            let slot = last_touch[b].max(last_out).map_or(0, |j| j + 1);
            if slot < i {
                key = (slot, 0, i);
            }
            last_out = Some(i);
        }
        for &b in step_buffers(m, scan, step) {
            last_touch[b.index()] = Some(i);
        }
        keys.push(key);
    }
    reorder(&scan.events, &mut keys)
}

/// What a step does to its tier's bytes.
#[derive(Clone, Copy)]
struct Residency {
    tier: usize,
    lo: u64,
    hi: u64,
    /// An ALLOC or SPILL_IN (start) rather than a FREE or SPILL_OUT (end).
    start: bool,
}

fn early_reloads(m: &Module, scan: &Scan, horizon: usize) -> Vec<PlanStep> {
    let mut offset: Vec<u64> = scan.alloc_offsets.clone();
    let residency: Vec<Option<Residency>> = scan
        .events
        .iter()
        .map(|&step| {
            let (b, start) = residency_event(m, scan, step)?;
            // A buffer's one ALLOC comes before its reloads: `offset` starts at the ALLOC's.
            if let PlanStep::In(k) = step {
                offset[b.index()] = scan.spills[k].reload_offset;
            }
            let buf = m.buffer(b);
            let lo = offset[b.index()];
            Some(Residency {
                tier: buf.tier.index(),
                lo,
                hi: lo + buf.size,
                start,
            })
        })
        .collect();
    let exclusive = |tier: usize| m.target.l0_exclusive && m.target.tiers[tier].staging;
    let mut keys = Vec::with_capacity(scan.events.len());
    for (p, &step) in scan.events.iter().enumerate() {
        let mut key = (p, 1, p);
        if let (PlanStep::In(k), Some(me)) = (step, residency[p]) {
            let blocks = |j: usize| match (scan.events[j], residency[j]) {
                (PlanStep::Out(own), _) if own == k => true,
                (_, Some(r)) if r.tier == me.tier => {
                    exclusive(me.tier) || (!r.start && r.lo < me.hi && me.lo < r.hi)
                }
                _ => false,
            };
            let slot = (p.saturating_sub(horizon)..p)
                .rev()
                .take_while(|&j| !blocks(j))
                .last();
            if let Some(slot) = slot {
                key = (slot, 0, p);
            }
        }
        keys.push(key);
    }
    reorder(&scan.events, &mut keys)
}

/// The buffer whose residency `step` starts (ALLOC, SPILL_IN: `true`) or ends (FREE,
/// SPILL_OUT: `false`); `None` for a compute op.
fn residency_event(m: &Module, scan: &Scan, step: PlanStep) -> Option<(BufferId, bool)> {
    match step {
        PlanStep::Op(id) => match m.op(id).kind {
            OpKind::Alloc { buffer, .. } => Some((buffer, true)),
            OpKind::Free { buffer } => Some((buffer, false)),
            _ => None,
        },
        PlanStep::Out(k) => Some((scan.spills[k].buffer, false)),
        PlanStep::In(k) => Some((scan.spills[k].buffer, true)),
    }
}

/// Most bytes resident in all tiers at once along the events.
fn physical_peak(m: &Module, scan: &Scan) -> u64 {
    let (mut resident, mut peak) = (0u64, 0u64);
    for &step in &scan.events {
        let Some((b, start)) = residency_event(m, scan, step) else {
            continue;
        };
        let size = m.buffer(b).size;
        if start {
            resident += size;
            peak = peak.max(resident);
        } else {
            resident -= size;
        }
    }
    peak
}
