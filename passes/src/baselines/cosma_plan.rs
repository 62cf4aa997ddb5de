//! COSMA's fixed-schedule allocation and replacement (baselines.md §5.2 step 3 [ADAPT]: a
//! deterministic greedy standing in for the paper's fixed-schedule ILP, Eq. 8–12 [SRC via the
//! secondary source named there]). Walks a scheduled σ once and binds every residency to an
//! address, inserting SPILL_OUT/SPILL_IN pairs where a tier is full; the result is a `planned`
//! module with the same memory-plan contract DLR writes, through the same
//! [`lattice_lir::spill::materialize`].
//!
//! Per op v the required set is its operands (Eq. 5). A buffer is created at its ALLOC (A0 puts
//! it just before its first user, whose operands are pinned with it) and retrieved just before
//! the command that needs it (COSMA works at step granularity). Placement:
//! - **best fit**: the smallest free hole that holds the block, lowest address on a tie; a
//!   resident block never moves (Eq. 11), a retrieve may land anywhere;
//! - otherwise the **minimum-cost eviction window**: over the tier's residents in address order,
//!   every start x ∈ {0} ∪ {end of a resident} with `[x, x + size)` inside the capacity whose
//!   overlapped residents are all evictable (not an operand of the current op, and used again:
//!   dead buffers were freed already), minimising `Σ (wb(c) + size(c))` — the writeback (`size`
//!   unless the buffer is backed: DESIGN §1.3 charges no writeback for a buffer with a DDR copy) plus
//!   the retrieve every victim will need; ties to the larger smallest next-use distance (Belady),
//!   then the lower x. A two-pointer sweep with a monotone deque for the minimum: O(R) per miss.
//!
//! Unlike "evict until a hole fits", the window never fails for fragmentation among evictable
//! residents. When the op's own resident operands split the tier so that every window overlaps
//! one [ADAPT], they are evicted and retrieved side by side with the new block in one window of
//! their joint size (a retrieve may choose a new address, Eq. 11), as DLR compacts. Every tier
//! is its own scratchpad; staging tiers get no special case (under `l0_exclusive` the order
//! already keeps one buffer per L0 tier, so they never evict). Invariants: residents of a tier are
//! disjoint and inside the capacity; every use lies in a residency; each SPILL_OUT's buffer is
//! retrieved before its next use. Deterministic. O(V log V + misses · R).

use lattice_lir::spill::{self, PlanStep};
use lattice_lir::{BufferId, Module, OpId, OpKind, Phase};
use std::collections::{BTreeMap, VecDeque};

/// Why COSMA's placement failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceErrorKind {
    /// Placement needs a `scheduled` module.
    #[error("cosma places `scheduled` modules, but this one is `{phase}`")]
    Phase {
        /// Its phase.
        phase: Phase,
    },
    /// No eviction window holds the buffer.
    #[error("@b{buffer} needs {size} contiguous bytes of {tier} (capacity {capacity}), but every window of that size overlaps an operand of the op or a buffer with no further use")]
    NoRoom {
        /// The buffer.
        buffer: u32,
        /// Its size.
        size: u64,
        /// Its tier.
        tier: String,
        /// The tier's capacity.
        capacity: u64,
    },
    /// The plan cannot be written: too many spills to name, or traffic past 2⁶⁴−1 bytes.
    #[error("{0}")]
    Materialize(spill::MaterializeError),
}

/// A placement failure, at the op being served when there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct PlaceError {
    /// The op.
    pub op: Option<OpId>,
    /// What failed.
    pub kind: PlaceErrorKind,
}

/// Counters of one placement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlaceStats {
    /// SPILL_OUT events.
    pub spills: u64,
    /// SPILL_OUTs of backed buffers (no writeback).
    pub drops: u64,
    /// SPILL_IN events (retrieves).
    pub reloads: u64,
    /// Extra DDR traffic in bytes (DESIGN §1.3).
    pub traffic: u64,
    /// Placements that needed an eviction window.
    pub windows: u64,
    /// Of those, the ones the tier's free bytes could have held (fragmentation).
    pub fragmented: u64,
    /// Placements that moved the op's own operands to make room (compaction).
    pub compactions: u64,
    /// Most bytes resident in all tiers at once.
    pub physical_peak: u64,
}

