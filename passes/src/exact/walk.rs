//! The least traffic or makespan over all orders as the back end plans them: a depth-first
//! walk over every step sequence of the [`Space`] — every tightened order, hence every plan DLR
//! can make — including every order of the ALLOCs a step emits together (DLR places them in
//! that order). Each complete order goes through the back end: DLR's scan for traffic; DLR,
//! then CPE when the back end has it, for makespan (the pipeline's own numbers, as
//! `order-search`'s final stage measures them).
//!
//! A plan's traffic or makespan depends on the whole order (DLR looks ahead to next uses; CPE
//! times the whole plan), so no prefix can be merged with another: the walk is exhaustive. It
//! stops early once an order meets the order-independent lower bound, which no order beats.
//! For makespan, CPE runs only when it could win: CPE keeps DLR's plan, so its makespan is at
//! least the plan's own bound (the critical path of the planned graph, the busiest pipe with
//! its spill ops) — an order whose bound is not below the best makespan so far is passed over —
//! and at most Freeze's (σ's own pipe order), so when Freeze meets that bound it is CPE's.
//! Prefixes are pruned by [`crate::analysis::excess`]: once what every completion must spend on spills
//! (traffic; for makespan, a spill pipe's cycles on top of its ops') is no better than the best
//! order so far, no completion can win. For makespan they are also pruned by the bound of
//! [`Conflicts`]: the timing paths every completion has between the uses of buffers that cannot
//! share their tier, ordered by the prefix, and the least of it over the ways the pairs the
//! prefix leaves open can still be settled ([`split_bound`], searched until it reaches the best
//! makespan so far or [`STEP_BUDGET`] bounds). A makespan walk starts from an incumbent when
//! one is given (the best of `order-search`'s orders, [`super::seed`]), so that these bounds
//! prune from the first state; the walk still returns the best order of the space, the
//! incumbent only when none is better. A step that would make two buffers of a staging tier
//! live at once on an L0-exclusive target is not taken. Orders the back end cannot plan are skipped. Every prefix and complete order
//! visited counts as a state against the limit.
//!
//! Steps are tried by their makespan bound, lowest first (0 for traffic), then by the bytes
//! they leave live, fewest first, then by decision number, so that good orders come early and
//! prune the rest.
//!
//! Cost: O(P · (d + k + L log L)) for P prefixes visited and L live buffers, for makespan plus
//! at most [`STEP_BUDGET`] [`Conflicts`] bounds per step tried, plus one back-end run per
//! complete order that the bounds leave.

use super::cases::split_bound;
use super::conflict::Conflicts;
use super::space::{Set, Space, Step};
use super::ExactError;
use crate::analysis::excess::{position_cost, Cost};
use crate::dlr::plan;
use crate::search::score::Evaluator;
use crate::search::Objective;
use crate::timing::{evaluate, FixedGraph, PipeOrder};
use lattice_lir::{BufferId, Module, OpId, OpKind, PipeId};

/// The most bounds [`split_bound`] computes for one step tried.
const STEP_BUDGET: usize = 64;

/// The best order found.
pub struct Walked {
    /// The best order (the first found on a tie).
    pub order: Vec<OpId>,
    /// States visited.
    pub states: u64,
}

struct Walk<'a, 'm> {
    space: &'a Space<'m>,
    evaluator: &'a Evaluator<'m>,
    lower: u64,
    /// Buffers allocated and not freed by the current prefix.
    live: Vec<BufferId>,
    /// Makespan: each spill pipe with the cycles of the module's own ops on it.
    spill_pipes: Vec<(PipeId, u64)>,
    /// Makespan: the bound of a prefix from the buffers that cannot share a tier.
    conflicts: Option<&'a Conflicts<'a>>,
    limit: u64,
    states: u64,
    order: Vec<OpId>,
    best: Option<(u64, Vec<OpId>)>,
}

/// Walks every order; `conflicts` is the makespan's prefix bound, `seed` an incumbent (its
/// value and order, a step sequence of the space), `lower` a bound no order beats.
pub fn least_by_back_end<'a>(
    space: &'a Space<'_>,
    evaluator: &'a Evaluator<'_>,
    conflicts: Option<&'a Conflicts<'a>>,
    seed: Option<(u64, Vec<OpId>)>,
    lower: u64,
    limit: u64,
) -> Result<Walked, ExactError> {
    let m = space.module;
    let mut spill_pipes = vec![(m.target.spill_in_pipe, 0)];
    if m.target.spill_out_pipe != m.target.spill_in_pipe {
        spill_pipes.push((m.target.spill_out_pipe, 0));
    }
    for op in &m.ops {
        for (pipe, busy) in &mut spill_pipes {
            if op.kind.pipe() == Some(*pipe) {
                *busy += op.kind.cycles();
            }
        }
    }
    let mut walk = Walk {
        space,
        evaluator,
        lower,
        live: Vec::new(),
        spill_pipes,
        conflicts,
        limit,
        states: 0,
        order: Vec::with_capacity(space.module.ops.len()),
        best: seed,
    };
    if !walk.done() {
        walk.visit(0, lower)?;
    }
    let states = walk.states;
    match walk.best {
        Some((_, order)) => Ok(Walked { order, states }),
        None => Err(ExactError::NoExclusiveOrder),
    }
}

impl Walk<'_, '_> {
    /// Whether the best so far meets the bound (nothing left to find).
    fn done(&self) -> bool {
        self.best.as_ref().is_some_and(|(v, _)| *v <= self.lower)
    }

