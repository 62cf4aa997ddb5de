//! The reducer on a planted failure in large generated modules (issue 19): `test-fail` at one
//! command, after MPAS and DLR, in a 4,000-op workload of each shape shrinks to at most ten ops
//! that still fail with the planted message, in a bounded number of tests. Each case runs the
//! pipeline once per test on a shrinking module.

use lattice::parse_pipeline;
use lattice_lir::{verify_module, OpKind};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::outcome::{pipeline_outcome, Outcome};
use lattice_passes::reduce::{reduce, Expect, Oracle};
use lattice_passes::REGISTRY;
use std::time::Instant;

#[test]
fn a_planted_failure_in_a_large_generated_module_shrinks_to_a_handful_of_ops() {
    for shape in Shape::ALL {
        let module = generate(&GenSpec {
            shape,
            nodes: 4000,
            seed: 19,
        });
        // The command in the middle of σ.
        let commands: Vec<u32> = module
            .schedule
            .iter()
            .map(|&id| module.op(id))
            .filter(|op| matches!(op.kind, OpKind::Compute { .. }))
            .map(|op| op.name)
            .collect();
        let planted = commands[commands.len() / 2];
        let text = format!("mpas,dlr,test-fail{{op=%{planted}}}");
        let pipeline = parse_pipeline(&text, &REGISTRY).unwrap();
        let oracle = Oracle::Pipeline {
            pipeline: pipeline.clone(),
            expect: Expect::Fails,
            contains: Some("requested failure".into()),
        };
        let started = Instant::now();
        let reduction = reduce(&module, &oracle).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        let small = &reduction.module;
        eprintln!(
            "{shape}: {} -> {} ops in {} tests, {seconds:.2} s",
            module.ops.len(),
            small.ops.len(),
            reduction.tests
        );
        assert!(
            small.ops.len() <= 10,
            "{shape}: {} ops left",
            small.ops.len()
        );
        assert!(small.ops.iter().any(|op| op.name == planted));
        assert!(reduction.tests <= 200, "{shape}: {} tests", reduction.tests);
        verify_module(small).unwrap();
        let Outcome::Failed { errors } = pipeline_outcome(small, &pipeline) else {
            panic!("{shape}: the reduced module no longer fails");
        };
        assert_eq!(errors, ["requested failure"]);
    }
}
