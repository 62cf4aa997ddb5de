//! Order-independent lower bound on the makespan (DESIGN §1.3, P3): no order, plan and timing
//! of the module finishes sooner.
//!
//! Argument. Every timing respects the precedence DAG of the original ops, so it lasts at least
//! the DAG's critical path (the heaviest chain of cycles). Each pipe is single-issue, so it
//! lasts at least the cycles of the original ops on any one pipe — plus, on the spill pipes,
//! the spill cycles that every plan of every order must put there ([`super::cover_bound`]:
//! SPILL_INs on the spill-in pipe, SPILL_OUTs of unbacked buffers on the spill-out pipe). Spill
//! and reuse dependencies only add edges, so they can only lengthen a timing.
//!
//! One pipe with heads and tails. An op v cannot start before its *head* — the heaviest chain
//! of cycles ending at a predecessor of v — and once it ends, its *tail* — the heaviest chain
//! after it — still has to run. So a timing of the module also schedules each pipe's ops as
//! jobs of one machine with release times (heads), processing times and delivery times (tails),
//! and lasts at least that one-machine problem's optimum with preemption allowed, which Jackson's
//! preemptive schedule reaches: run, at every moment, the released job with the largest tail
//! (Horn 1974; Carlier 1982). That bound is at least the busiest pipe's cycles (plus its least
//! head and least tail) and at least the critical path through each of its ops. The forced
//! spill cycles join their pipe as one job with head and tail 0 (a relaxation of theirs). The
//! bound is the largest over pipes and the critical path.
//!
//! Cost: O(V + E) for heads and tails, plus O(k log k) per pipe of k ops for the schedule.

use super::cover_bound::CoverBound;
use super::dag::Dag;
use lattice_lir::Module;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The parts of the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakespanBound {
    /// The largest of the parts below.
    pub cycles: u64,
    /// The DAG's critical path.
    pub critical_path: u64,
    /// The busiest pipe's cycles, original ops and forced spill cycles.
    pub busiest_pipe: u64,
    /// The largest one-pipe bound with heads and tails (Jackson's preemptive schedule).
    pub one_pipe: u64,
}

/// A job of one pipe: (head, cycles, tail).
pub type Job = (u64, u64, u64);

/// The bound of `module`, given its DAG and its cover bound.
pub fn makespan_bound(module: &Module, dag: &Dag, cover: &CoverBound) -> MakespanBound {
    let n = module.ops.len();
    let cycles = |v: lattice_lir::OpId| module.op(v).kind.cycles();
    let mut head = vec![0u64; n];
    for &v in &dag.topo {
        let start = dag
            .preds(v)
            .iter()
            .map(|p| head[p.index()].saturating_add(cycles(*p)));
        head[v.index()] = start.max().unwrap_or(0);
    }
    let mut tail = vec![0u64; n];
    for &v in dag.topo.iter().rev() {
        let after = dag
            .succs(v)
            .iter()
            .map(|s| cycles(*s).saturating_add(tail[s.index()]));
        tail[v.index()] = after.max().unwrap_or(0);
    }
    let critical_path = dag
        .topo
        .iter()
        .map(|&v| {
            head[v.index()]
                .saturating_add(cycles(v))
                .saturating_add(tail[v.index()])
        })
        .max()
        .unwrap_or(0);
    let mut jobs: Vec<Vec<Job>> = vec![Vec::new(); module.target.pipes.len()];
    for &v in &dag.topo {
        if let Some(pipe) = module.op(v).kind.pipe() {
            jobs[pipe.index()].push((head[v.index()], cycles(v), tail[v.index()]));
        }
    }
    for &(pipe, spill) in &cover.spill_cycles {
        if spill > 0 {
            jobs[pipe.index()].push((0, spill, 0));
        }
    }
    let busiest_pipe = jobs
        .iter()
        .map(|js| js.iter().fold(0u64, |sum, j| sum.saturating_add(j.1)))
        .max()
        .unwrap_or(0);
    let one_pipe = jobs.iter_mut().map(|js| preemptive(js)).max().unwrap_or(0);
    MakespanBound {
        cycles: critical_path.max(busiest_pipe).max(one_pipe),
        critical_path,
        busiest_pipe,
        one_pipe,
    }
}

