//! E3, the window re-scheduler (baselines.md §1.5): cuts an op order into consecutive windows of
//! at most W commands and reorders each with the frontier DP ([`super::frontier_dp`]) on the
//! window's induced subgraph, starting from the live vector the prefix leaves. COSMA schedules a
//! window as one subproblem (§5.2, its §IV decomposition); MAGIS first splits it into weakly
//! connected blocks, schedules each exactly and concatenates them — net-releasing blocks by
//! ascending peak, then net-growing ones by descending peak [SRC `scheduler.py`
//! `IncScheduler._schedule`] (§4.2).
//!
//! Invariants: a window is a consecutive slice of a topological order, so everything a window
//! command waits for is in the prefix or in the window, and any topological order of the induced
//! subgraph keeps the whole order topological; blocks share no edge, so any concatenation is
//! legal. Forced cuts (MAGIS's narrow-waist points) end a window early. Deterministic: windows,
//! blocks and ties follow positions in the incoming order.
//!
//! Complexity: O((n/W) · D_W · W · r) for D_W ≤ 2^W downsets per window (fewer under the beam),
//! plus O(n + e) for the bookkeeping; the live vector is carried, never recomputed.

use super::cost::Cost;
use super::frontier_dp::{frontier_dp, set, DpOptions, DpStats, Fixed, UnitGraph};
use super::model::{Budget, DoneBits};
use super::projection::{Projection, NONE};

/// How windows are cut and scheduled.
#[derive(Clone, Debug)]
pub(crate) struct WindowOptions {
    /// W: most commands per window (at least 1).
    pub(crate) window: usize,
    /// Beam of the DP inside a window.
    pub(crate) max_states: usize,
    /// Length of the first window (0: W), to shift the cuts on a second pass.
    pub(crate) first: usize,
    /// MAGIS: schedule each weakly connected block of a window on its own and concatenate.
    pub(crate) blocks: bool,
}

/// What the re-scheduler did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowStats {
    /// Windows scheduled.
    pub windows: u64,
    /// DP subproblems (windows, or blocks with `blocks`).
    pub subproblems: u64,
    /// States the DPs kept.
    pub states: u64,
    /// Subproblems whose DP hit the beam.
    pub beam_hits: u64,
}

impl WindowStats {
    fn add(&mut self, dp: DpStats) {
        self.subproblems += 1;
        self.states += dp.states;
        self.beam_hits += u64::from(dp.beam_hit);
    }
}

/// Reorders `pi` (a topological order of the op graph) window by window; `cut_before[p]` forces a
/// window to start at position p.
pub(crate) fn reschedule(
    proj: &Projection<'_>,
    pi: &[u32],
    cut_before: &[bool],
    options: &WindowOptions,
) -> (Vec<u32>, WindowStats) {
    let model = &proj.model;
    let w = options.window.max(1);
    let mut stats = WindowStats::default();
    let mut done = vec![0u64; proj.len().div_ceil(64).max(1)];
    let mut live = vec![0u64; model.tiers()];
    let mut unit_of = vec![NONE; proj.len()];
    let mut out = Vec::with_capacity(pi.len());
    let mut start = 0;
    while start < pi.len() {
        let limit = if start == 0 && options.first > 0 {
            options.first
        } else {
            w
        };
        let mut end = start + 1;
        while end < pi.len()
            && end - start < limit
            && !cut_before.get(end).copied().unwrap_or(false)
        {
            end += 1;
        }
        let window = &pi[start..end];
        stats.windows += 1;
        let order = if options.blocks {
            blocks_order(
                proj,
                window,
                &done,
                &live,
                &mut unit_of,
                options,
                &mut stats,
            )
        } else {
            let (order, dp) = schedule(proj, window, &done, &live, &mut unit_of, options);
            stats.add(dp);
            order
        };
        let mut peak = live.clone();
        model.run(
            &order,
            &DoneBits(&done),
            &mut live,
            &mut peak,
            Budget::Unbounded,
        );
        for &u in &order {
            set(&mut done, u);
        }
        out.extend_from_slice(&order);
        start = end;
    }
    (out, stats)
}

