//! The stages `order-search` runs for its own objective and for the makespan objective's
//! leads (`super::lead`) alike: the split of a budget between the search and the final stage,
//! the portfolio scored in member order (for the search's own objective, with the shuffle
//! members where MPAS leads it, scored after the others and appended to their scoring,
//! [`Scored::append`]; [`Scoring`] holds what every scoring shares, the leads' and the
//! prefetched members' too), its ranking, the chains' starts and seeds, the deterministic
//! parallel map they run on, and the back-end runs in batches that a time limit stops (the
//! final stage's and the family floor's). Invariant: every result comes in member or index
//! order, so the thread count changes only the wall time.
//!
//! Cost: scoring is one realization and one search-stage score per member (and, where MPAS
//! leads, building the shuffle members); ranking O(M log M) for M members; the rest O(1) or
//! O(n) in what it is given.

use super::options::Objective;
use super::portfolio::{Member, Portfolio, Start};
use super::progress::Progress;
use super::realize::{realize, TaskOrder};
use super::score::{key, realize_work, value, Allowance, Evaluator, Key, Measure, Spent};
use super::tasks::Tasks;
use lattice_lir::OpId;
use std::time::{Duration, Instant};

/// How many final-stage jobs besides MPAS's first run a search with at most `most_finalists`
/// finalists, each under `victims` keys, runs, and what is left of `budget` for the search
/// stage: a work budget pays for the final stage first (MPAS's run and as many other jobs as
/// fit in half of it), then for grouping the tasks and building the portfolio; a step budget
/// counts search steps only.
pub(super) fn search_allowance(
    most_finalists: usize,
    victims: usize,
    evaluator: &Evaluator<'_>,
    budget: Allowance,
) -> (usize, Allowance) {
    let most_others = (most_finalists * victims - 1) as u64;
    match budget {
        Allowance::Work(units) => {
            let each = evaluator.finish_work();
            let others = (units / 2 / each.max(1)).saturating_sub(1).min(most_others);
            let left = units.saturating_sub((1 + others) * each);
            (
                others as usize,
                Allowance::Work(left.saturating_sub(evaluator.build_work())),
            )
        }
        Allowance::Steps(_) => (most_others as usize, budget),
    }
}

/// A portfolio scored in member order.
pub(super) struct Scored {
    /// Each scored member's order.
    pub(super) orders: Vec<Vec<OpId>>,
    /// Its search-stage measure (`None`: infeasible).
    pub(super) scores: Vec<Option<Measure>>,
    /// The feasible members by the objective's key, best first ([`rank`]): (key, index into
    /// `orders` and `scores`).
    pub(super) ranked: Vec<(Key, usize)>,
    pub(super) spent: Spent,
    /// Whether the last member scored meets the floor (no later one is scored, no chain runs).
    pub(super) met: bool,
}

impl Scored {
    /// Appends `more`, the members scored right after all of `self`'s (`more`'s member `i` is
    /// member `self.orders.len() + i` here): its orders and scores after these, its ranking
    /// merged into this one with its members renumbered so, what it spent added, and its `met`
    /// (its last member, if any, is the last scored now). `self`'s last member must not meet
    /// the floor: none is scored after one that does.
    pub(super) fn append(&mut self, more: Scored) {
        debug_assert!(
            !self.met,
            "a member was scored after one that meets the floor"
        );
        let first = self.orders.len();
        self.orders.extend(more.orders);
        self.scores.extend(more.scores);
        // Both rankings are sorted by (key, member), and every appended member comes after
        // `self`'s, so the sort merges the two runs into the ranking of all the members.
        let shifted = more.ranked.into_iter().map(|(k, i)| (k, first + i));
        self.ranked.extend(shifted);
        self.ranked.sort();
        self.spent.steps += more.spent.steps;
        self.spent.work += more.spent.work;
        // `self.met` is false, so where `more` scored nothing (and so met nothing) it stays so.
        self.met = more.met;
    }
}

/// What every scoring of members shares: the evaluator (and so the objective), the tasks a
/// task order is realized with, the threads, when to stop (`stop`; `per_final`, a back-end
/// run's time, the first batch's estimate), the floor, and whom to tell each step.
#[derive(Clone, Copy)]
pub(super) struct Scoring<'a, 'm> {
    pub(super) evaluator: &'a Evaluator<'m>,
    pub(super) tasks: &'a Tasks,
    pub(super) threads: usize,
    pub(super) stop: Option<Instant>,
    pub(super) per_final: Duration,
    pub(super) floor: u64,
    pub(super) progress: &'a dyn Progress,
}

