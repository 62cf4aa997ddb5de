//! The pass abstraction: what a pass is, what it may touch, and how it reports back.
//!
//! A pass is a struct built from its typed options ([`PassOptions`]) that transforms or checks one
//! module. Its algorithm lives in plain functions the `run` method calls, so tests and fuzzers can
//! call them without a pass manager. The contract every pass keeps (MLIR's, adapted):
//! - it reads and writes only the module it is given and the analyses the context hands out; it
//!   keeps no state between runs (the manager builds a fresh instance per pipeline);
//! - it either leaves a module that passes the structural verifier or fails (returns a
//!   [`PassError`] or emits an error); the manager verifies after every pass by default and names
//!   the pass when it did not;
//! - it moves the module's phase only forward;
//! - unless it declares analyses preserved ([`PassContext::preserve`]), all cached analyses are dropped
//!   after it runs;
//! - it is deterministic: the same module and options give the same result.

use crate::analysis::{Analysis, AnalysisManager, Preserved};
use crate::options::{OptionInfo, PassOptions};
use crate::pipeline::PassSpec;
use lattice_lir::{Module, OpId, Severity};
use std::any::Any;
use std::rc::Rc;

/// A pass as the pass manager runs it.
pub trait Pass {
    /// Runs the pass over `module`.
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError>;

    /// Called once before `run` with the passes that follow this one in the pipeline being run
    /// (none when the pass runs without a pipeline around it, as in an MLIR pass manager). A pass
    /// whose result depends on what comes after it reads them here — the order search plans its
    /// candidates with the passes that follow. Returns warnings for the user. Default: ignored.
    fn follow(&mut self, _following: &[PassSpec]) -> Vec<String> {
        Vec::new()
    }
}

/// A pass that can be registered: its name, summary and options type.
pub trait RegisteredPass: Pass + Sized + 'static {
    /// The pipeline name and CLI flag (`mpas` → `--mpas`); kebab case.
    const NAME: &'static str;
    /// One line for `--list-passes`, `--help` and the manual's pass table.
    const SUMMARY: &'static str;
    /// The typed options.
    type Options: PassOptions;
    /// Builds the pass from its options.
    fn new(options: Self::Options) -> Self;
}

/// A registration entry: everything the registry, the CLI and the pipeline parser need.
#[derive(Clone, Copy)]
pub struct PassInfo {
    /// See [`RegisteredPass::NAME`].
    pub name: &'static str,
    /// See [`RegisteredPass::SUMMARY`].
    pub summary: &'static str,
    /// The options, in declaration order.
    pub options: fn() -> Vec<OptionInfo>,
    /// Builds an instance from canonical option pairs.
    pub build: PassBuilder,
}

impl PassInfo {
    /// The entry of pass type `P`.
    pub const fn of<P: RegisteredPass>() -> Self {
        PassInfo {
            name: P::NAME,
            summary: P::SUMMARY,
            options: P::Options::infos,
            build: build::<P>,
        }
    }

    /// Whether the pass only exercises the infrastructure (its name starts with `test-`).
    pub fn is_test(&self) -> bool {
        self.name.starts_with("test-")
    }
}

fn build<P: RegisteredPass>(pairs: &[(String, String)]) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(P::new(P::Options::from_pairs(pairs)?)))
}

/// Why a pass failed: a message anchored at an op when there is one, plus notes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PassError {
    /// The op the failure is about, if any.
    pub op: Option<OpId>,
    /// What went wrong, as a sentence.
    pub message: String,
    /// Further located explanations.
    pub notes: Vec<(Option<OpId>, String)>,
}

impl PassError {
    /// A failure of the whole module.
    pub fn new(message: impl Into<String>) -> Self {
        PassError {
            op: None,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A failure at `op`.
    pub fn at(op: OpId, message: impl Into<String>) -> Self {
        PassError {
            op: Some(op),
            ..PassError::new(message)
        }
    }

    /// Adds a note, optionally at an op.
    pub fn with_note(mut self, op: Option<OpId>, note: impl Into<String>) -> Self {
        self.notes.push((op, note.into()));
        self
    }
}

/// A named counter a pass reports (`--pass-statistics`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statistic {
    /// Kebab-case name.
    pub name: &'static str,
    /// What it counts.
    pub description: &'static str,
    /// The value.
    pub value: u64,
}

/// A diagnostic a pass emits while running (an error makes the pass fail when it returns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassDiagnostic {
    /// Error, warning, remark or note.
    pub severity: Severity,
    /// The op it is about, if any.
    pub op: Option<OpId>,
    /// The text.
    pub message: String,
}

