//! `order-search`: chooses σ by searching with the memory planner in the loop, so that
//! `order-search{…},dlr{…},cpe{…}` gives exactly the plan the search scored.
//!
//! Layout, one concept per file: `canonical` renumbers the module along an order read off its
//! structure, the copy every stage before the final one works on; [`tasks`](self) groups ops
//! into the blocks L0 exclusivity keeps together; `realize` turns a task sequence into a legal,
//! L0-exclusive σ (the no-deadlock proof is in its header); `grid` detects task grids and the
//! curves over them; `family` reads the reverse depth-first task sequences off the task DAG's
//! structure; `nest` both loop nestings of nested task families (rows of a chain of state ×
//! their steps); `portfolio` lists the starting candidates (MPAS first); `prefetch` the makespan
//! objective's extra members (the beam-led op orders with their loads run ahead); `score`
//! measures candidates (search stage: DLR's scan and, for makespan, Freeze; final stage: the
//! real back end and the verifier);
//! `local` runs the late-acceptance chains, with `large`'s moves of whole cones and blocks and
//! `adopt`'s windows of structural sequences (root orders, loop nestings, grid curves);
//! `family_floor` the orders of the reverse depth-first family that run through the back end
//! after the final stage; `stages` the budget split, the portfolio's
//! scoring and ranking and the deterministic parallel map that the search and `lead` (the
//! makespan objective's traffic lead) share; [`options`], [`pass`], [`report`] (the
//! `lattice-bench search` table), `renumbered` (its `--renumber K` table) and [`time_limits`]
//! (its `--time-limits` table) are the user-facing side.
//!
//! The search: run MPAS's order through the real back end; build the canonical copy
//! (`canonical`), on which everything up to the final stage runs, MPAS's order mapped onto it,
//! so that every numbering of a module is searched alike; group the tasks, build and score the
//! portfolio (with the shuffle members where MPAS leads it, `stages::score_portfolio`); run
//! [`DEEP_CHAINS`] chains of local search ([`CHAINS`] for makespan), each from one of the best
//! members, on its own seed and share of the budget; then run the best distinct
//! orders through the real back end (on the module as given, their orders mapped back), in
//! order of promise, and keep the best by the final key.
//! The makespan objective also runs two *leads* (`Lead`): the traffic and the peak search's
//! portfolio scoring and first chain, exactly as those searches run them (same budget split,
//! start, seed and share) — the traffic lead's chain in the place of one of its own chains, the
//! peak lead's on top —, with each lead's best orders among its finalists; so its plan is never
//! slower than the traffic or peak objective's whenever that one comes from that search's first
//! chain or its portfolio without the shuffle members. The leads leave those out: they sample
//! MPAS's ties, and a lead chain that started from one would move the makespan plan by chance
//! (Conv_Case0: 455,753 → 457,266 cycles, the peak lead's chain from a shuffle instead of
//! MPAS); on the numbering test's 135 copies the makespan plan is never slower all the same
//! (docs/search.md). After the chains it also scores *prefetched* orders (`prefetch`: the
//! beam-led op orders and the two best candidates so far, with their loads run ahead) on top of
//! the budget, outside the ranking the chains start from, and adds the best two of each kind
//! to its finalists (their final-stage runs on top too, as the leads'; when chains ran, on
//! modules of at most `FAMILY_FLOOR_OPS` ops); so every chain and finalist is what it would be
//! without them, and the result is never slower. Last, on modules of at most
//! `FAMILY_FLOOR_OPS` ops, the *family floor* (`family_floor`): the reverse depth-first family's
//! orders, every feeder placement, through the back end under DLR's own key, outside the budget
//! (at most 20 runs), so the result is never worse than the family's best. Invariants:
//! - **Budget** ([`Budget`]): `auto` and `work:N` are work units ([`score`]) for the whole pass:
//!   the final stage is paid first (MPAS's run and as many other runs — a finalist under one of
//!   the victim keys the back end tries — as fit in half the budget), then grouping the tasks
//!   and building the portfolio, the portfolio is scored in order until the rest is spent (MPAS
//!   always), and each chain stops once its fixed share is spent. `N` is exactly `N` steps (the
//!   portfolio's members count; a portfolio larger than the budget is cut, MPAS kept), with
//!   the build and every final-stage run on top.
//! - **Determinism**: chains are independent and fixed in number, each with its own seed and
//!   share, work is a count of the algorithm's own steps, the portfolio is cut in member order,
//!   and results are combined in chain order, so threads only change the wall time.
//! - **Time limit** (`time-limit=T`, the one source of run-to-run variation): the whole pass ends
//!   within T seconds but for the step in progress. MPAS's order runs through the back end
//!   before anything else; then every stage before the final one stops at the point that leaves
//!   the other finalists' time (MPAS's run's per batch, at most half the limit): nothing is done
//!   past it, no portfolio member is built past it, a batch of members starts only while the
//!   longest batch so far (at first, MPAS's run, which a search-stage score never exceeds) fits
//!   before it, the chains stop at it; and each batch of finalists starts only while the time
//!   of the longest batch so far (at first, MPAS's run) is left.
//! - **Floor** (`floor`): a value of the objective no order and plan beats. Once MPAS's run
//!   meets it, the search returns MPAS's order; once a portfolio member meets it, no later member
//!   is scored and no chain runs; a chain stops once its own best meets it. Each check reads
//!   only results that come in a fixed order, so the stops are as deterministic as the budget.
//! - **Never worse than MPAS**: MPAS's order is always run through the back end, before any
//!   other, and the finalist kept has the smallest final key, so the result's objective is at
//!   most MPAS's under the same back end; nor, on modules of at most `FAMILY_FLOOR_OPS` ops and
//!   within a time limit's reach, than the best order of the reverse depth-first family.
//!
//! Cost: the budget's work units — for the makespan objective plus its leads' portfolio scoring
//! and chains and its prefetched orders' scoring, less the share of the chain the traffic lead
//! replaces — (plus, for a step budget, (budget) × (one realization or O(V) move + one score) +
//! finalists × back end), plus at most 20 back-end runs of the family floor on modules of at
//! most `FAMILY_FLOOR_OPS` ops, plus, outside the budget on modules of at most `BEAM_OPS` ops,
//! the two beam members' builds and an MPAS run along each (`beam`, `portfolio`) and, where
//! MPAS leads the portfolio, the shuffle members' shuffles and MPAS runs (`shuffle`,
//! `portfolio::Portfolio::shuffles`, on the turnless graph and fingerprints the portfolio's
//! build kept, which the chains use too; their scoring is within the budget), plus, where
//! chains run, the adopt moves' references, which the portfolio's build hands over (`adopt`:
//! the cost of copying the family, nest and grid members' sequences), plus the canonical copy's
//! walk, fingerprints and renumbering (O(ROUNDS · (V + E) log V + B log B)).

