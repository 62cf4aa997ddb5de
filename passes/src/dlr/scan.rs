//! The DLR scan (paper Alg. 2): walks the tightened σ once, binding every residency to an offset
//! and emitting SPILL_OUT/SPILL_IN events where a tier runs out of room.
//!
//! Per tier it keeps a [`FreeList`] and the set of residents. At each op the buffers it needs are
//! pinned (a compute op's operands; for an ALLOC moved next to its anchor, the anchor's operands
//! too), then each needed buffer that is not resident is placed by best fit — an ALLOC creates
//! it, a SPILL_IN reloads it, possibly at a new offset. A FREE of a spilled buffer reloads it
//! first, since a contest spill must be paired with a reload (this only happens when a dependency
//! keeps the FREE after the last use).
//!
//! Eviction when no hole fits, in one of two modes ([`Evict`]):
//! - **window** (the default): the block goes to the cheapest address range of its size that
//!   overlaps no pinned resident, and exactly the residents it overlaps are spilled
//!   ([`super::window`], costs from [`super::victim::cost`]).
//! - **rank** (the paper's loop, which `l0=single` keeps by default): release the best-ranked
//!   unpinned resident of the tier (see [`super::victim`]) until a hole fits — each release
//!   merges holes — then place the block by best fit and put back every released victim that
//!   does not overlap it: only victims under the new block are actually spilled.
//!
//! In both, if no range is free of pinned residents (every unpinned one is gone, in rank mode)
//! and the pinned operands of the command split the room, they are spilled too (compaction): the
//! tier is then empty, the block goes to offset 0, and the command reloads its operands into the
//! one hole left, side by side — so the request fails only when the command's operands in the
//! tier exceed its capacity. With `l0_exclusive`, a staging tier first flushes all its unpinned
//! residents (eager flushing), so its residencies never overlap in σ; with `l0=double` the block
//! then goes to the best fit that shares no byte with the buffer the tier released last, when
//! one exists, so consecutive buffers alternate halves and need no reuse dependency.
//! Invariants at every step: residents of a tier are pairwise disjoint in address and lie in
//! their tier; the free list is the complement of the residents.
//!
//! Complexity: O(V log V) for placement, plus per request that evicts, with R residents in the
//! tier and k victims: O(R + k log R) in window mode, O(k·R) in rank mode (each victim a scan of
//! the residents). `stats.work` counts ops scanned plus residents and holes visited while
//! evicting: the deterministic measure of this cost that a search's budget adds up.

use super::free_list::FreeList;
use super::lifetimes::{operands, Lifetimes};
use super::victim::{compare, cost, Candidate, Rule};
use super::window::{cheapest, Segment};
use super::{DlrError, DlrErrorKind, DlrStats, Evict, L0Mode};
use lattice_lir::spill::PlanStep;
use lattice_lir::{BufferId, Module, OpId, OpKind};
use std::collections::{BTreeMap, BTreeSet};

/// One spill: the buffer and where its reload put it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spill {
    pub(crate) buffer: BufferId,
    pub(crate) reload_offset: u64,
}

/// What the scan decided.
#[derive(Clone, Debug)]
pub(crate) struct Scan {
    /// The planned σ.
    pub(crate) events: Vec<PlanStep>,
    /// Spills in spill order.
    pub(crate) spills: Vec<Spill>,
    /// ALLOC offset per buffer.
    pub(crate) alloc_offsets: Vec<u64>,
    /// Counters (the dependency counts are filled in later).
    pub(crate) stats: DlrStats,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unborn,
    Resident(u64),
    Spilled(usize),
    Freed,
}

struct Tier {
    free: FreeList,
    residents: BTreeSet<BufferId>,
    /// The residents by offset (window mode reads the tier in address order).
    by_offset: BTreeMap<u64, BufferId>,
    /// The byte range of the buffer released last (`l0=double` places the next one beside it).
    last_released: Option<(u64, u64)>,
}

