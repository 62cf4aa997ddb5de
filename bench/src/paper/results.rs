//! The studies' numbers (`results.json`), computed once from the runs so the JSON and the
//! Markdown cannot disagree:
//! - end to end: every method's metrics per workload; geometric means of the ratios to Base; for
//!   LATTICE, per workload and metric, the best external method (ties: the first in the table
//!   order), the reduction against it and whether LATTICE is best or tied;
//! - stage attribution: each configuration per workload, and the geometric-mean change of every
//!   stage against the one before;
//! - order sensitivity: each order per workload, the reduction against Stable and the
//!   per-workload range over the four orders;
//! - Table III: every workload's diagnostics and their totals.
//!
//! Deterministic: lists follow the workloads as given and the fixed configuration lists. O(W · C ·
//! M) for W workloads, C configurations, M metrics.

use super::configs::{end_to_end, is_external, orders, stages, Config, LATTICE};
use super::diagnostics::Diagnostics;
use super::metric::{geomean, range_percent, ratio, reduction_percent, Metric};
use super::workload::Workload;
use super::{CaseResult, StageTimes};
use lattice_passes::verify::Metrics;
use serde::Serialize;
use std::collections::BTreeMap;

/// One configuration's replayed metrics on one workload.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// The workload.
    pub case: String,
    /// The configuration's label.
    pub config: String,
    /// Its pipeline.
    pub pipeline: String,
    /// What `lattice-opt --pass-pipeline=<pipeline> --metrics` prints.
    pub metrics: Metrics,
}

/// A study: its configurations and their metrics on every workload.
#[derive(Clone, Debug, Serialize)]
pub struct Study {
    /// The configurations, in table order.
    pub configs: Vec<Config>,
    /// Workload-major: every configuration on the first workload, then the next.
    pub cells: Vec<Cell>,
}

impl Study {
    fn of(configs: Vec<Config>, results: &[CaseResult]) -> Study {
        let cells = results
            .iter()
            .flat_map(|r| {
                configs.iter().map(|c| Cell {
                    case: r.workload.name.clone(),
                    config: c.label.clone(),
                    pipeline: c.pipeline.clone(),
                    metrics: r.metrics(&c.pipeline).clone(),
                })
            })
            .collect();
        Study { configs, cells }
    }

    /// `metric` of configuration `config` (index) on workload `case` (index).
    pub fn value(&self, case: usize, config: usize, metric: Metric) -> u64 {
        metric.of(&self.cells[case * self.configs.len() + config].metrics)
    }

    /// The index of the configuration running `pipeline`.
    pub fn index(&self, pipeline: &str) -> Option<usize> {
        self.configs.iter().position(|c| c.pipeline == pipeline)
    }

    /// Number of workloads.
    pub fn cases(&self) -> usize {
        self.cells.len() / self.configs.len().max(1)
    }

    /// Geometric mean over workloads of `config`'s ratio to `reference`, per metric.
    pub fn geomean_ratio(&self, config: usize, reference: usize) -> BTreeMap<Metric, Option<f64>> {
        Metric::ALL
            .iter()
            .map(|&m| {
                let ratios = (0..self.cases())
                    .map(|c| ratio(self.value(c, config, m), self.value(c, reference, m)));
                (m, geomean(ratios))
            })
            .collect()
    }
}

/// LATTICE against the best external method on one workload and metric.
#[derive(Clone, Debug, Serialize)]
pub struct VersusBest {
    /// The workload.
    pub case: String,
    /// The metric.
    pub metric: Metric,
    /// LATTICE's value.
    pub lattice: u64,
    /// The best external value.
    pub best_external: u64,
    /// The method that reached it.
    pub best_method: String,
    /// (best − LATTICE) / best in percent.
    pub reduction_percent: Option<f64>,
    /// LATTICE ≤ best external.
    pub best_or_tied: bool,
}

/// The spread of one metric over the orders on one workload.
#[derive(Clone, Debug, Serialize)]
pub struct Range {
    /// The workload.
    pub case: String,
    /// The metric.
    pub metric: Metric,
    /// Smallest value over the orders.
    pub min: u64,
    /// Largest.
    pub max: u64,
    /// (max − min) / max in percent.
    pub range_percent: f64,
}

