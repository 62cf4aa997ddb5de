//! The slack-guided list-scheduling seed: one simulation over the constraint graph that decides
//! every pipe's issue order afresh, and σ with it, within a memory budget. Run on the reversed
//! graph with the reversed footprint and reference order it schedules backwards (see
//! [`super::justify`]).
//!
//! Each pipe keeps the ops whose predecessors are all placed, with the time their data is ready
//! (the predicted finish of their latest predecessor). The pipe that can issue soonest — its free
//! time, or the earliest ready time of its pending ops when it would otherwise idle (the resource
//! idle gap) — issues; among its ops ready by then it takes the best by the keys: the primary key
//! (downstream criticality for the first seed), then the largest slack (delay Freeze's pipe order
//! added), then the earliest position in the reference order. Placing an op fixes its predicted
//! finish.
//!
//! σ is the placement order, and the bytes each meter holds along it (physical and logical, see
//! [`Footprint`]) stay within its budget. Ops that release bytes and take no pipe (FREEs; ALLOCs backwards) are placed as soon
//! as they are ready. Ops that open a residency at no cost (ALLOCs; FREEs backwards) are only
//! *armed* when ready — their successors see them as done — and placed in σ just before the first
//! op that needs them. An op is *safe* to place when, after it and its armed predecessors, each
//! meter's bytes plus the highest climb of the ops not yet placed, taken in the reference order
//! (Freeze's σ), stay within its budget ([`PrefixMax`]): then finishing in the reference order is
//! always possible. A pipe whose best ops are not safe lets the next pipe issue; when no pipe has
//! a safe op, the first unplaced op of the reference order is placed, which is always safe (the
//! ops before it are placed or armed). So σ never exceeds the budget when the reference order
//! itself does not, and the simulation never deadlocks.
//!
//! Invariants: every op is placed once, after all its predecessors, so σ is a linear extension
//! of the graph and the pipe chains; deterministic (keys end in the op id). O((V + E) log V),
//! plus at most [`SCAN`] safety checks of O(log V) per pipe and step.

use super::footprint::{Footprint, Meter, METERS};
use super::prefix::PrefixMax;
use crate::timing::{FixedGraph, PipeOrder};
use lattice_lir::OpId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How many of a pipe's best ready ops are checked for safety before the pipe counts as blocked
/// for this step.
const SCAN: usize = 16;

/// The per-op keys of the seed, indexed by op id.
pub(crate) struct Keys<'a> {
    /// The main key, larger first (downstream criticality for the first seed).
    pub primary: &'a [u64],
    /// Freeze start − earliest start.
    pub slack: &'a [u64],
    /// Position in the reference order (Freeze's σ, reversed for a backward pass); a
    /// permutation of distinct values.
    pub position: &'a [usize],
}

/// A list schedule: its pipe order, the σ it was placed in, and that σ's peaks.
pub(crate) struct Seed {
    /// Every pipe's issue order.
    pub order: PipeOrder,
    /// The placement order, a linear extension of the graph and `order`.
    pub sigma: Vec<OpId>,
    /// The most bytes each meter holds at once along `sigma`.
    pub peaks: [u64; METERS],
}

/// Larger is better: (primary, slack, −position, op).
type Priority = (u64, u64, Reverse<usize>, OpId);

/// A pending op: smallest ready time first, then best priority.
type Pending = Reverse<(u64, Reverse<Priority>)>;

