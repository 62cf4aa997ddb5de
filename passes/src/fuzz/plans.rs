//! The pipeline's fuzz property: a module the parser or the importer accepts is either planned by
//! [`PLAN_PIPELINE`] into a plan the independent verifier accepts, or refused with an error.
//! Complexity: the pipeline's and the replay's (see `crate::outcome`).

use super::CheckError;
use crate::outcome::{pipeline_outcome, Outcome};
use crate::REGISTRY;
use lattice::parse_pipeline;
use lattice_lir::Module;

/// The paper pipeline, which every accepted module must survive.
pub const PLAN_PIPELINE: &str = "mpas,dlr,cpe";

/// Runs [`PLAN_PIPELINE`] on `module` (which the parser and structural verifier, or the importer,
/// accepted) and checks its output with the independent verifier. Returns how the run ended.
pub fn check_plans(module: &Module) -> Result<Outcome, CheckError> {
    let pipeline = match parse_pipeline(PLAN_PIPELINE, &REGISTRY) {
        Ok(pipeline) => pipeline,
        // The text is a constant the unit test below parses; this arm only keeps the check total.
        Err(e) => {
            return Ok(Outcome::Failed {
                errors: vec![e.to_string()],
            })
        }
    };
    let outcome = pipeline_outcome(module, &pipeline);
    match &outcome {
        Outcome::Finished { violations } if !violations.is_empty() => {
            Err(CheckError::InvalidPlan {
                pipeline: PLAN_PIPELINE.into(),
                first: violations[0].to_string(),
                count: violations.len(),
            })
        }
        _ => Ok(outcome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn the_plan_pipeline_parses_and_plans_the_example() {
        assert!(parse_pipeline(PLAN_PIPELINE, &REGISTRY).is_ok());
        let tile = parse_module(include_str!("../../../examples/matmul_tile.lir")).unwrap();
        assert_eq!(
            check_plans(&tile),
            Ok(Outcome::Finished {
                violations: Vec::new()
            })
        );
    }
}