impl PlaceStats {
    /// Counts the SPILL_OUT of `buffer`: a drop when it is backed (its reload is the traffic),
    /// else a writeback and a reload (DESIGN §1.3).
    pub(super) fn count_spill(&mut self, buffer: &lattice_lir::Buffer) {
        self.spills += 1;
        self.drops += u64::from(buffer.backed);
        // A sum past 2^64-1 stays at the top here; `materialize` refuses such a plan.
        self.traffic = self
            .traffic
            .saturating_add(buffer.spill_traffic().unwrap_or(u64::MAX));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unborn,
    Resident(u64),
    Spilled(usize),
    Freed,
}

/// The residents of every tier in address order, and the placement rules over them: best fit
/// and the minimum-cost eviction window. Shared by the placement below and by COSMA's
/// traffic-greedy order, which keeps one incrementally while it orders.
pub(super) struct Space<'m> {
    m: &'m Module,
    align: u64,
    /// Per tier: offset → buffer.
    residents: Vec<BTreeMap<u64, BufferId>>,
    used: Vec<u64>,
}

/// An eviction window: its start, the residents it overlaps (offset, buffer) and its cost.
pub(super) struct Window {
    pub(super) start: u64,
    pub(super) victims: Vec<(u64, BufferId)>,
    pub(super) cost: u64,
}

impl<'m> Space<'m> {
    /// Empty tiers of `m`'s target, offsets aligned to `align` (at least 1) bytes.
    pub(super) fn new(m: &'m Module, align: u64) -> Self {
        Space {
            m,
            align: align.max(1),
            residents: vec![BTreeMap::new(); m.target.tiers.len()],
            used: vec![0; m.target.tiers.len()],
        }
    }

    fn size(&self, b: BufferId) -> u64 {
        self.m.buffer(b).size
    }

    pub(super) fn aligned(&self, x: u64) -> u64 {
        // The common unaligned case skips a division per hole.
        if self.align == 1 {
            return x;
        }
        x.div_ceil(self.align).saturating_mul(self.align)
    }

    /// The residents of tier `tier`, offset → buffer.
    pub(super) fn tier(&self, tier: usize) -> &BTreeMap<u64, BufferId> {
        &self.residents[tier]
    }

    /// Records `b` at `offset`.
    pub(super) fn insert(&mut self, b: BufferId, offset: u64) {
        let (tier, size) = (self.m.buffer(b).tier.index(), self.size(b));
        if size > 0 {
            self.residents[tier].insert(offset, b);
        }
        self.used[tier] += size;
    }

    /// Forgets `b` at `offset`.
    pub(super) fn remove(&mut self, b: BufferId, offset: u64) {
        let (tier, size) = (self.m.buffer(b).tier.index(), self.size(b));
        if size > 0 {
            self.residents[tier].remove(&offset);
        }
        self.used[tier] -= size;
    }

    /// Bytes of DDR traffic evicting `c` costs: its writeback (none when backed, DESIGN §1.3)
    /// plus the retrieve it will need.
    pub(super) fn eviction_cost(&self, c: BufferId) -> u64 {
        // A ranking key: a spill too large to count is the costliest.
        self.m.buffer(c).spill_traffic().unwrap_or(u64::MAX)
    }

    /// The smallest (aligned) hole of `residents` (a tier of `capacity` bytes) holding `size`
    /// bytes, lowest address on a tie.
    pub(super) fn best_fit(
        &self,
        residents: &BTreeMap<u64, BufferId>,
        size: u64,
        capacity: u64,
    ) -> Option<u64> {
        let mut best: Option<(u64, u64)> = None;
        let mut cursor = 0u64;
        let ends = residents
            .iter()
            .map(|(&o, &r)| (o, o + self.size(r)))
            .chain(std::iter::once((capacity, capacity)));
        for (start, end) in ends {
            let x = self.aligned(cursor);
            if x <= start && start - x >= size {
                let len = start - x;
                if best.is_none_or(|(l, _)| len < l) {
                    best = Some((len, x));
                }
            }
            cursor = cursor.max(end);
        }
        best.map(|(_, x)| x)
    }

