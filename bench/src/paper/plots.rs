//! The report's figures: the data each one shows, taken from the runs, handed to the plotting
//! library ([`crate::figures`]):
//! - per workload, the address–time residency map of the L1+UB tiers under the `mpas,dlr` plan
//!   (x: σ position, y: offset), and the per-pipe activity of Freeze and CPE on Freeze's time axis;
//! - across workloads: the end-to-end geometric means normalized to Base, LATTICE's reduction
//!   against the best external method, the stage and order studies, the workload mix, size and
//!   span distributions, and the compile-time composition.
//!
//! Residencies are read off σ: an ALLOC or SPILL_IN opens one at its offset, a SPILL_OUT or FREE
//! closes it. Activity comes from the timing engine's start times. Deterministic except the
//! compile-time figure. O(V + E) per workload plus the plotting.

use super::configs::LATTICE;
use super::error::PaperError;
use super::metric::Metric;
use super::results::{Results, Study};
use super::workload::CLASSES;
use super::{CaseResult, StageTimes};
use crate::figures::{
    grouped_bars, log2_distribution, pipe_activity, residency_map, stacked_bars, ActivityPanel,
    Block, FigureError, Interval, ResidencyPanel, Series,
};
use lattice_lir::{Module, OpKind};
use lattice_passes::timing::{evaluate, FixedGraph, PipeOrder, Times};
use std::path::Path;

/// A written figure: its caption and file name (relative to the output directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// What it shows.
    pub caption: String,
    /// The SVG's file name.
    pub file: String,
}

/// The per-workload figure data.
#[derive(Clone, Debug)]
pub struct CaseFigures {
    /// One panel per non-staging tier (L1, UB) of the Freeze plan.
    pub residency: Vec<ResidencyPanel>,
    /// The target's pipes.
    pub pipes: Vec<String>,
    /// Freeze's and CPE's pipe activity.
    pub activity: Vec<ActivityPanel>,
    /// Freeze's makespan: the shared time axis.
    pub horizon: u64,
}

impl CaseFigures {
    /// The figure data of a workload's Freeze plan and its CPE refinement.
    pub fn of(freeze: &Module, refined: &Module) -> CaseFigures {
        let freeze_times = sigma_times(freeze);
        CaseFigures {
            residency: residencies(freeze),
            pipes: freeze.target.pipes.clone(),
            horizon: freeze_times.as_ref().map_or(0, |t| t.makespan),
            activity: vec![
                activity("Freeze", freeze, freeze_times.as_ref()),
                activity("CPE", refined, sigma_times(refined).as_ref()),
            ],
        }
    }
}

/// Start and end of every op of `module` under σ's own pipe order (its Freeze timing); `None`
/// only for a σ whose pipe order closes a cycle, which a verified plan never has.
fn sigma_times(module: &Module) -> Option<Times> {
    let graph = FixedGraph::of(module);
    evaluate(&graph, Some(&PipeOrder::of_sigma(&graph, &module.schedule))).ok()
}

/// The residencies of `module`'s non-staging tiers along σ.
fn residencies(module: &Module) -> Vec<ResidencyPanel> {
    let steps = module.schedule.len() as u64;
    let mut panels: Vec<Option<ResidencyPanel>> = module
        .target
        .tiers
        .iter()
        .map(|t| {
            (!t.staging).then(|| ResidencyPanel {
                tier: t.name.clone(),
                capacity: t.capacity,
                steps,
                blocks: Vec::new(),
            })
        })
        .collect();
    // Per buffer, the start and offset of its open residency.
    let mut open: Vec<Option<(u64, u64)>> = vec![None; module.buffers.len()];
    let close = |panels: &mut [Option<ResidencyPanel>], residency: Option<(u64, u64)>, b, to| {
        if let Some((from, offset)) = residency {
            let buffer: &lattice_lir::Buffer = &module.buffers[b];
            if let Some(panel) = &mut panels[buffer.tier.index()] {
                panel.blocks.push(Block {
                    from,
                    to,
                    offset,
                    size: buffer.size,
                });
            }
        }
    };
    for (position, &id) in module.schedule.iter().enumerate() {
        let at = position as u64;
        match module.op(id).kind {
            OpKind::Alloc {
                buffer,
                offset: Some(offset),
            }
            | OpKind::SpillIn { buffer, offset, .. } => {
                open[buffer.index()] = Some((at, offset));
            }
            OpKind::SpillOut { buffer, .. } | OpKind::Free { buffer } => {
                close(
                    &mut panels,
                    open[buffer.index()].take(),
                    buffer.index(),
                    at + 1,
                );
            }
            _ => {}
        }
    }
    for (b, residency) in open.into_iter().enumerate() {
        close(&mut panels, residency, b, steps);
    }
    panels.into_iter().flatten().collect()
}