mod adopt;
mod beam;
mod canonical;
mod family;
mod family_floor;
mod floor;
mod grid;
mod large;
mod lead;
mod local;
mod memo;
mod moves;
mod nest;
pub mod options;
pub mod pass;
mod portfolio;
mod prefetch;
pub mod progress;
mod realize;
#[cfg(feature = "generate")]
pub mod renumbered;
mod repair;
pub mod report;
pub mod score;
mod shuffle;
mod stages;
mod tasks;
#[cfg(test)]
mod tests;
pub mod time_limits;

pub use options::{BackEnd, Budget, Objective, SearchOptions};
pub use pass::OrderSearch;
pub use progress::{Progress, Silent};
pub use score::Measure;

use crate::analysis::{bottom_levels, BottomLevels};
use crate::dlr::{DlrError, Victim};
use crate::order::graph::Graph;
use crate::order::{mpas_order, MpasOptions, OrderError};
use canonical::Canonical;
use family_floor::{family_orders, FAMILY_FLOOR_OPS};
use lattice::OptionType;
use lattice_lir::{Module, OpId, Phase};
use lead::{lead, Lead};
use local::{chain, Space};
use options::AUTO_WORK;
use portfolio::{portfolio, Portfolio};
use prefetch::{beam_led, prefetch_members};
use score::{key, value, Allowance, Evaluator, FinishError, Key};
use stages::{
    chain_seed, in_batches, parallel, score_members, score_portfolio, search_allowance,
    task_starts, Scored, Scoring,
};
use std::collections::HashSet;
use std::time::{Duration, Instant};
use tasks::Tasks;

