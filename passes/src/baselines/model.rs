//! The memory model of the A0 projection (baselines.md §1.2): which bytes each command allocates
//! and frees, as a function of the commands already run.
//!
//! A buffer is an [`Item`] with a tier, a size, its *openers* (the commands right after its ALLOC:
//! the first of them to run allocates it) and its *closers* (the commands its FREE waits for: once
//! all ran, it is freed). Running command v from the set S of commands already run follows
//! HMCOS's two-state model [SRC `src/sched/mem.cpp` `ComputeIncDec`]: the *stable* state during v
//! is `live + inc(v)`, the *transient* state after it `stable − dec(v)`, every quantity a per-tier
//! vector; the peak is the largest stable state. Because inc and dec depend only on S, the live
//! vector is a function of S, which is what makes the frontier DP exact (`frontier_dp.rs`).
//!
//! A buffer whose closers all ran before any opener (only possible for a buffer nobody uses) is
//! allocated and freed back to back by the expansion and never counts as live here.
//! Invariants: `live` never underflows (a buffer is freed only after it was allocated). Cost of
//! running a command: O(Σ openers + closers of the buffers it touches) membership tests.

use super::cost::{Cost, Scale};
use lattice_lir::{BufferId, Target};

/// One buffer as the model sees it.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    /// The buffer.
    pub(crate) buffer: BufferId,
    /// Tier index.
    pub(crate) tier: usize,
    /// Bytes.
    pub(crate) size: u64,
    /// Commands the first of which allocates it (ascending local index).
    pub(crate) openers: Vec<u32>,
    /// Commands that all must run before it is freed (ascending local index).
    pub(crate) closers: Vec<u32>,
}

/// What a stable state may not exceed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Budget<'a> {
    /// Anything goes.
    Unbounded,
    /// The running peak's cost may not exceed this.
    Cost(Cost),
    /// No tier's stable state may exceed its entry.
    Ceiling(&'a [u64]),
}

/// The effect of a unit of commands that is the same from every state in which the unit can
/// run next: the largest rise of any tier's stable state over the entry live vector, and the
/// net change of the live vector. Units with equal effects share a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Profile {
    /// Units of one class have equal `rise` and `net`.
    pub(crate) class: u32,
    /// Per tier: max over the unit's commands of (stable state − entry live).
    pub(crate) rise: Vec<i64>,
    /// Per tier: exit live − entry live.
    pub(crate) net: Vec<i64>,
}

impl Profile {
    /// Applies the effect to `live` and `peak`; false when a stable state breaks `budget`.
    pub(crate) fn apply(
        &self,
        scale: &Scale,
        live: &mut [u64],
        peak: &mut [u64],
        budget: Budget<'_>,
    ) -> bool {
        for t in 0..live.len() {
            let top = (live[t] as i64).saturating_add(self.rise[t]).max(0) as u64;
            if let Budget::Ceiling(ceiling) = budget {
                if top > ceiling[t] {
                    return false;
                }
            }
            peak[t] = peak[t].max(top);
            live[t] = (live[t] as i64).saturating_add(self.net[t]).max(0) as u64;
        }
        match budget {
            Budget::Cost(limit) => scale.cost(peak) <= limit,
            _ => true,
        }
    }
}

/// Who allocates and frees which buffer.
pub(crate) struct Model {
    /// The tiers' capacities.
    pub(crate) scale: Scale,
    items: Vec<Item>,
    opens_start: Vec<usize>,
    opens: Vec<u32>,
    closes_start: Vec<usize>,
    closes: Vec<u32>,
}

/// Which commands ran, as the model asks it.
pub(crate) trait Done {
    /// Whether command `u` ran.
    fn done(&self, u: u32) -> bool;
}

/// Commands marked in a bitset over local indices.
pub(crate) struct DoneBits<'a>(pub(crate) &'a [u64]);