    /// Walks every completion of the prefix `done`, whose spills cost at least `floor`.
    fn visit(&mut self, done: Set, floor: u64) -> Result<(), ExactError> {
        self.states += 1;
        if self.states > self.limit {
            return Err(ExactError::TooManyStates { limit: self.limit });
        }
        if done == self.space.all() {
            self.score();
            return Ok(());
        }
        // Steps that leave the fewest bytes live first: a good order early prunes the rest.
        let mut ready: Vec<(u64, i128, usize, Step)> = Vec::new();
        for d in self.space.ready(done) {
            let Some(step) = self.space.step(done, d) else {
                continue;
            };
            let (up, down) = self.space.bytes(d, &step);
            let bound = self.conflict_bound(d, &step);
            ready.push((bound, i128::from(up) - i128::from(down), d, step));
        }
        ready.sort_by_key(|&(bound, net, d, _)| (bound, net, d));
        for (bound, _, d, step) in ready {
            let before = self.live.clone();
            let own = self.space.ops[d];
            let m = self.space.module;
            let starts = step.allocs.iter().chain([&own]);
            for &a in starts.filter(|&&a| matches!(m.op(a).kind, OpKind::Alloc { .. })) {
                self.live.push(m.op(a).kind.buffers()[0]);
            }
            let floor = floor.max(bound).max(self.position_bound(own));
            if self.best.as_ref().is_some_and(|(b, _)| floor >= *b) {
                self.live = before;
                continue;
            }
            for &f in step.frees.iter().chain([&own]) {
                if let OpKind::Free { buffer } = m.op(f).kind {
                    self.live.retain(|&b| b != buffer);
                }
            }
            let mut allocs = step.allocs.clone();
            let mut perms = permutations(&mut allocs);
            while let Some(p) = perms.next_order() {
                let mark = self.order.len();
                self.space.emit(d, p, &step.frees, &mut self.order);
                self.visit(done | 1u128 << d, floor)?;
                self.order.truncate(mark);
                if self.done() {
                    self.live = before;
                    return Ok(());
                }
            }
            self.live = before;
        }
        Ok(())
    }

    /// Makespan: the bound of the buffers that cannot share a tier over every completion of the
    /// current prefix followed by step `d` (the same for every order of its ALLOCs: they all
    /// precede its FREEs); 0 for the other objectives.
    fn conflict_bound(&mut self, d: usize, step: &Step) -> u64 {
        let Some(conflicts) = self.conflicts else {
            return 0;
        };
        let mark = self.order.len();
        self.space
            .emit(d, &step.allocs, &step.frees, &mut self.order);
        let threshold = self.best.as_ref().map_or(u64::MAX, |b| b.0);
        let bound = split_bound(conflicts, &self.order, threshold, STEP_BUDGET);
        self.order.truncate(mark);
        bound
    }

    /// The objective's bound from the spills forced at `at`'s position in the current prefix.
    fn position_bound(&self, at: OpId) -> u64 {
        let m = self.space.module;
        match self.evaluator.objective {
            Objective::Makespan => self
                .spill_pipes
                .iter()
                .map(|&(pipe, busy)| busy + position_cost(m, &self.live, at, Cost::Cycles(pipe)))
                .max()
                .unwrap_or(0),
            _ => position_cost(m, &self.live, at, Cost::Traffic),
        }
    }

    fn score(&mut self) {
        let e = self.evaluator;
        let value = match e.objective {
            Objective::Makespan => self.makespan(),
            _ => e.measure(&self.order, None).0.map(|m| m.traffic),
        };
        let Some(value) = value else { return };
        if self.best.as_ref().is_none_or(|(b, _)| value < *b) {
            self.best = Some((value, self.order.clone()));
        }
    }

    /// CPE's makespan of the current order, or `None` when it cannot beat the best so far or
    /// the back end cannot plan it.
    fn makespan(&self) -> Option<u64> {
        let e = self.evaluator;
        let scheduled = Module {
            schedule: self.order.clone(),
            ..e.module.clone()
        };
        let planned = plan(&scheduled, &e.back_end.dlr).ok()?.module;
        let graph = FixedGraph::of(&planned);
        let mut busy = vec![0u64; planned.target.pipes.len()];
        for op in &planned.ops {
            if let Some(pipe) = op.kind.pipe() {
                busy[pipe.index()] = busy[pipe.index()].saturating_add(op.kind.cycles());
            }
        }
        let lower = evaluate(&graph, None)
            .ok()?
            .makespan
            .max(busy.into_iter().max().unwrap_or(0));
        if self.best.as_ref().is_some_and(|(b, _)| lower >= *b) {
            return None;
        }
        let pipes = PipeOrder::of_sigma(&graph, &planned.schedule);
        let freeze = evaluate(&graph, Some(&pipes)).ok()?.makespan;
        if freeze <= lower || e.back_end.cpe.is_none() {
            return Some(freeze);
        }
        e.finish(&self.order).ok().map(|m| m.makespan)
    }
}

/// Every order of a few ops, in lexicographic order of their first positions, the slice as given
/// first.
struct Permutations<'a> {
    items: &'a mut [OpId],
    index: Vec<usize>,
    started: bool,
}

fn permutations(items: &mut [OpId]) -> Permutations<'_> {
    let index = (0..items.len()).collect();
    Permutations {
        items,
        index,
        started: false,
    }
}

impl Permutations<'_> {
    /// The next order of the items (`None` after the last).
    fn next_order(&mut self) -> Option<&[OpId]> {
        if self.started {
            // Next lexicographic permutation of `index`, applied to `items` alike.
            let n = self.index.len();
            let i = (1..n).rev().find(|&i| self.index[i - 1] < self.index[i])?;
            let j = (i..n).rev().find(|&j| self.index[j] > self.index[i - 1])?;
            self.index.swap(i - 1, j);
            self.items.swap(i - 1, j);
            self.index[i..].reverse();
            self.items[i..].reverse();
        }
        self.started = true;
        Some(self.items)
    }
}
