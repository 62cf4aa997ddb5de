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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baselines::fixtures::random_module;

    fn options(window: usize, blocks: bool) -> WindowOptions {
        WindowOptions {
            window,
            max_states: 1 << 12,
            first: 0,
            blocks,
        }
    }

    #[test]
    fn windows_keep_the_order_legal_and_never_raise_the_peak() {
        for seed in 0..30 {
            let module = random_module(seed, 24, 256, seed % 3 == 0);
            let proj = Projection::build(&module).unwrap();
            let input: Vec<u32> = (0..proj.len() as u32).collect();
            let before = proj.model.scale.cost(&proj.model.peak_of(&input));
            for w in [1, 4, 7, 24] {
                let (order, stats) = reschedule(&proj, &input, &[], &options(w, false));
                assert!(proj.is_topological(&order), "seed {seed} W {w}");
                // Each window runs the same commands from the same live vector, at a peak no
                // higher than the input's: the whole order's peak cannot rise.
                let after = proj.model.scale.cost(&proj.model.peak_of(&order));
                assert!(after <= before, "seed {seed} W {w}");
                assert_eq!(stats.windows, 24u64.div_ceil(w as u64), "seed {seed} W {w}");
                let (blocks, _) = reschedule(&proj, &input, &[], &options(w, true));
                assert!(proj.is_topological(&blocks), "seed {seed} W {w} blocks");
            }
        }
    }

    #[test]
    fn forced_cuts_and_a_short_first_window_move_the_boundaries() {
        let module = random_module(11, 12, 256, false);
        let proj = Projection::build(&module).unwrap();
        let input: Vec<u32> = (0..12).collect();
        let mut cut = vec![false; 13];
        cut[5] = true;
        let (_, stats) = reschedule(&proj, &input, &cut, &options(12, false));
        assert_eq!(stats.windows, 2);
        let shifted = WindowOptions {
            first: 3,
            ..options(6, false)
        };
        let (order, stats) = reschedule(&proj, &input, &[], &shifted);
        assert_eq!(stats.windows, 3);
        // A window only permutes its own commands.
        let mut head = order[..3].to_vec();
        head.sort_unstable();
        assert_eq!(head, vec![0, 1, 2]);
    }

    #[test]
    fn blocks_release_before_they_grow() {
        // Two independent commands: %1 frees a buffer read from the prefix (net release), %4
        // allocates one (net growth). MAGIS runs the releasing block first whatever the input
        // order says.
        let module = lattice_lir::parse_module(
            "module @m phase(parsed) {
               target { tiers L1 = 100 pipes P spill_out P, spill_in P, spill_cost = 0 + 1 * size l0_exclusive = false }
               buffer @b0 : L1[40]
               buffer @b1 : L1[30]
               %0 = alloc @b0
               %2 = OP P 1 (@b0) after(%0)
               %3 = alloc @b1
               %4 = OP P 1 (@b1) after(%3)
               %1 = OP P 1 (@b0) after(%2)
               %5 = free @b0 after(%1, %2)
               %6 = OP P 1 (@b1) after(%4)
               %7 = free @b1 after(%6, %4)
             }",
        )
        .unwrap();
        let proj = Projection::build(&module).unwrap();
        let name = |u: u32| proj.name(u);
        // Commands by name: %2, %4, %1, %6; the prefix is %2, then the window {%4, %1}.
        let pi: Vec<u32> = [2u32, 4, 1, 6]
            .iter()
            .map(|&n| (0..proj.len() as u32).find(|&u| name(u) == n).unwrap())
            .collect();
        let mut cut = vec![false; 5];
        cut[1] = true;
        cut[3] = true;
        let (order, _) = reschedule(&proj, &pi, &cut, &options(2, true));
        let names: Vec<u32> = order.iter().map(|&u| name(u)).collect();
        assert_eq!(names, vec![2, 1, 4, 6]);
    }
}
