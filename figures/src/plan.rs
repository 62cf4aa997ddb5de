//! The pictures of plans: the per-pipe activity of one or more modules on a shared time axis and
//! the per-tier address × σ-position residency map of the first, with spills marked. What
//! `lattice-translate --export-svg` writes for the modules it is given and what `lattice-bench
//! paper` draws for each case (its Freeze and CPE plans), through the same two functions, so
//! the two are the same files for the same modules.
//!
//! Residencies are read off σ: an ALLOC or SPILL_IN with an offset opens one at that offset, the
//! buffer's next SPILL_OUT or FREE closes it (a residency σ never closes runs to σ's end); one
//! that a SPILL_OUT closes or a SPILL_IN opens is marked as a spill. Buffers without an offset
//! (a module not planned yet) have no residency to draw. Activity comes from the timing engine's
//! start times under σ's own pipe order (the Freeze timing, which the verifier's replay equals on
//! every valid plan); a module whose σ closes a cycle shows no activity. Invalid plans are drawn
//! as they are, which shows, say, two residencies on the same bytes at once. Each panel is
//! labelled `@module (phase)`. Deterministic; O(V + E) per module plus the plotting.

use super::ResidencyPanel;
use super::{pipe_activity, residency_map, ActivityPanel, Block, FigureError, Interval};
use lattice_lir::{Module, OpKind};
use lattice_passes::timing::{evaluate, FixedGraph, PipeOrder, Times};
use std::path::{Path, PathBuf};

/// The data of the two pictures of a list of plans of one workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFigures {
    /// The first module's name.
    pub name: String,
    /// The first module's phase.
    pub phase: String,
    /// One panel per tier of the first module.
    pub residency: Vec<ResidencyPanel>,
    /// The target's pipes.
    pub pipes: Vec<String>,
    /// Each module's pipe activity, in order.
    pub activity: Vec<ActivityPanel>,
    /// The latest makespan: the shared time axis.
    pub horizon: u64,
}

impl PlanFigures {
    /// The figure data of `modules` (at least one; plans of one workload on one target).
    pub fn of(modules: &[&Module]) -> PlanFigures {
        let times: Vec<Option<Times>> = modules.iter().map(|m| sigma_times(m)).collect();
        let first = modules.first();
        PlanFigures {
            name: first.map_or_else(String::new, |m| m.name.clone()),
            phase: first.map_or_else(String::new, |m| m.phase.to_string()),
            residency: first.map_or_else(Vec::new, |m| residencies(m)),
            pipes: first.map_or_else(Vec::new, |m| m.target.pipes.clone()),
            horizon: times
                .iter()
                .flatten()
                .map(|t| t.makespan)
                .max()
                .unwrap_or(0),
            activity: modules
                .iter()
                .zip(&times)
                .map(|(m, t)| activity(m, t.as_ref()))
                .collect(),
        }
    }

    /// The residency map's file name in a directory: `residency-<module>.svg`.
    pub fn residency_file(&self) -> String {
        format!("residency-{}.svg", slug(&self.name))
    }

    /// The activity chart's file name in a directory: `activity-<module>.svg`.
    pub fn activity_file(&self) -> String {
        format!("activity-{}.svg", slug(&self.name))
    }

    /// Writes the residency map into `dir`; returns its path.
    pub fn draw_residency(&self, dir: &Path) -> Result<PathBuf, FigureError> {
        let path = dir.join(self.residency_file());
        let title = format!(
            "@{} ({}): address × schedule position, per tier",
            self.name, self.phase
        );
        residency_map(&path, &title, &self.residency)?;
        Ok(path)
    }

    /// Writes the activity chart into `dir`; returns its path.
    pub fn draw_activity(&self, dir: &Path) -> Result<PathBuf, FigureError> {
        let path = dir.join(self.activity_file());
        let title = format!("@{}: pipe activity", self.name);
        pipe_activity(&path, &title, &self.pipes, &self.activity, self.horizon)?;
        Ok(path)
    }
}

/// Start and end of every op of `module` under σ's own pipe order (its Freeze timing); `None`
/// only for a σ whose pipe order closes a cycle, which a verified plan never has.
fn sigma_times(module: &Module) -> Option<Times> {
    let graph = FixedGraph::of(module);
    evaluate(&graph, Some(&PipeOrder::of_sigma(&graph, &module.schedule))).ok()
}