/// Builds a pass from canonical option pairs (the registry's constructor).
pub type PassBuilder = fn(&[(String, String)]) -> Result<Box<dyn Pass>, String>;

/// What a running pass can reach besides the module: analyses, statistics, preservation, remarks.
pub struct PassContext<'a> {
    analyses: &'a mut AnalysisManager,
    preserved: Preserved,
    statistics: Vec<Statistic>,
    diagnostics: Vec<PassDiagnostic>,
    /// What the previous pass left for this one.
    received: Option<Rc<dyn Any>>,
    /// What this pass leaves for the next one.
    left: Option<Rc<dyn Any>>,
}

impl<'a> PassContext<'a> {
    /// A context over `analyses`, preserving nothing yet.
    pub fn new(analyses: &'a mut AnalysisManager) -> Self {
        PassContext {
            analyses,
            preserved: Preserved::None,
            statistics: Vec::new(),
            diagnostics: Vec::new(),
            received: None,
            left: None,
        }
    }

    /// The same context, handing the pass what the previous pass left ([`PassContext::leave`]).
    pub fn receiving(mut self, left: Option<Rc<dyn Any>>) -> Self {
        self.received = left;
        self
    }

    /// What the pass just before this one in the pipeline left for it, if it is a `T`. A hand-off
    /// reaches exactly the next pass: a pipeline runner passes on what [`PassContext::take_left`]
    /// returns, and nothing else.
    pub fn left_by_previous<T: Any>(&self) -> Option<&T> {
        self.received.as_ref()?.downcast_ref::<T>()
    }

    /// Leaves `value` for the next pass of the pipeline (a choice the next pass must follow to
    /// deliver what this one promised, like the victim key the order search scored with).
    pub fn leave<T: Any>(&mut self, value: T) {
        self.left = Some(Rc::new(value));
    }

    /// What this pass left for the next one (for pipeline runners).
    pub fn take_left(&mut self) -> Option<Rc<dyn Any>> {
        self.left.take()
    }

    /// The analysis `A` of `module` (cached when still valid).
    pub fn analysis<A: Analysis>(&mut self, module: &Module) -> Rc<A> {
        self.analyses.get::<A>(module)
    }

    /// Whether `A` is cached right now.
    pub fn is_cached<A: Analysis>(&self) -> bool {
        self.analyses.is_cached::<A>()
    }

    /// Declares that this pass keeps `A` valid.
    pub fn preserve<A: Analysis>(&mut self) {
        self.preserved.add::<A>();
    }

    /// Declares that this pass did not change the module.
    pub fn preserve_all(&mut self) {
        self.preserved = Preserved::All;
    }

    /// Sets the counter `name` (created on first use, in report order).
    pub fn statistic(&mut self, name: &'static str, description: &'static str, value: u64) {
        match self.statistics.iter_mut().find(|s| s.name == name) {
            Some(stat) => stat.value = value,
            None => self.statistics.push(Statistic {
                name,
                description,
                value,
            }),
        }
    }

    /// Emits a diagnostic, optionally at an op. Emitting an error makes the pass fail even if
    /// it returns `Ok` (use it to report several problems, then return an error summary).
    pub fn emit(&mut self, severity: Severity, op: Option<OpId>, message: impl Into<String>) {
        self.diagnostics.push(PassDiagnostic {
            severity,
            op,
            message: message.into(),
        });
    }

    /// Ends the run: what was preserved, the statistics and the diagnostics.
    pub fn finish(self) -> (Preserved, Vec<Statistic>, Vec<PassDiagnostic>) {
        (self.preserved, self.statistics, self.diagnostics)
    }
}
