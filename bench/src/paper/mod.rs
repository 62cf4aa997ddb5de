//! `lattice-bench paper`: reproduces the paper's evaluation (§V–§VI) on a directory of contest
//! cases and writes `report.md`, `results.json`, `timings.json` and SVG figures.
//!
//! Two phases, each spread over `jobs` threads: first every distinct pipeline of the studies
//! ([`configs`]) on every workload, through the shipped pass manager and the independent replay
//! ([`run`]); then, per workload, the characterization ([`workload`]), Table III's diagnostics
//! ([`diagnostics`]) and the data behind its figures. The studies' arithmetic ([`results`]) and
//! the Markdown ([`report`]) are built from those runs alone.
//!
//! Invariants: every number in `results.json` and `report.md` is a replayed metric of a verified
//! result, equal to `lattice-opt --pass-pipeline=P --metrics` for the pipeline the report names;
//! results land in fixed slots (workload × pipeline), so they are byte-identical whatever `jobs`
//! and thread timing are. Only wall times (`timings.json`, the report's compile-time section and
//! figure) vary between runs. Cost: the sum of the pipelines' costs plus two replays per workload,
//! divided over the threads.

pub mod configs;
pub mod diagnostics;
pub mod error;
pub mod metric;
pub mod parallel;
pub mod plots;
pub mod report;
pub mod results;
pub mod run;
pub mod workload;

pub use error::PaperError;

use configs::{all_pipelines, FREEZE, LATTICE};
use diagnostics::{diagnose, Diagnostics};
use indicatif::{ProgressBar, ProgressStyle};
use lattice_figures::PlanFigures;
use lattice_lir::Module;
use lattice_passes::order::{input_order, stable_order};
use lattice_passes::verify::Metrics;
use run::Run;
use serde::Serialize;
use std::path::Path;
use std::time::Duration;
use workload::{characterize, Workload};

/// How to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaperOptions {
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Show a progress bar on stderr (drawn only when stderr is a terminal).
    pub progress: bool,
}

/// Wall time of each LATTICE stage on one workload, from the `mpas,dlr,cpe` run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StageTimes {
    /// `mpas` with the bottom levels it asks for, in seconds.
    pub mpas: f64,
    /// `dlr` with its analyses.
    pub dlr: f64,
    /// Fixed-graph construction: the `timing` analysis CPE starts from.
    pub fixed_graph: f64,
    /// `cpe` itself.
    pub cpe: f64,
    /// The independent replay of the result.
    pub verification: f64,
}

impl StageTimes {
    /// The stage labels, in the order of [`StageTimes::values`].
    pub const LABELS: [&'static str; 5] = ["MPAS", "DLR", "fixed graph", "CPE", "verification"];

    fn of(run: &Run) -> StageTimes {
        let with_analyses = |pass: &str| {
            run.passes
                .iter()
                .filter(|n| n.name == pass)
                .map(|n| n.wall)
                .sum::<Duration>()
        };
        StageTimes {
            mpas: with_analyses("mpas").as_secs_f64(),
            dlr: with_analyses("dlr").as_secs_f64(),
            fixed_graph: run.analysis_time("timing").as_secs_f64(),
            cpe: run.pass_time("cpe").as_secs_f64(),
            verification: run.verification.as_secs_f64(),
        }
    }

    /// Seconds per stage, in [`StageTimes::LABELS`] order.
    pub fn values(&self) -> [f64; 5] {
        [
            self.mpas,
            self.dlr,
            self.fixed_graph,
            self.cpe,
            self.verification,
        ]
    }
}

/// Everything measured on one workload.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Its shape.
    pub workload: Workload,
    /// The replayed metrics of every pipeline of [`all_pipelines`], in that order.
    pub runs: Vec<(String, Metrics)>,
    /// Table III.
    pub diagnostics: Diagnostics,
    /// LATTICE's compile time per stage.
    pub times: StageTimes,
    /// The data behind its figures.
    pub figures: PlanFigures,
}

impl CaseResult {
    /// The metrics of `pipeline` (one of [`all_pipelines`]).
    pub fn metrics(&self, pipeline: &str) -> &Metrics {
        let found = self.runs.iter().find(|(p, _)| p == pipeline);
        // Every study's pipeline is in `all_pipelines`, and every one of those was run.
        &found.expect("every study pipeline is run").1
    }
}

