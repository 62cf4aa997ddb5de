//! MAGIS (Chen et al., ASPLOS 2024), command-level: its re-ordering only (baselines.md §4.2
//! [ADAPT]; fission, TASO rewrites, re-materialisation and the mutation search have nothing to act
//! on in a fixed command DAG).
//!
//! 1. π0 = forward reverse post-order of the A0 op graph [SRC `utils/base_graph.py`
//!    `get_rpo_topo_order`]: DFS along successors from every source command, roots and successors
//!    in ascending local index (op id), post-order reversed.
//! 2. Narrow-waist cut points [SRC paper §6.1]: `nw(v) = |V| − |anc(v)| − |des(v)| − 1`, computed
//!    with bitsets; commands with `nw ≤ 1` become window boundaries. (None exist on the shared
//!    cases, baselines.md §1.1, so the windows below do all the work.)
//! 3. E3 windows of W commands (`window`, default 12: the source's block limit is 20, 12 keeps
//!    runtime low) with blocks: each window's weakly connected blocks are scheduled exactly by the
//!    frontier DP (objective cost(peak), then cost(live)) and concatenated, releasing blocks first
//!    [SRC `scheduler.py` `IncScheduler._schedule`]. `passes = 2` runs a second pass with windows
//!    shifted by half a window.
//! 4. Allocation and replacement: the backend's (`dlr` after this pass).
//!
//! The swap rules of §4.2 step 4 and the `raw` RPO graph are not offered: the first is off by
//! default in the spec ("reordering only"), the second is dominated by ALLOC hoisting (§7.2).
//! Complexity: O(V + E) for the RPO, O(V · E / 64) time and O(V² / 64) words for the narrow-waist
//! bitsets (skipped with `narrow-waist = false`), O((V/W) · D_W · W) for the windows.

use super::frontier_dp::set;
use super::projection::Projection;
use super::window::{reschedule, WindowOptions, WindowStats};
use crate::order::OrderError;
use lattice::pass_options;
use lattice_lir::{Module, OpId};

pass_options! {
    /// Options of the `magis` pass.
    pub struct MagisOptions {
        /// W: most commands per re-scheduling window (the source's limit is 20).
        window: usize = 12,
        /// Beam of the frontier DP inside a window (256 keeps W = 12 exact but for the widest windows).
        max_states: usize = 256,
        /// Re-scheduling passes; the second shifts the windows by half a window.
        passes: usize = 1,
        /// Cut windows at narrow-waist commands (nw <= 1).
        narrow_waist: bool = true,
    }
}

/// What MAGIS did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MagisStats {
    /// Commands with nw <= 1 (window boundaries).
    pub cut_points: u64,
    /// Windows over all passes.
    pub windows: u64,
    /// Blocks scheduled by the DP.
    pub blocks: u64,
    /// Blocks whose DP hit the beam.
    pub beam_hits: u64,
    /// DP states kept.
    pub states: u64,
}

/// The MAGIS order of `module`'s ops and its counters.
pub fn magis_order(
    module: &Module,
    options: &MagisOptions,
) -> Result<(Vec<OpId>, MagisStats), OrderError> {
    let proj = Projection::build(module)?;
    let mut pi = forward_rpo(&proj);
    let mut stats = MagisStats::default();
    let cut_command: Vec<bool> = if options.narrow_waist {
        narrow_waist(&proj, &pi).iter().map(|&nw| nw <= 1).collect()
    } else {
        vec![false; proj.len()]
    };
    stats.cut_points = cut_command.iter().filter(|&&c| c).count() as u64;
    let window = options.window.max(1);
    for pass in 0..options.passes.max(1) {
        let first = if pass % 2 == 1 {
            (window / 2).max(1)
        } else {
            0
        };
        // A cut command is a window of its own wherever it sits.
        let mut cut_before = vec![false; pi.len() + 1];
        for (p, &u) in pi.iter().enumerate() {
            if cut_command[u as usize] {
                cut_before[p] = true;
                cut_before[p + 1] = true;
            }
        }
        let (next, w) = reschedule(
            &proj,
            &pi,
            &cut_before,
            &WindowOptions {
                window,
                max_states: options.max_states,
                first,
                blocks: true,
            },
        );
        add(&mut stats, w);
        pi = next;
    }
    Ok((proj.expand(&pi)?, stats))
}

fn add(stats: &mut MagisStats, w: WindowStats) {
    stats.windows += w.windows;
    stats.blocks += w.subproblems;
    stats.beam_hits += w.beam_hits;
    stats.states += w.states;
}

