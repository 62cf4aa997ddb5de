//! `order-search`: chooses σ by searching with the memory planner in the loop, so that
//! `order-search{…},dlr{…},cpe{…}` gives exactly the plan the search scored.
//!
//! Layout, one concept per file: [`tasks`](self) groups ops into the blocks L0 exclusivity keeps
//! together; `realize` turns a task sequence into a legal, L0-exclusive σ (the no-deadlock proof
//! is in its header); `grid` detects task grids and the curves over them; `portfolio` lists the
//! starting candidates (MPAS first); `score` measures candidates (search stage: DLR's scan and,
//! for makespan, Freeze; final stage: the real back end and the verifier); `local` runs the
//! late-acceptance chains; [`options`], [`pass`] and [`report`] (the `lattice-bench search`
//! table) are the user-facing side.
//!
//! The search: score the portfolio; run [`CHAINS`] chains of local search, each from one of the
//! best members, on its own seed and share of the budget; then run the best [`FINALISTS`]
//! distinct orders and MPAS's through the real back end and keep the best by the final key.
//! Invariants:
//! - **Budget**: exactly `budget` steps when there is no time limit (the portfolio's members
//!   count; a portfolio larger than the budget is cut, MPAS kept).
//! - **Determinism**: chains are independent and fixed in number, each with its own seed, and
//!   results are combined in chain order, so threads only change the wall time. A time limit
//!   stops chains early and is the one source of run-to-run variation (documented).
//! - **Never worse than MPAS**: MPAS's order is always a finalist, and the finalist kept has the
//!   smallest final key, so the result's objective is at most MPAS's under the same back end.
//!
//! Cost: (budget) × (one realization or O(V) move + one score) + finalists × back end.

mod grid;
mod local;
pub mod options;
pub mod pass;
mod portfolio;
pub mod progress;
mod realize;
mod repair;
pub mod report;
pub mod score;
mod tasks;
#[cfg(test)]
mod tests;

pub use options::{BackEnd, Budget, Objective, SearchOptions};
pub use pass::OrderSearch;
pub use progress::{Progress, Silent};
pub use score::Measure;

use crate::analysis::{bottom_levels, BottomLevels};
use crate::dlr::{plan, DlrError, Victim};
use crate::order::graph::Graph;
use crate::order::OrderError;
use lattice_lir::{Module, OpId, Phase};
use local::{chain, Space};
use portfolio::{portfolio, Start};
use realize::{realize, TaskOrder};
use score::{key, Evaluator, FinishError, Key};
use std::time::{Duration, Instant};
use tasks::Tasks;

/// Local-search chains (fixed, so the result does not depend on the thread count).
pub const CHAINS: usize = 4;
/// Orders besides MPAS's that go through the real back end at the end.
pub const FINALISTS: usize = 4;
/// For the makespan objective, further finalists: the best by the traffic key and by the peak
/// key, each this many.
pub const FINALISTS_PER_KEY: usize = 2;

/// What a search found, with the numbers of the real back end.
#[derive(Clone, Debug)]
pub struct Searched {
    /// The chosen σ (every op once; legal and L0-exclusive).
    pub order: Vec<OpId>,
    /// The pipeline's metrics for it.
    pub measure: Measure,
    /// The pipeline's metrics for MPAS's order (under DLR's own victim key).
    pub mpas: Measure,
    /// The victim key the back end's DLR planned the chosen order with (DLR's own unless the
    /// back end searches the key, [`BackEnd::victim_search`]).
    pub victim: Victim,
    /// Which candidate the winner came from: a portfolio member's name, or `chain-K`.
    pub winner: String,
    /// Portfolio members scored.
    pub members: u64,
    /// Search steps spent (portfolio and chains).
    pub evaluations: u64,
    /// Times a chain improved on its best.
    pub improvements: u64,
    /// Best objective value (search stage) among the portfolio.
    pub portfolio_best: u64,
    /// Best objective value (search stage) after the chains.
    pub search_best: u64,
    /// Wall time.
    pub time: Duration,
}