/// The simulation's state.
struct Sim<'a> {
    graph: &'a FixedGraph,
    footprint: &'a Footprint,
    keys: &'a Keys<'a>,
    /// Predecessors not yet placed (or armed), per op.
    waiting: Vec<usize>,
    /// Latest predicted end among the placed predecessors, per op.
    ready_at: Vec<u64>,
    placed: Vec<bool>,
    armed: Vec<bool>,
    /// Bytes each meter holds along σ so far, the most so far, and the most allowed.
    held: [u64; METERS],
    peaks: [u64; METERS],
    budget: [u64; METERS],
    /// The ops in reference order, each op's index there, and the first index not yet placed.
    reference: Vec<OpId>,
    slot: Vec<usize>,
    cursor: usize,
    /// Per meter, the change at every unplaced op, in reference order (placed ops count 0).
    rest: [PrefixMax; METERS],
    /// When each pipe finishes what it was given.
    free_at: Vec<u64>,
    /// Per pipe: ops whose predecessors are placed, by ready time (may hold placed ops, skipped).
    pending: Vec<BinaryHeap<Pending>>,
    /// Per pipe: ops ready by the pipe's free time, by priority (may hold placed ops, skipped).
    available: Vec<BinaryHeap<Priority>>,
    /// Ready ops that release bytes and take no pipe.
    instant: Vec<OpId>,
    chains: Vec<Vec<OpId>>,
    sigma: Vec<OpId>,
    /// Scratch: an op and its armed predecessors, and their reference slots.
    moved: Vec<OpId>,
    slots: Vec<usize>,
}

/// The change meter `m` sees at `v`.
fn delta(m: &Meter, v: OpId) -> i64 {
    let bytes = |b: u64| i64::try_from(b).unwrap_or(i64::MAX);
    bytes(m.opens[v.index()]).saturating_sub(bytes(m.closes[v.index()]))
}