/// Table III summed over the workloads.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DiagnosticTotals {
    /// Workloads.
    pub workloads: u64,
    /// Valid Ignore / Freeze / CPE results.
    pub valid_ignore: u64,
    /// Valid Freeze plans.
    pub valid_freeze: u64,
    /// Valid CPE results.
    pub valid_cpe: u64,
    /// Reuse violations under Ignore.
    pub reuse_violations_ignore: u64,
    /// Reuse violations of Freeze.
    pub reuse_violations_freeze: u64,
    /// Reuse violations of CPE.
    pub reuse_violations_cpe: u64,
    /// Geometric mean of Ignore makespan / Freeze makespan.
    pub ignore_makespan_over_freeze: Option<f64>,
    /// Geometric mean of CPE makespan / Freeze makespan.
    pub cpe_makespan_over_freeze: Option<f64>,
    /// Workloads where CPE's makespan is strictly below Freeze's.
    pub cpe_improved: u64,
    /// Valid post-plan reorders.
    pub valid_post_plan_reorder: u64,
    /// Static errors of the post-plan reorders.
    pub static_errors_post_plan_reorder: u64,
    /// Valid timings without reuse.
    pub valid_timing_without_reuse: u64,
    /// Static errors of timing without reuse.
    pub static_errors_timing_without_reuse: u64,
    /// Valid full pipelines.
    pub valid_full_pipeline: u64,
    /// Static errors of the full pipelines.
    pub static_errors_full_pipeline: u64,
    /// Reuse violations of the full pipelines.
    pub reuse_violations_full_pipeline: u64,
}

impl DiagnosticTotals {
    fn of(rows: &[Diagnostics]) -> DiagnosticTotals {
        let count = |f: &dyn Fn(&Diagnostics) -> bool| rows.iter().filter(|d| f(d)).count() as u64;
        let sum = |f: &dyn Fn(&Diagnostics) -> u64| rows.iter().map(f).sum::<u64>();
        DiagnosticTotals {
            workloads: rows.len() as u64,
            valid_ignore: count(&|d| d.ignore.valid),
            valid_freeze: count(&|d| d.freeze.valid),
            valid_cpe: count(&|d| d.cpe.valid),
            reuse_violations_ignore: sum(&|d| d.ignore.reuse_violations),
            reuse_violations_freeze: sum(&|d| d.freeze.reuse_violations),
            reuse_violations_cpe: sum(&|d| d.cpe.reuse_violations),
            ignore_makespan_over_freeze: geomean(
                rows.iter()
                    .map(|d| ratio(d.ignore.makespan, d.freeze.makespan)),
            ),
            cpe_makespan_over_freeze: geomean(
                rows.iter()
                    .map(|d| ratio(d.cpe.makespan, d.freeze.makespan)),
            ),
            cpe_improved: count(&|d| d.cpe.makespan < d.freeze.makespan),
            valid_post_plan_reorder: count(&|d| d.post_plan_reorder.valid),
            static_errors_post_plan_reorder: sum(&|d| d.post_plan_reorder.static_total()),
            valid_timing_without_reuse: count(&|d| d.timing_without_reuse.valid),
            static_errors_timing_without_reuse: sum(&|d| d.timing_without_reuse.static_total()),
            valid_full_pipeline: count(&|d| d.full_pipeline.valid),
            static_errors_full_pipeline: sum(&|d| d.full_pipeline.static_total()),
            reuse_violations_full_pipeline: sum(&|d| d.full_pipeline.reuse_violations.unwrap_or(0)),
        }
    }
}

/// Everything `results.json` holds.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// The workloads, in report order.
    pub workloads: Vec<Workload>,
    /// End to end: Base, the external methods, LATTICE.
    pub end_to_end: Study,
    /// Geometric mean of each method's ratio to Base, per metric (`None`: no defined ratio).
    pub geomean_vs_base: BTreeMap<String, BTreeMap<Metric, Option<f64>>>,
    /// LATTICE against the best external method, workload-major.
    pub lattice_vs_best_external: Vec<VersusBest>,
    /// Arithmetic mean over workloads of the reduction against the best external method.
    pub mean_reduction_vs_best_external: BTreeMap<Metric, Option<f64>>,
    /// Cells where LATTICE is best or tied, and how many cells there are.
    pub best_or_tied: (u64, u64),
    /// Stage attribution.
    pub stages: Study,
    /// Geometric mean of each stage's ratio to the stage before, per metric (first: none).
    pub stage_change: Vec<BTreeMap<Metric, Option<f64>>>,
    /// Order sensitivity.
    pub orders: Study,
    /// Per workload and metric, the spread over the orders.
    pub order_ranges: Vec<Range>,
    /// Table III per workload.
    pub diagnostics: Vec<Diagnostics>,
    /// Table III totals.
    pub diagnostic_totals: DiagnosticTotals,
}

