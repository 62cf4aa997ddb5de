//! MAGIS (Chen et al., ASPLOS 2024), command-level: its re-ordering only (baselines.md §4.2
//! [ADAPT]; fission, TASO rewrites, re-materialisation and the mutation search have nothing to act
//! on in a fixed command DAG).
//!
//! 1. π0 = forward reverse post-order [SRC `utils/base_graph.py` `get_rpo_topo_order`]: DFS along
//!    successors from every source, roots and successors in ascending op id, post-order reversed.
//!    `rpo-graph` picks the graph (§4.2 step 1):
//!    - `op` (default) [ADAPT]: the A0 op graph; ALLOC and FREE are placed by A0 at the end.
//!    - `raw` [SRC, the source's own graph]: the whole precedence graph, ALLOC and FREE included,
//!      with the L0 turns of the gate (an L0 ALLOC waits for the previous L0 buffer's FREE, so
//!      the order stays L0-exclusive). Every other ALLOC is a source and leads the DFS tree of
//!      whatever it reaches first; an ALLOC whose users an earlier root already reached is
//!      hoisted ahead of them. The windows below permute the commands among the command slots
//!      of this σ0 and a keyed Kahn traversal puts every node at its σ0 slot or as soon after as
//!      its predecessors allow [ADAPT], so with windows of one command the result is σ0 itself.
//!      Measured on the five shipped cases: the raw σ0's worst tier is L1 133028 B on
//!      Conv_Case0 (32× capacity), UB 25352 B on FlashAttention_Case0 (25×) and UB 105616 B on
//!      FlashAttention_Case1 (103×) — hoisted output and accumulator ALLOCs; the op graph's order
//!      has 39010, 8064 and 32640 — while on Matmul both graphs give the same peaks (a load's
//!      ALLOC is its only predecessor and leads its own tree). `dlr` plans every case (its
//!      lifetime normalisation starts each residency at its first use, so the planned peaks are
//!      the op graph's again) and the verifier accepts it (test
//!      `magis_raw_rpo_is_planned_on_every_case`). Where DLR cannot plan an order it fails at
//!      `dlr` with its located "no room" error; this pass never emits an illegal order.
//! 2. Narrow-waist cut points [SRC paper §6.1]: `nw(v) = |V| − |anc(v)| − |des(v)| − 1` on the op
//!    graph, computed with bitsets; commands with `nw ≤ 1` become windows of their own. (None
//!    exist on the shared cases, baselines.md §1.1, so the windows below do all the work.)
//! 3. E3 windows of W consecutive π0 commands (`window`, default 12: the source's block limit is
//!    20, 12 keeps runtime low), each boundary then pushed forward by **ExtendBound** [SRC paper
//!    §6.1 Alg. 2, constants 20/10/4; `extend-bound`, default on]. Reading of the rule: the bound
//!    is the window's last command, n̂ its narrow-waist value, v the command just past it and l
//!    the number of steps taken; while `l < 20 ∧ (n̂ > 10 ∨ nw(v) < 4) ∧ nw(v) < n̂` the bound
//!    moves onto v (n̂ ← nw(v), l ← l + 1), so a window ends at a narrower waist when one is a few
//!    commands away. [ADAPT] Only the upper edge moves: the lower edge is the previous window's
//!    upper edge, already final in E3's single sweep; a bound never crosses a narrow-waist cut.
//!    (The released, deprecated `IncScheduler.reschedule_subgraph` scans a fixed 10 positions
//!    with constants 10/3 and keeps the last acceptance; we follow the paper's loop.) Contrary
//!    to baselines.md §4.2 ("a no-op on these graphs") it is not one: without narrow waists
//!    (§1.1) n̂ stays above 10, so every strictly narrower next command draws the bound on. It
//!    moves 16 (Conv_Case0), 22 (FlashAttention_Case0), 118 (FlashAttention_Case1), 52
//!    (Matmul_Case0) and 257 (Matmul_Case1) window ends; `magis,dlr` then spills less on Conv and FlashAttention
//!    (traffic 88592 → 85904, 17460 → 16924, 96996 → 96648 B) and is unchanged on Matmul but for
//!    the makespan. `extend-bound=false` gives the plain W-windows.
//! 4. Inside a window: its weakly connected blocks are scheduled exactly by the frontier DP
//!    (objective cost(peak), then cost(live)) and concatenated, releasing blocks first [SRC
//!    `scheduler.py` `IncScheduler._schedule`]. `passes = 2` runs a second pass with windows
//!    shifted by half a window.
//! 5. Allocation and replacement: the backend's (`dlr` after this pass).
//!
//! Not offered: the swap rules of §4.2 step 4 (off by default in the spec, "reordering only").
//! Complexity: O(V + E) for the RPO (either graph), O(V · E / 64) time and O(V² / 64) words for
//! the narrow-waist bitsets (skipped when neither `narrow-waist` nor `extend-bound` needs them),
//! O(V) for the window bounds (each extension is at most 20 steps), O((V/W') · D_W' · W') for the
//! windows of W' ≤ W + 20 commands, and O((V + E) log V) for the raw mode's keyed traversal.