impl Sim<'_> {
    fn priority(&self, v: OpId) -> Priority {
        let i = v.index();
        (
            self.keys.primary[i],
            self.keys.slack[i],
            Reverse(self.keys.position[i]),
            v,
        )
    }

    /// `v` and every successor it was the last wait of become ready (recursively for the
    /// armed ops, which are done at once for their successors).
    fn release(&mut self, v: OpId) {
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            if self.footprint.lazy[v.index()] {
                self.armed[v.index()] = true;
                let end = self.ready_at[v.index()].saturating_add(self.graph.cycles(v));
                self.finish(v, end, &mut stack);
            } else {
                match self.graph.pipe(v) {
                    Some(p) if p.index() < self.pending.len() => {
                        let entry = Reverse((self.ready_at[v.index()], Reverse(self.priority(v))));
                        self.pending[p.index()].push(entry);
                    }
                    _ => self.instant.push(v),
                }
            }
        }
    }

    /// Propagates `v`'s end to its successors; those it was the last wait of go on `ready`.
    fn finish(&mut self, v: OpId, end: u64, ready: &mut Vec<OpId>) {
        let graph = self.graph;
        for &w in graph.succs(v) {
            self.ready_at[w.index()] = self.ready_at[w.index()].max(end);
        }
        for &w in graph.succs(v).iter().chain(graph.order_succs(v)) {
            self.waiting[w.index()] -= 1;
            if self.waiting[w.index()] == 0 {
                ready.push(w);
            }
        }
    }

    /// Appends to `out` the armed ops `v` needs placed first.
    fn armed_preds(&self, v: OpId, out: &mut Vec<OpId>) {
        let graph = self.graph;
        out.extend(
            graph
                .preds(v)
                .iter()
                .chain(graph.order_preds(v))
                .copied()
                .filter(|a| self.armed[a.index()] && !self.placed[a.index()]),
        );
    }

    /// Whether placing `v` after its armed predecessors keeps every budget now and leaves a
    /// way to finish within them (the rest in reference order).
    fn safe(&mut self, v: OpId) -> bool {
        let f = self.footprint;
        let mut moved = std::mem::take(&mut self.moved);
        moved.clear();
        self.armed_preds(v, &mut moved);
        moved.push(v);
        let safe = !moved.iter().any(|&u| f.opens(u)) || {
            // The climb of the rest with the moved ops taken out, read without writing.
            let mut slots = std::mem::take(&mut self.slots);
            slots.clear();
            slots.extend(moved.iter().map(|u| self.slot[u.index()]));
            slots.sort_unstable();
            let (armed, op) = moved.split_at(moved.len() - 1);
            let fits = (0..METERS).all(|k| {
                let m = &f.meters[k];
                let before = armed
                    .iter()
                    .map(|a| m.opens[a.index()])
                    .fold(self.held[k], u64::saturating_add);
                let after = before
                    .saturating_sub(m.closes[op[0].index()])
                    .saturating_add(m.opens[op[0].index()]);
                if before.max(after) > self.budget[k] {
                    return false;
                }
                // Taking values out raises a prefix sum by at most the negative ones taken, so
                // the whole sequence's climb plus those bounds the exact one: when that fits, the
                // O(log n) query (cache misses at a million ops) is not needed.
                let released: u64 = moved
                    .iter()
                    .map(|&u| m.closes[u.index()].saturating_sub(m.opens[u.index()]))
                    .fold(0, u64::saturating_add);
                let bound = u64::try_from(self.rest[k].best_prefix())
                    .unwrap_or(0)
                    .saturating_add(released);
                if after.saturating_add(bound) <= self.budget[k] {
                    return true;
                }
                let climb = u64::try_from(self.rest[k].best_prefix_without(&slots)).unwrap_or(0);
                after.saturating_add(climb) <= self.budget[k]
            });
            self.slots = slots;
            fits
        };
        self.moved = moved;
        safe
    }

    /// Appends `v` to σ (after its armed predecessors), starting at `start`.
    fn place(&mut self, v: OpId, start: u64) {
        let mut armed = std::mem::take(&mut self.moved);
        armed.clear();
        self.armed_preds(v, &mut armed);
        for &a in &armed {
            self.append(a);
        }
        self.moved = armed;
        self.append(v);
        let end = start.saturating_add(self.graph.cycles(v));
        if let Some(p) = self.graph.pipe(v) {
            self.chains[p.index()].push(v);
            self.free_at[p.index()] = end;
        }
        let mut ready = Vec::new();
        self.finish(v, end, &mut ready);
        for w in ready {
            self.release(w);
        }
    }

    fn append(&mut self, v: OpId) {
        self.placed[v.index()] = true;
        self.sigma.push(v);
        for (k, m) in self.footprint.meters.iter().enumerate() {
            // Commands change no meter: their value in the tree is 0 already.
            if delta(m, v) != 0 {
                self.rest[k].set(self.slot[v.index()], 0);
            }
            self.held[k] = self.held[k].saturating_sub(m.closes[v.index()]);
            self.held[k] = self.held[k].saturating_add(m.opens[v.index()]);
            self.peaks[k] = self.peaks[k].max(self.held[k]);
        }
    }

    /// When pipe `p` could issue next, if it has anything (dropping placed ops off its heaps).
    fn issue_time(&mut self, p: usize) -> Option<u64> {
        while self.available[p]
            .peek()
            .is_some_and(|prio| self.placed[prio.3.index()])
        {
            self.available[p].pop();
        }
        while self.pending[p]
            .peek()
            .is_some_and(|Reverse((_, Reverse(prio)))| self.placed[prio.3.index()])
        {
            self.pending[p].pop();
        }
        if !self.available[p].is_empty() {
            Some(self.free_at[p])
        } else {
            let Reverse((ready, _)) = self.pending[p].peek()?;
            Some((*ready).max(self.free_at[p]))
        }
    }

    /// Moves pipe `p`'s pending ops ready by `at` to its available heap.
    fn admit(&mut self, p: usize, at: u64) {
        while let Some(&Reverse((ready, Reverse(prio)))) = self.pending[p].peek() {
            if ready > at {
                break;
            }
            self.pending[p].pop();
            self.available[p].push(prio);
        }
    }

    /// The best safe op of pipe `p` (removed from the heap), if one of the first [`SCAN`] is.
    fn take_safe(&mut self, p: usize) -> Option<OpId> {
        let mut skipped = Vec::new();
        let mut found = None;
        while skipped.len() < SCAN {
            let Some(prio) = self.available[p].pop() else {
                break;
            };
            if self.placed[prio.3.index()] {
                continue;
            }
            if self.safe(prio.3) {
                found = Some(prio.3);
                break;
            }
            skipped.push(prio);
        }
        self.available[p].extend(skipped);
        found
    }

    /// The first op of the reference order that is neither placed nor armed, if any.
    fn first_unplaced(&mut self) -> Option<OpId> {
        while let Some(&v) = self.reference.get(self.cursor) {
            if !self.placed[v.index()] && !self.armed[v.index()] {
                return Some(v);
            }
            self.cursor += 1;
        }
        None
    }
}