/// Scores `members` in batches of `scoring.threads` in member order, until `budget` is spent
/// (the first member always) or a member meets the floor, or, under a time limit, while the
/// longest batch so far (at first `per_final`, a back-end run, which a search-stage score never
/// exceeds) still fits before `stop`. Members past the budget or past one that meets the floor
/// are dropped, so the cut does not depend on the batch size.
pub(super) fn score_members(
    scoring: &Scoring<'_, '_>,
    members: &[Member],
    budget: Allowance,
) -> Scored {
    let Scoring {
        evaluator,
        tasks,
        threads,
        stop,
        per_final,
        floor,
        progress,
    } = *scoring;
    let mut scored = Scored {
        orders: Vec::with_capacity(members.len()),
        scores: Vec::with_capacity(members.len()),
        ranked: Vec::new(),
        spent: Spent::default(),
        met: false,
    };
    let mut longest: Option<Duration> = None;
    while !scored.met
        && scored.orders.len() < members.len()
        && (scored.orders.is_empty() || budget.allows(scored.spent))
    {
        if stop.is_some_and(|d| Instant::now() + longest.unwrap_or(per_final) > d) {
            break;
        }
        let first = scored.orders.len();
        let started = Instant::now();
        let batch = parallel(threads, threads.min(members.len() - first), |i| {
            let (order, realized) = match &members[first + i].start {
                Start::Ops(order) => (order.clone(), 0),
                Start::Tasks(t) => (realize(tasks, t), realize_work(evaluator.module)),
            };
            let (measure, units) = evaluator.measure(&order, None);
            (order, measure, units + realized)
        });
        longest = longest.max(Some(started.elapsed()));
        for (order, measure, units) in batch {
            if scored.met || (!scored.orders.is_empty() && !budget.allows(scored.spent)) {
                break;
            }
            scored.met = measure
                .as_ref()
                .is_some_and(|m| value(evaluator.objective, m) <= floor);
            scored.spent.steps += 1;
            scored.spent.work += units;
            progress.advance(budget.cost(1, units));
            scored.orders.push(order);
            scored.scores.push(measure);
        }
    }
    scored.ranked = rank(evaluator.objective, &scored.scores);
    scored
}

/// [`score_members`] on `portfolio`'s members, then, when MPAS (member 0) leads the ranking
/// (no member's key beats its own) and neither the budget, the floor nor a time limit has ended
/// the scoring, the shuffle members ([`Portfolio::shuffles`]) appended to them and scored with
/// what is left. Why: where no member built from the structure beats MPAS, MPAS's tie-breaks
/// and L0 turns decide the plan, and those follow the input's numbering; elsewhere the
/// portfolio, and so every chain's start, is as without them. (Asking that no member even tie
/// MPAS's value would leave out modules where an order that follows the numbering, such as
/// `sink-dfs`, happens to tie it: gen-resnet-n400-s3 numbered by MPAS.)
pub(super) fn score_portfolio(
    scoring: &Scoring<'_, '_>,
    portfolio: &mut Portfolio<'_>,
    budget: Allowance,
) -> Scored {
    let mut scored = score_members(scoring, &portfolio.members, budget);
    // No member's key beats MPAS's (ties: member order, MPAS first).
    let mpas_leads = scored.ranked.first().is_some_and(|&(_, i)| i == 0);
    let left = budget.minus(scored.spent.of(budget));
    let in_time = || scoring.stop.is_none_or(|d| Instant::now() < d);
    let first = portfolio.members.len();
    if scored.met || !mpas_leads || scored.orders.len() < first || left.is_empty() {
        return scored;
    }
    let shuffles = portfolio.shuffles(&in_time);
    portfolio.members.extend(shuffles);
    scored.append(score_members(scoring, &portfolio.members[first..], left));
    scored
}

/// The scored members by `objective`'s key, best first (ties: member order).
fn rank(objective: Objective, scores: &[Option<Measure>]) -> Vec<(Key, usize)> {
    let mut ranked: Vec<(Key, usize)> = scores
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|m| (key(objective, &m), i)))
        .collect();
    ranked.sort();
    ranked
}

