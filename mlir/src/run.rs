//! Lattice passes on one LIR module, as `lattice-opt`'s pass manager runs them — the module
//! checked first (unless the previous pass left it), each pass a fresh instance, the phase only
//! moving forward, the result checked after each — with everything they reported. One pass
//! ([`run_pass`]) is what the MLIR bridge's external passes and the C ABI (`lattice_capi`, behind
//! the C++ MLIR library) run for each lattice pass of a host's pipeline, so a lattice pass behaves
//! alike in every host; a whole lattice pipeline ([`run_pipeline`]) is what the C++ library's
//! `lattice-pipeline` pass runs: there, as in `lattice-opt`, each pass is shown the passes after
//! it ([`lattice::Pass::follow`]) and gets what the one before it left
//! ([`lattice::PassContext::leave`]), and the analyses persist between the passes.
//!
//! Invariants: a run failed exactly when an error is among the reports; then the module may be
//! partly changed and callers keep it out of the IR. The first failing pass stops a pipeline.
//! Reports name the ops of the module as the pass that emitted them left it; passes only append
//! ops, so an op the run started with keeps its id throughout. Cost: the passes' own, plus one
//! structural verification before (unless `verified`) and one after each pass, O(V + E) each.

use lattice::pass::Statistic;
use lattice::pipeline::PassSpec;
use lattice::{AnalysisManager, PassContext, Registry};
use lattice_lir::diag::{Loc, Severity};
use lattice_lir::{verify_module, Module, OpId};
use std::any::Any;
use std::rc::Rc;

/// A diagnostic of a pass run: its severity, where, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// How severe.
    pub severity: Severity,
    /// The op it is about, if any.
    pub op: Option<OpId>,
    /// Its place in the LIR text, for structural errors of a module read from text.
    pub loc: Option<Loc>,
    /// The message.
    pub message: String,
}

/// The counters one pass of a run reported.
#[derive(Debug)]
pub struct PassStatistics {
    /// The pass (its registered name).
    pub pass: &'static str,
    /// Its place in the run, from 0.
    pub position: usize,
    /// The counters, in the order it first reported them.
    pub statistics: Vec<Statistic>,
}

/// What a run of passes reported.
#[derive(Debug, Default)]
pub struct Ran {
    /// What the passes emitted (warnings and remarks too) followed by the failure, if any.
    pub reports: Vec<Report>,
    /// The counters of each pass that ran, in run order.
    pub statistics: Vec<PassStatistics>,
}

impl Ran {
    /// Whether the run failed.
    pub fn failed(&self) -> bool {
        self.reports.iter().any(|r| r.severity == Severity::Error)
    }
}

/// Checks `module` (unless it is `verified` already), runs the pass `spec` of `registry` on it and
/// checks the result, as lattice's pass manager does; leaves `module` as the pass left it. The
/// pass is not shown what follows it (a host's pass manager shows it nothing either).
pub fn run_pass(spec: &PassSpec, registry: Registry, module: &mut Module, verified: bool) -> Ran {
    run(
        std::slice::from_ref(spec),
        false,
        registry,
        module,
        verified,
    )
}

/// Checks `module` (unless it is `verified` already) and runs the lattice pipeline `passes` on
/// it as `lattice-opt` does: each pass shown the passes after it, handed what the previous one
/// left and checked after it ran, with the analyses kept between passes; the first failure
/// stops it. Each report's message names the pass it came from (`dlr: …`).
pub fn run_pipeline(
    passes: &[PassSpec],
    registry: Registry,
    module: &mut Module,
    verified: bool,
) -> Ran {
    run(passes, true, registry, module, verified)
}

fn run(
    passes: &[PassSpec],
    pipeline: bool,
    registry: Registry,
    module: &mut Module,
    verified: bool,
) -> Ran {
    let mut ran = Ran::default();
    let checked = if verified {
        Ok(())
    } else {
        verify_module(module)
    };
    if let Err(errors) = checked {
        ran.reports.extend(
            errors
                .iter()
                .map(|e| error(e.loc, format!("the lattice module is not well formed: {e}"))),
        );
        return ran;
    }
    let mut analyses = AnalysisManager::new();
    let mut left: Option<Rc<dyn Any>> = None;
    for (position, spec) in passes.iter().enumerate() {
        let first = ran.reports.len();
        let following = pipeline.then(|| &passes[position + 1..]);
        let pass = Step {
            spec,
            position,
            following,
        };
        left = run_one(&pass, left, registry, module, &mut analyses, &mut ran);
        if pipeline {
            for r in &mut ran.reports[first..] {
                r.message = format!("{}: {}", spec.name, r.message);
            }
        }
        if ran.failed() {
            break;
        }
    }
    ran
}

/// An error about the module (at `loc` in its text, if it came from text).
fn error(loc: Option<Loc>, message: String) -> Report {
    Report {
        severity: Severity::Error,
        op: None,
        loc,
        message,
    }
}

