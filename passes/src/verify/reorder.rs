//! Table III(b) "post-plan reorder": keep a plan (offsets, spill ops, spill and reuse
//! dependencies) but replace its σ without replanning, and count the static errors — order- and
//! plan-level violations — that the replay then finds.
//!
//! The new order may list spill ops itself; when it lists none, each spill op stays anchored to
//! the op of the input DAG it followed in the planned σ (spill ops before any such op lead the new
//! order), which is how the paper reuses "the event and address plan" of one order under another.
//! O(V) to rebuild σ plus one replay.

use super::category::{Category, Level};
use super::{replay, ReplayOptions};
use lattice_lir::{Module, OpId};
use std::collections::BTreeMap;

/// Static errors by category of `planned` with σ replaced by `order`.
pub fn reorder_static_errors(planned: &Module, order: &[OpId]) -> BTreeMap<Category, u64> {
    let is_spill = |id: &OpId| {
        planned
            .ops
            .get(id.index())
            .is_some_and(|op| op.kind.is_spill())
    };
    let mut module = planned.clone();
    module.schedule = if order.iter().any(is_spill) {
        order.to_vec()
    } else {
        anchored(planned, order)
    };
    let mut errors = BTreeMap::new();
    for v in replay(&module, &ReplayOptions::default()).violations {
        if v.category.level() != Level::Timing {
            *errors.entry(v.category).or_insert(0) += 1;
        }
    }
    errors
}

/// `order` with every spill op of `planned` put back after the op it followed.
fn anchored(planned: &Module, order: &[OpId]) -> Vec<OpId> {
    let mut leading = Vec::new();
    let mut after: Vec<Vec<OpId>> = vec![Vec::new(); planned.ops.len()];
    let mut anchor: Option<OpId> = None;
    for &id in &planned.schedule {
        let Some(op) = planned.ops.get(id.index()) else {
            continue;
        };
        if !op.kind.is_spill() {
            anchor = Some(id);
        } else if let Some(a) = anchor {
            after[a.index()].push(id);
        } else {
            leading.push(id);
        }
    }
    let mut schedule = leading;
    for &id in order {
        schedule.push(id);
        if let Some(spills) = after.get(id.index()) {
            schedule.extend_from_slice(spills);
        }
    }
    schedule
}