use super::frontier_dp::set;
use super::projection::{Projection, NONE};
use super::window::{reschedule, WindowOptions, WindowStats};
use crate::order::engine::{traverse, KeyHeap, Lifecycle};
use crate::order::graph::Graph;
use crate::order::OrderError;
use lattice::{option_enum, pass_options};
use lattice_lir::{Module, OpId};

option_enum! {
    /// The graph MAGIS's initial reverse post-order walks.
    pub enum RpoGraph {
        /// The A0 op graph (commands only).
        Op = "op",
        /// The whole precedence graph, ALLOC and FREE included.
        Raw = "raw",
    }
}

pass_options! {
    /// Options of the `magis` pass.
    pub struct MagisOptions {
        /// W: most commands per re-scheduling window (the source's limit is 20).
        #[range(1..=64)]
        window: usize = 12,
        /// Beam of the frontier DP inside a window (256 keeps W = 12 exact but for the widest windows).
        #[range(1..=4096)]
        max_states: usize = 256,
        /// Re-scheduling passes; the second shifts the windows by half a window.
        #[range(1..=64)]
        passes: usize = 1,
        /// Cut windows at narrow-waist commands (nw <= 1).
        narrow_waist: bool = true,
        /// Graph of the initial reverse post-order: `op` (A0 op graph) or `raw` (ALLOC/FREE too).
        rpo_graph: RpoGraph = RpoGraph::Op,
        /// Push each window end onto a narrower waist (ExtendBound: at most 20 steps, 10/4 rule).
        extend_bound: bool = true,
    }
}

/// What MAGIS did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MagisStats {
    /// Commands with nw <= 1 (window boundaries).
    pub cut_points: u64,
    /// Windows over all passes.
    pub windows: u64,
    /// Window ends ExtendBound moved, over all passes.
    pub extended: u64,
    /// Blocks scheduled by the DP.
    pub blocks: u64,
    /// Blocks whose DP hit the beam.
    pub beam_hits: u64,
    /// DP states kept.
    pub states: u64,
}

/// ExtendBound's constants [SRC MAGIS §6.1 Alg. 2]: most steps, "wide" waist, "very narrow" waist.
const EXTEND_STEPS: usize = 20;
const WIDE: usize = 10;
const VERY_NARROW: usize = 4;

/// The MAGIS order of `module`'s ops and its counters.
pub fn magis_order(
    module: &Module,
    options: &MagisOptions,
) -> Result<(Vec<OpId>, MagisStats), OrderError> {
    let proj = Projection::build(module)?;
    let raw = match options.rpo_graph {
        RpoGraph::Op => None,
        RpoGraph::Raw => Some(raw_forward_rpo(&proj.graph)),
    };
    let mut pi = match &raw {
        None => forward_rpo(&proj),
        Some(sigma) => proj.commands_of(sigma),
    };
    let mut stats = MagisStats::default();
    let nw = if options.narrow_waist || options.extend_bound {
        narrow_waist(&proj, &pi)
    } else {
        Vec::new()
    };
    let cut_command: Vec<bool> = if options.narrow_waist {
        nw.iter().map(|&w| w <= 1).collect()
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
        let along: Vec<bool> = pi.iter().map(|&u| cut_command[u as usize]).collect();
        let nw_along: Option<Vec<usize>> = options
            .extend_bound
            .then(|| pi.iter().map(|&u| nw[u as usize]).collect());
        let (cut_before, extended) = window_bounds(&along, window, first, nw_along.as_deref());
        stats.extended += extended;
        // The bounds are final: the re-scheduler only follows them.
        let (next, w) = reschedule(
            &proj,
            &pi,
            &cut_before,
            &WindowOptions {
                window: pi.len().max(1),
                max_states: options.max_states,
                first: 0,
                blocks: true,
            },
        );
        add(&mut stats, w);
        pi = next;
    }
    let order = match &raw {
        None => proj.expand(&pi)?,
        Some(sigma) => into_slots(&proj, sigma, &pi)?,
    };
    Ok((order, stats))
}

