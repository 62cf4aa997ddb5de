//! A lower bound on the makespan of every order and plan from the *windows* of buffers that
//! cannot share their tier: the time each one holds the tier is time in which nothing that
//! conflicts with it runs.
//!
//! **Windows.** A residency segment of a buffer spans, in time, from its start (ALLOC or
//! SPILL_IN) to its end (FREE or SPILL_OUT), and every use of the buffer runs inside the span
//! of the segment that holds it in σ. Two conflicting buffers ([`super::conflict::Conflicts`]:
//! same tier, sizes adding up to more than it) have segments that are disjoint along σ and
//! joined by a path of the timing graph from the earlier one's end to the later one's start,
//! whatever the plan ([`super::conflict`]'s argument); so their spans are disjoint in time, and
//! no use of one runs while the other holds a segment.
//!
//! **The bound.** Take a set W of buffers that conflict pairwise and the set R of the other
//! buffers that conflict with every member of W. The spans of W's members are pairwise
//! disjoint, and no op that names a member of R (and no member of W) runs inside any of them.
//! Keeping only the spans of one member w (cutting the rest of the timeline out) keeps the
//! order and the pipe exclusivity of the ops inside them, and all of w's uses are there — so
//! those spans last at least the least makespan of w's uses alone, with only their
//! dependencies through the DAG (heads and tails that weigh only those uses). Cutting every W
//! span out of the timeline likewise leaves a schedule of R's ops. So every timing of every
//! plan of every order lasts at least
//!
//!   Σ_{w ∈ W} bound(uses of w) + bound(ops naming a member of R and none of W),
//!
//! where bound(S) is the critical path of S's ops and Jackson's preemptive one-pipe bound with
//! heads and tails ([`crate::analysis::makespan_bound`]'s argument), both over the DAG with
//! every op outside S weighing 0 cycles (a path through other ops still orders S's ops, but its
//! other ops may run outside the window). Spill ops only add work. The bound is the largest
//! over the sets tried: for each buffer s, W grows from {s} by the member of R with the
//! largest own bound (then the lowest buffer index), and every W on the way counts.
//! The choice only decides how strong the bound is, never its validity.
//!
//! Cost: O(B² · (V + E + k log k)) for B buffers with an ALLOC and a FREE, V ops, E
//! dependencies and k ops per pipe.

use super::conflict::{Conflicts, Held};
use crate::analysis::makespan_bound::{preemptive, Job};

/// The largest bound of the header over the sets tried, for the buffers, ops and DAG of
/// `conflicts`.
pub fn window_bound(conflicts: &Conflicts<'_>) -> u64 {
    let held = &conflicts.held;
    let mut marked = vec![false; conflicts.cycles.len()];
    let own: Vec<u64> = held
        .iter()
        .map(|h| {
            mark(&mut marked, &[h], &[]);
            bound(conflicts, &marked)
        })
        .collect();
    let mut conflict = vec![vec![false; held.len()]; held.len()];
    for (a, h) in held.iter().enumerate() {
        for &b in &h.conflicts {
            conflict[a][b] = true;
        }
    }
    let mut best = 0;
    for s in 0..held.len() {
        let mut w = vec![s];
        loop {
            let r: Vec<usize> = (0..held.len())
                .filter(|&x| !w.contains(&x) && w.iter().all(|&y| conflict[x][y]))
                .collect();
            if r.is_empty() {
                break;
            }
            let ws: Vec<&Held> = w.iter().map(|&y| &held[y]).collect();
            let rs: Vec<&Held> = r.iter().map(|&x| &held[x]).collect();
            mark(&mut marked, &rs, &ws);
            let windows: u64 = w.iter().map(|&y| own[y]).sum();
            best = best.max(windows.saturating_add(bound(conflicts, &marked)));
            let next = r
                .iter()
                .copied()
                .max_by_key(|&x| (own[x], std::cmp::Reverse(x)));
            w.extend(next);
        }
    }
    best
}

/// Marks the ops that name a buffer of `inside` and none of `outside`.
fn mark(marked: &mut [bool], inside: &[&Held], outside: &[&Held]) {
    marked.fill(false);
    for h in inside {
        for &v in &h.uses {
            marked[v.index()] = true;
        }
    }
    for h in outside {
        for &v in &h.uses {
            marked[v.index()] = false;
        }
    }
}

/// The critical path and the one-pipe bounds of the `marked` ops, over the DAG with the other
/// ops at 0 cycles (each op's cycles and pipe from `c`). O(V + E + k log k).
fn bound(c: &Conflicts<'_>, marked: &[bool]) -> u64 {
    let n = c.cycles.len();
    let weight = |v: lattice_lir::OpId| {
        if marked[v.index()] {
            c.cycles[v.index()]
        } else {
            0
        }
    };
    let mut head = vec![0u64; n];
    for &v in &c.dag.topo {
        let start = c
            .dag
            .preds(v)
            .iter()
            .map(|&p| head[p.index()].saturating_add(weight(p)));
        head[v.index()] = start.max().unwrap_or(0);
    }
    let mut tail = vec![0u64; n];
    for &v in c.dag.topo.iter().rev() {
        let after = weight(v).saturating_add(tail[v.index()]);
        for &p in c.dag.preds(v) {
            tail[p.index()] = tail[p.index()].max(after);
        }
    }
    let mut best = 0;
    let mut jobs: Vec<Vec<Job>> = vec![Vec::new(); c.pipes];
    for &v in c.dag.topo.iter().filter(|v| marked[v.index()]) {
        let (h, w, t) = (head[v.index()], c.cycles[v.index()], tail[v.index()]);
        best = best.max(h.saturating_add(w).saturating_add(t));
        if let Some(p) = c.pipe[v.index()] {
            jobs[p].push((h, w, t));
        }
    }
    for js in &mut jobs {
        best = best.max(preemptive(js));
    }
    best
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::analysis::{any_order_bounds, Dag};
    use crate::exact::seed::{squeezed_modules, tried_orders};
    use crate::search::BackEnd;

    #[test]
    fn the_window_bound_stays_below_the_back_ends_makespan_of_every_order_tried() {
        let back_end = BackEnd::default();
        let (mut modules, mut above, mut orders) = (0, 0, 0);
        for m in squeezed_modules(1) {
            let dag = Dag::of(&m).expect("acyclic");
            let conflicts = Conflicts::of(&m, &dag);
            let bound = window_bound(&conflicts);
            for (_, makespan) in tried_orders(&m, &dag.topo, &back_end) {
                assert!(bound <= makespan, "{}: {bound} > {makespan}", m.name);
                orders += 1;
            }
            modules += 1;
            above += usize::from(bound > any_order_bounds(&m).expect("bounds").makespan);
        }
        // Checked on many orders, and above the order-independent bound on some modules.
        assert!(orders >= 400, "{orders}");
        assert!(above * 10 >= modules, "{above} of {modules}");
    }
}