/// Why a search failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    /// The module already has a memory plan.
    #[error("order-search cannot reorder a `{0}` module: its memory plan is bound to the current order; search before planning")]
    Phase(Phase),
    /// No order could be built (the module's edges form a cycle, or an op shares an L0 tier).
    #[error(transparent)]
    Order(#[from] OrderError),
    /// Not even MPAS's order can be planned.
    #[error(transparent)]
    Plan(#[from] DlrError),
    /// The back end failed on a finalist.
    #[error(transparent)]
    Finish(#[from] FinishError),
    /// An explicit budget beyond [`Budget::max_steps`] for this module.
    #[error("budget={steps} is more than order-search allows on a module of {ops} ops (at most {max} steps for this objective: three times `auto`'s, which keeps one thread's search of the largest shipped case under a minute); use a smaller budget, or `budget=auto`")]
    BudgetTooLarge {
        /// The budget asked for.
        steps: u64,
        /// The module's ops.
        ops: usize,
        /// The most it may have.
        max: u64,
    },
}

impl From<SearchError> for lattice::PassError {
    fn from(e: SearchError) -> Self {
        match e {
            SearchError::Order(e) => e.into(),
            SearchError::Plan(e) | SearchError::Finish(FinishError::Plan(e)) => e.into(),
            other => lattice::PassError::new(other.to_string()),
        }
    }
}

/// Searches an order of `module` (unplanned, structurally verified), telling `progress` its
/// budget and each step spent.
pub fn search(
    module: &Module,
    options: &SearchOptions,
    progress: &dyn Progress,
) -> Result<Searched, SearchError> {
    search_with(module, &bottom_levels(module), options, progress)
}

/// [`search`] with the module's bottom levels already computed.
pub fn search_with(
    module: &Module,
    levels: &BottomLevels,
    options: &SearchOptions,
    progress: &dyn Progress,
) -> Result<Searched, SearchError> {
    let clock = Instant::now();
    if module.phase.has_plan() {
        return Err(SearchError::Phase(module.phase));
    }
    let work = Module {
        phase: Phase::Scheduled,
        ..module.clone()
    };
    let evaluator = Evaluator {
        module: &work,
        objective: options.objective,
        back_end: &options.back_end,
    };
    let threads = options.threads.get() as usize;
    let deadline =
        (options.time_limit > 0).then(|| clock + Duration::from_secs(options.time_limit));

    if let Budget::Steps(steps) = options.budget {
        let max = Budget::max_steps(options.objective, module.ops.len());
        if steps.get() > max {
            let (steps, ops) = (steps.get(), module.ops.len());
            return Err(SearchError::BudgetTooLarge { steps, ops, max });
        }
    }
    let tasks = Tasks::of(module)?;
    let mut members = portfolio(module, levels, &tasks)?;
    let budget = options
        .budget
        .steps(options.objective, module.ops.len(), members.len());
    members.truncate(usize::try_from(budget).unwrap_or(usize::MAX));
    progress.budget(budget, "steps");
    let orders: Vec<Vec<OpId>> = members
        .iter()
        .map(|(_, start)| match start {
            Start::Ops(order) => order.clone(),
            Start::Tasks(t) => realize(&tasks, t),
        })
        .collect();
    let scores = parallel(threads, orders.len(), |i| {
        progress.advance(1);
        evaluator.measure(&orders[i], None)
    });
    if scores[0].is_none() {
        // MPAS's order did not score: DLR's error says why (a request no eviction can serve).
        let mpas = Module {
            schedule: orders[0].clone(),
            ..work.clone()
        };
        plan(&mpas, &options.back_end.dlr)?;
    }
    let objective = options.objective;
    let mut ranked: Vec<(Key, usize)> = scores
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|m| (key(objective, &m), i)))
        .collect();
    ranked.sort();
    let portfolio_best = ranked.first().map_or(u64::MAX, |(k, _)| k[0]);

    // Chains.
    let spent = orders.len() as u64;
    let left = budget - spent;
    let chains = if ranked.is_empty() {
        0
    } else {
        (CHAINS as u64).min(left) as usize
    };
    let task_starts: Vec<(TaskOrder, Key)> = ranked
        .iter()
        .filter_map(|&(k, i)| match &members[i].1 {
            Start::Tasks(t) => Some((t.clone(), k)),
            Start::Ops(_) => None,
        })
        .collect();
    let graph = Graph::build_with(module, false)?;
    let space = Space {
        evaluator: &evaluator,
        tasks: &tasks,
        graph: &graph,
        deadline,
        progress,
    };
    let found = parallel(threads, chains, |c| {
        let share = left / chains as u64 + u64::from((c as u64) < left % chains as u64);
        let tasks_from =
            (!task_starts.is_empty()).then(|| task_starts[c % task_starts.len()].clone());
        let (k, i) = ranked[c % ranked.len()];
        let start = local::Found {
            key: k,
            measure: scores[i].unwrap_or_default(),
            order: orders[i].clone(),
            evaluations: 0,
            improvements: 0,
        };
        let seed = options.seed ^ (c as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        chain(&space, tasks_from, start, seed, share)
    });

    // Finalists: MPAS, then the best distinct orders of the portfolio and the chains.
    let mut pool: Vec<(Key, Measure, String, &[OpId])> = ranked
        .iter()
        .map(|&(k, i)| {
            let measure = scores[i].unwrap_or_default();
            (k, measure, members[i].0.clone(), orders[i].as_slice())
        })
        .collect();
    pool.extend(
        found
            .iter()
            .enumerate()
            .map(|(c, f)| (f.key, f.measure, format!("chain-{c}"), f.order.as_slice())),
    );
    pool.sort_by_key(|entry| entry.0);
    let search_best = pool.first().map_or(u64::MAX, |entry| entry.0[0]);
    let finalists = finalists(objective, &members[0].0, &orders[0], &pool);
    let victims = options.back_end.victims();
    let jobs: Vec<(usize, Victim)> = (0..finalists.len())
        .flat_map(|f| victims.iter().map(move |&v| (f, v)))
        .collect();
    let finished = parallel(threads, jobs.len(), |j| {
        let (f, victim) = jobs[j];
        let back_end = options.back_end.with_victim(victim);
        let evaluator = Evaluator {
            back_end: &back_end,
            ..evaluator
        };
        evaluator.finish(finalists[f].1)
    });
    // MPAS's order under DLR's own key comes first, so ties keep it.
    let mut best: Option<(Key, usize)> = None;
    let mut measures = Vec::with_capacity(jobs.len());
    for (j, result) in finished.into_iter().enumerate() {
        let candidate = result?;
        let k = key(objective, &candidate);
        if best.is_none_or(|(b, _)| k < b) {
            best = Some((k, j));
        }
        measures.push(candidate);
    }
    let winner = best.map_or(0, |(_, j)| j);
    let (f, victim) = jobs[winner];
    Ok(Searched {
        order: finalists[f].1.to_vec(),
        measure: measures[winner],
        mpas: measures[0],
        victim,
        winner: finalists[f].0.clone(),
        members: orders.len() as u64,
        evaluations: spent + found.iter().map(|f| f.evaluations).sum::<u64>(),
        improvements: found.iter().map(|f| f.improvements).sum(),
        portfolio_best,
        search_best,
        time: clock.elapsed(),
    })
}

/// The orders that go through the real back end: MPAS's first, then the best [`FINALISTS`]
/// distinct ones of `pool` (sorted by the search-stage key). For the makespan objective, whose
/// search stage ranks by Freeze's timing rather than CPE's, also the best [`FINALISTS_PER_KEY`]
/// by the traffic key and by the peak key, so the real back end can pick a plan the other two
/// objectives' rankings put first.
fn finalists<'a>(
    objective: Objective,
    mpas_name: &str,
    mpas: &'a [OpId],
    pool: &[(Key, Measure, String, &'a [OpId])],
) -> Vec<(String, &'a [OpId])> {
    let mut finalists: Vec<(String, &[OpId])> = vec![(mpas_name.to_string(), mpas)];
    let mut take = |ranking: &[&(Key, Measure, String, &'a [OpId])], count: usize| {
        let mut taken = 0;
        for (_, _, name, order) in ranking {
            if taken == count {
                break;
            }
            if finalists.iter().all(|(_, o)| o != order) {
                finalists.push((name.clone(), order));
                taken += 1;
            }
        }
    };
    let by_search: Vec<_> = pool.iter().collect();
    take(&by_search, FINALISTS);
    if objective == Objective::Makespan {
        for other in [Objective::Traffic, Objective::Peak] {
            let mut ranking: Vec<_> = pool.iter().collect();
            ranking.sort_by_key(|entry| key(other, &entry.1));
            take(&ranking, FINALISTS_PER_KEY);
        }
    }
    finalists
}

/// `f(0..n)` on up to `threads` threads (and no more than the host gives a pass,
/// `lattice::parallel`), results in index order (so the thread count changes nothing but the
/// wall time).
fn parallel<T: Send>(threads: usize, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, n.max(1)).min(lattice::parallel::threads());
    if threads == 1 {
        return (0..n).map(&f).collect();
    }
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    // One worker per thread over every threads-th index; a panic of `f` reaches the caller.
    let done = lattice::parallel::map(threads, |t| {
        (t..n)
            .step_by(threads)
            .map(|i| (i, f(i)))
            .collect::<Vec<_>>()
    });
    for (i, value) in done.into_iter().flatten() {
        slots[i] = Some(value);
    }
    slots.into_iter().flatten().collect()
}
