//! The report's figures: the data each one shows, taken from the runs, handed to the plotting
//! library ([`crate::figures`]):
//! - per workload, the pictures of its plans that `lattice-translate --export-svg` draws
//!   ([`lattice_figures::PlanFigures`]): the residency map of every tier under the `mpas,dlr`
//!   plan (x: σ position, y: offset, spills in red), and the per-pipe activity of Freeze and CPE;
//! - across workloads: the end-to-end geometric means normalized to Base, LATTICE's reduction
//!   against the best external method, the stage and order studies, the workload mix, size and
//!   span distributions, and the compile-time composition.
//!
//! Deterministic except the compile-time figure. O(V + E) per workload plus the plotting.

use super::configs::LATTICE;
use super::error::PaperError;
use super::metric::Metric;
use super::results::{Results, Study};
use super::workload::CLASSES;
use super::{CaseResult, StageTimes};
use lattice_figures::{grouped_bars, log2_distribution, stacked_bars, FigureError, Series};
use std::path::Path;

/// A written figure: its caption and file name (relative to the output directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// What it shows.
    pub caption: String,
    /// The SVG's file name.
    pub file: String,
}

/// Geometric means of every configuration of `study` against configuration `reference`, as one
/// series per configuration over the metrics.
fn normalized(study: &Study, reference: usize) -> Vec<Series> {
    study
        .configs
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let means = study.geomean_ratio(k, reference);
            Series {
                name: c.label.clone(),
                values: Metric::ALL.iter().map(|m| means[m]).collect(),
            }
        })
        .collect()
}

/// Draws every figure into `out` and lists them.
pub fn draw(results: &[CaseResult], r: &Results, out: &Path) -> Result<Vec<Figure>, PaperError> {
    let mut figures = Vec::new();
    let mut add = |file: String, caption: String, drawn: Result<(), FigureError>| {
        drawn.map_err(|e| PaperError::Write {
            path: out.join(&file),
            message: e.to_string(),
        })?;
        figures.push(Figure { caption, file });
        Ok::<(), PaperError>(())
    };
    let metrics: Vec<String> = Metric::ALL.iter().map(|m| m.label().to_string()).collect();
    let workloads: Vec<String> = results.iter().map(|c| c.workload.name.clone()).collect();

    // The three studies drawn as geometric means normalized to their first configuration.
    let normalized_studies = [
        (
            "end-to-end.svg",
            "End to end: geometric mean normalized to Base (lower is better)",
            "ratio to Base",
            &r.end_to_end,
            "end-to-end metrics normalized to Base",
        ),
        (
            "stages.svg",
            "Stage attribution: geometric mean normalized to Original+LRU+Freeze",
            "ratio",
            &r.stages,
            "stage attribution",
        ),
        (
            "orders.svg",
            "Order sensitivity: geometric mean normalized to Stable (same dlr,cpe backend)",
            "ratio to Stable",
            &r.orders,
            "order sensitivity",
        ),
    ];
    for (file, title, y_label, study, caption) in normalized_studies {
        let series = normalized(study, 0);
        let drawn = grouped_bars(
            &out.join(file),
            title,
            y_label,
            &metrics,
            &series,
            Some(1.0),
        );
        add(file.to_string(), caption.to_string(), drawn)?;
    }

    let file = "lattice-vs-best-external.svg".to_string();
    let series: Vec<Series> = Metric::ALL
        .iter()
        .map(|&m| Series {
            name: m.label().into(),
            values: r
                .lattice_vs_best_external
                .iter()
                .filter(|v| v.metric == m)
                .map(|v| v.reduction_percent)
                .collect(),
        })
        .collect();
    let drawn = grouped_bars(
        &out.join(&file),
        "LATTICE reduction vs the best external method (higher is better)",
        "reduction (%)",
        &workloads,
        &series,
        Some(0.0),
    );
    add(
        file,
        "LATTICE's reduction against the best external method per workload".into(),
        drawn,
    )?;

    let file = "workloads-mix.svg".to_string();
    let layers: Vec<Series> = CLASSES
        .iter()
        .enumerate()
        .map(|(k, class)| Series {
            name: (*class).into(),
            values: results
                .iter()
                .map(|c| Some(c.workload.mix[k] as f64))
                .collect(),
        })
        .collect();
    let drawn = stacked_bars(
        &out.join(&file),
        "Command composition (ALLOC/FREE excluded)",
        "commands",
        &workloads,
        &layers,
    );
    add(file, "workload command mix".into(), drawn)?;

    let file = "workloads-sizes.svg".to_string();
    let sizes: Vec<(String, Vec<u64>)> = results
        .iter()
        .map(|c| (c.workload.name.clone(), c.workload.size_values.clone()))
        .collect();
    let drawn = log2_distribution(&out.join(&file), "Allocation sizes", "bytes", &sizes);
    add(file, "allocation-size distributions".into(), drawn)?;

    let file = "workloads-spans.svg".to_string();
    let spans: Vec<(String, Vec<u64>)> = results
        .iter()
        .map(|c| (c.workload.name.clone(), c.workload.span_values.clone()))
        .collect();
    let drawn = log2_distribution(
        &out.join(&file),
        "ALLOC-to-last-access spans in the input order",
        "σ positions",
        &spans,
    );
    add(
        file,
        "ALLOC-to-last-access span distributions".into(),
        drawn,
    )?;

    for c in results {
        let name = &c.workload.name;
        let drawn = c.figures.draw_residency(out).map(|_| ());
        add(
            c.figures.residency_file(),
            format!("{name}: residency map of every tier, the mpas,dlr plan (spills in red)"),
            drawn,
        )?;
        let drawn = c.figures.draw_activity(out).map(|_| ());
        add(
            c.figures.activity_file(),
            format!("{name}: per-pipe activity, Freeze (planned) vs CPE (refined, {LATTICE})"),
            drawn,
        )?;
    }

    let file = "compile-time.svg".to_string();
    let layers: Vec<Series> = StageTimes::LABELS
        .iter()
        .enumerate()
        .map(|(k, stage)| Series {
            name: (*stage).into(),
            values: results
                .iter()
                .map(|c| Some(c.times.values()[k] * 1000.0))
                .collect(),
        })
        .collect();
    let drawn = stacked_bars(
        &out.join(&file),
        "Compile time per stage (wall clock)",
        "milliseconds",
        &workloads,
        &layers,
    );
    add(file, "compile-time composition (measured)".into(), drawn)?;
    Ok(figures)
}