/// One pass of a run: its spec, its place, and the passes after it when the run is a whole
/// pipeline (`None`: the pass is not shown them).
struct Step<'a> {
    spec: &'a PassSpec,
    position: usize,
    following: Option<&'a [PassSpec]>,
}

/// Runs `step` into `ran`, handing it what the previous pass left (`received`); returns what it
/// left for the next pass.
fn run_one(
    step: &Step<'_>,
    received: Option<Rc<dyn Any>>,
    registry: Registry,
    module: &mut Module,
    analyses: &mut AnalysisManager,
    ran: &mut Ran,
) -> Option<Rc<dyn Any>> {
    let spec = step.spec;
    let Some(info) = registry.get(spec.name) else {
        ran.reports
            .push(error(None, registry.unknown_pass(spec.name)));
        return None;
    };
    let mut pass = match (info.build)(&spec.options) {
        Ok(pass) => pass,
        Err(message) => {
            ran.reports.push(error(None, message));
            return None;
        }
    };
    if let Some(following) = step.following {
        for message in pass.follow(following) {
            ran.reports.push(Report {
                severity: Severity::Warning,
                ..error(None, message)
            });
        }
    }
    let phase = module.phase;
    let mut cx = PassContext::new(analyses).receiving(received);
    let result = pass.run(module, &mut cx);
    let left = cx.take_left();
    let (preserved, statistics, emitted) = cx.finish();
    analyses.invalidate(&preserved);
    ran.statistics.push(PassStatistics {
        pass: spec.name,
        position: step.position,
        statistics,
    });
    ran.reports.extend(emitted.into_iter().map(|d| Report {
        severity: d.severity,
        op: d.op,
        loc: None,
        message: d.message,
    }));
    if let Err(failure) = result {
        let notes: String = failure
            .notes
            .iter()
            .map(|(_, n)| format!("; note: {n}"))
            .collect();
        ran.reports.push(Report {
            op: failure.op,
            ..error(None, format!("{}{notes}", failure.message))
        });
    }
    if ran.failed() {
        return None;
    }
    if module.phase < phase {
        let message = format!(
            "the pass moved the phase back from `{phase}` to `{}`",
            module.phase
        );
        ran.reports.push(error(None, message));
    } else if let Err(errors) = verify_module(module) {
        ran.reports.extend(
            errors
                .iter()
                .map(|e| error(e.loc, format!("the IR is invalid after the pass: {e}"))),
        );
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice::manager::Session;
    use lattice::{parse_pipeline, PassManager};
    use lattice_lir::{parse_module, print_module};
    use lattice_passes::REGISTRY;

    fn matmul_tile() -> Module {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/matmul_tile.lir");
        parse_module(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_pipeline_plans_as_lattice_opt_and_counts_per_pass() {
        for text in ["mpas,dlr{victim=lru},cpe", "order-search{budget=5},dlr,cpe"] {
            let pipeline = parse_pipeline(text, &REGISTRY).unwrap();
            let mut expected = matmul_tile();
            let mut sink = Vec::new();
            let mut session = Session::new(&mut sink);
            PassManager::new(REGISTRY, pipeline.clone())
                .run(&mut expected, &mut session)
                .unwrap();
            let mut module = matmul_tile();
            let ran = run_pipeline(&pipeline.passes, REGISTRY, &mut module, false);
            assert!(!ran.failed(), "{text}: {:?}", ran.reports);
            assert_eq!(print_module(&module), print_module(&expected), "{text}");
            let passes: Vec<(&str, usize)> = ran
                .statistics
                .iter()
                .map(|s| (s.pass, s.position))
                .collect();
            let names: Vec<&str> = pipeline.passes.iter().map(|p| p.name).collect();
            assert_eq!(passes, names.into_iter().zip(0..).collect::<Vec<_>>());
            assert!(ran.statistics.iter().all(|s| !s.statistics.is_empty()));
        }
    }

    #[test]
    fn a_failing_pass_stops_the_pipeline_and_names_itself() {
        let pipeline = parse_pipeline("mpas,test-fail{op=%9 message=boom},dlr", &REGISTRY).unwrap();
        let mut module = matmul_tile();
        let ran = run_pipeline(&pipeline.passes, REGISTRY, &mut module, false);
        assert!(ran.failed());
        let error = ran
            .reports
            .iter()
            .find(|r| r.severity == Severity::Error)
            .unwrap();
        assert_eq!(error.message, "test-fail: boom");
        assert!(error.op.is_some(), "the failure is at its op");
        assert_eq!(ran.statistics.len(), 2, "dlr did not run");
        // One pass alone names no pass: a host's diagnostics are prefixed by the host.
        let ran = run_pass(&pipeline.passes[1], REGISTRY, &mut matmul_tile(), false);
        assert_eq!(ran.reports.last().unwrap().message, "boom");
    }
}