/// The task sequences among `ranked` members, in rank order: the chains' task-phase starts.
pub(super) fn task_starts(ranked: &[(Key, usize)], members: &[Member]) -> Vec<(TaskOrder, Key)> {
    ranked
        .iter()
        .filter_map(|&(k, i)| match &members[i].start {
            Start::Tasks(t) => Some((t.clone(), k)),
            Start::Ops(_) => None,
        })
        .collect()
}

/// Chain `c`'s seed.
pub(super) fn chain_seed(seed: u64, c: usize) -> u64 {
    seed ^ (c as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// `f(0..n)` on up to `threads` threads (and no more than the host gives a pass,
/// `lattice::parallel`), results in index order (so the thread count changes nothing but the
/// wall time).
pub(super) fn parallel<T: Send>(threads: usize, n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, n.max(1)).min(lattice::parallel::threads());
    if threads == 1 {
        return (0..n).map(&f).collect();
    }
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    // Each worker takes the next index not yet taken, so a long job (the traffic lead's chain)
    // does not hold back the jobs queued behind it on its thread; a panic of `f` reaches the
    // caller.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = lattice::parallel::map(threads, |_| {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= n {
                break mine;
            }
            mine.push((i, f(i)));
        }
    });
    for (i, value) in done.into_iter().flatten() {
        slots[i] = Some(value);
    }
    slots.into_iter().flatten().collect()
}

/// Runs `job(0..n)` on up to `threads` threads in batches of `threads`, each batch started only
/// while the longest batch so far (`per_batch`, which this raises; a batch of runs at once can
/// take longer than one run alone on a loaded machine) still fits before `deadline`; hands each
/// batch's results, with the index of its first job, to `take` in index order. Returns how many
/// jobs ran, or `take`'s first error.
pub(super) fn in_batches<T: Send, E>(
    threads: usize,
    n: usize,
    deadline: Option<Instant>,
    per_batch: &mut Duration,
    job: impl Fn(usize) -> T + Sync,
    mut take: impl FnMut(usize, Vec<T>) -> Result<(), E>,
) -> Result<usize, E> {
    let mut done = 0;
    while done < n {
        if deadline.is_some_and(|d| Instant::now() + *per_batch > d) {
            break;
        }
        let batch = threads.min(n - done);
        let started = Instant::now();
        let results = parallel(threads, batch, |i| job(done + i));
        *per_batch = (*per_batch).max(started.elapsed());
        take(done, results)?;
        done += batch;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scoring of members with these traffic values (`None`: infeasible), as
    /// [`score_members`] leaves it.
    fn scored(traffic: &[Option<u64>], met: bool) -> Scored {
        let scores: Vec<Option<Measure>> = traffic
            .iter()
            .map(|t| {
                t.map(|traffic| Measure {
                    traffic,
                    ..Measure::default()
                })
            })
            .collect();
        Scored {
            orders: (0..traffic.len()).map(|i| vec![OpId::new(i)]).collect(),
            ranked: rank(Objective::Traffic, &scores),
            scores,
            spent: Spent {
                steps: traffic.len() as u64,
                work: 10 * traffic.len() as u64,
            },
            met,
        }
    }

    #[test]
    fn append_ranks_as_one_scoring_of_all_the_members() {
        let mut all = scored(&[Some(5), None, Some(3)], false);
        // Ties with the first part's members: the earlier member ranks first.
        all.append(scored(&[Some(3), Some(7), None, Some(5), Some(1)], true));
        let whole = scored(
            &[
                Some(5),
                None,
                Some(3),
                Some(3),
                Some(7),
                None,
                Some(5),
                Some(1),
            ],
            true,
        );
        assert_eq!(all.ranked, whole.ranked);
        assert_eq!(all.scores, whole.scores);
        let firsts: Vec<OpId> = all.orders.iter().map(|o| o[0]).collect();
        assert_eq!(firsts, [0, 1, 2, 0, 1, 2, 3, 4].map(OpId::new));
        assert_eq!((all.spent.steps, all.spent.work), (8, 80));
        assert!(all.met);
    }

    #[test]
    fn appending_nothing_keeps_the_scoring() {
        let mut all = scored(&[Some(5), Some(2)], false);
        all.append(scored(&[], false));
        assert_eq!(all.ranked, scored(&[Some(5), Some(2)], false).ranked);
        assert_eq!(all.orders.len(), 2);
        assert!(!all.met);
    }
}
