//! What a pipeline makes of a module, judged independently: run the pipeline in-process with the
//! registry of lattice's passes (structural verification after every pass, as `lattice-opt` does)
//! and, when it succeeds, replay the result with the independent verifier.
//!
//! This is the one judgement both the fuzz checks (`crate::fuzz`: "the pipeline plans validly or
//! fails cleanly") and the reducer's built-in interestingness tests (`crate::reduce`: "this
//! pipeline fails", "the verifier rejects the output") are made of, so the two cannot drift apart.
//! Invariant: the caller's module is never modified (the pipeline runs on a copy), and nothing is
//! printed (the run's reports go to a buffer that is dropped). Complexity: the pipeline's own plus
//! the replay's O((V + E) log V).

use crate::verify::{replay, ReplayOptions, Violation};
use crate::REGISTRY;
use lattice::manager::Session;
use lattice::{PassManager, Pipeline};
use lattice_lir::diag::Severity;
use lattice_lir::Module;

/// How a pipeline run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The pipeline stopped with an error; the messages of its error diagnostics, in order.
    Failed {
        /// Every error message the run reported (pass errors, structural errors).
        errors: Vec<String>,
    },
    /// The pipeline succeeded; what the independent replay says about its result.
    Finished {
        /// The replay's violations (empty: the output is valid).
        violations: Vec<Violation>,
    },
}

impl Outcome {
    /// Whether the pipeline succeeded and the replay rejects its output.
    pub fn verifier_rejects(&self) -> bool {
        matches!(self, Outcome::Finished { violations } if !violations.is_empty())
    }
}

/// Runs `pipeline` on a copy of `module` and replays the result when it succeeds.
pub fn pipeline_outcome(module: &Module, pipeline: &Pipeline) -> Outcome {
    let mut module = module.clone();
    let mut reports = Vec::new();
    let mut session = Session::new(&mut reports);
    let ran = PassManager::new(REGISTRY, pipeline.clone()).run(&mut module, &mut session);
    let errors: Vec<String> = session
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect();
    // A pass that reports an error diagnostic but returns `Ok` is still a failing run: the driver
    // exits 1 for it, so an oracle must see it the same way.
    if ran.is_err() || !errors.is_empty() {
        return Outcome::Failed { errors };
    }
    Outcome::Finished {
        violations: replay(&module, &ReplayOptions::default()).violations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice::parse_pipeline;
    use lattice_lir::parse_module;

    const TILE: &str = include_str!("../../examples/matmul_tile.lir");

    #[test]
    fn a_planning_pipeline_finishes_validly_and_a_failing_one_reports_its_error() {
        let module = parse_module(TILE).unwrap();
        let plan = parse_pipeline("mpas,dlr,cpe", &REGISTRY).unwrap();
        assert_eq!(
            pipeline_outcome(&module, &plan),
            Outcome::Finished {
                violations: Vec::new()
            }
        );
        let fail = parse_pipeline("mpas,test-fail{op=%9}", &REGISTRY).unwrap();
        let Outcome::Failed { errors } = pipeline_outcome(&module, &fail) else {
            panic!("test-fail must fail");
        };
        assert_eq!(errors, ["requested failure"]);
        assert_eq!(
            module,
            parse_module(TILE).unwrap(),
            "the input was modified"
        );
    }
}
