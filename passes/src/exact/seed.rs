//! The order the makespan walk starts from: `order-search`'s best order, so that the walk's
//! prefix bounds prune against a good makespan from its first state instead of against the
//! first orders its own depth-first descent reaches.
//!
//! The seed is only an incumbent: the walk still passes over a prefix only when no completion
//! can beat it, and returns it only when no order of the space does better, so the optimum is
//! the same with or without it. To keep the walk's promise that its order is one of the
//! space's (tight and L0-exclusive, as [`Space`] defines them), the search's order is tightened
//! by DLR's own planning (its σ without the spill events) and used only if it is a step
//! sequence of the space; its makespan is measured by the walk's own back end.
//!
//! Cost: one `order-search` run at its default budget, one DLR plan and one back-end run.

use super::space::Space;
use crate::dlr::plan_in;
use crate::search::score::Evaluator;
use crate::search::{search, SearchOptions, Silent};
use lattice_lir::{Module, OpId};

/// `order-search`'s best order of the unplanned `module` through `evaluator`'s back end, as a
/// step sequence of `space`, with its makespan; `None` when the search fails or its tightened
/// order is not one of the space's.
pub fn searched(
    module: &Module,
    space: &Space<'_>,
    evaluator: &Evaluator<'_>,
) -> Option<(u64, Vec<OpId>)> {
    let options = SearchOptions {
        objective: evaluator.objective,
        back_end: evaluator.back_end.clone(),
        ..SearchOptions::default()
    };
    let found = search(module, &options, &Silent).ok()?;
    let planned = plan_in(evaluator.module, &found.order, &evaluator.back_end.dlr).ok()?;
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
