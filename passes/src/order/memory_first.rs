//! The `memory-first` order (baselines.md §2: the multi-tier form of Inductor's LPMF): over the
//! op-graph projection (`Lifecycle::Deferred`: ALLOC just before its first user, FREE as soon as
//! ready), the ready op of smallest (raise(v), net(v), id(v)) runs first, with
//! - raise(v) = Σ_τ max(0, live_τ + inc_τ(v) − max(peak_τ, C_τ)) / C_τ, how far running v pushes a
//!   tier past both its capacity and the peak so far;
//! - net(v) = Σ_τ (inc_τ(v) − dec_τ(v)) / C_τ, what v leaves allocated;
//! - inc_τ(v): bytes of the ALLOCs v would emit (its armed, unemitted ALLOC predecessors) in τ;
//!   dec_τ(v): bytes of the FREEs whose last unreleased predecessor is v; C_τ: the capacity
//!   (at least 1); live and peak follow the emitted ALLOCs and FREEs of every tier.
//!
//! The key depends on the traversal's state, so no fixed-key heap can rank it. inc and dec change
//! only at events (an ALLOC emitted for another user, a FREE's last-but-one predecessor released):
//! then the op is pushed again with a new version and its stale entries are skipped. raise depends
//! on the live and peak vectors that every ALLOC and FREE move, but ops with equal inc vectors share
//! it: ready ops are grouped by inc vector, each group a heap by (net, id), and a pop evaluates
//! raise once per non-empty group. Ratios are `f64` summed in tier order, so results are
//! deterministic. O((V + E) log V + V·G·T) for G distinct inc vectors and T tiers (G ≤ 20 on the
//! shared cases).

use super::engine::{traverse, Lifecycle, Selector, State};
use super::error::OrderError;
use super::graph::{Graph, Role};
use lattice_lir::{Module, OpId};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

/// The memory-first order of `module`'s ops.
pub fn memory_first_order(module: &Module) -> Result<Vec<OpId>, OrderError> {
    let graph = Graph::build(module)?;
    let mut selector = MemoryFirst::new(module);
    traverse(&graph, Lifecycle::Deferred, &mut selector)
}

/// An `f64` ordered by `total_cmp`, so it can sit in a heap key.
#[derive(Clone, Copy, Debug)]
struct Ratio(f64);

impl PartialEq for Ratio {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ratio {}
impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Ready ops that would allocate the same bytes per tier.
struct Group {
    /// inc_τ for every tier.
    inc: Vec<u64>,
    /// Σ_τ inc_τ / C_τ.
    inc_ratio: f64,
    /// Entries (net, id, op, version); an entry is stale when the op's version moved on.
    heap: BinaryHeap<Reverse<(Ratio, u32, OpId, u32)>>,
}

struct MemoryFirst {
    /// C_τ in bytes.
    capacity_bytes: Vec<u64>,
    /// C_τ as a divisor (at least 1).
    capacity: Vec<f64>,
    live: Vec<u64>,
    peak: Vec<u64>,
    /// Σ_τ dec_τ(v) / C_τ for every op.
    freed: Vec<f64>,
    /// Bumped at every push; only the entry with the current version is live.
    version: Vec<u32>,
    /// Whether the op is ready and not yet popped.
    waiting: Vec<bool>,
    groups: Vec<Group>,
    group_of: HashMap<Vec<u64>, usize>,
    /// The inc vector being built by a push (kept to avoid an allocation per push).
    scratch: Vec<u64>,
}

impl MemoryFirst {
    fn new(module: &Module) -> Self {
        let tiers = module.target.tiers.len();
        MemoryFirst {
            capacity_bytes: module.target.tiers.iter().map(|t| t.capacity).collect(),
            capacity: module
                .target
                .tiers
                .iter()
                .map(|t| t.capacity.max(1) as f64)
                .collect(),
            live: vec![0; tiers],
            peak: vec![0; tiers],
            freed: vec![0.0; module.ops.len()],
            version: vec![0; module.ops.len()],
            waiting: vec![false; module.ops.len()],
            groups: Vec::new(),
            group_of: HashMap::new(),
            scratch: vec![0; tiers],
        }
    }

    /// raise of a group in the current state.
    fn raise(&self, group: &Group) -> f64 {
        let mut raise = 0.0;
        for (t, &inc) in group.inc.iter().enumerate() {
            let ceiling = self.peak[t].max(self.capacity_bytes[t]);
            let over = self.live[t].saturating_add(inc).saturating_sub(ceiling);
            if over > 0 {
                raise += over as f64 / self.capacity[t];
            }
        }
        raise
    }