/// Runs every study on `cases` (in the order given).
pub fn reproduce(cases: &[Module], options: PaperOptions) -> Result<Vec<CaseResult>, PaperError> {
    let pipelines = all_pipelines();
    let progress = if options.progress {
        ProgressBar::new((cases.len() * (pipelines.len() + 1)) as u64)
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}") {
        progress.set_style(style);
    }

    // Largest workloads first, so the long runs do not end up alone at the tail.
    let mut tasks: Vec<(usize, usize)> = (0..cases.len())
        .flat_map(|c| (0..pipelines.len()).map(move |p| (c, p)))
        .collect();
    tasks.sort_by_key(|&(c, p)| (std::cmp::Reverse(cases[c].ops.len()), c, p));
    let outcomes = parallel::map(options.jobs, &tasks, |&(c, p)| {
        progress.set_message(format!("{}: {}", cases[c].name, pipelines[p]));
        let result = run::run(&cases[c], &pipelines[p]).map(|run| Outcome {
            metrics: run.metrics.clone(),
            // Only the plans the second phase reads stay in memory.
            kept: (pipelines[p] == FREEZE || pipelines[p] == LATTICE).then_some(run),
        });
        progress.inc(1);
        result
    });
    let mut grid: Vec<Vec<Option<Outcome>>> = (0..cases.len())
        .map(|_| (0..pipelines.len()).map(|_| None).collect())
        .collect();
    for (&(c, p), outcome) in tasks.iter().zip(outcomes) {
        grid[c][p] = Some(outcome?);
    }

    let per_case: Vec<(usize, Vec<Option<Outcome>>)> = grid.into_iter().enumerate().collect();
    let results = parallel::map(options.jobs, &per_case, |(c, runs)| {
        let case = &cases[*c];
        progress.set_message(format!("{}: diagnostics and figures", case.name));
        let result = second_phase(case, &pipelines, runs);
        progress.inc(1);
        result
    });
    progress.finish_and_clear();
    results.into_iter().collect()
}

/// What the second phase needs of one pipeline's run: its metrics, and the whole run only for
/// the plans the diagnostics and figures read (Freeze and LATTICE).
struct Outcome {
    metrics: Metrics,
    kept: Option<Run>,
}

/// Characterization, diagnostics, times and figure data of one workload from its runs.
fn second_phase(
    case: &Module,
    pipelines: &[String],
    runs: &[Option<Outcome>],
) -> Result<CaseResult, PaperError> {
    let fail = |e: &dyn std::fmt::Display| PaperError::Pipeline {
        case: case.name.clone(),
        pipeline: "order{policy=stable}".into(),
        message: e.to_string(),
    };
    let find = |pipeline: &str| {
        pipelines
            .iter()
            .zip(runs)
            .find(|(p, _)| *p == pipeline)
            .and_then(|(_, r)| r.as_ref()?.kept.as_ref())
            .expect("the Freeze and LATTICE pipelines are always run and kept")
    };
    let (freeze, lattice) = (find(FREEZE), find(LATTICE));
    let input = input_order(case).map_err(|e| fail(&e))?;
    let stable = stable_order(case).map_err(|e| fail(&e))?;
    Ok(CaseResult {
        workload: characterize(case, &input),
        runs: pipelines
            .iter()
            .zip(runs)
            .filter_map(|(p, r)| Some((p.clone(), r.as_ref()?.metrics.clone())))
            .collect(),
        diagnostics: diagnose(&freeze.module, &freeze.metrics, &lattice.metrics, &stable),
        times: StageTimes::of(lattice),
        figures: PlanFigures::of(&[&freeze.module, &lattice.module]),
    })
}

/// Writes `report.md`, `results.json`, `timings.json` and the figures of `results` into `out`
/// (created if missing). `command` is the command line the report says produced it.
pub fn write(results: &[CaseResult], out: &Path, command: &str) -> Result<(), PaperError> {
    let fail = |path: &Path, e: &dyn std::fmt::Display| PaperError::Write {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(out).map_err(|e| fail(out, &e))?;
    let summary = results::Results::of(results);
    let figures = plots::draw(results, &summary, out)?;
    let files = [
        ("results.json", summary.to_json()),
        ("timings.json", results::timings_json(results)),
        (
            "report.md",
            report::render(results, &summary, &figures, command),
        ),
    ];
    for (name, text) in files {
        let path = out.join(name);
        lattice::io::write_atomic(&path, text.as_bytes()).map_err(|e| fail(&path, &e))?;
    }
    Ok(())
}

/// The shipped example module (`examples/matmul_tile.lir`), for unit tests.
#[cfg(test)]
pub(crate) fn example() -> Module {
    lattice_lir::parse_module(include_str!("../../../examples/matmul_tile.lir"))
        .expect("the shipped example parses")
}