/// Every timed op of `module` as an interval on its pipe, at `times`.
fn activity(label: &str, module: &Module, times: Option<&Times>) -> ActivityPanel {
    let mut intervals = Vec::new();
    if let Some(t) = times {
        for (i, op) in module.ops.iter().enumerate() {
            if let Some(pipe) = op.kind.pipe() {
                if t.end[i] > t.start[i] {
                    intervals.push(Interval {
                        pipe: module.target.pipes[pipe.index()].clone(),
                        start: t.start[i],
                        end: t.end[i],
                    });
                }
            }
        }
    }
    ActivityPanel {
        label: label.into(),
        intervals,
    }
}

/// A file-name-safe form of a workload name.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
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
        let file = format!("residency-{}.svg", slug(name));
        let drawn = residency_map(
            &out.join(&file),
            &format!("{name}: address-time residency of the mpas,dlr plan"),
            &c.figures.residency,
        );
        add(file, format!("{name}: L1 and UB residency map"), drawn)?;
        let file = format!("activity-{}.svg", slug(name));
        let drawn = pipe_activity(
            &out.join(&file),
            &format!("{name}: pipe activity, Freeze vs CPE ({LATTICE})"),
            &c.figures.pipes,
            &c.figures.activity,
            c.figures.horizon,
        );
        add(
            file,
            format!("{name}: per-pipe activity, Freeze vs CPE"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::run::run;

    #[test]
    fn residencies_cover_every_buffer_of_the_plan_once_per_residency() {
        let case = crate::paper::example();
        let plan = run(&case, "mpas,dlr").expect("plans").module;
        let panels = residencies(&plan);
        let tiers: Vec<&str> = panels.iter().map(|p| p.tier.as_str()).collect();
        assert_eq!(tiers, ["L1", "UB"]);
        let blocks: usize = panels.iter().map(|p| p.blocks.len()).sum();
        let non_staging = plan
            .buffers
            .iter()
            .filter(|b| !plan.target.tiers[b.tier.index()].staging)
            .count();
        let reloads = plan
            .ops
            .iter()
            .filter(|op| {
                matches!(op.kind, OpKind::SpillIn { buffer, .. }
                    if !plan.target.tiers[plan.buffer(buffer).tier.index()].staging)
            })
            .count();
        assert_eq!(blocks, non_staging + reloads);
        for p in &panels {
            for b in &p.blocks {
                assert!(b.from < b.to && b.to <= p.steps && b.offset + b.size <= p.capacity);
            }
        }
    }

    #[test]
    fn activity_spans_every_timed_op() {
        let case = crate::paper::example();
        let plan = run(&case, "mpas,dlr").expect("plans").module;
        let panel = activity("Freeze", &plan, sigma_times(&plan).as_ref());
        let timed = plan.ops.iter().filter(|op| op.kind.cycles() > 0).count();
        assert_eq!(panel.intervals.len(), timed);
        let horizon = lattice_passes::timing::timing(&plan)
            .expect("times")
            .freeze
            .makespan;
        assert!(panel.intervals.iter().all(|i| i.end <= horizon));
    }
}
