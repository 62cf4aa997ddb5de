//! Constraint-propagation diagnostics (paper Table III) of one workload, from its fixed MPAS+DLR
//! plan (Freeze) and the full pipeline's result:
//! - (a) reuse enforcement: *Ignore* replays the plan without its reuse dependencies
//!   ([`ReplayOptions::ignore_reuse`]) and counts the ownership conflicts that timing creates;
//!   *Freeze* is the plan as DLR wrote it; *CPE* is `mpas,dlr,cpe`. Each with validity, reuse
//!   violations and makespan over Freeze's;
//! - (b) phase-direction counterfactuals: *post-plan reorder* keeps the plan but replaces σ by the
//!   Stable order without replanning ([`reorder_static_errors`]); *timing without reuse* is the
//!   Ignore replay read for static errors and reuse violations; the full pipeline is the
//!   verified `mpas,dlr,cpe`.
//!
//! Every count comes from the independent replay. Cost: two replays of the plan.

use lattice_lir::{Module, OpId};
use lattice_passes::verify::{reorder_static_errors, replay, Level, Metrics, ReplayOptions};
use serde::Serialize;
use std::collections::BTreeMap;

/// One row of Table III(a).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Enforcement {
    /// The replay found no violation.
    pub valid: bool,
    /// Ownership conflicts: residencies sharing bytes that the timing holds at once.
    pub reuse_violations: u64,
    /// Replayed makespan.
    pub makespan: u64,
}

/// One row of Table III(b).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counterfactual {
    /// The replay found no violation.
    pub valid: bool,
    /// Order- and plan-level violations, by category.
    pub static_errors: BTreeMap<String, u64>,
    /// Ownership conflicts under the replayed timing (`None` where the sequence has no timing
    /// worth reading: a σ that breaks the plan statically).
    pub reuse_violations: Option<u64>,
}

impl Counterfactual {
    /// All static errors.
    pub fn static_total(&self) -> u64 {
        self.static_errors.values().sum()
    }
}

/// Table III for one workload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostics {
    /// The workload.
    pub case: String,
    /// Reuse dependencies removed from the Freeze plan.
    pub ignore: Enforcement,
    /// The Freeze plan.
    pub freeze: Enforcement,
    /// CPE's refinement of it.
    pub cpe: Enforcement,
    /// The Freeze plan under the Stable σ, not replanned.
    pub post_plan_reorder: Counterfactual,
    /// The Freeze plan timed without reuse dependencies.
    pub timing_without_reuse: Counterfactual,
    /// MPAS → DLR → CPE.
    pub full_pipeline: Counterfactual,
}

fn enforcement(metrics: &Metrics) -> Enforcement {
    Enforcement {
        valid: metrics.valid,
        reuse_violations: metrics.ownership_conflicts,
        makespan: metrics.makespan,
    }
}

/// Diagnoses `freeze` (the `mpas,dlr` module, with its replayed metrics) against `refined` (the
/// replayed metrics of `mpas,dlr,cpe`) and `stable` (the case's Stable order).
pub fn diagnose(
    freeze: &Module,
    freeze_metrics: &Metrics,
    refined: &Metrics,
    stable: &[OpId],
) -> Diagnostics {
    let ignored = replay(freeze, &ReplayOptions { ignore_reuse: true });
    let mut ignored_static = BTreeMap::new();
    for v in &ignored.violations {
        if v.category.level() != Level::Timing {
            *ignored_static.entry(v.category.to_string()).or_insert(0) += 1;
        }
    }
    let reordered: BTreeMap<String, u64> = reorder_static_errors(freeze, stable)
        .into_iter()
        .map(|(category, count)| (category.to_string(), count))
        .collect();
    Diagnostics {
        case: freeze.name.clone(),
        ignore: enforcement(&ignored.metrics),
        freeze: enforcement(freeze_metrics),
        cpe: enforcement(refined),
        post_plan_reorder: Counterfactual {
            valid: reordered.is_empty(),
            static_errors: reordered,
            reuse_violations: None,
        },
        timing_without_reuse: Counterfactual {
            valid: ignored.metrics.valid,
            static_errors: ignored_static,
            reuse_violations: Some(ignored.metrics.ownership_conflicts),
        },
        full_pipeline: Counterfactual {
            valid: refined.valid,
            static_errors: refined
                .violations
                .iter()
                .filter(|(c, _)| c.level() != Level::Timing)
                .map(|(c, &n)| (c.to_string(), n))
                .collect(),
            reuse_violations: Some(refined.ownership_conflicts),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::run::run;
    use lattice_passes::order::stable_order;

    #[test]
    fn the_example_plan_keeps_its_contract_and_cpe_is_valid() {
        let case = crate::paper::example();
        let freeze = run(&case, "mpas,dlr").expect("plans");
        let refined = run(&case, "mpas,dlr,cpe").expect("refines");
        let stable = stable_order(&case).expect("orders");
        let d = diagnose(&freeze.module, &freeze.metrics, &refined.metrics, &stable);
        assert!(d.freeze.valid && d.cpe.valid && d.full_pipeline.valid);
        assert_eq!(d.freeze.reuse_violations, 0);
        assert!(d.cpe.makespan <= d.freeze.makespan);
        // Without reuse dependencies the timing can only get shorter, never longer.
        assert!(d.ignore.makespan <= d.freeze.makespan);
        assert_eq!(d.timing_without_reuse.static_total(), 0);
        assert_eq!(d.ignore.valid, d.ignore.reuse_violations == 0);
    }
}
