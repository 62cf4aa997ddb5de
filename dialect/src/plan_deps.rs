//! Derives the spill and address-reuse dependencies that a memory plan implies (DESIGN §1.3).
//!
//! A plan is σ plus the offsets on ALLOC/SPILL_IN plus the spill ops; the dependencies it implies
//! are a *definition*, not a planning decision, so the importer of contest solutions and the
//! planner both call this one function and agree by construction. It makes no choice of its own.
//!
//! Per buffer, σ splits the lifetime into residency segments: ALLOC..first SPILL_OUT, then each
//! SPILL_IN..next SPILL_OUT or FREE. Spill dependencies: the segment's start and every use inside
//! it → the SPILL_OUT that ends it; SPILL_OUT → its SPILL_IN; the SPILL_IN → every use of the
//! segment it starts and → the FREE when it starts the last one. (The remaining edges of §1.3, such
//! as ALLOC → a later SPILL_OUT, are implied by these transitively and add nothing to any schedule
//! or timing.) Reuse dependencies: walking σ per tier, a segment start that occupies bytes whose
//! last occupant was another segment gets an edge from that segment's end, when the end precedes
//! the start in σ; a later end means the two overlap, which is the verifier's to report.
//!
//! Staging (L0) tiers follow the same address rule as every other tier: L0 exclusivity
//! (`target.l0_exclusive`) is a rule on σ — at most one live buffer per staging tier along the
//! order, which the structural and independent verifiers check — not a timing rule, so two L0
//! buffers at disjoint addresses get no dependency and the load of the next tile may overlap the
//! use of the current one (DESIGN §1.3; the public contest evaluators derive the same edges).
//!
//! Existing spill and reuse dependencies are replaced; precedence dependencies are kept, in order,
//! ahead of the derived ones. Complexity: O((V + E + S·k) log S) for S segments, k the segments a
//! new start overlaps.

use crate::ids::{BufferId, OpId};
use crate::module::{Dep, DepKind, Module, OpKind};
use std::collections::BTreeMap;

/// Rewrites every spill and reuse dependency of `module` from its σ, offsets and spill ops.
/// Ids must be in range (see [`crate::verify_module`]); ALLOCs without an offset take part in the
/// spill dependencies but not in address reuse.
pub fn derive_plan_deps(module: &mut Module) {
    let implied = implied_plan_deps(module);
    for op in &mut module.ops {
        op.deps.retain(|d| d.kind == DepKind::Precedence);
    }
    for (from, to, kind) in implied {
        module.op_mut(to).deps.push(Dep { op: from, kind });
    }
}

/// The spill and reuse dependencies `module`'s σ, offsets and spill ops imply, as `(from, to,
/// kind)`: grouped by `to`, then by kind, sources in σ order, no duplicates. The module's own
/// dependencies are not read, so a caller can compare them with these without a copy.
pub fn implied_plan_deps(module: &Module) -> Vec<(OpId, OpId, DepKind)> {
    let pos = module.schedule_positions();
    let mut new_deps: Vec<(OpId, OpId, DepKind)> = Vec::new();
    let segments = segments(module);
    for seg in &segments {
        for &user in &seg.users {
            if let Some(end) = seg.end.filter(|&e| spill_op(module, e)) {
                new_deps.push((user, end, DepKind::Spill));
            }
            if spill_op(module, seg.start) {
                new_deps.push((seg.start, user, DepKind::Spill));
            }
        }
        if let Some(end) = seg.end {
            if spill_op(module, seg.start) || spill_op(module, end) {
                new_deps.push((seg.start, end, DepKind::Spill));
            }
        }
        if let Some(reload) = seg.reload {
            new_deps.push((seg.start_of_gap, reload, DepKind::Spill));
        }
    }
    reuse_deps(module, &segments, &pos, &mut new_deps);

    // Deterministic: group by user, sources in σ order, no duplicates.
    new_deps.sort_by_key(|&(from, to, kind)| (to, kind, pos[from.index()]));
    new_deps.dedup();
    new_deps
}

fn spill_op(module: &Module, op: OpId) -> bool {
    module.op(op).kind.is_spill()
}