/// How many of the best candidates after the chains the makespan objective also prefetches
/// (`prefetch`), beside the beam-led members.
const PREFETCHED_BEST: usize = 2;

/// The makespan objective's pools of prefetched orders (`prefetch`): the beam-led members' and
/// the best candidates', each with [`FINALISTS_PER_KEY`] finalists.
const PREFETCH_POOLS: usize = 2;

/// Local-search chains for the makespan objective (fixed, so the result does not depend on the
/// thread count). Its search-stage key (Freeze's timing) only stands in for CPE's makespan, which
/// ranks the finalists, so breadth pays: more chains give the final stage more distinct orders.
pub const CHAINS: usize = 4;
/// Local-search chains for the peak and traffic objectives, whose search-stage key is the final
/// one: depth pays. Each step of a chain builds on the last, so with the budget fixed a chain's
/// reach is its share; two chains, run side by side on the default two threads, reach twice as
/// far as four in the same wall time (FlashAttention_Case1 traffic 26,880 with four, 26,112 with
/// two; Conv_Case0 45,506 and 45,312; Matmul_Case1 313,088 and 312,832; docs/search.md).
pub const DEEP_CHAINS: usize = 2;
/// The makespan chain whose place the traffic lead's chain takes (see [`Lead`]): of the four,
/// the one that won none of the shipped cases (docs/search.md). The peak lead's chain runs on
/// top of the four: each of the others won a shipped case.
const LEAD_SLOT: usize = 2;
/// The objectives whose searches lead the makespan search (`lead`), in the order their
/// finalists join it.
const LEADS: [Objective; 2] = [Objective::Traffic, Objective::Peak];
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
    /// Search steps spent (portfolio and chains, the makespan objective's leads included).
    pub evaluations: u64,
    /// Work units spent (portfolio, chains and final stage, the leads included; see
    /// [`Budget`]).
    pub work: u64,
    /// Of `evaluations`, the makespan objective's leads' steps and its prefetched members'
    /// (`prefetch`): they come on top of the budget, and the progress told leaves them out.
    pub lead_evaluations: u64,
    /// Of `work`, the units the leads and the prefetched members spent (on top of the budget
    /// too).
    pub lead_work: u64,
    /// Back-end runs of the family floor (`family_floor.rs`), which runs outside the budget
    /// after the final stage; not in [`Searched::work`].
    pub floor_runs: u64,
    /// Times a chain improved on its best.
    pub improvements: u64,
    /// Best objective value (search stage) among the portfolio.
    pub portfolio_best: u64,
    /// Best objective value (search stage) after the chains.
    pub search_best: u64,
    /// Why the search stage ended before its budget was spent, if it did.
    pub ended: Ended,
    /// Wall time.
    pub time: Duration,
}