struct Scanner<'a> {
    m: &'a Module,
    life: &'a Lifetimes,
    /// The victim ranking of the non-staging tiers (staging tiers always flush eagerly).
    rule: Rule,
    l0: L0Mode,
    evict: Evict,
    tiers: Vec<Tier>,
    state: Vec<State>,
    /// Per buffer: the stamp of the op group that pins it.
    pin: Vec<usize>,
    /// Per buffer: index into `life.uses` of its next unprocessed use.
    next: Vec<usize>,
    last_access: Vec<usize>,
    resident_bytes: u64,
    out: Scan,
}

/// Runs the scan over `life.order` with `rule` ranking the victims of non-staging tiers (one
/// key: `victim=auto` is resolved by the caller, which scans twice), one staging placement and
/// one eviction mode (`window` or `rank`: `auto` is resolved by the caller too).
pub(crate) fn scan(
    m: &Module,
    life: &Lifetimes,
    rule: Rule,
    l0: L0Mode,
    evict: Evict,
) -> Result<Scan, DlrError> {
    let nb = m.buffers.len();
    let mut s = Scanner {
        m,
        life,
        rule,
        l0,
        evict,
        tiers: m
            .target
            .tiers
            .iter()
            .map(|t| Tier {
                free: FreeList::new(t.capacity),
                residents: BTreeSet::new(),
                by_offset: BTreeMap::new(),
                last_released: None,
            })
            .collect(),
        state: vec![State::Unborn; nb],
        pin: vec![usize::MAX; nb],
        next: vec![0; nb],
        last_access: vec![0; nb],
        resident_bytes: 0,
        out: Scan {
            events: Vec::with_capacity(life.order.len()),
            spills: Vec::new(),
            alloc_offsets: vec![0; nb],
            stats: DlrStats::default(),
        },
    };
    let mut new_pos = vec![0; m.ops.len()];
    for (q, &id) in life.order.iter().enumerate() {
        new_pos[id.index()] = q;
    }
    s.out.stats.work = life.order.len() as u64;
    for (q, &id) in life.order.iter().enumerate() {
        match m.op(id).kind {
            OpKind::Alloc { buffer, .. } => {
                let group = life.anchor[id.index()].unwrap_or(id);
                let stamp = new_pos[group.index()];
                for &b in operands(m, group) {
                    s.pin[b.index()] = stamp;
                }
                s.pin[buffer.index()] = stamp;
                // A failure is reported at the command that needs the buffer.
                let offset = s.place(buffer, q, stamp, group)?;
                s.out.alloc_offsets[buffer.index()] = offset;
                s.last_access[buffer.index()] = q;
                s.out.events.push(PlanStep::Op(id));
            }
            OpKind::Free { buffer } => {
                if let State::Spilled(k) = s.state[buffer.index()] {
                    s.pin[buffer.index()] = q;
                    s.reload(buffer, k, q, q, id)?;
                }
                if let State::Resident(offset) = s.state[buffer.index()] {
                    s.release(buffer, offset);
                }
                s.state[buffer.index()] = State::Freed;
                s.out.events.push(PlanStep::Op(id));
            }
            OpKind::Compute { ref operands, .. } => {
                for &b in operands {
                    s.pin[b.index()] = q;
                }
                // A reload may compact its tier and spill an operand reloaded just before; after
                // a compaction the reloads pack into the one hole left and fit (compaction needs
                // the command's operands to fit the tier), so one more sweep than there are
                // operands always suffices.
                for _ in 0..=operands.len() {
                    let spilled = operands.iter().find_map(|&b| match s.state[b.index()] {
                        State::Spilled(k) => Some((b, k)),
                        _ => None,
                    });
                    let Some((b, k)) = spilled else { break };
                    s.reload(b, k, q, q, id)?;
                }
                if let Some(&b) = operands
                    .iter()
                    .find(|b| matches!(s.state[b.index()], State::Spilled(_)))
                {
                    return Err(s.no_room(b, id));
                }
                for &b in operands {
                    s.last_access[b.index()] = q;
                    let uses = &life.uses[b.index()];
                    let next = &mut s.next[b.index()];
                    while uses.get(*next).is_some_and(|&u| u <= q) {
                        *next += 1;
                    }
                }
                s.out.events.push(PlanStep::Op(id));
            }
            // A scheduled module has no spill ops (the caller checked the phase).
            OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => {}
        }
    }
    Ok(s.out)
}