/// One residency segment of a buffer.
struct Segment {
    buffer: BufferId,
    /// ALLOC or SPILL_IN.
    start: OpId,
    /// SPILL_OUT or FREE, if σ has one.
    end: Option<OpId>,
    /// Byte offset of the residency, if bound.
    offset: Option<u64>,
    /// Compute ops naming the buffer inside the segment, in σ order.
    users: Vec<OpId>,
    /// For a segment started by SPILL_IN: the SPILL_OUT that ended the previous one.
    start_of_gap: OpId,
    /// For a segment started by SPILL_IN: that SPILL_IN (the OUT → IN edge).
    reload: Option<OpId>,
}

/// All residency segments, in the σ order of their starts.
fn segments(module: &Module) -> Vec<Segment> {
    let mut open: Vec<Option<usize>> = vec![None; module.buffers.len()];
    let mut last_out: Vec<Option<OpId>> = vec![None; module.buffers.len()];
    let mut segs: Vec<Segment> = Vec::new();
    for &id in &module.schedule {
        let op = module.op(id);
        match op.kind {
            OpKind::Alloc { buffer, offset } => {
                open[buffer.index()] = Some(segs.len());
                segs.push(Segment {
                    buffer,
                    start: id,
                    end: None,
                    offset,
                    users: Vec::new(),
                    start_of_gap: id,
                    reload: None,
                });
            }
            OpKind::SpillIn { buffer, offset, .. } => {
                let gap = last_out[buffer.index()];
                open[buffer.index()] = Some(segs.len());
                segs.push(Segment {
                    buffer,
                    start: id,
                    end: None,
                    offset: Some(offset),
                    users: Vec::new(),
                    start_of_gap: gap.unwrap_or(id),
                    reload: gap.map(|_| id),
                });
            }
            OpKind::SpillOut { buffer, .. } => {
                if let Some(s) = open[buffer.index()].take() {
                    segs[s].end = Some(id);
                }
                last_out[buffer.index()] = Some(id);
            }
            OpKind::Free { buffer } => {
                if let Some(s) = open[buffer.index()].take() {
                    segs[s].end = Some(id);
                }
            }
            OpKind::Compute { ref operands, .. } => {
                for b in operands {
                    if let Some(s) = open[b.index()] {
                        if segs[s].users.last() != Some(&id) {
                            segs[s].users.push(id);
                        }
                    }
                }
            }
        }
    }
    segs
}

/// Address-reuse edges: per tier, the last occupant of every byte, kept as disjoint intervals
/// `start -> (end, segment)`.
fn reuse_deps(
    module: &Module,
    segments: &[Segment],
    pos: &[usize],
    out: &mut Vec<(OpId, OpId, DepKind)>,
) {
    let mut occupants: Vec<BTreeMap<u64, (u64, usize)>> =
        vec![BTreeMap::new(); module.target.tiers.len()];
    for (i, seg) in segments.iter().enumerate() {
        let Some(lo) = seg.offset else { continue };
        let buffer = module.buffer(seg.buffer);
        let hi = lo.saturating_add(buffer.size);
        if hi == lo {
            continue;
        }
        let map = &mut occupants[buffer.tier.index()];
        let mut previous = Vec::new();
        let first = map.range(..lo).next_back().map(|(&s, _)| s).unwrap_or(lo);
        let overlapping: Vec<u64> = map.range(first..hi).map(|(&s, _)| s).collect();
        for s in overlapping {
            let (e, occupant) = map[&s];
            if e <= lo {
                continue;
            }
            map.remove(&s);
            if s < lo {
                map.insert(s, (lo, occupant));
            }
            if e > hi {
                map.insert(hi, (e, occupant));
            }
            previous.push(occupant);
        }
        map.insert(lo, (hi, i));
        previous.sort_unstable();
        previous.dedup();
        for p in previous {
            if let Some(end) = segments[p].end {
                if pos[end.index()] < pos[seg.start.index()] {
                    out.push((end, seg.start, DepKind::Reuse));
                }
            }
        }
    }
}