    /// The minimum-cost eviction window of `size` bytes over `residents` (a tier of `capacity`
    /// bytes) at σ position `now`: only `evictable` residents may be overlapped; ties go to the
    /// larger smallest distance to a next use (`None`: unknown, as far as can be), then the
    /// lower start. O(R) with two pointers and a monotone deque.
    pub(super) fn window(
        &self,
        residents: &BTreeMap<u64, BufferId>,
        size: u64,
        capacity: u64,
        now: usize,
        evictable: impl Fn(BufferId) -> bool,
        next_use: impl Fn(BufferId) -> Option<usize>,
    ) -> Option<Window> {
        let blocks: Vec<(u64, u64, BufferId)> = residents
            .iter()
            .map(|(&o, &r)| (o, o + self.size(r), r))
            .collect();
        let starts = std::iter::once(0).chain(blocks.iter().map(|&(_, e, _)| e));
        // Sliding window [lo, hi) of overlapped blocks; deque of indices by next use for the min.
        let (mut lo, mut hi) = (0usize, 0usize);
        let (mut sum, mut blocked) = (0u64, 0usize);
        let mut deque: VecDeque<usize> = VecDeque::new();
        // (cost, farthest nearest use first, lowest start), and the start.
        type Key = (u64, std::cmp::Reverse<usize>, u64);
        let mut best: Option<(Key, u64)> = None;
        for raw in starts {
            let x = self.aligned(raw);
            let Some(end) = x.checked_add(size).filter(|&e| e <= capacity) else {
                continue;
            };
            while hi < blocks.len() && blocks[hi].0 < end {
                let c = blocks[hi].2;
                if evictable(c) {
                    sum += self.eviction_cost(c);
                } else {
                    blocked += 1;
                }
                let distance = next_use(c).unwrap_or(usize::MAX);
                while deque
                    .back()
                    .is_some_and(|&i| next_use(blocks[i].2).unwrap_or(usize::MAX) >= distance)
                {
                    deque.pop_back();
                }
                deque.push_back(hi);
                hi += 1;
            }
            while lo < hi && blocks[lo].1 <= x {
                let c = blocks[lo].2;
                if evictable(c) {
                    sum -= self.eviction_cost(c);
                } else {
                    blocked -= 1;
                }
                if deque.front() == Some(&lo) {
                    deque.pop_front();
                }
                lo += 1;
            }
            if blocked > 0 {
                continue;
            }
            let nearest = deque
                .front()
                .and_then(|&i| next_use(blocks[i].2))
                .map_or(usize::MAX, |u| u.saturating_sub(now));
            let key = (sum, std::cmp::Reverse(nearest), x);
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, x));
            }
        }
        let ((cost, _, _), x) = best?;
        let victims = blocks
            .iter()
            .filter(|&&(s, e, _)| s < x + size && e > x)
            .map(|&(s, _, c)| (s, c))
            .collect();
        Some(Window {
            start: x,
            victims,
            cost,
        })
    }
}

struct Placer<'m> {
    m: &'m Module,
    space: Space<'m>,
    state: Vec<State>,
    /// Per buffer: σ positions of the commands naming it, and the index of the next one.
    uses: Vec<Vec<usize>>,
    next: Vec<usize>,
    /// Operands of the op being served are pinned: stamp = its position.
    pin: Vec<usize>,
    spills: Vec<(BufferId, u64)>,
    events: Vec<PlanStep>,
    alloc_offsets: Vec<Option<u64>>,
    resident_bytes: u64,
    stats: PlaceStats,
}

