//! Acceptance of a candidate σ (paper §IV-D, conditions 1–5): a candidate is the Freeze module
//! with only σ replaced, and it is kept only if
//!
//! 1. the independent verifier ([`crate::verify::replay`]) finds no violation — which covers
//!    acyclicity of G_fixed plus the pipe edges, single issue, residencies, capacities, address
//!    non-overlap, hand-offs and ownership;
//! 2. the plan is untouched: ops (layout and spill events) are identical, and deriving the spill
//!    and reuse dependencies from the new σ gives exactly the plan's (reuse orientation kept, so
//!    a checker that derives them from σ times the same graph);
//! 3. spill count and DDR traffic equal Freeze's, the physical resident peak (measured along σ)
//!    is not above Freeze's, and neither is the logical peak unless the caller lets it rise;
//! 4. the replayed makespan is strictly below the incumbent's.
//!
//! Cost: one replay and one dependency derivation, O((V + E) log V), on two threads.

use crate::verify::{replay, Metrics, ReplayOptions};
use lattice_lir::plan_deps::implied_plan_deps;
use lattice_lir::{DepKind, Module, OpId};

/// Why a candidate was turned down.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Rejection {
    /// The verifier found violations.
    #[error("the verifier found {count} violation(s), first: {first}")]
    Invalid {
        /// How many.
        count: usize,
        /// The first one, as text.
        first: String,
    },
    /// Some part of the plan differs from Freeze's.
    #[error("the candidate changes the memory plan: {0}")]
    PlanChanged(&'static str),
    /// Valid, but not faster.
    #[error("makespan {makespan} is not below {incumbent}")]
    NotFaster {
        /// The candidate's.
        makespan: u64,
        /// The one to beat.
        incumbent: u64,
    },
}

/// Checks `candidate` against the Freeze module and its metrics, with `logical_budget` the most
/// logical peak allowed; returns the candidate's metrics when it is accepted.
pub(crate) fn accept(
    freeze: &Module,
    freeze_metrics: &Metrics,
    candidate: &Module,
    incumbent: u64,
    logical_budget: u64,
) -> Result<Metrics, Rejection> {
    // The replay and the dependency derivation read the candidate only: run them side by side.
    let (result, same_deps) = lattice::parallel::join(
        || replay(candidate, &ReplayOptions::default()),
        || same_derived_deps(candidate),
    );
    if let Some(first) = result.violations.first() {
        return Err(Rejection::Invalid {
            count: result.violations.len(),
            first: first.to_string(),
        });
    }
    if candidate.ops.len() != freeze.ops.len()
        || candidate
            .ops
            .iter()
            .zip(&freeze.ops)
            .any(|(a, b)| a.kind != b.kind)
    {
        return Err(Rejection::PlanChanged("ops or offsets differ"));
    }
    if !same_deps {
        return Err(Rejection::PlanChanged(
            "the new σ implies other spill or reuse dependencies",
        ));
    }
    let m = result.metrics;
    if m.logical_peak > logical_budget {
        return Err(Rejection::PlanChanged("logical peak above Freeze's"));
    }
    if m.physical_peak > freeze_metrics.physical_peak {
        return Err(Rejection::PlanChanged(
            "physical resident peak above Freeze's",
        ));
    }
    if m.spill_count != freeze_metrics.spill_count
        || m.extra_traffic != freeze_metrics.extra_traffic
    {
        return Err(Rejection::PlanChanged("spill count or traffic"));
    }
    if m.makespan >= incumbent {
        return Err(Rejection::NotFaster {
            makespan: m.makespan,
            incumbent,
        });
    }
    Ok(m)
}

/// Whether deriving the plan dependencies from the module's σ reproduces the ones it carries
/// (compared per op as sets: derivation orders them by σ position). Precedence dependencies are
/// the same on both sides by construction, so only the spill and reuse ones are compared.
fn same_derived_deps(module: &Module) -> bool {
    let implied = implied_plan_deps(module);
    let mut next = 0;
    let mut carried: Vec<(OpId, DepKind)> = Vec::new();
    let mut derived: Vec<(OpId, DepKind)> = Vec::new();
    for (i, op) in module.ops.iter().enumerate() {
        carried.clear();
        carried.extend(
            op.deps
                .iter()
                .filter(|d| d.kind != DepKind::Precedence)
                .map(|d| (d.op, d.kind)),
        );
        derived.clear();
        while next < implied.len() && implied[next].1.index() == i {
            derived.push((implied[next].0, implied[next].2));
            next += 1;
        }
        if carried.len() != derived.len() {
            return false;
        }
        carried.sort_unstable();
        derived.sort_unstable();
        if carried != derived {
            return false;
        }
    }
    true
}