/// Forward reverse post-order of the op graph: DFS from every source command in ascending
/// index, successors in ascending index; iterative. O(V + E).
pub(crate) fn forward_rpo(proj: &Projection<'_>) -> Vec<u32> {
    let n = proj.len();
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for root in 0..n as u32 {
        if !proj.preds(root).is_empty() || visited[root as usize] {
            continue;
        }
        visited[root as usize] = true;
        stack.push((root, 0));
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let succs = proj.succs(v);
            if let Some(&w) = succs.get(*next) {
                *next += 1;
                if !visited[w as usize] {
                    visited[w as usize] = true;
                    stack.push((w, 0));
                }
            } else {
                post.push(v);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}

/// nw(v) for every command, from ancestor and descendant bitsets built along `topo`.
fn narrow_waist(proj: &Projection<'_>, topo: &[u32]) -> Vec<usize> {
    let n = proj.len();
    let words = n.div_ceil(64).max(1);
    let mut count = vec![0usize; n];
    // Descendants along reversed topo, then ancestors along topo; one bitset table at a time.
    for forward in [false, true] {
        let mut table = vec![0u64; n * words];
        let sequence: Box<dyn Iterator<Item = &u32>> = if forward {
            Box::new(topo.iter())
        } else {
            Box::new(topo.iter().rev())
        };
        for &v in sequence {
            let near = if forward {
                proj.preds(v)
            } else {
                proj.succs(v)
            };
            let (v, mut row) = (v as usize, vec![0u64; words]);
            for &w in near {
                let w = w as usize;
                for (r, x) in row.iter_mut().zip(&table[w * words..(w + 1) * words]) {
                    *r |= x;
                }
                set(&mut row, w as u32);
            }
            count[v] += row.iter().map(|w| w.count_ones() as usize).sum::<usize>();
            table[v * words..(v + 1) * words].copy_from_slice(&row);
        }
    }
    count.iter().map(|&c| n.saturating_sub(c + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baselines::fixtures::random_module;
    use lattice_lir::{parse_module, verify_module};

    #[test]
    fn forward_rpo_follows_successors_and_narrow_waist_counts_the_unrelated() {
        // a → b, a → c, (b, c) → d; and an unrelated command x.
        let module = parse_module(
            "module @d phase(parsed) {
               target { tiers L1 = 4096 pipes P spill_out P, spill_in P, spill_cost = 0 + 1 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               buffer @b1 : L1[8]
               buffer @b2 : L1[8]
               buffer @b3 : L1[8]
               buffer @b4 : L1[8]
               %0 = alloc @b0
               %1 = A P 1 (@b0) after(%0)
               %2 = alloc @b1
               %3 = B P 1 (@b1, @b0) after(%1, %2)
               %4 = alloc @b2
               %5 = C P 1 (@b2, @b0) after(%1, %4)
               %6 = free @b0 after(%3, %5)
               %7 = alloc @b3
               %8 = D P 1 (@b3, @b1, @b2) after(%3, %5, %7)
               %9 = free @b1 after(%8)
               %10 = free @b2 after(%8)
               %11 = free @b3 after(%8)
               %12 = alloc @b4
               %13 = X P 1 (@b4) after(%12)
               %14 = free @b4 after(%13)
             }",
        )
        .unwrap();
        let proj = Projection::build(&module).unwrap();
        let names: Vec<u32> = forward_rpo(&proj).iter().map(|&u| proj.name(u)).collect();
        // DFS from A visits B (then D) before C; X is a later root; post-order reversed.
        assert_eq!(names, vec![13, 1, 5, 3, 8]);
        let nw = narrow_waist(&proj, &forward_rpo(&proj));
        let by_name = |n: u32| nw[(0..proj.len()).find(|&u| proj.name(u as u32) == n).unwrap()];
        // nw = |V| - |anc| - |des| - 1: A 5-0-3-1, B 5-1-1-1, D 5-3-0-1, X 5-0-0-1.
        assert_eq!(
            [by_name(1), by_name(3), by_name(8), by_name(13)],
            [1, 2, 1, 4]
        );
    }

    #[test]
    fn magis_orders_are_legal_and_deterministic_for_any_window() {
        for seed in 0..10 {
            let module = random_module(seed, 30, 256, true);
            for (window, passes) in [(1, 1), (5, 2), (12, 1)] {
                let options = MagisOptions {
                    window,
                    passes,
                    ..MagisOptions::default()
                };
                let (order, stats) = magis_order(&module, &options).unwrap();
                let mut m = module.clone();
                m.schedule = order.clone();
                verify_module(&m).unwrap();
                assert_eq!(magis_order(&module, &options).unwrap().0, order);
                assert!(stats.windows >= 30u64.div_ceil(window as u64));
            }
        }
    }
}