/// The seed of `graph` (which must be acyclic, with `keys.position` a linear extension of it)
/// within `budget` bytes per meter along σ.
pub(crate) fn seed(
    graph: &FixedGraph,
    footprint: &Footprint,
    keys: &Keys<'_>,
    budget: [u64; METERS],
) -> Seed {
    let n = graph.len();
    let pipes = graph.pipe_count();
    let mut reference: Vec<OpId> = (0..n).map(OpId::new).collect();
    reference.sort_unstable_by_key(|v| keys.position[v.index()]);
    let mut slot = vec![0; n];
    for (i, v) in reference.iter().enumerate() {
        slot[v.index()] = i;
    }
    let rest = footprint.meters.each_ref().map(|m| {
        let deltas: Vec<i64> = reference.iter().map(|&v| delta(m, v)).collect();
        PrefixMax::new(&deltas)
    });
    let mut sim = Sim {
        graph,
        footprint,
        keys,
        waiting: (0..n)
            .map(OpId::new)
            .map(|v| graph.preds(v).len() + graph.order_preds(v).len())
            .collect(),
        ready_at: vec![0; n],
        placed: vec![false; n],
        armed: vec![false; n],
        held: [0; METERS],
        peaks: [0; METERS],
        budget,
        reference,
        slot,
        cursor: 0,
        rest,
        free_at: vec![0; pipes],
        pending: vec![BinaryHeap::new(); pipes],
        available: vec![BinaryHeap::new(); pipes],
        instant: Vec::new(),
        chains: vec![Vec::new(); pipes],
        sigma: Vec::with_capacity(n),
        moved: Vec::new(),
        slots: Vec::new(),
    };
    // Collected first: releasing an armed op may release its successors at once.
    let roots: Vec<OpId> = (0..n)
        .map(OpId::new)
        .filter(|v| sim.waiting[v.index()] == 0)
        .collect();
    for v in roots {
        sim.release(v);
    }
    loop {
        // Ops that only release bytes and take no time or pipe: place them now.
        while let Some(v) = sim.instant.pop() {
            let start = sim.ready_at[v.index()];
            sim.place(v, start);
        }
        let mut by_time: Vec<(u64, usize)> = (0..pipes)
            .filter_map(|p| sim.issue_time(p).map(|t| (t, p)))
            .collect();
        if by_time.is_empty() {
            break;
        }
        by_time.sort_unstable();
        let mut issued = false;
        for &(at, p) in &by_time {
            sim.admit(p, at);
            if let Some(v) = sim.take_safe(p) {
                let start = at.max(sim.ready_at[v.index()]);
                sim.place(v, start);
                issued = true;
                break;
            }
        }
        if !issued {
            // No pipe has a safe op: continue in the reference order.
            let Some(v) = sim.first_unplaced() else {
                break;
            };
            let pipe = graph.pipe(v).map_or(0, |p| p.index());
            let start = sim.ready_at[v.index()].max(sim.free_at.get(pipe).copied().unwrap_or(0));
            sim.place(v, start);
        }
    }
    // Only an armed op without successors can be left (never needed): it goes last.
    let rest: Vec<OpId> = (0..n)
        .map(OpId::new)
        .filter(|v| !sim.placed[v.index()])
        .collect();
    for v in rest {
        sim.append(v);
    }
    Seed {
        order: PipeOrder::from_chains(graph, sim.chains),
        sigma: sim.sigma,
        peaks: sim.peaks,
    }
}
