//! One pipeline on one workload, the way `lattice-opt --pass-pipeline=P --metrics` runs it: the
//! shipped registry's pass manager (structural verification after every pass) on the imported
//! case, then the independent replay of the result. Because it is the same manager and the same
//! replay, every metric in the report equals what `lattice-opt` prints for that pipeline.
//!
//! Invariants: a run that fails, or whose result the replay rejects, is an error naming the case
//! and pipeline (the report never shows an unverified number); wall times are measured per pass
//! (with its analyses split out) and for the replay, and are the only non-deterministic output.
//! Cost: the pipeline's plus one replay, O((V + E) log V).

use super::error::PaperError;
use lattice::error_limit::render_all;
use lattice::error_limit::ErrorLimit;
use lattice::ir_printing::DumpSink;
use lattice::manager::Session;
use lattice::statistics::Statistics;
use lattice::timing::{Timing, TimingKind, TimingNode};
use lattice::{parse_pipeline, PassManager};
use lattice_lir::Module;
use lattice_passes::verify::{replay, Metrics, ReplayOptions};
use lattice_passes::REGISTRY;
use std::time::{Duration, Instant};

/// What one pipeline made of one workload.
#[derive(Clone, Debug)]
pub struct Run {
    /// The resulting module.
    pub module: Module,
    /// Its replayed metrics (what `--metrics` prints).
    pub metrics: Metrics,
    /// Wall time per pass instance, in pipeline order, with its analyses as children.
    pub passes: Vec<TimingNode>,
    /// Wall time of the independent replay.
    pub verification: Duration,
}

impl Run {
    /// Wall time of the passes named `pass` (own time, analyses excluded) and of the analyses
    /// named `analysis` they computed, summed over the pipeline.
    pub fn pass_time(&self, pass: &str) -> Duration {
        self.passes
            .iter()
            .filter(|n| n.name == pass)
            .map(|n| {
                let analyses: Duration = n
                    .children
                    .iter()
                    .filter(|c| c.kind == TimingKind::Analysis)
                    .map(|c| c.wall)
                    .sum();
                n.wall.saturating_sub(analyses)
            })
            .sum()
    }

    /// Wall time of every computation of the analysis `name` in the pipeline.
    pub fn analysis_time(&self, name: &str) -> Duration {
        self.passes
            .iter()
            .flat_map(|n| &n.children)
            .filter(|c| c.kind == TimingKind::Analysis && c.name == name)
            .map(|c| c.wall)
            .sum()
    }
}

/// Runs `pipeline` on a copy of `case` and replays the result.
pub fn run(case: &Module, pipeline: &str) -> Result<Run, PaperError> {
    let fail = |message: String| PaperError::Pipeline {
        case: case.name.clone(),
        pipeline: pipeline.to_string(),
        message,
    };
    let parsed = parse_pipeline(pipeline, &REGISTRY).map_err(|e| fail(e.render("", pipeline)))?;
    let manager = PassManager::new(REGISTRY, parsed);
    let mut sink = Vec::new();
    let mut session = Session {
        sink: DumpSink::new(&mut sink, None),
        diagnostics: Vec::new(),
        timing: Some(Timing::default()),
        statistics: Statistics::default(),
        dump_name: String::new(),
    };
    let mut module = case.clone();
    if manager.run(&mut module, &mut session).is_err() {
        let limit = ErrorLimit::default();
        let rendered = render_all(
            &session.diagnostics,
            &case.name,
            None,
            limit,
            "lattice-bench",
        );
        return Err(fail(rendered));
    }
    let passes = session
        .timing
        .as_ref()
        .map(|t| t.entries().cloned().collect())
        .unwrap_or_default();
    let clock = Instant::now();
    let replayed = replay(&module, &ReplayOptions::default());
    let verification = clock.elapsed();
    if let Some(first) = replayed.violations.first() {
        return Err(PaperError::Invalid {
            case: case.name.clone(),
            pipeline: pipeline.to_string(),
            count: replayed.violations.len(),
            first: first.to_string(),
        });
    }
    Ok(Run {
        module,
        metrics: replayed.metrics,
        passes,
        verification,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::example as tiny_case;

    #[test]
    fn a_run_equals_the_replay_of_its_module_and_times_its_passes() {
        let case = tiny_case();
        let run = run(&case, "mpas,dlr,cpe").expect("the tiny case plans");
        assert_eq!(run.metrics, lattice_passes::verify::metrics(&run.module));
        let names: Vec<&str> = run.passes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["mpas", "dlr", "cpe"]);
    }

    #[test]
    fn a_failing_pipeline_names_the_case_and_pipeline() {
        let case = tiny_case();
        let error = run(&case, "cpe").expect_err("cpe needs a plan");
        let text = error.to_string();
        assert!(text.contains(&case.name) && text.contains("cpe"), "{text}");
    }
}