impl Scanner<'_> {
    fn size(&self, b: BufferId) -> u64 {
        self.m.buffer(b).size
    }

    fn reload(
        &mut self,
        b: BufferId,
        k: usize,
        now: usize,
        stamp: usize,
        at: OpId,
    ) -> Result<(), DlrError> {
        let offset = self.place(b, now, stamp, at)?;
        self.out.spills[k].reload_offset = offset;
        self.out.stats.reloads += 1;
        self.last_access[b.index()] = now;
        self.out.events.push(PlanStep::In(k));
        Ok(())
    }

    fn release(&mut self, b: BufferId, offset: u64) {
        let size = self.size(b);
        let tier = &mut self.tiers[self.m.buffer(b).tier.index()];
        tier.free.release(offset, size);
        tier.residents.remove(&b);
        if size > 0 {
            tier.by_offset.remove(&offset);
        }
        tier.last_released = Some((offset, offset + size));
        self.resident_bytes -= size;
    }

    fn occupy(&mut self, b: BufferId, offset: u64) {
        let size = self.size(b);
        let tier = &mut self.tiers[self.m.buffer(b).tier.index()];
        tier.free.occupy(offset, size);
        tier.residents.insert(b);
        if size > 0 {
            // Zero-byte residents take no address (and never need evicting).
            tier.by_offset.insert(offset, b);
        }
        self.state[b.index()] = State::Resident(offset);
        self.resident_bytes += size;
        self.out.stats.physical_peak = self.out.stats.physical_peak.max(self.resident_bytes);
    }

    fn candidate(&self, b: BufferId) -> Candidate {
        let buf = self.m.buffer(b);
        let uses = &self.life.uses[b.index()];
        Candidate {
            buffer: b,
            size: buf.size,
            backed: buf.backed,
            next_use: uses.get(self.next[b.index()]).copied(),
            free_pos: self.life.free_pos[b.index()],
            final_use: uses.last().copied().unwrap_or(self.last_access[b.index()]),
            last_access: self.last_access[b.index()],
        }
    }

    /// The best-ranked unpinned resident of `tier`, if any.
    fn pick(&mut self, tier: usize, rule: Rule, now: usize, stamp: usize) -> Option<BufferId> {
        let cost = self.m.target.spill_cost;
        self.out.stats.work += self.tiers[tier].residents.len() as u64;
        self.tiers[tier]
            .residents
            .iter()
            .filter(|b| self.pin[b.index()] != stamp)
            .map(|&b| self.candidate(b))
            .max_by(|a, b| compare(rule, a, b, now, cost))
            .map(|c| c.buffer)
    }

    /// Finds room for `b` in its tier (evicting as needed), occupies it and returns the offset.
    fn place(&mut self, b: BufferId, now: usize, stamp: usize, at: OpId) -> Result<u64, DlrError> {
        let buf = self.m.buffer(b);
        let (tier, size) = (buf.tier.index(), buf.size);
        let staging = self.m.target.tiers[tier].staging;
        let rule = if staging { Rule::Staging } else { self.rule };
        if size == 0 {
            // Takes no bytes, so it never needs room (nor evicts anything).
            self.occupy(b, 0);
            return Ok(0);
        }
        let mut victims: Vec<(BufferId, u64)> = Vec::new();
        if staging && self.m.target.l0_exclusive {
            while let Some(v) = self.pick(tier, rule, now, stamp) {
                victims.push((v, self.offset_of(v)));
                self.release(v, self.offset_of(v));
            }
            if let Some(&other) = self.tiers[tier].residents.iter().next() {
                return Err(DlrError::at(
                    at,
                    DlrErrorKind::L0Shared {
                        buffer: buf.name,
                        other: self.m.buffer(other).name,
                        tier: self.m.target.tiers[tier].name.clone(),
                    },
                ));
            }
        }
        let beside_last = staging && self.m.target.l0_exclusive && self.l0 == L0Mode::Double;
        if let Some(offset) = self.fit(tier, size, beside_last) {
            for (v, _) in victims {
                self.spill(v);
            }
            self.occupy(b, offset);
            return Ok(offset);
        }
        self.note_shortfall(tier, size);
        let offset = match self.evict {
            Evict::Window => self.room_by_window(b, rule, now, stamp, at, victims)?,
            _ => self.room_by_rank(b, rule, now, stamp, at, victims, beside_last)?,
        };
        self.occupy(b, offset);
        Ok(offset)
    }

    /// The offset where `size` bytes go in `tier` with no eviction, if a hole fits (away from
    /// the buffer released last first, when `beside_last`).
    fn fit(&self, tier: usize, size: u64, beside_last: bool) -> Option<u64> {
        let t = &self.tiers[tier];
        let avoid = t.last_released.filter(|_| beside_last);
        let fit = avoid.and_then(|range| t.free.best_fit_avoiding(size, range));
        fit.or_else(|| t.free.best_fit(size))
    }

    /// Records an eviction round for a request of `size` bytes in `tier` that no hole fits.
    fn note_shortfall(&mut self, tier: usize, size: u64) {
        let largest = self.tiers[tier].free.largest();
        let resident: u64 = self.tiers[tier]
            .residents
            .iter()
            .map(|&r| self.size(r))
            .sum();
        let stats = &mut self.out.stats;
        stats.frag_shortfall_sum += size - largest;
        stats.frag_shortfall_max = stats.frag_shortfall_max.max(size - largest);
        if self.m.target.tiers[tier].capacity - resident >= size {
            stats.frag_evictions += 1;
        }
    }

    /// Window mode: spills exactly the residents under the cheapest range of `b`'s size, or
    /// compacts; returns the offset for `b`. `flushed` are staging residents already released.
    fn room_by_window(
        &mut self,
        b: BufferId,
        rule: Rule,
        now: usize,
        stamp: usize,
        at: OpId,
        flushed: Vec<(BufferId, u64)>,
    ) -> Result<u64, DlrError> {
        let buf = self.m.buffer(b);
        let (tier, size) = (buf.tier.index(), buf.size);
        let spill_cost = self.m.target.spill_cost;
        let capacity = self.m.target.tiers[tier].capacity;
        let mut segments = Vec::with_capacity(2 * self.tiers[tier].by_offset.len() + 1);
        let mut owners = Vec::with_capacity(segments.capacity());
        let mut at_byte = 0;
        for (&start, &r) in &self.tiers[tier].by_offset {
            if start > at_byte {
                segments.push(Segment::Hole {
                    start: at_byte,
                    end: start,
                });
                owners.push(None);
            }
            let end = start + self.size(r);
            segments.push(if self.pin[r.index()] == stamp {
                Segment::Pinned { start, end }
            } else {
                let cost = cost(rule, &self.candidate(r), now, spill_cost);
                Segment::Victim { start, end, cost }
            });
            owners.push(Some(r));
            at_byte = end;
        }
        if capacity > at_byte {
            segments.push(Segment::Hole {
                start: at_byte,
                end: capacity,
            });
            owners.push(None);
        }
        let window = cheapest(&segments, size, &mut self.out.stats.work);
        let victims: Vec<BufferId> = match window {
            Some(w) => owners[w.first..=w.last].iter().flatten().copied().collect(),
            None if !self.tiers[tier].residents.is_empty()
                && self.command_bytes(b, at) <= capacity =>
            {
                // Every range holds a pinned operand, and they split the room: spill them all so
                // the tier is empty; they reload next to each other at their command.
                self.tiers[tier].by_offset.values().copied().collect()
            }
            None => return Err(self.no_room(b, at)),
        };
        for (v, _) in flushed {
            self.spill(v);
        }
        for v in victims {
            self.release(v, self.offset_of(v));
            self.spill(v);
        }
        Ok(window.map_or(0, |w| w.offset))
    }

    /// Rank mode (the paper's loop): releases the best-ranked unpinned residents until a hole
    /// fits, then puts back every victim clear of the block; returns the offset for `b`.
    #[allow(clippy::too_many_arguments)]
    fn room_by_rank(
        &mut self,
        b: BufferId,
        rule: Rule,
        now: usize,
        stamp: usize,
        at: OpId,
        mut victims: Vec<(BufferId, u64)>,
        beside_last: bool,
    ) -> Result<u64, DlrError> {
        let buf = self.m.buffer(b);
        let (tier, size) = (buf.tier.index(), buf.size);
        let flushed = victims.len();
        let mut compacted = false;
        let offset = loop {
            let Some(v) = self.pick(tier, rule, now, stamp) else {
                if !compacted
                    && !self.tiers[tier].residents.is_empty()
                    && self.command_bytes(b, at) <= self.m.target.tiers[tier].capacity
                {
                    // Only pinned operands are left, and they split the room: spill them all so
                    // the tier is empty; they reload next to each other at their command.
                    compacted = true;
                    let pinned: Vec<BufferId> =
                        self.tiers[tier].residents.iter().copied().collect();
                    for v in pinned {
                        victims.push((v, self.offset_of(v)));
                        self.release(v, self.offset_of(v));
                    }
                    if let Some(o) = self.fit(tier, size, beside_last) {
                        break o;
                    }
                    continue;
                }
                return Err(self.no_room(b, at));
            };
            victims.push((v, self.offset_of(v)));
            self.release(v, self.offset_of(v));
            if let Some(o) = self.fit(tier, size, beside_last) {
                break o;
            }
        };
        // Victims clear of the new block stay resident (flushed L0 residents do not, nor anything
        // after a compaction, so the pinned operands reload into one contiguous hole).
        let mut evicted = Vec::with_capacity(victims.len());
        for (i, &(v, o)) in victims.iter().enumerate() {
            let clear = o + self.size(v) <= offset || offset + size <= o;
            if i >= flushed && clear && !compacted {
                self.occupy(v, o);
            } else {
                evicted.push(v);
            }
        }
        for v in evicted {
            self.spill(v);
        }
        Ok(offset)
    }

    /// Bytes the command `at` needs at once in `b`'s tier: its distinct operands there, and `b`.
    fn command_bytes(&self, b: BufferId, at: OpId) -> u64 {
        let tier = self.m.buffer(b).tier;
        let mut needed: Vec<BufferId> = operands(self.m, at)
            .iter()
            .copied()
            .chain([b])
            .filter(|&o| self.m.buffer(o).tier == tier)
            .collect();
        needed.sort_unstable();
        needed.dedup();
        needed.iter().map(|&o| self.size(o)).sum()
    }

    /// `b` cannot be placed for the command `at`.
    fn no_room(&self, b: BufferId, at: OpId) -> DlrError {
        let buf = self.m.buffer(b);
        let t = &self.m.target.tiers[buf.tier.index()];
        let kind = DlrErrorKind::NoRoom {
            buffer: buf.name,
            size: buf.size,
            needed: self.command_bytes(b, at),
            tier: t.name.clone(),
            capacity: t.capacity,
            largest: self.tiers[buf.tier.index()].free.largest(),
        };
        DlrError::at(at, kind)
    }

    fn offset_of(&self, b: BufferId) -> u64 {
        match self.state[b.index()] {
            State::Resident(o) => o,
            _ => 0,
        }
    }

    /// Records the SPILL_OUT of an already released victim.
    fn spill(&mut self, v: BufferId) {
        let buf = self.m.buffer(v);
        let k = self.out.spills.len();
        self.out.spills.push(Spill {
            buffer: v,
            reload_offset: 0,
        });
        self.state[v.index()] = State::Spilled(k);
        self.out.events.push(PlanStep::Out(k));
        let stats = &mut self.out.stats;
        stats.spills += 1;
        stats.drops += u64::from(buf.backed);
        // A sum past 2^64-1 stays at the top here; `materialize` refuses such a plan.
        stats.traffic = stats
            .traffic
            .saturating_add(buf.spill_traffic().unwrap_or(u64::MAX));
    }
}