/// Places a `scheduled` module with offsets aligned to `align` bytes.
pub fn place(module: &Module, align: u64) -> Result<(Module, PlaceStats), PlaceError> {
    if module.phase != Phase::Scheduled {
        return Err(PlaceError {
            op: None,
            kind: PlaceErrorKind::Phase {
                phase: module.phase,
            },
        });
    }
    let m = module;
    let nb = m.buffers.len();
    let mut uses = vec![Vec::new(); nb];
    let mut next_user: Vec<Option<OpId>> = vec![None; m.ops.len()];
    for (q, &id) in m.schedule.iter().enumerate() {
        if let OpKind::Compute { operands, .. } = &m.op(id).kind {
            for b in operands {
                if uses[b.index()].last() != Some(&q) {
                    uses[b.index()].push(q);
                }
            }
        }
    }
    // The anchor of an ALLOC: the first command after it naming its buffer.
    for (position, &id) in m.schedule.iter().enumerate() {
        if let OpKind::Alloc { buffer, .. } = m.op(id).kind {
            let first = uses[buffer.index()].iter().find(|&&q| q > position);
            next_user[id.index()] = first.map(|&q| m.schedule[q]);
        }
    }
    let mut p = Placer {
        m,
        space: Space::new(m, align),
        state: vec![State::Unborn; nb],
        uses,
        next: vec![0; nb],
        pin: vec![usize::MAX; nb],
        spills: Vec::new(),
        events: Vec::with_capacity(m.schedule.len()),
        alloc_offsets: vec![None; nb],
        resident_bytes: 0,
        stats: PlaceStats::default(),
    };
    for (q, &id) in m.schedule.iter().enumerate() {
        match &m.op(id).kind {
            OpKind::Alloc { buffer, .. } => {
                let anchor = next_user[id.index()];
                if let Some(a) = anchor {
                    for &b in operands(m, a) {
                        p.pin[b.index()] = q;
                    }
                }
                p.pin[buffer.index()] = q;
                let offset = p.place(*buffer, q, anchor.unwrap_or(id))?;
                p.alloc_offsets[buffer.index()] = Some(offset);
                p.events.push(PlanStep::Op(id));
            }
            OpKind::Compute { operands, .. } => {
                for &b in operands {
                    p.pin[b.index()] = q;
                }
                for &b in operands {
                    if let State::Spilled(k) = p.state[b.index()] {
                        p.retrieve(b, k, q, id)?;
                    }
                }
                for &b in operands {
                    let uses = &p.uses[b.index()];
                    let next = &mut p.next[b.index()];
                    while uses.get(*next).is_some_and(|&u| u <= q) {
                        *next += 1;
                    }
                }
                p.events.push(PlanStep::Op(id));
            }
            OpKind::Free { buffer } => {
                // Victims always have a later use, so a buffer is resident at its FREE; a
                // dependency delaying a FREE past a spill would still need the contest's pairing.
                if let State::Spilled(k) = p.state[buffer.index()] {
                    p.pin[buffer.index()] = q;
                    p.retrieve(*buffer, k, q, id)?;
                }
                if let State::Resident(offset) = p.state[buffer.index()] {
                    p.release(*buffer, offset);
                }
                p.state[buffer.index()] = State::Freed;
                p.events.push(PlanStep::Op(id));
            }
            OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => {}
        }
    }
    p.finish()
}

fn operands(m: &Module, op: OpId) -> &[BufferId] {
    match &m.op(op).kind {
        OpKind::Compute { operands, .. } => operands,
        _ => &[],
    }
}