/// Where windows start along an order: `cut[p]` when a window starts at position p (and at the
/// end). Windows hold at most W positions (the first `first` when non-zero), a cut command is a
/// window of its own, and with `nw` (narrow-waist values along the order) each end is pushed
/// forward by ExtendBound. Also returns how many ends moved. O(V).
fn window_bounds(
    cut_command: &[bool],
    window: usize,
    first: usize,
    nw: Option<&[usize]>,
) -> (Vec<bool>, u64) {
    let n = cut_command.len();
    let mut forced = vec![false; n + 1];
    for (p, &c) in cut_command.iter().enumerate() {
        if c {
            forced[p] = true;
            forced[p + 1] = true;
        }
    }
    let mut cut = vec![false; n + 1];
    let mut extended = 0;
    let mut start = 0;
    while start < n {
        let limit = if start == 0 && first > 0 {
            first
        } else {
            window
        };
        let mut end = start + 1;
        while end < n && end - start < limit && !forced[end] {
            end += 1;
        }
        if let Some(nw) = nw {
            let moved = extend_bound(nw, end, &forced);
            extended += u64::from(moved > end);
            end = moved;
        }
        cut[start] = true;
        start = end;
    }
    cut[n] = true;
    (cut, extended)
}

/// ExtendBound on a window ending before position `end` of an order with narrow-waist values
/// `nw`: the new end. Stops at the order's end and at forced cuts.
fn extend_bound(nw: &[usize], mut end: usize, forced: &[bool]) -> usize {
    let mut hat = nw[end - 1];
    let mut steps = 0;
    while steps < EXTEND_STEPS && end < nw.len() && !forced[end] {
        let v = nw[end];
        if !((hat > WIDE || v < VERY_NARROW) && v < hat) {
            break;
        }
        hat = v;
        end += 1;
        steps += 1;
    }
    end
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

/// Forward reverse post-order of the whole precedence graph (ALLOC and FREE included, L0 turns
/// as edges): DFS from every node without predecessors in ascending op index, successors in
/// ascending op index; iterative. O((V + E) log d) for the successor sorts.
fn raw_forward_rpo(graph: &Graph<'_>) -> Vec<OpId> {
    let n = graph.len();
    let succs = |v: OpId| {
        let mut list = graph.succs(v).to_vec();
        list.sort_unstable();
        list
    };
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(OpId, Vec<OpId>, usize)> = Vec::new();
    for root in (0..n).map(OpId::new) {
        if !graph.preds(root).is_empty() || visited[root.index()] {
            continue;
        }
        visited[root.index()] = true;
        stack.push((root, succs(root), 0));
        while let Some((v, list, next)) = stack.last_mut() {
            if let Some(&w) = list.get(*next) {
                *next += 1;
                if !visited[w.index()] {
                    visited[w.index()] = true;
                    let below = succs(w);
                    stack.push((w, below, 0));
                }
            } else {
                post.push(*v);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}

/// The raw mode's σ: the j-th command of `pi` takes the σ position of the j-th command slot of
/// `sigma`, ALLOC and FREE keep theirs, and a keyed Kahn traversal emits every node at its key or
/// as soon after as its predecessors allow — a legal order that is `sigma` itself when `pi` is
/// `sigma`'s own command order. O((V + E) log V).
fn into_slots(proj: &Projection<'_>, sigma: &[OpId], pi: &[u32]) -> Result<Vec<OpId>, OrderError> {
    let mut keys = vec![usize::MAX; sigma.len()];
    let mut slots = Vec::with_capacity(pi.len());
    for (p, &op) in sigma.iter().enumerate() {
        if proj.local[op.index()] == NONE {
            keys[op.index()] = p;
        } else {
            slots.push(p);
        }
    }
    for (&slot, &u) in slots.iter().zip(pi) {
        keys[proj.ops[u as usize].index()] = slot;
    }
    traverse(&proj.graph, Lifecycle::Keyed, &mut KeyHeap::new(keys))
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
    fn extend_bound_moves_a_window_end_onto_a_narrower_waist() {
        // Windows of 3 over nw values along the order. The first end (after 50) steps onto 40
        // and 30 (each narrower, the bound still wide), not onto 35.
        let nw = [70, 60, 50, 40, 30, 35, 33, 32];
        let none = [false; 8];
        let (cut, moved) = window_bounds(&none, 3, 0, Some(&nw));
        let starts: Vec<usize> = (0..=8).filter(|&p| cut[p]).collect();
        assert_eq!(starts, vec![0, 5, 8]);
        assert_eq!(moved, 1);
        // Without the rule the windows are plain W-slices.
        let (cut, moved) = window_bounds(&none, 3, 0, None);
        assert_eq!(
            (0..=8).filter(|&p| cut[p]).collect::<Vec<_>>(),
            [0, 3, 6, 8]
        );
        assert_eq!(moved, 0);
        // Once the bound is narrow (n̂ <= 10) only a very narrow waist (nw < 4) draws it on.
        let forced = [false; 4];
        assert_eq!(extend_bound(&[9, 8, 7, 1], 1, &forced), 1);
        assert_eq!(extend_bound(&[9, 5, 3, 1], 2, &forced), 4);
        assert_eq!(extend_bound(&[9, 8, 3, 1], 2, &forced), 4);
        // A forced cut (a narrow-waist command) is never crossed.
        assert_eq!(
            extend_bound(&[9, 8, 3, 1], 2, &[false, false, false, true]),
            3
        );
        // At most 20 steps, however long the narrowing run.
        let falling: Vec<usize> = (0..40).map(|i| 1000 - i).collect();
        assert_eq!(extend_bound(&falling, 1, &[false; 41]), 21);
        // Equal is not narrower.
        assert_eq!(extend_bound(&[20, 20, 19], 1, &forced), 1);
    }

    #[test]
    fn the_raw_rpo_hoists_allocs_and_stays_legal() {
        for seed in 0..10 {
            let module = random_module(seed, 24, 256, seed % 2 == 0);
            let proj = Projection::build(&module).unwrap();
            let sigma = raw_forward_rpo(&proj.graph);
            // All ALLOCs are sources here: the last one's DFS tree comes first, and every ALLOC
            // precedes the first command of the order's tail it heads.
            assert!(matches!(
                module.op(sigma[0]).kind,
                lattice_lir::OpKind::Alloc { .. }
            ));
            let raw = MagisOptions {
                rpo_graph: RpoGraph::Raw,
                ..MagisOptions::default()
            };
            let one = MagisOptions {
                window: 1,
                extend_bound: false,
                ..raw.clone()
            };
            // Windows of one command reorder nothing: the result is the raw RPO itself.
            assert_eq!(magis_order(&module, &one).unwrap().0, sigma, "seed {seed}");
            let (order, _) = magis_order(&module, &raw).unwrap();
            let mut m = module.clone();
            m.schedule = order.clone();
            verify_module(&m).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
            assert_eq!(magis_order(&module, &raw).unwrap().0, order);
            let op = magis_order(&module, &MagisOptions::default()).unwrap().0;
            assert_ne!(order, op, "seed {seed}: raw and op graphs gave the same σ");
        }
    }

    #[test]
    fn magis_orders_are_legal_and_deterministic_for_any_window() {
        for seed in 0..10 {
            let module = random_module(seed, 30, 256, true);
            for (window, passes, extend_bound) in [
                (1, 1, false),
                (5, 2, false),
                (12, 1, false),
                (1, 1, true),
                (5, 2, true),
            ] {
                let options = MagisOptions {
                    window,
                    passes,
                    extend_bound,
                    ..MagisOptions::default()
                };
                let (order, stats) = magis_order(&module, &options).unwrap();
                let mut m = module.clone();
                m.schedule = order.clone();
                verify_module(&m).unwrap();
                assert_eq!(magis_order(&module, &options).unwrap().0, order);
                // ExtendBound lengthens a window by at most 20 commands.
                let longest = window + if extend_bound { EXTEND_STEPS } else { 0 };
                assert!(stats.windows >= 30u64.div_ceil(longest as u64));
                assert!(extend_bound || stats.extended == 0);
            }
        }
    }
}
