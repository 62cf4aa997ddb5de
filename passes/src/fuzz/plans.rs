//! The pipeline's fuzz property: a module the parser or the importer accepts is, by each of
//! [`PLAN_PIPELINES`], either planned into a plan the independent verifier accepts or refused
//! with an error. The paper pipeline is checked with and without its last pass, because CPE
//! refuses an invalid plan with an error: an invalid plan DLR wrote would otherwise pass as a
//! clean refusal instead of being caught at the pass that wrote it. Complexity: two pipeline runs
//! and two replays (see `crate::outcome`).

use super::CheckError;
use crate::outcome::{pipeline_outcome, Outcome};
use crate::REGISTRY;
use lattice::parse_pipeline;
use lattice_lir::Module;

/// The pipelines every accepted module must survive: planning, then the paper pipeline.
pub const PLAN_PIPELINES: [&str; 2] = ["mpas,dlr", "mpas,dlr,cpe"];

/// Runs each of [`PLAN_PIPELINES`] on `module` (which the parser and structural verifier, or the
/// importer, accepted) and checks each output with the independent verifier. Returns how the
/// paper pipeline's run ended.
pub fn check_plans(module: &Module) -> Result<Outcome, CheckError> {
    let mut last = Outcome::Failed { errors: Vec::new() };
    for text in PLAN_PIPELINES {
        let pipeline = match parse_pipeline(text, &REGISTRY) {
            Ok(pipeline) => pipeline,
            // The texts are constants the unit test below parses; this arm keeps the check total.
            Err(e) => {
                return Ok(Outcome::Failed {
                    errors: vec![e.to_string()],
                })
            }
        };
        last = pipeline_outcome(module, &pipeline);
        if let Outcome::Finished { violations } = &last {
            if let Some(first) = violations.first() {
                return Err(CheckError::InvalidPlan {
                    pipeline: text.into(),
                    first: first.to_string(),
                    count: violations.len(),
                });
            }
        }
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn the_plan_pipelines_parse_and_plan_the_example() {
        for text in PLAN_PIPELINES {
            assert!(parse_pipeline(text, &REGISTRY).is_ok(), "{text}");
        }
        let tile = parse_module(include_str!("../../../examples/matmul_tile.lir")).unwrap();
        assert_eq!(
            check_plans(&tile),
            Ok(Outcome::Finished {
                violations: Vec::new()
            })
        );
    }
}
