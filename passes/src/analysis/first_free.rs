//! What every order keeps live just before the first FREE of a tier, with the L0 exclusivity
//! rule: a bound on the logical peak of one tier and on the spills it forces, over all orders.
//!
//! Argument. Fix a non-staging tier t (or a staging tier on a target without exclusivity) and
//! any order σ. Let b be the buffer of t whose FREE comes first in σ, and p the position just
//! before FREE(b). Every buffer of t allocated before p is live at p: none of them is freed
//! yet. Which ops must have run before p? Every ancestor of FREE(b) in the [`Dag`]; and, on an
//! L0-exclusive target, at most one buffer of each staging tier T is live at p, so if that one
//! is e_T, every other buffer of T allocated before p has been freed before p, with all its
//! ancestors. Given b and the e_T, the least set R closed under those two rules is a subset of
//! σ's prefix before p; the buffers of t allocated in R are live at p. σ's own b and e_T are
//! unknown, so the bound is the least, over every b and every choice of the e_T (the search
//! below branches on them, tier by tier, as the buffers of T appear in R), of
//!
//! - the bytes of t allocated in R — the tier's live bytes at p, a bound on the logical peak;
//! - the cost of covering their excess over t's capacity ([`super::excess::position_cost`]):
//!   the buffers other than b that are out of t at p (b is resident at its FREE) each paid a
//!   spill — in bytes of traffic, or in cycles of a spill pipe.
//!
//! A choice is impossible, and left out, when its R holds the FREE of another buffer of t (b
//! was not the first) or FREE(b) itself (the choice needs FREE(b) before p). Every value grows
//! with R, so a branch stops as soon as all its values reach the least found so far. Spills of
//! different tiers are different spills, so the tiers' traffic bounds add up.
//!
//! Why it bites where [`super::must_live`] does not: a buffer read by several independent ops
//! (a matmul tile read by every output tile of its row) is live across none of them in every
//! order, but its FREE needs all of its readers, and with one L0C accumulator at a time each of
//! them drags in a whole output tile, hence every tile that output reads.
//!
//! Order of the search, and its cap. Every choice for b only adds to R0(b), the ancestors of
//! FREE(b), so the values of R0(b) are a floor under all of b's choices (and b is impossible
//! when R0(b) already holds another FREE of t). The floors are computed first; candidates are
//! then explored best floor first, and one whose floors cannot lower the least found so far is
//! skipped. When the marks reach [`MAX_MARKS`], the search stops and every candidate it has not
//! finished counts with its floor instead — a weaker bound, still sound; when even the floors
//! do not fit, the tier proves nothing (0).
//!
//! Complexity: a branch marks each op at most once (O(V + E) with an undo trail); the floors
//! cost one such closure per candidate and the branches multiply the staging buffers found per
//! tier, all within [`MAX_MARKS`] marks over the module.

use super::dag::Dag;
use super::excess::{position_cost, Cost};
use lattice_lir::{BufferId, Module, OpId, OpKind, PipeId};

/// The most op marks over all branches of one module before the search gives up.
pub const MAX_MARKS: u64 = 6_000_000;

/// The least values over all first-FREE positions of each tier.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FirstFree {
    /// Per tier: no order keeps fewer bytes of it live at once (0 for tiers not modelled).
    pub live: Vec<u64>,
    /// Extra DDR bytes every plan of every order spills, summed over tiers.
    pub traffic: u64,
    /// Per spill pipe (as [`super::CoverBound::spill_cycles`]): cycles every plan puts there.
    pub spill_cycles: Vec<(PipeId, u64)>,
    /// The search stopped at [`MAX_MARKS`]: some candidates counted with their floors only.
    pub capped: bool,
}

/// The values one position is scored by: live bytes, traffic, then each spill pipe's cycles.
struct Scores {
    pipes: Vec<PipeId>,
}

impl Scores {
    fn of(&self, m: &Module, live: &[BufferId], at: OpId) -> Vec<u64> {
        let mut v = vec![live.iter().map(|&b| m.buffer(b).size).sum()];
        v.push(position_cost(m, live, at, Cost::Traffic));
        v.extend(
            self.pipes
                .iter()
                .map(|&p| position_cost(m, live, at, Cost::Cycles(p))),
        );
        v
    }
}