/// The makespan (the latest end plus tail) of Jackson's preemptive schedule of `jobs`: the
/// optimum of one machine with release and delivery times when jobs may be interrupted.
/// Sorts `jobs` by head. O(k log k).
pub fn preemptive(jobs: &mut [Job]) -> u64 {
    jobs.sort_unstable();
    // Released jobs: (tail, cycles left), largest tail first.
    let mut ready: BinaryHeap<(u64, Reverse<usize>)> = BinaryHeap::new();
    let mut left: Vec<u64> = jobs.iter().map(|j| j.1).collect();
    let (mut now, mut next, mut makespan) = (0u64, 0usize, 0u64);
    while next < jobs.len() || !ready.is_empty() {
        if ready.is_empty() {
            now = now.max(jobs[next].0);
        }
        while next < jobs.len() && jobs[next].0 <= now {
            ready.push((jobs[next].2, Reverse(next)));
            next += 1;
        }
        let Some(&(tail, Reverse(j))) = ready.peek() else {
            continue;
        };
        // Run j until it ends or the next release, which may preempt it.
        let until = jobs.get(next).map_or(u64::MAX, |r| r.0);
        let run = left[j].min(until.saturating_sub(now));
        now = now.saturating_add(run);
        left[j] -= run;
        if left[j] == 0 {
            ready.pop();
            makespan = makespan.max(now.saturating_add(tail));
        }
    }
    makespan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preemptive_schedule_runs_the_largest_tail_first_and_waits_for_releases() {
        // Alone: head + cycles + tail.
        assert_eq!(preemptive(&mut [(5, 3, 7)]), 15);
        // Both released at 0: the long tail first (0..2, +10 = 12), then the other (2..6, +1).
        assert_eq!(preemptive(&mut [(0, 4, 1), (0, 2, 10)]), 12);
        // The first job is preempted at 3 by a release with a larger tail: 3..4 +20 = 24, then
        // the rest of the first 4..9 +0.
        assert_eq!(preemptive(&mut [(0, 6, 0), (3, 1, 20)]), 24);
        // An idle gap before a late release.
        assert_eq!(preemptive(&mut [(0, 1, 0), (10, 1, 0)]), 11);
        // Zero-cycle jobs still count their head and tail.
        assert_eq!(preemptive(&mut [(4, 0, 6)]), 10);
        assert_eq!(preemptive(&mut []), 0);
    }

    #[test]
    fn a_pipe_whose_ops_all_wait_bounds_more_than_its_load_or_the_critical_path() {
        use lattice_lir::parse_module;
        // %3 and %4 both run on Q after %2 (5 cycles on P): the critical path is 10 and Q's
        // load is 10, but Q cannot start before 5, so no timing ends before 15.
        let m = parse_module(
            "module @m phase(parsed) {
               target { tiers L1 = 64 pipes P, Q spill_out Q, spill_in Q, spill_cost = 0 + 0 * size l0_exclusive = false }
               buffer @b0 : L1[8]
               %0 = alloc @b0
               %2 = OP P 5 (@b0) after(%0)
               %3 = OP Q 5 (@b0) after(%2)
               %4 = OP Q 5 (@b0) after(%2)
               %5 = free @b0 after(%3, %4)
             }",
        )
        .expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        let mut cover = CoverBound {
            traffic: 0,
            spill_cycles: vec![],
            rows: 0,
        };
        let b = makespan_bound(&m, &dag, &cover);
        assert_eq!((b.critical_path, b.busiest_pipe), (10, 10));
        assert_eq!((b.one_pipe, b.cycles), (15, 15));
        // Forced spill cycles on Q join it: 5 + 10 + 3 (the spill job runs in Q's idle start).
        cover.spill_cycles = vec![(lattice_lir::PipeId::new(1), 8)];
        let b = makespan_bound(&m, &dag, &cover);
        assert_eq!((b.busiest_pipe, b.one_pipe), (18, 18));
    }
}