/// Why the search stage ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Its budget was spent (or its time limit reached).
    Budget,
    /// A plan met the floor (`floor`): no plan of any order beats it.
    Floor,
    /// Some chain's moves kept returning to orders it had scored (`memo`).
    Stale,
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
    /// A work budget beyond [`Budget::MAX_WORK`].
    #[error("budget=work:{units} is more than order-search allows ({max} work units: three times `auto`'s, about 15 s on two threads); use a smaller budget, or `budget=auto`")]
    WorkTooLarge {
        /// The budget asked for.
        units: u64,
        /// The most it may have.
        max: u64,
    },
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
    let objective = options.objective;
    let evaluator = Evaluator::new(&work, objective, &options.back_end);
    let floor = floor::floor(module, options.objective);
    let threads = options.threads.get() as usize;
    let deadline =
        (options.time_limit > 0).then(|| clock + Duration::from_secs(options.time_limit));
    let ops = module.ops.len();
    let budget = match options.budget {
        Budget::Auto => Allowance::Work(AUTO_WORK),
        Budget::Work(units) if units.get() > Budget::MAX_WORK => {
            let (units, max) = (units.get(), Budget::MAX_WORK);
            return Err(SearchError::WorkTooLarge { units, max });
        }
        Budget::Work(units) => Allowance::Work(units.get()),
        Budget::Steps(steps) => {
            let max = Budget::max_steps(options.objective, ops);
            if steps.get() > max {
                let steps = steps.get();
                return Err(SearchError::BudgetTooLarge { steps, ops, max });
            }
            Allowance::Steps(steps.get())
        }
    };
    progress.budget(budget.total(), budget.unit());
    // A work budget pays for the final stage first: MPAS's run and as many finalists as fit in
    // half of it. A step budget counts search steps only.
    // A final-stage job is one finalist under one victim key; MPAS's order under DLR's own key
    // is the first.
    let final_cost = budget.cost(0, evaluator.finish_work());
    let victims = options.back_end.victims();
    let total = budget;
    let (mut other_jobs, budget) = search_allowance(
        objective_finalists(options.objective),
        victims.len(),
        &evaluator,
        total,
    );
    // The makespan objective's leads and prefetched members (below) run their finalists on top,
    // when the half of a work budget kept for the final stage has room for them after the
    // objective's own.
    if options.objective == Objective::Makespan {
        let most = objective_finalists(Objective::Makespan)
            + (LEADS.len() + PREFETCH_POOLS) * FINALISTS_PER_KEY;
        other_jobs = search_allowance(most, victims.len(), &evaluator, total).0;
    }
    let build_work = evaluator.build_work();
    // MPAS's order through the back end first: under a time limit it is the plan always
    // returned, and its time tells how long each other finalist will take, so the stages
    // before the final one stop early enough for them (`rounds` batches of `threads`), or at
    // half the limit when they would not all fit in it (the final stage then runs as many as
    // the time left allows).
    let mpas_order = mpas_order(module, levels, &MpasOptions::default())?;
    let finishing = Instant::now();
    let mpas = evaluator.finish(&mpas_order).map_err(|e| match e {
        FinishError::Plan(e) => SearchError::Plan(e),
        other => SearchError::Finish(other),
    })?;
    let per_final = finishing.elapsed();
    progress.advance(final_cost);
    let rounds = other_jobs.div_ceil(threads) as u32;
    let reserve = (per_final * rounds).min(Duration::from_secs(options.time_limit) / 2);
    let stop = deadline.map(|d| d - reserve);
    let out_of_time = || stop.is_some_and(|d| Instant::now() >= d);
    let meets_floor = |m: &Measure| value(objective, m) <= floor;
    if out_of_time() || meets_floor(&mpas) {
        return Ok(Searched {
            order: mpas_order,
            measure: mpas,
            mpas,
            victim: victims[0],
            winner: "mpas".into(),
            floor_runs: 0,
            members: 0,
            evaluations: 0,
            work: evaluator.finish_work(),
            lead_evaluations: 0,
            lead_work: 0,
            improvements: 0,
            portfolio_best: u64::MAX,
            search_best: u64::MAX,
            ended: if meets_floor(&mpas) {
                Ended::Floor
            } else {
                Ended::Budget
            },
            time: clock.elapsed(),
        });
    }

    // The search stage runs on the canonical copy (`canonical`), with MPAS's order mapped onto
    // it; the final stage (finalists and family floor) on the module as given, so the plan is
    // the pipeline's. An order error of the copy's names the module's ops (`located`).
    let canonical = Canonical::of(module)?;
    let located = |e: OrderError| SearchError::Order(canonical.located(e));
    let given = module;
    let module = &canonical.copy;
    let levels = &BottomLevels(canonical.permuted(&levels.0));
    let copy_work = Module {
        phase: Phase::Scheduled,
        ..module.clone()
    };
    let final_evaluator = evaluator;
    let evaluator = Evaluator::new(&copy_work, objective, &options.back_end);
    let mpas_copy = canonical.to_copy(&mpas_order);

    // Grouping and the portfolio's build, each member only while there is time.
    let tasks = Tasks::of(module).map_err(located)?;
    let mut portfolio = portfolio(module, levels, &tasks, mpas_copy.clone(), &|| {
        !out_of_time()
    })
    .map_err(located)?;
    progress.advance(budget.cost(0, build_work));
    if let Allowance::Steps(steps) = budget {
        portfolio
            .members
            .truncate(usize::try_from(steps).unwrap_or(usize::MAX));
    }
    // The leads score the portfolio as built, without the shuffle members (see the header).
    let built = portfolio.members.len();
    let scoring = Scoring {
        evaluator: &evaluator,
        tasks: &tasks,
        threads,
        stop,
        per_final,
        floor,
        progress,
    };
    let scored = score_portfolio(&scoring, &mut portfolio, budget);
    let Portfolio {
        members,
        turnless,
        references,
    } = portfolio;
    let Scored {
        orders,
        scores,
        ranked,
        spent,
        met,
    } = scored;
    let portfolio_best = ranked.first().map_or(u64::MAX, |(k, _)| k[0]);

    // Chains, each with a fixed share of what is left; under a time limit they stop early
    // enough for the other finalists to run in the time that remains.
    let left = budget.minus(spent.of(budget));
    let most_chains = match objective {
        Objective::Makespan => CHAINS,
        Objective::Peak | Objective::Traffic => DEEP_CHAINS,
    };
    let chains = if met || ranked.is_empty() || left.is_empty() || out_of_time() {
        0
    } else {
        match left {
            Allowance::Steps(n) => (most_chains as u64).min(n) as usize,
            Allowance::Work(_) => most_chains,
        }
    };
    let task_starts = task_starts(&ranked, &members);
    // The makespan objective's leads: the traffic and peak searches' portfolios and first
    // chains. The traffic lead's chain takes `LEAD_SLOT`'s place; the peak lead's runs on top.
    let lead_evaluators = LEADS.map(|o| Evaluator::new(&copy_work, o, &options.back_end));
    let leads: Vec<Option<Lead>> = lead_evaluators
        .iter()
        .map(|lead_evaluator| {
            let runs = objective == Objective::Makespan
                && match lead_evaluator.objective {
                    Objective::Traffic => chains > LEAD_SLOT,
                    _ => chains > 0,
                };
            if !runs || out_of_time() {
                return None;
            }
            let lead_scoring = Scoring {
                evaluator: lead_evaluator,
                progress: &Silent,
                ..scoring
            };
            lead(
                &lead_scoring,
                module,
                &members[..built],
                &mpas,
                options,
                objective_finalists(lead_evaluator.objective),
                DEEP_CHAINS,
            )
        })
        .collect();
    let traffic_chain = LEADS.iter().zip(&leads).any(|(&o, lead)| {
        o == Objective::Traffic && lead.as_ref().is_some_and(|l| l.chain.is_some())
    });
    // The makespan chains that run: all but the traffic lead's slot when that lead has a chain.
    let slots: Vec<usize> = (0..chains)
        .filter(|&c| !traffic_chain || c != LEAD_SLOT)
        .collect();
    // The leads' chains, by lead; each lead has at most one.
    let lead_chains: Vec<usize> = (0..LEADS.len())
        .filter(|&l| leads[l].as_ref().is_some_and(|lead| lead.chain.is_some()))
        .collect();
    let (lead_found, found) = if slots.is_empty() && lead_chains.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        // The chains' precedence graph (without L0 turns): the portfolio's where it built one,
        // else built here, only when some chain runs (a time limit may leave none).
        let built_here;
        let graph = match &turnless {
            Some((graph, _)) => graph,
            None => {
                built_here = Graph::build_with(module, false).map_err(located)?;
                &built_here
            }
        };
        // The adopt moves' references (`adopt`) are the portfolio's; where a time limit cut
        // its build short of the task members there are none, and no adopt move.
        let space = Space {
            evaluator: &evaluator,
            tasks: &tasks,
            graph,
            references: &references,
            deadline: stop,
            progress,
            currency: budget,
            floor,
        };
        let lead_spaces: Vec<Option<Space>> = leads
            .iter()
            .zip(&lead_evaluators)
            .map(|(l, lead_evaluator)| {
                l.as_ref().map(|l| Space {
                    evaluator: lead_evaluator,
                    progress: &Silent,
                    floor: l.floor,
                    ..space
                })
            })
            .collect();
        // The leads' chains, the longest, first, so the others fill the other threads around
        // them.
        let skip = lead_chains.len();
        let mut all = parallel(threads, skip + slots.len(), |j| {
            if j < skip {
                let l = lead_chains[j];
                let (Some(lead), Some(space)) = (&leads[l], &lead_spaces[l]) else {
                    unreachable!("a lead chain's lead and space exist")
                };
                let start = lead.chain.as_ref().expect("a lead chain");
                return chain(
                    space,
                    start.tasks_from.clone(),
                    start.found.clone(),
                    start.seed,
                    start.allowance,
                );
            }
            let c = slots[j - skip];
            let tasks_from =
                (!task_starts.is_empty()).then(|| task_starts[c % task_starts.len()].clone());
            let (k, i) = ranked[c % ranked.len()];
            let start =
                local::Found::start(k, scores[i].unwrap_or_default(), orders[i].clone(), module);
            chain(
                &space,
                tasks_from,
                start,
                chain_seed(options.seed, c),
                left.share(c, chains),
            )
        });
        let found = all.split_off(skip);
        (all, found)
    };

    // Finalists: after MPAS's run under DLR's own key, the best distinct orders of the portfolio
    // and the chains under each victim key the back end tries, in order of promise; under a
    // time limit, as many as the time left allows.
    let mut pool: Vec<Entry<'_>> = ranked
        .iter()
        .map(|&(k, i)| {
            let measure = scores[i].unwrap_or_default();
            (k, measure, members[i].name.clone(), orders[i].as_slice())
        })
        .collect();
    pool.extend(
        found
            .iter()
            .zip(&slots)
            .map(|(f, c)| (f.key, f.measure, format!("chain-{c}"), f.order.as_slice())),
    );
    pool.sort_by_key(|entry| entry.0);
    let search_best = pool.first().map_or(u64::MAX, |entry| entry.0[0]);
    // The makespan objective's prefetched members (`prefetch`): the beam-led members' and the
    // best candidates' orders after the chains, with their loads run ahead, scored on top of
    // the budget like the leads, so that the chains start and spend as without them; the best
    // two of each kind join the finalists. Only when chains ran (as the leads) and where the
    // family floor runs (`FAMILY_FLOOR_OPS`), which bounds what is spent outside the budget.
    let prefetch = if objective == Objective::Makespan
        && chains > 0
        && ops <= FAMILY_FLOOR_OPS
        && !out_of_time()
    {
        let scored: HashSet<&[OpId]> = orders.iter().map(Vec::as_slice).collect();
        let best: Vec<(String, &[OpId])> = pool
            .iter()
            .take(PREFETCHED_BEST)
            .map(|entry| (entry.2.clone(), entry.3))
            .collect();
        let mut extra = Vec::new();
        prefetch_members(module, &beam_led(&members), &scored, &mut extra);
        let beam_led = extra.len();
        prefetch_members(module, &best, &scored, &mut extra);
        let silent = Scoring {
            progress: &Silent,
            ..scoring
        };
        let more = score_members(&silent, &extra, Allowance::Steps(extra.len() as u64));
        Some((extra, beam_led, more))
    } else {
        None
    };
    // Each lead's pool: its members by its key, and its chain's best.
    let lead_pools: Vec<Vec<Entry<'_>>> = leads
        .iter()
        .enumerate()
        .map(|(l, lead)| {
            let Some(lead) = lead else {
                return Vec::new();
            };
            let mut pool: Vec<Entry<'_>> = lead
                .ranked
                .iter()
                .map(|&(k, i)| {
                    let measure = lead.scores[i].unwrap_or_default();
                    (
                        k,
                        measure,
                        members[i].name.clone(),
                        lead.orders[i].as_slice(),
                    )
                })
                .collect();
            if let Some(f) = lead_chains
                .iter()
                .position(|&c| c == l)
                .map(|j| &lead_found[j])
            {
                let name = format!("{}-chain-0", LEADS[l].print_option());
                pool.push((f.key, f.measure, name, f.order.as_slice()));
            }
            pool.sort_by_key(|entry| entry.0);
            pool
        })
        .collect();
    let mut lead_pools = lead_pools;
    if let Some((extra, beam_led, more)) = &prefetch {
        // One pool per kind (the beam-led members' first), so neither takes the other's place.
        for kind in [0..*beam_led, *beam_led..more.orders.len()] {
            // `more.ranked` is by key already; the filter keeps that order.
            let pool: Vec<Entry<'_>> = more
                .ranked
                .iter()
                .filter(|(_, i)| kind.contains(i))
                .map(|&(k, i)| {
                    let measure = more.scores[i].unwrap_or_default();
                    (k, measure, extra[i].name.clone(), more.orders[i].as_slice())
                })
                .collect();
            lead_pools.push(pool);
        }
    }
    let finalists = finalists(objective, "mpas", &mpas_copy, &pool, &lead_pools);
    let jobs: Vec<(usize, Victim)> = (0..finalists.len())
        .flat_map(|f| victims.iter().map(move |&v| (f, v)))
        .skip(1)
        .take(other_jobs)
        .collect();
    // MPAS's order under DLR's own key came first, so ties keep it; `None` is that run.
    let (mut best_key, mut winner, mut measure) = (key(objective, &mpas), None, mpas);
    let mut per_batch = per_final;
    let done = in_batches(
        threads,
        jobs.len(),
        deadline,
        &mut per_batch,
        |j| {
            let (f, victim) = jobs[j];
            let back_end = options.back_end.with_victim(victim);
            final_evaluator
                .with_back_end(&back_end)
                .finish(&canonical.to_original(finalists[f].1))
        },
        |first, results| {
            progress.advance(results.len() as u64 * final_cost);
            for (i, result) in results.into_iter().enumerate() {
                let candidate = result?;
                let k = key(objective, &candidate);
                if k < best_key {
                    (best_key, winner, measure) = (k, Some(first + i), candidate);
                }
            }
            Ok::<(), SearchError>(())
        },
    )?;
    let (f, victim) = winner.map_or((0, victims[0]), |j| jobs[j]);
    let (mut order, mut victim, mut winner) = (
        canonical.to_original(finalists[f].1),
        victim,
        finalists[f].0.clone(),
    );
    // The family floor (family_floor.rs): the family's orders the final stage did not run under
    // DLR's own key, each through the back end under it. The family of the module as given,
    // not of the copy: where the fingerprints tie, the two families differ, and the floor is
    // the family a user measures (`renumbered::family_best`).
    let mut floor_runs = 0u64;
    if ops <= FAMILY_FLOOR_OPS {
        let ran: Vec<Vec<OpId>> = std::iter::once(finalists[0].1)
            .chain(
                jobs[..done]
                    .iter()
                    .filter(|j| j.1 == victims[0])
                    .map(|j| finalists[j.0].1),
            )
            .map(|o| canonical.to_original(o))
            .collect();
        let floor_orders: Vec<(String, Vec<OpId>)> = family_orders(given, &Tasks::of(given)?)?
            .into_iter()
            .filter(|(_, o)| !ran.contains(o))
            .collect();
        let runs = in_batches(
            threads,
            floor_orders.len(),
            deadline,
            &mut per_batch,
            |j| final_evaluator.finish(&floor_orders[j].1),
            |first, results| {
                for (i, result) in results.into_iter().enumerate() {
                    // An order DLR cannot plan is no candidate (the family's orders were never
                    // scored); any other failure of the back end is one.
                    let candidate = match result {
                        Ok(candidate) => candidate,
                        Err(FinishError::Plan(_)) => continue,
                        Err(other) => return Err(SearchError::Finish(other)),
                    };
                    let k = key(objective, &candidate);
                    if k < best_key {
                        let (name, o) = &floor_orders[first + i];
                        (best_key, measure) = (k, candidate);
                        (order, victim, winner) = (o.clone(), victims[0], name.clone());
                    }
                }
                Ok(())
            },
        )?;
        floor_runs = runs as u64;
    }
    let final_work = (1 + done as u64) * final_evaluator.finish_work();
    let prefetch_spent = prefetch
        .as_ref()
        .map(|(_, _, more)| more.spent)
        .unwrap_or_default();
    let lead_evaluations = leads.iter().flatten().map(|l| l.spent.steps).sum::<u64>()
        + lead_found.iter().map(|f| f.evaluations).sum::<u64>()
        + prefetch_spent.steps;
    let lead_work = leads.iter().flatten().map(|l| l.spent.work).sum::<u64>()
        + lead_found.iter().map(|f| f.work).sum::<u64>()
        + prefetch_spent.work;
    Ok(Searched {
        order,
        measure,
        mpas,
        victim,
        winner,
        floor_runs,
        members: orders.len() as u64,
        evaluations: spent.steps
            + found.iter().map(|f| f.evaluations).sum::<u64>()
            + lead_evaluations,
        work: build_work
            + spent.work
            + found.iter().map(|f| f.work).sum::<u64>()
            + final_work
            + lead_work,
        lead_evaluations,
        lead_work,
        improvements: found
            .iter()
            .chain(&lead_found)
            .map(|f| f.improvements)
            .sum(),
        portfolio_best,
        search_best,
        ended: if met || found.iter().any(|f| f.key[0] <= floor) {
            Ended::Floor
        } else if found.iter().any(|f| f.memo.went_stale()) {
            Ended::Stale
        } else {
            Ended::Budget
        },
        time: clock.elapsed(),
    })
}

