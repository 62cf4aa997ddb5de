//! The order the makespan walk starts from: the best of `order-search`'s orders of the module
//! and, when that one leaves a gap to the lower bound, of [`COPIES`] renumbered copies of it
//! (`crate::renumber`, by random topological orders of fixed seeds, each copy's order mapped
//! back to the module's ops), so that the walk's prefix bounds prune against a good makespan
//! from its first state instead of against the first orders its own depth-first descent
//! reaches. The copies are the same DAG under other ids, but the search's result depends on
//! the numbering (docs/search.md, the renumbering table), and on some modules a copy's is much
//! better (attention at 30 ops: 1,167 on the module as given, 1,029 — the optimum — on a
//! copy).
//!
//! The seed is only an incumbent: the walk still passes over a prefix only when no completion
//! can beat it, and returns it only when no order of the space does better, so the optimum is
//! the same with or without it. To keep the walk's promise that its order is one of the
//! space's (tight and L0-exclusive, as [`Space`] defines them), each searched order is
//! tightened by DLR's own planning (its σ without the spill events) and used only if it is a
//! step sequence of the space; its makespan is measured by the walk's own back end. Everything
//! is deterministic: fixed seeds and budgets, the first best kept on a tie.
//!
//! Cost: one `order-search` run at its default budget; when its order is above the bound, at
//! most [`COPIES`] more at a [`COPIES`]-th of that budget each (O(V + E + B log B) to renumber
//! each), stopping at the first that meets the bound; one DLR plan and one back-end run per
//! order.

use super::space::Space;
use crate::dlr::plan_in;
use crate::renumber::{along, random_topological};
use crate::search::options::AUTO_WORK;
use crate::search::score::Evaluator;
use crate::search::{search, Budget, SearchOptions, Silent};
use lattice_lir::{Module, OpId};
use std::num::NonZeroU64;

/// The renumbered copies searched when the module's own order is above the bound.
pub const COPIES: u64 = 3;

/// An incumbent: its makespan and its order (a step sequence of the space).
pub type Incumbent = (u64, Vec<OpId>);

/// `order-search`'s best order of the unplanned `module` through `evaluator`'s back end, as a
/// step sequence of `space`, with its makespan; `None` when the search fails or its tightened
/// order is not one of the space's.
pub fn searched(
    module: &Module,
    space: &Space<'_>,
    evaluator: &Evaluator<'_>,
) -> Option<Incumbent> {
    let options = SearchOptions {
        objective: evaluator.objective,
        back_end: evaluator.back_end.clone(),
        ..SearchOptions::default()
    };
    let found = search(module, &options, &Silent).ok()?;
    incumbent(module, space, evaluator, &found.order)
}

/// `seed`, or a better order from the search of a renumbered copy of `module` when `seed` is
/// above `lower` (a bound no order beats): the best over the copies of seeds 1 to [`COPIES`],
/// in that order, until one meets `lower`.
pub fn improved(
    module: &Module,
    space: &Space<'_>,
    evaluator: &Evaluator<'_>,
    seed: Option<Incumbent>,
    lower: u64,
) -> Option<Incumbent> {
    let options = SearchOptions {
        objective: evaluator.objective,
        back_end: evaluator.back_end.clone(),
        budget: Budget::Work(NonZeroU64::new(AUTO_WORK / COPIES).expect("a positive budget")),
        ..SearchOptions::default()
    };
    let mut best = seed;
    for copy in 1..=COPIES {
        if best.as_ref().is_some_and(|(v, _)| *v <= lower) {
            break;
        }
        let Ok(order) = random_topological(module, copy) else {
            break;
        };
        let back = along(module, &order, |renumbered| {
            search(renumbered, &options, &Silent)
                .ok()
                .map(|found| found.order)
        });
        if let Some(c) = back.and_then(|back| incumbent(module, space, evaluator, &back)) {
            if best.as_ref().is_none_or(|(v, _)| c.0 < *v) {
                best = Some(c);
            }
        }
    }
    best
}

