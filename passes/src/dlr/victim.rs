//! Victim ranking: which unpinned resident of a full tier to evict next.
//!
//! Four total orders, each deterministic (the buffer id breaks every tie):
//! - **paper** (paper Eq. `dlr-victim-key`, `victim=paper`, the default): the largest
//!   `(noWB, (ν − k) / max(1, W), −ℓ, −id)` wins, where noWB marks a residency that needs no
//!   writeback (backed, or dead: no further use), ν the next use (the FREE for a dead residency),
//!   k the scan position, `W = spill_cost(s) + s` the writeback cost of `s` bytes, and ℓ the
//!   buffer's final use in σ (the paper's "final access position"; its creation when never used).
//!   The ratio is compared exactly by cross-multiplication in u128.
//! - **cost** (`victim=cost`): what an eviction buys against what it costs. A dead residency
//!   costs nothing and goes first; otherwise the largest `s·(ν − k) / T` wins, `T` the bytes
//!   the spill moves (`s` when backed, `2s` when not): the byte-positions of room freed per byte
//!   of traffic. Unlike the paper's key it does not put every backed buffer before every
//!   unbacked one — a backed buffer needed again soon costs more than an unbacked one idle for
//!   long — and a large buffer frees more room for the same distance. Ties: the paper's ℓ, id.
//! - **lru** (`victim=lru`, the ablation; baselines.md): the smallest `(last access, id)` wins.
//! - **staging** (L0 tiers under either option, the paper's eager flushing): the largest
//!   `(dead, ν − k, −id)` wins — no future use first, then the farthest next use.
//!
//! Each comparison is O(1); choosing among R residents is O(R).
//!
//! Eviction by address (`evict=window`, [`super::window`]) needs what a set of victims costs,
//! so each key also gives every resident an additive [`Cost`] that orders single residents as
//! the key does (bar its last tie-breaks), compared lexicographically:
//! - **paper**: `(W / d, 0)` for a residency that needs a writeback, `(0, W / d)` otherwise, with
//!   `d = max(1, ν − k)`: writebacks avoided first, then the writeback cost per position until
//!   the buffer is needed again;
//! - **cost**: `(0, T / d)`, the bytes the spill moves per position of room it frees (a dead
//!   residency costs 0);
//! - **lru**: `(0, 1 / (1 + k − last access))`; **staging**: `(0, 1 / d)`, 0 when dead.
//!
//! The ratios are fixed point with [`FRACTION`] fractional bits, so sums are exact integers: a
//! ratio is below 2⁹⁶, and no sum over fewer than 2³² residents can overflow.

use lattice_lir::{BufferId, SpillCost};
use std::cmp::Ordering;

/// What the ranking knows about one resident.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    /// The buffer.
    pub(crate) buffer: BufferId,
    /// Its size in bytes.
    pub(crate) size: u64,
    /// A DDR copy exists, so eviction writes nothing back.
    pub(crate) backed: bool,
    /// Next use after the scan position, if any.
    pub(crate) next_use: Option<usize>,
    /// Position of the buffer's FREE (the next access of a dead residency).
    pub(crate) free_pos: usize,
    /// The buffer's final use in σ.
    pub(crate) final_use: usize,
    /// The most recent access (use, creation or reload) at or before the scan position.
    pub(crate) last_access: usize,
}

/// The four rankings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// The paper's cost-aware key.
    Paper,
    /// Room freed per byte of traffic.
    Cost,
    /// Least recently used.
    Lru,
    /// Eager flushing of staging (L0) tiers.
    Staging,
}

impl Candidate {
    fn dead(&self) -> bool {
        self.next_use.is_none()
    }

    fn distance(&self, now: usize) -> u64 {
        self.next_use.unwrap_or(self.free_pos).saturating_sub(now) as u64
    }
}

/// Fractional bits of a [`Cost`]'s ratios.
pub(crate) const FRACTION: u32 = 32;

/// What evicting a set of residents costs under one key: lexicographic, and additive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cost(pub(crate) [u128; 2]);

impl Cost {
    /// Nothing evicted.
    pub(crate) const ZERO: Cost = Cost([0, 0]);

    /// The cost of evicting both sets.
    pub(crate) fn plus(self, other: Cost) -> Cost {
        Cost([self.0[0] + other.0[0], self.0[1] + other.0[1]])
    }

    /// `self` less a part of it.
    pub(crate) fn minus(self, part: Cost) -> Cost {
        Cost([self.0[0] - part.0[0], self.0[1] - part.0[1]])
    }
}

/// `num / den` in fixed point (`den` at least 1).
fn ratio(num: u64, den: u64) -> u128 {
    (u128::from(num) << FRACTION) / u128::from(den.max(1))
}

