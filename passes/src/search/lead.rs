//! The makespan objective's *leads*: the traffic and the peak objective's portfolio scoring
//! and first chain, each set up exactly as `order-search{objective=traffic}` or
//! `{objective=peak}` sets them up (same budget split, start, seed and share), so that the
//! makespan search can put those searches' best orders among its finalists and its plan is
//! never slower than the traffic or peak plan that comes from there. Invariant: what a lead
//! scores and where its chain starts are its objective's search's, step for step; its chain is
//! run by the caller with the other chains.
//!
//! Cost: per lead, its objective's portfolio scoring (one realization and one score per member
//! within its budget), plus the chain's share when it runs.

use super::floor;
use super::local;
use super::options::{Budget, SearchOptions, AUTO_WORK};
use super::portfolio::Member;
use super::realize::TaskOrder;
use super::score::{value, Allowance, Key, Measure, Spent};
use super::stages::{chain_seed, score_members, search_allowance, task_starts, Scored, Scoring};
use lattice_lir::{Module, OpId};

/// A *lead* of the makespan objective: what another objective's search, run with the same
/// options, scores and first explores — its portfolio under its key, with that search's own
/// budget split, and its first chain (same start, seed and share), whose best is that
/// objective's plan on most modules measured. Its best orders join the makespan search's
/// finalists, so CPE can pick the plans that search finds.
pub(super) struct Lead {
    /// The members the lead's search scores, in member order, and their measures.
    pub(super) orders: Vec<Vec<OpId>>,
    pub(super) scores: Vec<Option<Measure>>,
    /// The scored members by the lead's key.
    pub(super) ranked: Vec<(Key, usize)>,
    pub(super) spent: Spent,
    /// The lead objective's floor (its chain stops there).
    pub(super) floor: u64,
    /// The first chain, when the traffic search runs one.
    pub(super) chain: Option<LeadChain>,
}

/// Where the lead's first chain starts and what it may spend.
pub(super) struct LeadChain {
    pub(super) tasks_from: Option<(TaskOrder, Key)>,
    pub(super) found: local::Found,
    pub(super) seed: u64,
    pub(super) allowance: Allowance,
}

/// The lead of a makespan search of `module` for `scoring`'s objective (traffic or peak;
/// `scoring` is the makespan search's with the lead's evaluator, and the lead scores against
/// its own objective's floor), from the same `members` (already cut to a step budget, as that
/// objective's search cuts them), mirroring `search_with`'s stages for that objective
/// (`finalists`: the most finalists that search runs, MPAS's included; `deep_chains`: its
/// chains); `None` where that search ends with MPAS's order before its portfolio (its floor
/// met).
pub(super) fn lead(
    scoring: &Scoring<'_, '_>,
    module: &Module,
    members: &[Member],
    mpas: &Measure,
    options: &SearchOptions,
    finalists: usize,
    deep_chains: usize,
) -> Option<Lead> {
    let evaluator = scoring.evaluator;
    let objective = evaluator.objective;
    let floor = floor::floor(module, objective);
    if value(objective, mpas) <= floor {
        return None;
    }
    let total = match options.budget {
        Budget::Auto => Allowance::Work(AUTO_WORK),
        Budget::Work(units) => Allowance::Work(units.get()),
        Budget::Steps(steps) => Allowance::Steps(steps.get()),
    };
    let victims = options.back_end.victims().len();
    let (_, budget) = search_allowance(finalists, victims, evaluator, total);
    let Scored {
        orders,
        scores,
        ranked,
        spent,
        met,
    } = score_members(&Scoring { floor, ..*scoring }, members, budget);
    let left = budget.minus(spent.of(budget));
    let chains = match left {
        _ if met || ranked.is_empty() || left.is_empty() => 0,
        Allowance::Steps(n) => (deep_chains as u64).min(n) as usize,
        Allowance::Work(_) => deep_chains,
    };
    let chain = (chains > 0).then(|| {
        let (k, i) = ranked[0];
        LeadChain {
            tasks_from: task_starts(&ranked, members).first().cloned(),
            found: local::Found::start(k, scores[i].unwrap_or_default(), orders[i].clone(), module),
            seed: chain_seed(options.seed, 0),
            allowance: left.share(0, chains),
        }
    });
    Some(Lead {
        orders,
        scores,
        ranked,
        spent,
        floor,
        chain,
    })
}