impl Results {
    /// The studies of `results`.
    pub fn of(results: &[CaseResult]) -> Results {
        let end_to_end = Study::of(end_to_end(), results);
        // `end_to_end()` lists LATTICE; were it missing, no cell would compare it.
        let lattice = end_to_end.index(LATTICE);
        let geomean_vs_base = end_to_end
            .configs
            .iter()
            .enumerate()
            .map(|(i, c)| (c.label.clone(), end_to_end.geomean_ratio(i, 0)))
            .collect();
        let externals: Vec<usize> = (0..end_to_end.configs.len())
            .filter(|&i| is_external(&end_to_end.configs[i]))
            .collect();
        let mut versus = Vec::new();
        for (c, r) in results.iter().enumerate() {
            let Some(lattice) = lattice else { break };
            for m in Metric::ALL {
                let Some(&best) = externals
                    .iter()
                    .min_by_key(|&&i| (end_to_end.value(c, i, m), i))
                else {
                    continue;
                };
                let (ours, theirs) = (
                    end_to_end.value(c, lattice, m),
                    end_to_end.value(c, best, m),
                );
                versus.push(VersusBest {
                    case: r.workload.name.clone(),
                    metric: m,
                    lattice: ours,
                    best_external: theirs,
                    best_method: end_to_end.configs[best].label.clone(),
                    reduction_percent: reduction_percent(ours, theirs),
                    best_or_tied: ours <= theirs,
                });
            }
        }
        let mean_reduction_vs_best_external = Metric::ALL
            .iter()
            .map(|&m| {
                let defined: Vec<f64> = versus
                    .iter()
                    .filter(|v| v.metric == m)
                    .filter_map(|v| v.reduction_percent)
                    .collect();
                let mean = (!defined.is_empty())
                    .then(|| defined.iter().sum::<f64>() / defined.len() as f64);
                (m, mean)
            })
            .collect();
        let best_or_tied = (
            versus.iter().filter(|v| v.best_or_tied).count() as u64,
            versus.len() as u64,
        );

        let stages = Study::of(stages(), results);
        let stage_change = (0..stages.configs.len())
            .map(|i| match i {
                0 => Metric::ALL.iter().map(|&m| (m, None)).collect(),
                _ => stages.geomean_ratio(i, i - 1),
            })
            .collect();

        let orders = Study::of(orders(), results);
        let mut order_ranges = Vec::new();
        for (c, r) in results.iter().enumerate() {
            for m in Metric::ALL {
                let values: Vec<u64> = (0..orders.configs.len())
                    .map(|o| orders.value(c, o, m))
                    .collect();
                order_ranges.push(Range {
                    case: r.workload.name.clone(),
                    metric: m,
                    min: values.iter().copied().min().unwrap_or(0),
                    max: values.iter().copied().max().unwrap_or(0),
                    range_percent: range_percent(&values),
                });
            }
        }

        let diagnostics: Vec<Diagnostics> = results.iter().map(|r| r.diagnostics.clone()).collect();
        Results {
            workloads: results.iter().map(|r| r.workload.clone()).collect(),
            geomean_vs_base,
            lattice_vs_best_external: versus,
            mean_reduction_vs_best_external,
            best_or_tied,
            end_to_end,
            stages,
            stage_change,
            orders,
            order_ranges,
            diagnostic_totals: DiagnosticTotals::of(&diagnostics),
            diagnostics,
        }
    }

    /// Pretty JSON, newline-terminated.
    pub fn to_json(&self) -> String {
        // Strings, integers, finite floats, options and string-keyed maps only: cannot fail.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// `timings.json`: LATTICE's compile time per stage on every workload, in seconds.
pub fn timings_json(results: &[CaseResult]) -> String {
    let rows: BTreeMap<&str, &StageTimes> = results
        .iter()
        .map(|r| (r.workload.name.as_str(), &r.times))
        .collect();
    let mut text = serde_json::to_string_pretty(&rows).unwrap_or_default();
    text.push('\n');
    text
}
