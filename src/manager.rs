//! The pass manager: runs a [`Pipeline`] over one module with verification and instrumentation.
//!
//! For each pass, in order: dump before (if selected), build a fresh instance from its options, show
//! it the passes that follow ([`crate::Pass::follow`]; its warnings are reported), run it with the
//! module's analysis manager and what the previous pass left for it ([`PassContext::leave`]: a
//! hand-off reaches the next pass only), drop the analyses it did not preserve, check that the
//! phase did not move back, verify the module (unless `verify_each` is off), then dump after and
//! diff (if selected). Timing and statistics are recorded per pass instance.
//!
//! Invariants:
//! - the first failure stops the pipeline: a pass error, a phase moving back, or a module the
//!   structural verifier rejects; the failure names the pass and carries the IR text from before
//!   it when a reproducer was asked for;
//! - no pass instance outlives one run, so passes cannot carry state from one module to the next;
//! - the manager adds O(print) work per pass only when a flag needs the text (dumps, changes,
//!   diffs, reproducers); otherwise its overhead is the verifier's O(V + E).

use crate::analysis::AnalysisManager;
use crate::diagnostic::Diagnostic;
use crate::ir_printing::{DumpPoint, DumpSink, IrPrinting};
use crate::pass::{PassContext, PassError};
use crate::pipeline::Pipeline;
use crate::registry::Registry;
use crate::statistics::Statistics;
use crate::timing::{Timing, TimingKind, TimingNode};
use lattice_lir::diag::{Loc, Severity};
use lattice_lir::{print_module, verify_module, Module, OpId};
use std::time::Instant;

/// Everything a run reports besides the module: dumps, diagnostics, timing and statistics.
pub struct Session<'w> {
    /// Where dumps go.
    pub sink: DumpSink<'w>,
    /// Diagnostics of the current module, in the order they arose.
    pub diagnostics: Vec<Diagnostic>,
    /// Timing, when `--timing` asked for it.
    pub timing: Option<Timing>,
    /// Pass statistics.
    pub statistics: Statistics,
    /// The directory name dumps of the current module go under (with a tree directory).
    pub dump_name: String,
}

impl<'w> Session<'w> {
    /// A session that writes dumps and reports to `stream`, with no timing and empty statistics:
    /// what a program embedding the pass manager needs. After a run it holds the passes'
    /// diagnostics and statistics:
    ///
    /// ```
    /// use lattice::manager::Session;
    /// use lattice::statistics::StatisticsFormat;
    /// use lattice::{parse_pipeline, PassManager};
    /// use lattice_passes::REGISTRY;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/matmul_tile.lir");
    /// let mut module = lattice_lir::parse_module(&std::fs::read_to_string(path)?)?;
    /// let mut dumps = Vec::new();
    /// let mut session = Session::new(&mut dumps);
    /// let pipeline = parse_pipeline("mpas", &REGISTRY)?;
    /// PassManager::new(REGISTRY, pipeline).run(&mut module, &mut session).expect("mpas runs");
    /// assert!(session.statistics.report(StatisticsFormat::Text).contains("logical-peak-after"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(stream: &'w mut dyn std::io::Write) -> Self {
        Session {
            sink: DumpSink::new(stream, None),
            diagnostics: Vec::new(),
            timing: None,
            statistics: Statistics::default(),
            dump_name: String::new(),
        }
    }
}

/// Why a pipeline stopped.
#[derive(Debug)]
pub struct Failure {
    /// 0-based index of the pass that failed (or after which the IR was invalid).
    pub index: usize,
    /// The printed module before that pass, when the manager was asked to keep it.
    pub before: Option<String>,
}

/// A configured pipeline, ready to run on modules.
///
/// Embedding it takes a registry of passes, a pipeline and a [`Session`] for the reports
/// (`examples/embed.rs` is a whole program):
///
/// ```
/// use lattice::manager::Session;
/// use lattice::{parse_pipeline, PassManager};
/// use lattice_passes::REGISTRY;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/matmul_tile.lir");
/// let mut module = lattice_lir::parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
/// let pipeline = parse_pipeline("mpas,dlr", &REGISTRY).unwrap();
/// let mut reports = Vec::new();
/// let mut session = Session::new(&mut reports);
/// PassManager::new(REGISTRY, pipeline).run(&mut module, &mut session).unwrap();
/// assert_eq!(module.phase, lattice_lir::Phase::Planned);
/// ```
pub struct PassManager {
    registry: Registry,
    pipeline: Pipeline,
    verify_each: bool,
    printing: IrPrinting,
    keep_before: bool,
}

impl PassManager {
    /// A manager for `pipeline` (whose passes all come from `registry`).
    pub fn new(registry: Registry, pipeline: Pipeline) -> Self {
        PassManager {
            registry,
            pipeline,
            verify_each: true,
            printing: IrPrinting::default(),
            keep_before: false,
        }
    }

    /// Verify after every pass (on by default).
    pub fn verify_each(mut self, on: bool) -> Self {
        self.verify_each = on;
        self
    }

    /// IR printing around passes.
    pub fn printing(mut self, printing: IrPrinting) -> Self {
        self.printing = printing;
        self
    }

    /// Keep the IR before each pass so a failure can carry it (for reproducers).
    pub fn keep_before(mut self, on: bool) -> Self {
        self.keep_before = on;
        self
    }