/// The cost of evicting `c` alone at scan position `now` under `rule` (see the module docs).
pub(crate) fn cost(rule: Rule, c: &Candidate, now: usize, spill: SpillCost) -> Cost {
    match rule {
        Rule::Paper => {
            let w = ratio(spill.cycles(c.size).saturating_add(c.size), c.distance(now));
            if c.backed || c.dead() {
                Cost([0, w])
            } else {
                Cost([w, 0])
            }
        }
        Rule::Cost => {
            let moved = if c.dead() {
                0
            } else {
                c.size * if c.backed { 1 } else { 2 }
            };
            Cost([0, ratio(moved, c.distance(now))])
        }
        Rule::Lru => Cost([0, ratio(1, 1 + now.saturating_sub(c.last_access) as u64)]),
        Rule::Staging => Cost([
            0,
            if c.dead() {
                0
            } else {
                ratio(1, c.distance(now))
            },
        ]),
    }
}

/// `Greater` when `a` should be evicted before `b` at scan position `now`.
pub(crate) fn compare(
    rule: Rule,
    a: &Candidate,
    b: &Candidate,
    now: usize,
    cost: SpillCost,
) -> Ordering {
    // Smaller ids win ties under every rule.
    let id = b.buffer.cmp(&a.buffer);
    match rule {
        Rule::Paper => {
            let no_wb = |c: &Candidate| c.backed || c.dead();
            let w = |c: &Candidate| u128::from(cost.cycles(c.size).saturating_add(c.size).max(1));
            let ratio =
                (u128::from(a.distance(now)) * w(b)).cmp(&(u128::from(b.distance(now)) * w(a)));
            no_wb(a)
                .cmp(&no_wb(b))
                .then(ratio)
                .then(b.final_use.cmp(&a.final_use))
                .then(id)
        }
        Rule::Cost => {
            let traffic = |c: &Candidate| {
                if c.dead() {
                    0
                } else {
                    u128::from(c.size) * if c.backed { 1 } else { 2 }
                }
            };
            let gain = |c: &Candidate| u128::from(c.distance(now)) * u128::from(c.size);
            let (ta, tb) = (traffic(a), traffic(b));
            (ta == 0)
                .cmp(&(tb == 0))
                .then((gain(a) * tb).cmp(&(gain(b) * ta)))
                .then(b.final_use.cmp(&a.final_use))
                .then(id)
        }
        Rule::Lru => b.last_access.cmp(&a.last_access).then(id),
        Rule::Staging => a
            .dead()
            .cmp(&b.dead())
            .then(a.distance(now).cmp(&b.distance(now)))
            .then(id),
    }
}

#[cfg(test)]
mod tests {
    use super::{compare, Candidate, Rule};
    use lattice_lir::{BufferId, SpillCost};
    use std::cmp::Ordering;

    const COST: SpillCost = SpillCost {
        base: 150,
        per_byte: 2,
    };

    fn cand(id: usize, size: u64, next: usize, last: usize) -> Candidate {
        Candidate {
            buffer: BufferId::new(id),
            size,
            backed: false,
            next_use: Some(next),
            free_pos: 1000,
            final_use: next,
            last_access: last,
        }
    }

    #[test]
    fn paper_weighs_distance_by_writeback_cost_while_lru_looks_back() {
        // A small buffer used at 20 vs a large one used at 30: 20/(150+3*16) > 30/(150+3*256).
        let small = cand(0, 16, 20, 1);
        let large = cand(1, 256, 30, 5);
        assert_eq!(
            compare(Rule::Paper, &small, &large, 10, COST),
            Ordering::Greater
        );
        assert_eq!(
            compare(Rule::Staging, &small, &large, 10, COST),
            Ordering::Less
        );
        assert_eq!(
            compare(Rule::Lru, &small, &large, 10, COST),
            Ordering::Greater
        );
        let backed = Candidate {
            backed: true,
            ..large
        };
        assert_eq!(
            compare(Rule::Paper, &small, &backed, 10, COST),
            Ordering::Less
        );
    }

    #[test]
    fn cost_weighs_room_freed_against_bytes_moved() {
        // Room freed: 16·10 = 160 byte-positions for 32 bytes moved (5 per byte) against
        // 256·20 = 5120 for 512 (10 per byte): the large one goes, although it was used later.
        let small = cand(0, 16, 20, 1);
        let large = cand(1, 256, 30, 5);
        assert_eq!(
            compare(Rule::Cost, &small, &large, 10, COST),
            Ordering::Less
        );
        // A backed buffer needed soon stays: 16·1 per 16 bytes against 16·40 per 32.
        let soon = Candidate {
            backed: true,
            ..cand(0, 16, 11, 1)
        };
        let idle = cand(1, 16, 50, 5);
        assert_eq!(compare(Rule::Cost, &soon, &idle, 10, COST), Ordering::Less);
        assert_eq!(
            compare(Rule::Paper, &soon, &idle, 10, COST),
            Ordering::Greater
        );
        // A dead residency costs nothing and goes first.
        let dead = Candidate {
            next_use: None,
            ..cand(2, 256, 0, 0)
        };
        assert_eq!(
            compare(Rule::Cost, &dead, &soon, 10, COST),
            Ordering::Greater
        );
    }
}