impl Done for DoneBits<'_> {
    fn done(&self, u: u32) -> bool {
        self.0[(u / 64) as usize] >> (u % 64) & 1 == 1
    }
}

impl Model {
    /// The model of `ops` commands with these buffers.
    pub(crate) fn new(target: &Target, ops: usize, items: Vec<Item>) -> Self {
        let index = |select: fn(&Item) -> &Vec<u32>| {
            let mut start = vec![0usize; ops + 1];
            for item in &items {
                for &u in select(item) {
                    start[u as usize + 1] += 1;
                }
            }
            for i in 0..ops {
                start[i + 1] += start[i];
            }
            let mut fill = start.clone();
            let mut list = vec![0u32; start[ops]];
            for (j, item) in items.iter().enumerate() {
                for &u in select(item) {
                    list[fill[u as usize]] = j as u32;
                    fill[u as usize] += 1;
                }
            }
            (start, list)
        };
        let (opens_start, opens) = index(|i| &i.openers);
        let (closes_start, closes) = index(|i| &i.closers);
        Model {
            scale: Scale::new(target),
            items,
            opens_start,
            opens,
            closes_start,
            closes,
        }
    }

    /// Number of tiers.
    pub(crate) fn tiers(&self) -> usize {
        self.scale.tiers()
    }

    /// The buffers, by item index.
    pub(crate) fn items(&self) -> &[Item] {
        &self.items
    }

    /// Items command `u` may allocate.
    pub(crate) fn opens(&self, u: u32) -> &[u32] {
        &self.opens[self.opens_start[u as usize]..self.opens_start[u as usize + 1]]
    }

    /// Items command `u` may free.
    pub(crate) fn closes(&self, u: u32) -> &[u32] {
        &self.closes[self.closes_start[u as usize]..self.closes_start[u as usize + 1]]
    }

    /// Runs `ops` in order after the commands `done` reports, moving `live` and `peak`; false as
    /// soon as a stable state breaks `budget` (the vectors are then partly updated).
    pub(crate) fn run(
        &self,
        ops: &[u32],
        done: &impl Done,
        live: &mut [u64],
        peak: &mut [u64],
        budget: Budget<'_>,
    ) -> bool {
        for i in 0..ops.len() {
            let ran = |w: u32| done.done(w) || ops[..i].contains(&w);
            let v = ops[i];
            let mut raised = false;
            self.allocated(v, &ran, |j| {
                let item = &self.items[j as usize];
                live[item.tier] += item.size;
                if live[item.tier] > peak[item.tier] {
                    peak[item.tier] = live[item.tier];
                    raised = true;
                }
            });
            let within = match budget {
                Budget::Unbounded => true,
                Budget::Cost(limit) => !raised || self.scale.cost(peak) <= limit,
                Budget::Ceiling(ceiling) => live.iter().zip(ceiling).all(|(l, c)| l <= c),
            };
            if !within {
                return false;
            }
            self.freed(v, &ran, |j| {
                let item = &self.items[j as usize];
                live[item.tier] -= item.size;
            });
        }
        true
    }

    /// Calls `f` with every item running `v` allocates, given which commands `ran` before it: the
    /// items v opens that no other opener allocated and that are not already past their closers.
    pub(crate) fn allocated(&self, v: u32, ran: &impl Fn(u32) -> bool, mut f: impl FnMut(u32)) {
        for &j in self.opens(v) {
            let item = &self.items[j as usize];
            let opened = item.openers.iter().any(|&w| w != v && ran(w));
            let closed = !item.closers.is_empty() && item.closers.iter().all(|&w| ran(w));
            if !opened && !closed {
                f(j);
            }
        }
    }

    /// Calls `f` with every item running `v` frees: v is the last of its closers to run, and one
    /// of its openers (possibly v) ran.
    pub(crate) fn freed(&self, v: u32, ran: &impl Fn(u32) -> bool, mut f: impl FnMut(u32)) {
        for &j in self.closes(v) {
            let item = &self.items[j as usize];
            let last = item.closers.iter().all(|&w| w == v || ran(w));
            let opened = item.openers.iter().any(|&w| w == v || ran(w));
            if last && opened {
                f(j);
            }
        }
    }