/// `order` of the unplanned `module` as the back end tightens it, with its makespan, when that
/// is a step sequence of `space`.
fn incumbent(
    module: &Module,
    space: &Space<'_>,
    evaluator: &Evaluator<'_>,
    order: &[OpId],
) -> Option<Incumbent> {
    let planned = plan_in(evaluator.module, order, &evaluator.back_end.dlr).ok()?;
    let tight = tightened(module, &planned.module);
    if !is_step_sequence(space, &tight) {
        return None;
    }
    let makespan = evaluator.finish(&tight).ok()?.makespan;
    Some((makespan, tight))
}

/// The σ the back end plans when DLR has planned `module` into `planned`: DLR's tightened order
/// of the module's own ops, without the spill events it added.
pub(crate) fn tightened(module: &Module, planned: &Module) -> Vec<OpId> {
    let n = module.ops.len();
    planned
        .schedule
        .iter()
        .copied()
        .filter(|v| v.index() < n)
        .collect()
}

/// Whether `order` is what the space's steps emit for its decision ops in their order (with the
/// ALLOCs of each step in the order `order` has them).
fn is_step_sequence(space: &Space<'_>, order: &[OpId]) -> bool {
    let mut done = 0u128;
    let mut emitted = Vec::with_capacity(order.len());
    let mut at = 0;
    while at < order.len() {
        // The next decision op: the first op from `at` that is one.
        let Some((offset, d)) = order[at..]
            .iter()
            .enumerate()
            .find_map(|(i, &v)| space.decision_of(v).map(|d| (i, d)))
        else {
            return false;
        };
        if space.needs[d] & !done != 0 {
            return false;
        }
        let Some(step) = space.step(done, d) else {
            return false;
        };
        // The step's ALLOCs are the ops before the decision op, in their order there.
        let allocs = &order[at..at + offset];
        let mut given = allocs.to_vec();
        let mut expected = step.allocs.clone();
        given.sort_unstable();
        expected.sort_unstable();
        if given != expected {
            return false;
        }
        space.emit(d, allocs, &step.frees, &mut emitted);
        done |= 1u128 << d;
        at = emitted.len();
        if emitted[..] != order[..at.min(order.len())] {
            return false;
        }
    }
    done == space.all()
}

/// For the bound tests: every family of `Shape::ALL` at 10 to 30 ops (generator seed `nodes +
/// offset`), its non-staging tiers squeezed to each of `PERCENTS`, as scheduled modules.
#[cfg(all(test, feature = "generate"))]
pub(crate) fn squeezed_modules(offset: u64) -> Vec<Module> {
    use crate::exact::report::{squeezed, PERCENTS};
    use crate::generate::{generate, GenSpec, Shape};
    let mut modules = Vec::new();
    for shape in Shape::ALL {
        for nodes in [10, 14, 18, 24, 30] {
            let generated = generate(&GenSpec {
                shape,
                nodes,
                seed: nodes as u64 + offset,
            });
            for percent in PERCENTS {
                modules.push(Module {
                    phase: lattice_lir::Phase::Scheduled,
                    ..squeezed(&generated, percent)
                });
            }
        }
    }
    modules
}

/// For the bound tests: six orders of `m` — `topo` (its DAG's topological order) and five
/// random topological ones — each that DLR plans tightened, with the back end's makespan.
#[cfg(all(test, feature = "generate"))]
pub(crate) fn tried_orders(
    m: &Module,
    topo: &[OpId],
    back_end: &crate::search::BackEnd,
) -> Vec<(Vec<OpId>, u64)> {
    let evaluator = Evaluator::new(m, crate::search::Objective::Makespan, back_end);
    (0..6)
        .filter_map(|seed| {
            let order = if seed == 0 {
                topo.to_vec()
            } else {
                random_topological(m, seed).expect("a valid module orders")
            };
            let planned = plan_in(m, &order, &back_end.dlr).ok()?;
            let tight = tightened(m, &planned.module);
            let makespan = evaluator.finish(&tight).expect("plans").makespan;
            Some((tight, makespan))
        })
        .collect()
}