impl Placer<'_> {
    fn occupy(&mut self, b: BufferId, offset: u64) {
        self.space.insert(b, offset);
        self.state[b.index()] = State::Resident(offset);
        self.resident_bytes += self.m.buffer(b).size;
        self.stats.physical_peak = self.stats.physical_peak.max(self.resident_bytes);
    }

    fn release(&mut self, b: BufferId, offset: u64) {
        self.space.remove(b, offset);
        self.resident_bytes -= self.m.buffer(b).size;
    }

    fn retrieve(&mut self, b: BufferId, k: usize, q: usize, at: OpId) -> Result<(), PlaceError> {
        let offset = self.place(b, q, at)?;
        self.reloaded(k, offset);
        Ok(())
    }

    /// Records the SPILL_IN of spill `k`, whose buffer now occupies `offset`.
    fn reloaded(&mut self, k: usize, offset: u64) {
        self.spills[k].1 = offset;
        self.stats.reloads += 1;
        self.events.push(PlanStep::In(k));
    }

    /// Finds room for `b` at σ position `q`, evicting a window if needed; returns the offset.
    fn place(&mut self, b: BufferId, q: usize, at: OpId) -> Result<u64, PlaceError> {
        let buf = self.m.buffer(b);
        let (tier, size) = (buf.tier.index(), buf.size);
        let capacity = self.m.target.tiers[tier].capacity;
        if size == 0 {
            self.occupy(b, 0);
            return Ok(0);
        }
        let residents = self.space.tier(tier);
        if let Some(offset) = self.space.best_fit(residents, size, capacity) {
            self.occupy(b, offset);
            return Ok(offset);
        }
        self.stats.windows += 1;
        if capacity - self.space.used[tier] >= size {
            self.stats.fragmented += 1;
        }
        let next_use = |c: BufferId| self.uses[c.index()].get(self.next[c.index()]).copied();
        let evictable = |c: BufferId| self.pin[c.index()] != q && next_use(c).is_some();
        if let Some(window) = self
            .space
            .window(residents, size, capacity, q, evictable, next_use)
        {
            for (offset, v) in window.victims {
                self.release(v, offset);
                self.spill(v);
            }
            self.occupy(b, window.start);
            return Ok(window.start);
        }
        self.compact(b, q, at)
    }

    /// Compaction, when the op's own resident operands split the tier so that no window avoids
    /// them: they are evicted and retrieved side by side with `b` in one window of their joint
    /// size, since COSMA lets a retrieve choose a new address (Eq. 11). Fails only when even
    /// that window is blocked (the op's operands with the residents that have no further use
    /// exceed the tier).
    fn compact(&mut self, b: BufferId, q: usize, at: OpId) -> Result<u64, PlaceError> {
        let buf = self.m.buffer(b);
        let (tier, size) = (buf.tier.index(), buf.size);
        let capacity = self.m.target.tiers[tier].capacity;
        let residents = self.space.tier(tier);
        let group: Vec<(u64, BufferId)> = residents
            .iter()
            .filter(|(_, &c)| self.pin[c.index()] == q)
            .map(|(&o, &c)| (o, c))
            .collect();
        let total = group.iter().fold(size, |end, &(_, c)| {
            self.space.aligned(end) + self.m.buffer(c).size
        });
        let next_use = |c: BufferId| self.uses[c.index()].get(self.next[c.index()]).copied();
        let movable = |c: BufferId| self.pin[c.index()] == q || next_use(c).is_some();
        let Some(window) = self
            .space
            .window(residents, total, capacity, q, movable, next_use)
        else {
            let t = &self.m.target.tiers[tier];
            return Err(PlaceError {
                op: Some(at),
                kind: PlaceErrorKind::NoRoom {
                    buffer: buf.name,
                    size,
                    tier: t.name.clone(),
                    capacity: t.capacity,
                },
            });
        };
        self.stats.compactions += 1;
        for (offset, v) in window.victims {
            if self.pin[v.index()] != q {
                self.release(v, offset);
                self.spill(v);
            }
        }
        let mut moved = Vec::with_capacity(group.len());
        for &(offset, c) in &group {
            self.release(c, offset);
            moved.push((self.spills.len(), c));
            self.spill(c);
        }
        self.occupy(b, window.start);
        let mut cursor = window.start + size;
        for (k, c) in moved {
            let offset = self.space.aligned(cursor);
            self.occupy(c, offset);
            self.reloaded(k, offset);
            cursor = offset + self.m.buffer(c).size;
        }
        Ok(window.start)
    }

    /// Records the SPILL_OUT of an already released victim.
    fn spill(&mut self, v: BufferId) {
        let buf = self.m.buffer(v);
        let k = self.spills.len();
        self.spills.push((v, 0));
        self.state[v.index()] = State::Spilled(k);
        self.events.push(PlanStep::Out(k));
        self.stats.count_spill(buf);
    }

    /// The planned module: offsets, spill ops named N+2k / N+2k+1, σ, derived dependencies.
    fn finish(self) -> Result<(Module, PlaceStats), PlaceError> {
        let offsets: Vec<u64> = self.alloc_offsets.iter().map(|o| o.unwrap_or(0)).collect();
        let out =
            spill::materialize(self.m, &offsets, &self.spills, &self.events).map_err(|e| {
                PlaceError {
                    op: None,
                    kind: PlaceErrorKind::Materialize(e),
                }
            })?;
        Ok((out, self.stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baselines::fixtures::four_buffers;
    use crate::verify::{replay, ReplayOptions};
    use lattice_lir::parse_module;

    const TARGET: &str = "target { tiers L1 = 100 pipes MTE2, MTE3, P spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size l0_exclusive = false }";

    fn spilled(m: &Module) -> Vec<(u32, bool)> {
        m.schedule
            .iter()
            .filter_map(|&id| match m.op(id).kind {
                OpKind::SpillOut { buffer, .. } => Some((m.buffer(buffer).name, true)),
                OpKind::SpillIn { buffer, .. } => Some((m.buffer(buffer).name, false)),
                _ => None,
            })
            .collect()
    }

    fn alloc_offset(m: &Module, buffer: u32) -> Option<u64> {
        m.ops.iter().find_map(|op| match op.kind {
            OpKind::Alloc { buffer: b, offset } if m.buffer(b).name == buffer => offset,
            _ => None,
        })
    }

    #[test]
    fn the_cheapest_window_evicts_two_backed_buffers_rather_than_one_dirty_one() {
        // A and B (backed, 30 B) at 0 and 30, C (40 B, no DDR copy) at 60. D (40 B) fits no
        // hole: the window [0, 40) costs 30 + 30 (reloads only), [60, 100) costs 2 * 40.
        // Retrieving A then finds D and C equally costly; D's next use is farther (Belady).
        let module = four_buffers("scheduled");
        let (planned, stats) = place(&module, 1).unwrap();
        let r = replay(&planned, &ReplayOptions::default());
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(alloc_offset(&planned, 3), Some(0));
        assert_eq!(
            spilled(&planned),
            vec![
                (0, true),
                (1, true),
                (3, true),
                (0, false),
                (1, false),
                (3, false)
            ]
        );
        assert_eq!((stats.spills, stats.drops, stats.reloads), (3, 2, 3));
        assert_eq!(stats.traffic, 30 + 30 + 2 * 40);
        assert_eq!(r.metrics.extra_traffic, stats.traffic);
        assert_eq!(stats.windows, 2);
    }

    #[test]
    fn a_window_over_an_operand_is_never_taken_and_no_window_is_an_error_at_the_op() {
        let text = format!(
            "module @n phase(scheduled) {{
               {TARGET}
               buffer @b0 : L1[60]
               buffer @b1 : L1[60]
               %0 = alloc @b0
               %1 = alloc @b1
               %2 = OP P 10 (@b0, @b1) after(%0, %1)
               %3 = free @b0 after(%2)
               %4 = free @b1 after(%2)
             }}"
        );
        let module = parse_module(&text).unwrap();
        let err = place(&module, 1).unwrap_err();
        assert_eq!(err.op.map(|op| module.op(op).name), Some(2));
        assert!(matches!(
            err.kind,
            PlaceErrorKind::NoRoom {
                buffer: 1,
                size: 60,
                ..
            }
        ));
        let mut planned = module.clone();
        planned.phase = Phase::Planned;
        assert!(matches!(
            place(&planned, 1).unwrap_err().kind,
            PlaceErrorKind::Phase { .. }
        ));
    }

    #[test]
    fn offsets_respect_the_alignment() {
        let text = format!(
            "module @a phase(scheduled) {{
               {TARGET}
               buffer @b0 : L1[10]
               buffer @b1 : L1[10]
               %0 = alloc @b0
               %1 = alloc @b1
               %2 = OP P 10 (@b0, @b1) after(%0, %1)
               %3 = free @b0 after(%2)
               %4 = free @b1 after(%2)
             }}"
        );
        let module = parse_module(&text).unwrap();
        let (planned, _) = place(&module, 32).unwrap();
        assert_eq!(alloc_offset(&planned, 0), Some(0));
        assert_eq!(alloc_offset(&planned, 1), Some(32));
        assert!(replay(&planned, &ReplayOptions::default())
            .violations
            .is_empty());
    }
}
