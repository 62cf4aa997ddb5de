//! `lattice-bench scale`: how the LATTICE pipeline's wall time and peak heap grow with the size
//! of the DAG, on generated workloads from thousands to millions of nodes, and on the stress
//! workloads of one buffer ([`stress`]: a chain, a fan-in, a fan-out) that expose any check
//! walking the DAG once per use.
//!
//! For each size, [`run`] builds the DAG ([`Workload`]) and runs the pipeline
//! stage by stage as plain functions — MPAS (with its bottom levels), DLR, the fixed-graph
//! construction (the Freeze timing, which CPE then takes as the `cpe` pass takes it from the
//! timing analysis, so G_fixed is built once), CPE, and the independent replay — timing each
//! with [`Instant`] and reading its peak heap from [`crate::alloc_meter`] (reset before the stage,
//! read after; the peak is the process's whole heap during the stage, inputs included, so it is
//! 0 unless the binary installs the meter). Modules are dropped as soon as no later stage needs
//! them, so each peak holds only what that stage really keeps. A result the replay rejects is an
//! error: a scaling number for an invalid plan would be meaningless. [`report`] renders the
//! results (Markdown, JSON, log-log SVG).
//!
//! Times and peaks are measurements: they vary from run to run and machine to machine. The
//! modules themselves are deterministic (seeded generator, deterministic passes). Cost: the
//! pipeline's, near-linear in the nodes (see the `cpe` bench).

pub mod report;
pub mod stress;
pub mod workload;

pub use report::{markdown, write_outputs};
pub use workload::Workload;

use crate::alloc_meter;
use indicatif::ProgressBar;
use lattice_lir::{Module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::cpe::{refine_with, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::timing::timing;
use lattice_passes::verify::{replay, ReplayOptions};
use serde::Serialize;
use std::time::Instant;

/// The sizes `lattice-bench scale` runs by default.
pub const DEFAULT_NODES: [usize; 5] = [10_000, 30_000, 100_000, 300_000, 1_000_000];

/// What to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleSpec {
    /// The workloads' shape.
    pub shape: Workload,
    /// Node counts, run in this order.
    pub nodes: Vec<usize>,
    /// The generator's seed.
    pub seed: u64,
}

/// A measured stage of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Generating the DAG.
    Generate,
    /// Bottom levels and the MPAS order.
    Mpas,
    /// DLR's memory plan.
    Dlr,
    /// G_fixed and the Freeze timing of the planned module.
    FixedGraph,
    /// CPE's refinement.
    Cpe,
    /// The independent replay of the result.
    Verify,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 6] = [
        Stage::Generate,
        Stage::Mpas,
        Stage::Dlr,
        Stage::FixedGraph,
        Stage::Cpe,
        Stage::Verify,
    ];

    /// The name tables and the JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Generate => "generate",
            Stage::Mpas => "mpas",
            Stage::Dlr => "dlr",
            Stage::FixedGraph => "fixed-graph",
            Stage::Cpe => "cpe",
            Stage::Verify => "verify",
        }
    }
}

/// One stage's measurement.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StageResult {
    /// Which stage.
    pub stage: Stage,
    /// Wall time in milliseconds.
    pub ms: f64,
    /// Peak heap during the stage, in bytes.
    pub peak_bytes: u64,
}

/// One size's measurements.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// The generated module's name.
    pub module: String,
    /// Contest nodes of the generated DAG.
    pub nodes: u64,
    /// Its dependencies.
    pub edges: u64,
    /// The stages in pipeline order.
    pub stages: Vec<StageResult>,
    /// Wall time of all stages.
    pub total_ms: f64,
    /// The highest stage peak.
    pub peak_bytes: u64,
    /// SPILL_OUTs in the verified result.
    pub spills: u64,
    /// Makespan before CPE.
    pub freeze_makespan: u64,
    /// Makespan of the result.
    pub makespan: u64,
}

/// Every size's measurements.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScaleReport {
    /// The generated shape.
    pub shape: String,
    /// The seed.
    pub seed: u64,
    /// One run per size, in the order asked.
    pub runs: Vec<Run>,
}