/// The DP order of `ops` (a convex set whose outside predecessors are all in `done`), with its
/// search counters; `ops` as given when the DP finds nothing (it cannot: there is no budget).
fn schedule(
    proj: &Projection<'_>,
    ops: &[u32],
    done: &[u64],
    live: &[u64],
    unit_of: &mut [u32],
    options: &WindowOptions,
) -> (Vec<u32>, DpStats) {
    for (k, &u) in ops.iter().enumerate() {
        unit_of[u as usize] = k as u32;
    }
    let graph = induced(proj, ops, unit_of);
    let members: Vec<Vec<u32>> = ops.iter().map(|&u| vec![u]).collect();
    let mut runner = Fixed {
        model: &proj.model,
        members: &members,
    };
    let result = frontier_dp(
        &proj.model,
        &graph,
        unit_of,
        &DoneBits(done),
        live,
        live,
        &mut runner,
        DpOptions {
            max_states: options.max_states,
            budget: Budget::Unbounded,
        },
    );
    for &u in ops {
        unit_of[u as usize] = NONE;
    }
    match result {
        Some(r) => (
            r.steps.iter().map(|&(k, _)| ops[k as usize]).collect(),
            r.stats,
        ),
        None => (ops.to_vec(), DpStats::default()),
    }
}

/// The edges among `ops` (whose `unit_of` entries are their positions).
fn induced(proj: &Projection<'_>, ops: &[u32], unit_of: &[u32]) -> UnitGraph {
    let edges = ops.iter().enumerate().flat_map(|(k, &u)| {
        proj.succs(u)
            .iter()
            .filter(|&&v| unit_of[v as usize] != NONE)
            .map(move |&v| (k as u32, unit_of[v as usize]))
    });
    UnitGraph::new(ops.len(), edges)
}

/// MAGIS: the window's weakly connected blocks, each scheduled on its own from the window's entry
/// state, releasing blocks first by ascending peak, then growing ones by descending peak.
fn blocks_order(
    proj: &Projection<'_>,
    window: &[u32],
    done: &[u64],
    live: &[u64],
    unit_of: &mut [u32],
    options: &WindowOptions,
    stats: &mut WindowStats,
) -> Vec<u32> {
    for (k, &u) in window.iter().enumerate() {
        unit_of[u as usize] = k as u32;
    }
    // Union-find over the induced edges; a block is named by its first window position.
    let mut parent: Vec<usize> = (0..window.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (k, &u) in window.iter().enumerate() {
        for &v in proj.succs(u) {
            let j = unit_of[v as usize];
            if j != NONE {
                let (a, b) = (root(&mut parent, k), root(&mut parent, j as usize));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    for &u in window {
        unit_of[u as usize] = NONE;
    }
    let mut blocks: Vec<Vec<u32>> = Vec::new();
    let mut block_of = vec![usize::MAX; window.len()];
    for (k, &u) in window.iter().enumerate() {
        let r = root(&mut parent, k);
        if block_of[r] == usize::MAX {
            block_of[r] = blocks.len();
            blocks.push(Vec::new());
        }
        blocks[block_of[r]].push(u);
    }
    let scale = &proj.model.scale;
    let mut scheduled: Vec<(bool, Cost, usize, Vec<u32>)> = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.iter().enumerate() {
        let (order, dp) = schedule(proj, block, done, live, unit_of, options);
        stats.add(dp);
        let mut after = live.to_vec();
        let mut peak = live.to_vec();
        proj.model.run(
            &order,
            &DoneBits(done),
            &mut after,
            &mut peak,
            Budget::Unbounded,
        );
        let growing = scale.net(&after, live) >= 0.0;
        scheduled.push((growing, scale.cost(&peak), i, order));
    }
    scheduled.sort_by(|a, b| {
        let by_peak = if a.0 { b.1.cmp(&a.1) } else { a.1.cmp(&b.1) };
        a.0.cmp(&b.0).then(by_peak).then(a.2.cmp(&b.2))
    });
    scheduled.into_iter().flat_map(|(_, _, _, o)| o).collect()
}