    /// The effect of running `commands` in order from any state in which they can run next,
    /// when it does not depend on the state: `before(w)` must hold only for commands that ran in
    /// every such state (ancestors), `after(w)` only for commands that ran in none (descendants).
    /// `None` when some buffer's allocation or release depends on commands that are neither.
    pub(crate) fn effect(
        &self,
        commands: &[u32],
        before: impl Fn(u32) -> bool,
        after: impl Fn(u32) -> bool,
    ) -> Option<(Vec<i64>, Vec<i64>)> {
        let tiers = self.tiers();
        let (mut live, mut rise) = (vec![0i64; tiers], vec![i64::MIN; tiers]);
        // Ran: in every state (before, or earlier in the unit); not yet: in none.
        for (i, &c) in commands.iter().enumerate() {
            let ran = |w: u32| commands[..i].contains(&w) || before(w);
            let pending = |w: u32| w == c || commands[i + 1..].contains(&w) || after(w);
            let known = |w: u32| ran(w) || pending(w);
            for &j in self.opens(c) {
                let item = &self.items[j as usize];
                if !item.openers.iter().chain(&item.closers).all(|&w| known(w)) {
                    return None;
                }
                let opened = item.openers.iter().any(|&w| w != c && ran(w));
                let closed = !item.closers.is_empty() && item.closers.iter().all(|&w| ran(w));
                if !opened && !closed {
                    live[item.tier] += item.size as i64;
                }
            }
            for (t, r) in rise.iter_mut().enumerate() {
                *r = (*r).max(live[t]);
            }
            for &j in self.closes(c) {
                let item = &self.items[j as usize];
                if !item.openers.iter().chain(&item.closers).all(|&w| known(w)) {
                    return None;
                }
                let last = item.closers.iter().all(|&w| w == c || ran(w));
                let opened = item.openers.iter().any(|&w| w == c || ran(w));
                if last && opened {
                    live[item.tier] -= item.size as i64;
                }
            }
        }
        Some((rise, live))
    }

    /// For every item, the positions in `pi` of the command that allocates it and of the one that
    /// frees it (`None` when never allocated; `usize::MAX` as the end when never freed). An item
    /// is live during the stable state of every position in between, both ends included.
    pub(crate) fn spans(&self, pi: &[u32]) -> Vec<Option<(usize, usize)>> {
        let mut spans = vec![None; self.items.len()];
        let mut bits = vec![0u64; self.opens_start.len().div_ceil(64)];
        for (t, &v) in pi.iter().enumerate() {
            let ran = |w: u32| bits[(w / 64) as usize] >> (w % 64) & 1 == 1;
            self.allocated(v, &ran, |j| spans[j as usize] = Some((t, usize::MAX)));
            let mut closed = Vec::new();
            self.freed(v, &ran, |j| closed.push(j));
            for j in closed {
                if let Some(span) = spans[j as usize].as_mut() {
                    span.1 = t;
                }
            }
            bits[(v / 64) as usize] |= 1 << (v % 64);
        }
        spans
    }

    /// The peak vector of running every command in `pi` from nothing.
    pub(crate) fn peak_of(&self, pi: &[u32]) -> Vec<u64> {
        let mut bits = vec![0u64; self.opens_start.len().div_ceil(64)];
        let mut live = vec![0u64; self.tiers()];
        let mut peak = vec![0u64; self.tiers()];
        for &u in pi {
            self.run(
                &[u],
                &DoneBits(&bits),
                &mut live,
                &mut peak,
                Budget::Unbounded,
            );
            bits[(u / 64) as usize] |= 1 << (u % 64);
        }
        peak
    }
}
