//! The family floor: the search's result is never worse than the best order of the reverse
//! depth-first family ([`super::family`], every member with every feeder placement of
//! [`PLACEMENTS`], as the portfolio holds them) put through the back end under DLR's own key.
//!
//! Why a stage of its own: the portfolio ranks its members by the search-stage score — for the
//! makespan objective Freeze's timing, not CPE's; for peak and traffic the plan of the search
//! stage, not the finished one — and only the best few by that score become finalists, so the
//! family's best order through the real back end need not be among them (without this stage,
//! at a budget of 20 steps: a makespan of 5,189 cycles against the family's 5,116 on `heads-kv`
//! and `heads-q` modules of 150 nodes, a peak of 394 against 337 on a `heads-q` module of 300
//! nodes with its tiers cut to a quarter; `search/tests.rs` checks both). The orders are read
//! off the task DAG's structure alone (structural fingerprints break ties before task numbers),
//! so the floor is also the part of the result that renumbering the module moves least.
//!
//! Invariants: runs after the final stage, only the family orders that stage did not run under
//! DLR's own key, and only on modules of at most [`FAMILY_FLOOR_OPS`] ops: there it is at most
//! `members × placements` back-end runs (5 × 4; milliseconds each at a few thousand ops), not
//! charged to the budget, like the floor of [`super::floor`] — a pure function of the module and
//! the options, so results stay deterministic whatever the thread count. A family order wins
//! only when its key is strictly below the final stage's best, so ties keep the search's plan;
//! an order DLR cannot plan is no candidate.
//!
//! Cost: the family's (see [`super::family`]: O(R · (T + E_T) + ROUNDS · (V + E) log V)), one
//! realization O(V + E) per order, and one back-end run per order not yet run.

use super::family::{family, fingerprints, task_fingerprints};
use super::portfolio::{placement_name, PLACEMENTS};
use super::realize::{realize, TaskOrder};
use super::tasks::Tasks;
use crate::order::graph::Graph;
use crate::order::OrderError;
use lattice_lir::{Module, OpId};

/// The largest module (ops) the family floor runs on: on FlashAttention_Case1, the largest
/// shipped case below it, a back-end run (DLR and CPE) takes 24 ms, so the 20 runs cost about a
/// quarter of a second on two threads against a search of seconds; on Matmul_Case1, above it,
/// 0.1 s each.
pub(crate) const FAMILY_FLOOR_OPS: usize = 16_384;

/// Every order of the reverse depth-first family of `module`, each member realized with every
/// feeder placement, named `<member>/<placement>` as in the portfolio; empty when the module
/// has no main tasks.
pub(crate) fn family_orders(
    module: &Module,
    tasks: &Tasks,
) -> Result<Vec<(String, Vec<OpId>)>, OrderError> {
    if tasks.main.is_empty() {
        return Ok(Vec::new());
    }
    let graph = Graph::build_with(module, false)?;
    let mut orders = Vec::new();
    for (name, seq) in family(tasks, &task_fingerprints(&fingerprints(&graph), tasks)) {
        for (lead, inline) in PLACEMENTS {
            let order = realize(
                tasks,
                &TaskOrder {
                    seq: seq.clone(),
                    lead,
                    inline,
                    flips: Default::default(),
                },
            );
            orders.push((format!("{name}/{}", placement_name(lead, inline)), order));
        }
    }
    Ok(orders)
}