/// The residencies of `module`'s tiers along σ.
fn residencies(module: &Module) -> Vec<ResidencyPanel> {
    let steps = module.schedule.len() as u64;
    let mut panels: Vec<ResidencyPanel> = module
        .target
        .tiers
        .iter()
        .map(|t| ResidencyPanel {
            tier: t.name.clone(),
            capacity: t.capacity,
            steps,
            blocks: Vec::new(),
        })
        .collect();
    // Per buffer, the start, offset and whether a reload opened its open residency.
    let mut open: Vec<Option<(u64, u64, bool)>> = vec![None; module.buffers.len()];
    let close = |panels: &mut [ResidencyPanel], residency: Option<(u64, u64, bool)>, b, to, out| {
        if let Some((from, offset, reloaded)) = residency {
            let buffer: &lattice_lir::Buffer = &module.buffers[b];
            panels[buffer.tier.index()].blocks.push(Block {
                from,
                to,
                offset,
                size: buffer.size,
                spill: reloaded || out,
            });
        }
    };
    for (position, &id) in module.schedule.iter().enumerate() {
        let at = position as u64;
        match module.op(id).kind {
            OpKind::Alloc {
                buffer,
                offset: Some(offset),
            } => open[buffer.index()] = Some((at, offset, false)),
            OpKind::SpillIn { buffer, offset, .. } => {
                open[buffer.index()] = Some((at, offset, true));
            }
            OpKind::SpillOut { buffer, .. } | OpKind::Free { buffer } => {
                let out = matches!(module.op(id).kind, OpKind::SpillOut { .. });
                let residency = open[buffer.index()].take();
                close(&mut panels, residency, buffer.index(), at + 1, out);
            }
            _ => {}
        }
    }
    for (b, residency) in open.into_iter().enumerate() {
        close(&mut panels, residency, b, steps, false);
    }
    panels
}

/// Every timed op of `module` as an interval on its pipe, at `times`.
fn activity(module: &Module, times: Option<&Times>) -> ActivityPanel {
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
        label: format!("@{} ({})", module.name, module.phase),
        intervals,
    }
}

/// A file-name-safe form of a workload name.
fn slug(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{has_text, scratch, svg};
    use lattice::manager::Session;
    use lattice::{parse_pipeline, PassManager};
    use lattice_lir::parse_module;
    use lattice_passes::REGISTRY;

    fn planned(pipeline: &str, capacity_l1: u64) -> Module {
        let text = include_str!("../../examples/matmul_tile.lir");
        let mut m = parse_module(text).unwrap();
        m.target.tiers[0].capacity = capacity_l1;
        let pipeline = parse_pipeline(pipeline, &REGISTRY).unwrap();
        let mut reports = Vec::new();
        PassManager::new(REGISTRY, pipeline)
            .run(&mut m, &mut Session::new(&mut reports))
            .expect("plans");
        m
    }

    #[test]
    fn residencies_cover_every_buffer_once_per_residency_with_spills_marked() {
        // L1 holds one of the two 1 KiB operands at a time: the plan may spill, and every
        // residency a spill ends or a reload begins is marked.
        for capacity in [4096, 1024] {
            let plan = planned("mpas,dlr", capacity);
            let panels = residencies(&plan);
            let tiers: Vec<&str> = panels.iter().map(|p| p.tier.as_str()).collect();
            assert_eq!(tiers, ["L1", "UB", "L0A", "L0B", "L0C"]);
            let blocks: Vec<&Block> = panels.iter().flat_map(|p| &p.blocks).collect();
            let reloads = plan
                .ops
                .iter()
                .filter(|op| matches!(op.kind, OpKind::SpillIn { .. }))
                .count();
            assert_eq!(blocks.len(), plan.buffers.len() + reloads);
            let marked = blocks.iter().filter(|b| b.spill).count();
            assert!(
                marked >= reloads && marked <= 2 * reloads,
                "{marked} {reloads}"
            );
            for p in &panels {
                for b in &p.blocks {
                    assert!(b.from < b.to && b.to <= p.steps && b.offset + b.size <= p.capacity);
                }
            }
        }
    }

    #[test]
    fn activity_spans_every_timed_op_on_the_latest_horizon() {
        let (freeze, refined) = (planned("mpas,dlr", 4096), planned("mpas,dlr,cpe", 4096));
        let figures = PlanFigures::of(&[&freeze, &refined]);
        let timed = freeze.ops.iter().filter(|op| op.kind.cycles() > 0).count();
        assert_eq!(figures.activity[0].intervals.len(), timed);
        let makespan = |m: &Module| lattice_passes::verify::metrics(m).makespan;
        assert_eq!(figures.horizon, makespan(&freeze).max(makespan(&refined)));
        let labels: Vec<&str> = figures.activity.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["@matmul_tile (planned)", "@matmul_tile (refined)"]);
        let dir = scratch("plan");
        let activity = svg(&figures.draw_activity(&dir.join("")).unwrap());
        assert!(has_text(&activity, "@matmul_tile: pipe activity"));
        let residency = svg(&figures.draw_residency(&dir.join("")).unwrap());
        assert!(has_text(&residency, "L0C (capacity 512 B, 1 residencies)"));
    }
}
