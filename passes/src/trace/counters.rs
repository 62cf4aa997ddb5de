//! Bytes live over time, per tier: the counter tracks of the trace.
//!
//! Two series per tier, both from the replay's [`Timeline`]: *logical* bytes, the buffers between
//! their ALLOC's start and their FREE's end (spilled or not), and *physical* bytes, the
//! residencies while they hold their bytes. Each interval adds its buffer's size at its start and
//! takes it back at its end (half-open, so an end and a start at one cycle never overlap); all
//! changes at one cycle are applied together and a sample is kept only where a series' value
//! changes, after a first sample of 0 at cycle 0. O(B + S + (B + S) log (B + S)) for B buffers
//! and S residencies: the changes are sorted by cycle.

use crate::verify::Timeline;
use lattice_lir::Module;

/// Which bytes a series counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    /// ALLOC to FREE.
    Logical,
    /// Resident, holding its bytes.
    Physical,
}

impl Series {
    /// Both, in the order the trace writes them.
    pub const ALL: [Series; 2] = [Series::Logical, Series::Physical];

    /// The word in the counter's name.
    pub fn word(self) -> &'static str {
        match self {
            Series::Logical => "logical",
            Series::Physical => "physical",
        }
    }
}

/// One sample: from `cycle` on, the series holds `bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// When the value starts to hold.
    pub cycle: u64,
    /// The bytes live.
    pub bytes: u64,
}

/// The samples of `series` for tier `tier` (an index into the target's tiers), in cycle order.
pub fn samples(module: &Module, timeline: &Timeline, tier: usize, series: Series) -> Vec<Sample> {
    let of_tier = |b: lattice_lir::BufferId| module.buffer(b).tier.index() == tier;
    let size = |b: lattice_lir::BufferId| module.buffer(b).size;
    let intervals: Vec<(u64, u64, u64)> = match series {
        Series::Logical => timeline
            .lifetimes
            .iter()
            .filter(|l| of_tier(l.buffer))
            .map(|l| (l.live.start, l.live.end, size(l.buffer)))
            .collect(),
        Series::Physical => timeline
            .residencies
            .iter()
            .filter(|r| of_tier(r.buffer))
            .map(|r| (r.held.start, r.held.end, size(r.buffer)))
            .collect(),
    };
    // (cycle, +bytes, -bytes): sums stay unsigned.
    let mut changes: Vec<(u64, u64, u64)> = Vec::with_capacity(2 * intervals.len());
    for (from, to, bytes) in intervals.into_iter().filter(|(f, t, _)| t > f) {
        changes.push((from, bytes, 0));
        changes.push((to, 0, bytes));
    }
    changes.sort_unstable_by_key(|c| c.0);
    let mut out = vec![Sample { cycle: 0, bytes: 0 }];
    let mut live = 0u64;
    let mut i = 0;
    while i < changes.len() {
        let cycle = changes[i].0;
        while i < changes.len() && changes[i].0 == cycle {
            live = live
                .saturating_add(changes[i].1)
                .saturating_sub(changes[i].2);
            i += 1;
        }
        match out.last_mut() {
            Some(last) if last.bytes == live => {}
            Some(last) if last.cycle == cycle => last.bytes = live,
            _ => out.push(Sample { cycle, bytes: live }),
        }
    }
    out
}