    /// Drops the stale entries on top of `group`'s heap.
    fn clean(&mut self, group: usize) {
        let (version, waiting) = (&self.version, &self.waiting);
        let heap = &mut self.groups[group].heap;
        while let Some(Reverse((_, _, op, v))) = heap.peek() {
            if waiting[op.index()] && version[op.index()] == *v {
                break;
            }
            heap.pop();
        }
    }

    /// Ranks `op` anew if it is waiting (its inc or dec changed).
    fn refresh(&mut self, op: OpId, state: &State<'_, '_>) {
        if self.waiting[op.index()] {
            self.push(op, state);
        }
    }
}

impl Selector for MemoryFirst {
    fn push(&mut self, op: OpId, state: &State<'_, '_>) {
        let graph = state.graph;
        let inc = &mut self.scratch;
        inc.iter_mut().for_each(|bytes| *bytes = 0);
        for &p in graph.preds(op) {
            if let (Role::Alloc(buffer), false) = (graph.role(p), state.emitted[p.index()]) {
                let buffer = graph.module.buffer(buffer);
                let slot = &mut inc[buffer.tier.index()];
                *slot = slot.saturating_add(buffer.size);
            }
        }
        let group = match self.group_of.get(inc.as_slice()) {
            Some(&group) => group,
            None => {
                let inc_ratio = inc
                    .iter()
                    .zip(&self.capacity)
                    .map(|(&bytes, &cap)| bytes as f64 / cap)
                    .sum();
                self.group_of.insert(inc.clone(), self.groups.len());
                self.groups.push(Group {
                    inc: inc.clone(),
                    inc_ratio,
                    heap: BinaryHeap::new(),
                });
                self.groups.len() - 1
            }
        };
        let version = self.version[op.index()].wrapping_add(1);
        self.version[op.index()] = version;
        self.waiting[op.index()] = true;
        let group = &mut self.groups[group];
        let net = Ratio(group.inc_ratio - self.freed[op.index()]);
        group.heap.push(Reverse((net, graph.name(op), op, version)));
    }

    fn pop(&mut self, _: &State<'_, '_>) -> Option<OpId> {
        let mut best: Option<((Ratio, Ratio, u32), usize)> = None;
        for g in 0..self.groups.len() {
            self.clean(g);
            let group = &self.groups[g];
            let Some(&Reverse((net, name, _, _))) = group.heap.peek() else {
                continue;
            };
            let key = (Ratio(self.raise(group)), net, name);
            if best.as_ref().is_none_or(|(b, _)| key < *b) {
                best = Some((key, g));
            }
        }
        let (_, g) = best?;
        let Reverse((_, _, op, _)) = self.groups[g].heap.pop()?;
        self.waiting[op.index()] = false;
        Some(op)
    }

    fn released(&mut self, op: OpId, state: &State<'_, '_>) {
        let graph = state.graph;
        for &free in graph.succs(op) {
            let Role::Free(buffer) = graph.role(free) else {
                continue;
            };
            if state.missing[free.index()] != 1 {
                continue;
            }
            let last = graph
                .preds(free)
                .iter()
                .copied()
                .find(|p| !state.released[p.index()]);
            if let Some(last) = last.filter(|&p| graph.role(p) == Role::Work) {
                let buffer = graph.module.buffer(buffer);
                self.freed[last.index()] += buffer.size as f64 / self.capacity[buffer.tier.index()];
                self.refresh(last, state);
            }
        }
    }

    fn emitted(&mut self, op: OpId, state: &State<'_, '_>) {
        let graph = state.graph;
        match graph.role(op) {
            Role::Alloc(buffer) => {
                let buffer = graph.module.buffer(buffer);
                let t = buffer.tier.index();
                self.live[t] = self.live[t].saturating_add(buffer.size);
                self.peak[t] = self.peak[t].max(self.live[t]);
                for &user in graph.succs(op) {
                    self.refresh(user, state);
                }
            }
            Role::Free(buffer) => {
                let buffer = graph.module.buffer(buffer);
                let t = buffer.tier.index();
                self.live[t] = self.live[t].saturating_sub(buffer.size);
            }
            Role::Work => {}
        }
    }
}