/// A candidate for the final stage: its search-stage key and measure, its name, its order.
type Entry<'a> = (Key, Measure, String, &'a [OpId]);

/// The most finalists an objective's final stage runs, MPAS's order included.
fn objective_finalists(objective: Objective) -> usize {
    1 + FINALISTS
        + match objective {
            Objective::Makespan => 2 * FINALISTS_PER_KEY,
            Objective::Peak | Objective::Traffic => 0,
        }
}

/// The orders that go through the real back end: MPAS's first, then the best [`FINALISTS`]
/// distinct ones of `pool` (sorted by the search-stage key). For the makespan objective, whose
/// search stage ranks by Freeze's timing rather than CPE's, also the best [`FINALISTS_PER_KEY`]
/// by the traffic key and by the peak key, so the real back end can pick a plan the other two
/// objectives' rankings put first, and last the best [`FINALISTS_PER_KEY`] of each of `leads`
/// (the leads' pools, each sorted by its lead's key, in [`LEADS`] order).
fn finalists<'a>(
    objective: Objective,
    mpas_name: &str,
    mpas: &'a [OpId],
    pool: &[Entry<'a>],
    leads: &[Vec<Entry<'a>>],
) -> Vec<(String, &'a [OpId])> {
    let mut finalists: Vec<(String, &[OpId])> = vec![(mpas_name.to_string(), mpas)];
    let mut take = |ranking: &[&Entry<'a>], count: usize| {
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
        for lead in leads {
            take(&lead.iter().collect::<Vec<_>>(), FINALISTS_PER_KEY);
        }
    }
    finalists
}
