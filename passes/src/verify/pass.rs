//! The `verify` pass: runs the replay, reports each violation as an error at its op (the first
//! few per category, then a note with how many more), sets the key metrics and the count of every
//! category with violations as statistics, and fails with a summary when anything is wrong. On a
//! `parsed` module whose input order breaks L0 exclusivity it adds a note saying which pass to
//! run first. It changes nothing.
//!
//! With `ignore-reuse=true` (Table III "Ignore") the plan is timed without its reuse
//! dependencies on purpose, so the ownership conflicts that timing creates are what the option
//! measures, not defects of the plan: they are counted (statistic `ownership-conflicts`, and a
//! remark), never errors; every other violation still fails the pass.
//! O(replay + violations).

use super::category::Category;
use super::{replay, ReplayOptions};
use lattice::{pass_options, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Module, Phase, Severity};
use std::collections::BTreeMap;

pass_options! {
    /// Options of the verifier.
    pub struct VerifyOptions {
        /// Time the plan without its reuse dependencies (Table III "Ignore") and count the ownership conflicts that timing creates (counted, not errors).
        ignore_reuse: bool = false,
        /// Errors shown per category; the rest are counted in a note.
        #[range(0..=4294967295)]
        max_per_category: u32 = 20,
    }
}

/// The independent verifier as a pass.
pub struct Verify(VerifyOptions);

impl RegisteredPass for Verify {
    const NAME: &'static str = "verify";
    const SUMMARY: &'static str =
        "Independent replay of σ, memory plan and timing (DESIGN §1.3): report every violation and the metrics";
    type Options = VerifyOptions;
    fn new(options: VerifyOptions) -> Self {
        Verify(options)
    }
}

impl Pass for Verify {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        cx.preserve_all();
        let options = ReplayOptions {
            ignore_reuse: self.0.ignore_reuse,
        };
        let result = replay(module, &options);
        let m = &result.metrics;
        cx.statistic("makespan", "makespan of the replayed timing", m.makespan);
        cx.statistic(
            "critical-path",
            "longest dependency chain in cycles",
            m.critical_path,
        );
        cx.statistic(
            "logical-peak",
            "max ALLOC-minus-FREE bytes over the non-staging tiers",
            m.logical_peak,
        );
        cx.statistic(
            "physical-peak",
            "max bytes resident over all tiers",
            m.physical_peak,
        );
        cx.statistic("spill-count", "SPILL_OUT ops", m.spill_count);
        cx.statistic(
            "extra-traffic",
            "extra DDR traffic of the spills in bytes",
            m.extra_traffic,
        );
        cx.statistic(
            "ownership-conflicts",
            "pairs of residencies sharing bytes at the same time",
            m.ownership_conflicts,
        );
        for (&category, &count) in &m.violations {
            cx.statistic(category.name(), category.summary(), count);
        }
        // What `ignore-reuse` measures is counted above, not failed on.
        let measured = |c: Category| self.0.ignore_reuse && c == Category::Ownership;
        if self.0.ignore_reuse {
            cx.emit(
                Severity::Remark,
                None,
                format!(
                    "timed without its reuse dependencies, the plan has {} ownership conflict(s)",
                    m.ownership_conflicts
                ),
            );
        }
        let failed: BTreeMap<Category, u64> = m
            .violations
            .iter()
            .filter(|(c, _)| !measured(**c))
            .map(|(&c, &n)| (c, n))
            .collect();
        if failed.is_empty() {
            return Ok(());
        }
        let cap = u64::from(self.0.max_per_category);
        let mut shown: BTreeMap<Category, u64> = BTreeMap::new();
        for v in result.violations.iter().filter(|v| !measured(v.category)) {
            let n = shown.entry(v.category).or_insert(0);
            *n += 1;
            if *n <= cap {
                cx.emit(Severity::Error, v.op, v.to_string());
            }
        }
        for (&category, &count) in &failed {
            if count > cap {
                cx.emit(
                    Severity::Note,
                    None,
                    format!("{} more {category} violation(s) not shown", count - cap),
                );
            }
        }
        if module.phase == Phase::Parsed && failed.contains_key(&Category::L0Exclusive) {
            // An imported graph's σ is its input order, not a schedule: say what to run first.
            cx.emit(
                Severity::Note,
                None,
                "this module is `parsed`: its σ is the input order, which is not a schedule; run \
                 an order pass first (`--mpas`, or `--pass-pipeline='mpas,dlr,cpe'` for a plan)"
                    .to_string(),
            );
        }
        let summary: Vec<String> = failed.iter().map(|(c, n)| format!("{c}={n}")).collect();
        Err(PassError::new(format!(
            "verification failed: {} violation(s): {}",
            failed.values().sum::<u64>(),
            summary.join(", ")
        )))
    }
}