/// The search over one tier's first FREE and the exceptions.
struct Search<'a> {
    m: &'a Module,
    dag: &'a Dag,
    scores: &'a Scores,
    /// Per op: marked in R.
    marked: Vec<bool>,
    trail: Vec<OpId>,
    /// Per staging tier: the buffer fixed as the live one, if chosen.
    fixed: Vec<Option<BufferId>>,
    tier: usize,
    /// The buffer whose FREE is first.
    first: BufferId,
    /// Buffers of the tier allocated in R.
    live: Vec<BufferId>,
    /// Staging buffers allocated in R, in order of discovery.
    staging: Vec<BufferId>,
    best: Vec<u64>,
    marks: u64,
    gave_up: bool,
}

/// The first-FREE bounds of `module` (any phase; spill events are ignored).
pub fn first_free(module: &Module, dag: &Dag) -> FirstFree {
    first_free_within(module, dag, MAX_MARKS)
}

/// [`first_free`] with a cap of `max_marks` op marks.
fn first_free_within(module: &Module, dag: &Dag, max_marks: u64) -> FirstFree {
    let m = module;
    let tiers = m.target.tiers.len();
    let mut pipes = vec![m.target.spill_in_pipe];
    if m.target.spill_out_pipe != m.target.spill_in_pipe {
        pipes.push(m.target.spill_out_pipe);
    }
    let scores = Scores {
        pipes: pipes.clone(),
    };
    // Nothing proved yet: each tier adds what it proves.
    let nothing = FirstFree {
        live: vec![0; tiers],
        traffic: 0,
        spill_cycles: pipes.iter().map(|&p| (p, 0)).collect(),
        capped: false,
    };
    let mut out = nothing;
    let mut budget = max_marks;
    for t in 0..tiers {
        let staging = m.target.tiers[t].staging;
        if staging && m.target.l0_exclusive {
            continue;
        }
        let in_tier = |b: BufferId| m.buffer(b).tier.index() == t;
        let candidates: Vec<BufferId> = m
            .buffer_ids()
            .filter(|&b| in_tier(b) && dag.free_of[b.index()].is_some())
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let mut search = Search {
            m,
            dag,
            scores: &scores,
            marked: vec![false; m.ops.len()],
            trail: Vec::new(),
            fixed: vec![None; tiers],
            tier: t,
            first: candidates[0],
            live: Vec::new(),
            staging: Vec::new(),
            best: vec![u64::MAX; 2 + pipes.len()],
            marks: 0,
            gave_up: false,
        };
        // Each candidate's floor (the values of R0), possible ones only, most promising first.
        let mut floors: Vec<(Vec<u64>, BufferId)> = Vec::with_capacity(candidates.len());
        for b in candidates {
            search.first = b;
            if let Some(floor) = search.floor(budget) {
                floors.push((floor, b));
            }
            if search.gave_up {
                break;
            }
        }
        budget -= search.marks.min(budget);
        out.capped |= search.gave_up;
        if search.gave_up {
            continue;
        }
        floors.sort();
        for (floor, b) in floors {
            let lowers = floor.iter().zip(&search.best).any(|(f, b)| f < b);
            if lowers && !search.gave_up {
                search.first = b;
                let free = dag.free_of[b.index()].expect("a candidate has a FREE");
                let frontier: Vec<OpId> = dag.preds(free).to_vec();
                search.marks = 0;
                search.explore(frontier, budget);
                budget -= search.marks.min(budget);
            }
            // A candidate left unfinished counts with its floor.
            if lowers && search.gave_up {
                for (least, f) in search.best.iter_mut().zip(floor) {
                    *least = (*least).min(f);
                }
            }
        }
        out.capped |= search.gave_up;
        // No branch survived: every candidate's FREE needs another's first — impossible in
        // a DAG, where some FREE of the tier comes first; nothing to add then.
        if search.best[0] == u64::MAX {
            continue;
        }
        out.live[t] = search.best[0];
        out.traffic = out.traffic.saturating_add(search.best[1]);
        for (i, slot) in out.spill_cycles.iter_mut().enumerate() {
            slot.1 = slot.1.saturating_add(search.best[2 + i]);
        }
    }
    out
}