/// Why a size could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// A pipeline stage failed.
    #[error("{module}: {stage} failed: {message}")]
    Stage {
        /// The generated module.
        module: String,
        /// The failing stage's name.
        stage: &'static str,
        /// Its error.
        message: String,
    },
    /// The replay rejected the result.
    #[error("{module}: the result does not verify ({count} violation(s)); first: {first}")]
    Invalid {
        /// The generated module.
        module: String,
        /// How many violations.
        count: usize,
        /// The first one.
        first: String,
    },
    /// Writing an output failed.
    #[error(transparent)]
    Io(#[from] lattice::io::IoError),
    /// Drawing the figure failed.
    #[error(transparent)]
    Figure(#[from] lattice_figures::FigureError),
    /// JSON serialization failed.
    #[error("cannot serialize the results: {0}")]
    Json(#[from] serde_json::Error),
}

/// Measures every size of `spec`, advancing `progress` by one per stage.
pub fn run(spec: &ScaleSpec, progress: &ProgressBar) -> Result<ScaleReport, ScaleError> {
    progress.set_length((spec.nodes.len() * Stage::ALL.len()) as u64);
    let runs = spec
        .nodes
        .iter()
        .map(|&nodes| {
            progress.set_message(format!("{}-n{nodes}", spec.shape));
            measure_one(spec, nodes, progress)
        })
        .collect::<Result<_, _>>()?;
    progress.finish_and_clear();
    Ok(ScaleReport {
        shape: spec.shape.to_string(),
        seed: spec.seed,
        runs,
    })
}

/// Runs `work` as `stage`, recording its time and peak heap.
fn stage<T>(
    stage: Stage,
    stages: &mut Vec<StageResult>,
    progress: &ProgressBar,
    work: impl FnOnce() -> T,
) -> T {
    alloc_meter::reset_peak();
    let start = Instant::now();
    let out = work();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    stages.push(StageResult {
        stage,
        ms,
        peak_bytes: alloc_meter::peak() as u64,
    });
    progress.inc(1);
    out
}

fn measure_one(spec: &ScaleSpec, nodes: usize, progress: &ProgressBar) -> Result<Run, ScaleError> {
    let mut stages = Vec::with_capacity(Stage::ALL.len());
    let mut graph: Module = stage(Stage::Generate, &mut stages, progress, || {
        spec.shape.build(nodes, spec.seed)
    });
    let module = graph.name.clone();
    let fail = |stage: Stage, e: &dyn std::fmt::Display| ScaleError::Stage {
        module: module.clone(),
        stage: stage.name(),
        message: e.to_string(),
    };
    let (nodes, edges) = (graph.schedule.len() as u64, graph.dep_count() as u64);
    let order = stage(Stage::Mpas, &mut stages, progress, || {
        mpas_order(&graph, &bottom_levels(&graph), &MpasOptions::default())
    })
    .map_err(|e| fail(Stage::Mpas, &e))?;
    graph.schedule = order;
    graph.phase = Phase::Scheduled;
    let planned = stage(Stage::Dlr, &mut stages, progress, || {
        plan(&graph, &DlrOptions::default())
    })
    .map_err(|e| fail(Stage::Dlr, &e))?
    .module;
    drop(graph);
    let freeze = stage(Stage::FixedGraph, &mut stages, progress, || {
        timing(&planned)
    })
    .map_err(|e| fail(Stage::FixedGraph, &e))?;
    // CPE takes the Freeze timing (and G_fixed in it) from the stage before, as the `cpe` pass
    // takes it from the timing analysis.
    let refined = stage(Stage::Cpe, &mut stages, progress, || {
        refine_with(&planned, &freeze, &CpeOptions::default())
    })
    .map_err(|e| fail(Stage::Cpe, &e))?
    .module;
    let freeze_makespan = freeze.freeze.makespan;
    drop(freeze);
    drop(planned);
    let replayed = stage(Stage::Verify, &mut stages, progress, || {
        replay(&refined, &ReplayOptions::default())
    });
    if let Some(first) = replayed.violations.first() {
        return Err(ScaleError::Invalid {
            module,
            count: replayed.violations.len(),
            first: first.message.clone(),
        });
    }
    Ok(Run {
        module,
        nodes,
        edges,
        total_ms: stages.iter().map(|s| s.ms).sum(),
        peak_bytes: stages.iter().map(|s| s.peak_bytes).max().unwrap_or(0),
        stages,
        spills: replayed.metrics.spill_count,
        freeze_makespan,
        makespan: replayed.metrics.makespan,
    })
}