    /// The pipeline this manager runs.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Runs the pipeline over `module`. Timing entries use slots `1..=n` (slot 0 is parsing).
    pub fn run(&self, module: &mut Module, session: &mut Session<'_>) -> Result<(), Failure> {
        let mut analyses = AnalysisManager::new();
        let mut left = None;
        let count = self.pipeline.passes.len();
        for (index, spec) in self.pipeline.passes.iter().enumerate() {
            let number = index + 1;
            let name = spec.name;
            let label = spec.to_string();
            let _span = tracing::info_span!("pass", name, number).entered();
            let fail = |session: &mut Session<'_>, message: String, before: Option<String>| {
                session.diagnostics.push(Diagnostic::note(
                    None,
                    format!("{message} (pass {number} of {count}: {label})"),
                ));
                Failure { index, before }
            };

            let dump_before = self.printing.before.matches(name);
            let keep_text = dump_before || self.keep_before || self.printing.needs_before_text();
            let before = keep_text.then(|| print_module(module));
            if dump_before {
                let text = before.as_deref().unwrap_or_default();
                self.dump(session, number, name, &label, DumpPoint::Before, text)?;
            }

            let info = self.registry.get(name);
            let built = info.map_or_else(
                || Err(self.registry.unknown_pass(name)),
                |info| (info.build)(&spec.options),
            );
            let mut pass = match built {
                Ok(pass) => pass,
                Err(message) => {
                    session.diagnostics.push(Diagnostic::error(None, message));
                    return Err(fail(session, "the pass could not be built".into(), before));
                }
            };

            for warning in pass.follow(&self.pipeline.passes[index + 1..]) {
                let diagnostic = Diagnostic::new(Severity::Warning, None, warning);
                session.diagnostics.push(diagnostic);
            }
            let phase_before = module.phase;
            let start = Instant::now();
            let mut cx = PassContext::new(&mut analyses).receiving(left.take());
            let result = pass.run(module, &mut cx);
            left = cx.take_left();
            let (preserved, statistics, emitted) = cx.finish();
            let mut node = TimingNode::leaf(name, TimingKind::Pass, start.elapsed());
            for run in analyses.take_runs() {
                node.add_child(TimingNode::leaf(run.name, TimingKind::Analysis, run.wall));
            }
            analyses.invalidate(&preserved);
            session.statistics.record(number, &label, statistics);
            let emitted_error = emitted.iter().any(|d| d.severity == Severity::Error);
            for d in emitted {
                let loc = op_loc(module, d.op);
                session
                    .diagnostics
                    .push(Diagnostic::new(d.severity, loc, d.message));
            }

            let outcome = match result {
                Err(error) => Err(self.report_pass_error(module, session, &error)),
                Ok(()) if emitted_error => Err("the pass reported errors".to_string()),
                Ok(()) if module.phase < phase_before => {
                    session.diagnostics.push(Diagnostic::error(
                        None,
                        format!(
                            "pass `{name}` moved the phase back from `{}` to `{}`",
                            phase_before.keyword(),
                            module.phase.keyword()
                        ),
                    ));
                    Err("the pass broke the phase order".to_string())
                }
                Ok(()) if self.verify_each => {
                    let start = Instant::now();
                    let verified = verify_module(module);
                    node.add_child(TimingNode::leaf(
                        "verify",
                        TimingKind::Verify,
                        start.elapsed(),
                    ));
                    verified.map_err(|errors| {
                        session
                            .diagnostics
                            .extend(errors.iter().map(|e| Diagnostic::from_located(e)));
                        format!(
                            "the IR is invalid after pass `{name}`: {} structural error(s)",
                            errors.len()
                        )
                    })
                }
                Ok(()) => Ok(()),
            };
            if let Some(timing) = &mut session.timing {
                timing.record(number, node);
            }
            if let Err(message) = outcome {
                if self.printing.after_failure {
                    let text = print_module(module);
                    self.dump(
                        session,
                        number,
                        name,
                        &label,
                        DumpPoint::AfterFailure,
                        &text,
                    )?;
                }
                return Err(fail(session, message, before));
            }

            let dump_any = self.printing.dump_after(name, true) || self.printing.diff;
            if dump_any {
                let after = print_module(module);
                let changed = before.as_deref() != Some(after.as_str());
                if self.printing.dump_after(name, changed) {
                    self.dump(session, number, name, &label, DumpPoint::After, &after)?;
                }
                if self.printing.diff {
                    let before = before.as_deref().unwrap_or_default();
                    if let Err(e) = session.sink.diff(number, &label, before, &after) {
                        return Err(self.sink_failure(session, index, &e));
                    }
                }
            }
            tracing::debug!(ops = module.ops.len(), "pass finished");
        }
        Ok(())
    }

    fn report_pass_error(
        &self,
        module: &Module,
        session: &mut Session<'_>,
        error: &PassError,
    ) -> String {
        session
            .diagnostics
            .push(Diagnostic::error(op_loc(module, error.op), &error.message));
        for (op, note) in &error.notes {
            session
                .diagnostics
                .push(Diagnostic::note(op_loc(module, *op), note));
        }
        "the pass failed".to_string()
    }

    fn dump(
        &self,
        session: &mut Session<'_>,
        number: usize,
        name: &str,
        label: &str,
        point: DumpPoint,
        text: &str,
    ) -> Result<(), Failure> {
        let dir = session.dump_name.clone();
        session
            .sink
            .dump(&dir, number, name, label, point, text)
            .map_err(|e| self.sink_failure(session, number - 1, &e))
    }

    fn sink_failure(&self, session: &mut Session<'_>, index: usize, e: &std::io::Error) -> Failure {
        session.diagnostics.push(Diagnostic::error(
            None,
            format!("cannot write an IR dump: {e}"),
        ));
        Failure {
            index,
            before: None,
        }
    }
}

/// The input location of `op`, if it still exists and came from the input.
fn op_loc(module: &Module, op: Option<OpId>) -> Option<Loc> {
    op.and_then(|id| module.ops.get(id.index()))
        .and_then(|op| op.loc)
}