impl Search<'_> {
    /// Marks `frontier` and everything it needs under the current exceptions; `false` when the
    /// branch is impossible. Leaves every mark on the trail.
    fn close(&mut self, mut frontier: Vec<OpId>, budget: u64) -> bool {
        let m = self.m;
        let first_free = self.dag.free_of[self.first.index()];
        while let Some(v) = frontier.pop() {
            if self.marked[v.index()] {
                continue;
            }
            if Some(v) == first_free {
                return false;
            }
            self.marked[v.index()] = true;
            self.trail.push(v);
            self.marks += 1;
            if self.marks > budget {
                self.gave_up = true;
                return false;
            }
            match m.op(v).kind {
                OpKind::Free { buffer } if m.buffer(buffer).tier.index() == self.tier => {
                    // Another buffer of the tier was freed first.
                    return false;
                }
                OpKind::Alloc { buffer, .. } => {
                    let tier = m.buffer(buffer).tier;
                    if tier.index() == self.tier {
                        self.live.push(buffer);
                    } else if m.target.tier(tier).staging && m.target.l0_exclusive {
                        self.staging.push(buffer);
                        if let Some(e) = self.fixed[tier.index()] {
                            if e != buffer {
                                frontier.extend(self.dag.free_of[buffer.index()]);
                            }
                        }
                    }
                }
                _ => {}
            }
            frontier.extend_from_slice(self.dag.preds(v));
        }
        true
    }

    /// The scores of R0, the ancestors of the candidate's FREE; `None` when they hold another
    /// FREE of the tier (the candidate is never first) or the marks ran out.
    fn floor(&mut self, budget: u64) -> Option<Vec<u64>> {
        let free = self.dag.free_of[self.first.index()].expect("a candidate has a FREE");
        let closed = self.close(self.dag.preds(free).to_vec(), budget);
        let scores = closed.then(|| self.scores.of(self.m, &self.live, free));
        for v in self.trail.drain(..) {
            self.marked[v.index()] = false;
        }
        self.live.clear();
        self.staging.clear();
        scores
    }

    /// Explores every choice of exceptions from `frontier` added to the current R, keeping the
    /// least scores of the choices that survive.
    fn explore(&mut self, frontier: Vec<OpId>, budget: u64) {
        let (trail, live, staging) = (self.trail.len(), self.live.len(), self.staging.len());
        if self.close(frontier, budget) {
            let free = self.dag.free_of[self.first.index()].expect("a candidate has a FREE");
            let scores = self.scores.of(self.m, &self.live, free);
            // Every score only grows with R: stop once none can lower its least.
            if scores.iter().zip(&self.best).any(|(s, b)| s < b) {
                match self.open_tier() {
                    None => {
                        for (b, s) in self.best.iter_mut().zip(scores) {
                            *b = (*b).min(s);
                        }
                    }
                    Some((tier, pending)) => self.branch(tier, pending, budget),
                }
            }
        }
        for v in self.trail.drain(trail..) {
            self.marked[v.index()] = false;
        }
        self.live.truncate(live);
        self.staging.truncate(staging);
    }

    /// The staging tier to branch on next: one without a fixed exception, with the fewest
    /// buffers allocated in R whose FREE still needs ops outside R (any of them may be the live
    /// one at p; the others are freed before it). A buffer whose FREE needs nothing more is
    /// left out: freeing it adds only its FREE to R, so choosing it as the live one is never
    /// better than choosing none.
    fn open_tier(&self) -> Option<(usize, Vec<BufferId>)> {
        let m = self.m;
        let mut by_tier: Vec<Vec<BufferId>> = vec![Vec::new(); m.target.tiers.len()];
        for &c in &self.staging {
            let tier = m.buffer(c).tier.index();
            let Some(free) = self.dag.free_of[c.index()] else {
                continue;
            };
            let needs_more = self.dag.preds(free).iter().any(|p| !self.marked[p.index()]);
            // Each ALLOC is marked once, so `staging` lists each buffer once.
            if self.fixed[tier].is_none() && !self.marked[free.index()] && needs_more {
                by_tier[tier].push(c);
            }
        }
        by_tier
            .into_iter()
            .enumerate()
            .filter(|(_, pending)| !pending.is_empty())
            .min_by_key(|(t, pending)| (pending.len(), *t))
    }

    /// Explores each buffer of `pending` as the tier's live one at p, then none of them.
    fn branch(&mut self, tier: usize, pending: Vec<BufferId>, budget: u64) {
        for &e in &pending {
            // e is the tier's live buffer at p: every other one allocated in R was freed.
            let others: Vec<OpId> = self
                .staging
                .iter()
                .filter(|&&c| c != e && self.m.buffer(c).tier.index() == tier)
                .filter_map(|c| self.dag.free_of[c.index()])
                .collect();
            self.fixed[tier] = Some(e);
            self.explore(others, budget);
            self.fixed[tier] = None;
            if self.gave_up {
                return;
            }
        }
        // None of them is live at p: all were freed (the tier stays open for later ones).
        let all: Vec<OpId> = pending
            .iter()
            .filter_map(|c| self.dag.free_of[c.index()])
            .collect();
        self.explore(all, budget);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    /// Two output tiles (L0C, one at a time) read L1 tiles through MOVEs into L0A: b0 by both
    /// outputs, b1 by the first, b2 by the second.
    const TILES: &str = "module @m phase(parsed) {
       target { tiers L1 = 16, L0A = 8 l0, L0C = 8 l0 pipes P, Q spill_out Q, spill_in P, spill_cost = 10 + 1 * size l0_exclusive = true }
       buffer @b0 : L1[8] backed
       buffer @b1 : L1[8] backed
       buffer @b2 : L1[8] backed
       buffer @b3 : L0A[8]
       buffer @b4 : L0A[8]
       buffer @b5 : L0A[8]
       buffer @b6 : L0A[8]
       buffer @b7 : L0C[8]
       buffer @b8 : L0C[8]
       %0 = alloc @b0
       %1 = alloc @b1
       %2 = alloc @b2
       %3 = COPY_IN P 1 (@b0) after(%0)
       %4 = COPY_IN P 1 (@b1) after(%1)
       %5 = COPY_IN P 1 (@b2) after(%2)
       %6 = alloc @b3
       %7 = MOVE P 1 (@b3, @b0) after(%6, %3)
       %8 = alloc @b7
       %9 = MM Q 1 (@b7, @b3) after(%8, %7)
       %10 = free @b3 after(%9)
       %11 = alloc @b5
       %12 = MOVE P 1 (@b5, @b1) after(%11, %4)
       %13 = MM Q 1 (@b7, @b5) after(%12, %9)
       %14 = free @b5 after(%13)
       %15 = alloc @b4
       %16 = MOVE P 1 (@b4, @b0) after(%15, %3)
       %17 = alloc @b8
       %18 = MM Q 1 (@b8, @b4) after(%17, %16)
       %19 = free @b4 after(%18)
       %20 = alloc @b6
       %21 = MOVE P 1 (@b6, @b2) after(%20, %5)
       %22 = MM Q 1 (@b8, @b6) after(%21, %18)
       %23 = free @b6 after(%22)
       %24 = OUT P 1 (@b7) after(%13)
       %25 = OUT P 1 (@b8) after(%22)
       %26 = free @b7 after(%24)
       %27 = free @b8 after(%25)
       %28 = free @b0 after(%7, %16)
       %29 = free @b1 after(%12)
       %30 = free @b2 after(%21)
     }";

    #[test]
    fn the_first_free_of_a_tier_counts_what_its_readers_need() {
        let m = parse_module(TILES).expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        let ff = first_free(&m, &dag);
        // b1 can be freed first right after its one read, with only itself live: 8 bytes, and
        // 8 of 16 bytes fit without a spill. The staging tiers are not modelled.
        assert_eq!(ff.live, vec![8, 0, 0]);
        assert_eq!(ff.traffic, 0);
        // Without the L0 rule nothing changes here: b1's FREE needs only its read.
        let loose = parse_module(&TILES.replace("l0_exclusive = true", "l0_exclusive = false"))
            .expect("parses");
        let dag = Dag::of(&loose).expect("acyclic");
        assert_eq!(first_free(&loose, &dag).live[0], 8);
    }

    #[test]
    fn past_the_cap_unfinished_candidates_count_with_their_floors() {
        let m = parse_module(TILES).expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        let full = first_free(&m, &dag);
        assert!(!full.capped);
        let capped: Vec<FirstFree> = (0..40).map(|n| first_free_within(&m, &dag, n)).collect();
        // Never above the uncapped bound; nothing proved when not even the floors fit.
        assert!(capped.iter().all(|c| c.live[0] <= full.live[0]));
        assert_eq!((capped[0].live[0], capped[0].capped), (0, true));
        // Some caps fit the floors but not the search: b1's floor (its ancestors hold only b1,
        // 8 bytes) stands in for the unfinished candidates.
        assert!(
            capped.iter().any(|c| c.capped && c.live[0] == 8),
            "{capped:?}"
        );
    }
}
