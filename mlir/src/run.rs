//! One lattice pass on one LIR module, as `lattice-opt`'s pass manager runs it — the module
//! checked first (unless the previous pass left it), a fresh instance with fresh analyses, the
//! phase only moving forward, the result checked — with everything it reported. What the MLIR
//! bridge's external passes and the C ABI (`lattice_capi`, behind the C++ MLIR library) both run,
//! so a lattice pass behaves alike in every host.
//!
//! Invariants: the pass failed exactly when an error is among the reports; then the module may be
//! partly changed and callers keep it out of the IR. Cost: the pass's own, plus one structural
//! verification before (unless `verified`) and one after, O(V + E) each.

use lattice::pass::Statistic;
use lattice::pipeline::PassSpec;
use lattice::{AnalysisManager, PassContext, Registry};
use lattice_lir::diag::{Loc, Severity};
use lattice_lir::{verify_module, Module, OpId};

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

/// What a pass run reported.
#[derive(Debug, Default)]
pub struct Ran {
    /// What the pass emitted (warnings and remarks too) followed by every failure.
    pub reports: Vec<Report>,
    /// The counters the pass reported, in the order it first reported them.
    pub statistics: Vec<Statistic>,
}

impl Ran {
    /// Whether the pass failed.
    pub fn failed(&self) -> bool {
        self.reports.iter().any(|r| r.severity == Severity::Error)
    }
}

/// Checks `module` (unless it is `verified` already), runs the pass `spec` of `registry` on it and
/// checks the result, as lattice's pass manager does; leaves `module` as the pass left it.
pub fn run_pass(spec: &PassSpec, registry: Registry, module: &mut Module, verified: bool) -> Ran {
    let at = |loc: Option<Loc>, message: String| Report {
        severity: Severity::Error,
        op: None,
        loc,
        message,
    };
    let failed = |reports| Ran {
        reports,
        statistics: Vec::new(),
    };
    let checked = if verified {
        Ok(())
    } else {
        verify_module(module)
    };
    if let Err(errors) = checked {
        return failed(
            errors
                .iter()
                .map(|e| at(e.loc, format!("the lattice module is not well formed: {e}")))
                .collect(),
        );
    }
    let Some(info) = registry.get(spec.name) else {
        return failed(vec![at(None, registry.unknown_pass(spec.name))]);
    };
    let mut pass = match (info.build)(&spec.options) {
        Ok(pass) => pass,
        Err(message) => return failed(vec![at(None, message)]),
    };
    let phase = module.phase;
    let mut analyses = AnalysisManager::new();
    let mut cx = PassContext::new(&mut analyses);
    let result = pass.run(module, &mut cx);
    let (_, statistics, emitted) = cx.finish();
    let mut reports: Vec<Report> = emitted
        .into_iter()
        .map(|d| Report {
            severity: d.severity,
            op: d.op,
            loc: None,
            message: d.message,
        })
        .collect();
    if let Err(error) = result {
        let notes: String = error
            .notes
            .iter()
            .map(|(_, n)| format!("; note: {n}"))
            .collect();
        reports.push(Report {
            op: error.op,
            ..at(None, format!("{}{notes}", error.message))
        });
    }
    let mut ran = Ran {
        reports,
        statistics,
    };
    if ran.failed() {
        return ran;
    }
    if module.phase < phase {
        let message = format!(
            "the pass moved the phase back from `{phase}` to `{}`",
            module.phase
        );
        ran.reports.push(at(None, message));
    } else if let Err(errors) = verify_module(module) {
        ran.reports.extend(
            errors
                .iter()
                .map(|e| at(e.loc, format!("the IR is invalid after the pass: {e}"))),
        );
    }
    ran
}
