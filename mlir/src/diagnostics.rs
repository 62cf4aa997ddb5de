//! MLIR diagnostics as lattice diagnostics: a handler that records what MLIR reports (parse and
//! verifier errors, with their notes) while it is attached, and the mapping of MLIR locations to
//! LIR source positions.
//!
//! Invariant: while a [`Capture`] lives, every diagnostic of its context is recorded, in the order
//! MLIR emitted it, and none reaches MLIR's default handler (which would print to stderr).
//! Dropping the capture detaches the handler.

use lattice::diagnostic::Diagnostic;
use lattice_lir::diag::{Loc, Severity};
use melior::diagnostic::{DiagnosticHandlerId, DiagnosticSeverity};
use melior::ir::Location;
use melior::Context;
use std::cell::RefCell;
use std::rc::Rc;

/// Records the diagnostics of a context while it lives.
pub struct Capture<'c> {
    context: &'c Context,
    handler: Option<DiagnosticHandlerId>,
    recorded: Rc<RefCell<Vec<Diagnostic>>>,
}

impl<'c> Capture<'c> {
    /// Starts recording the diagnostics of `context`.
    pub fn new(context: &'c Context) -> Self {
        let recorded = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&recorded);
        let handler = context.attach_diagnostic_handler(move |d| {
            let mut sink = sink.borrow_mut();
            sink.push(Diagnostic::new(
                severity(d.severity()),
                loc_of(d.location()),
                d.to_string(),
            ));
            for note in (0..d.note_count()).filter_map(|i| d.note(i).ok()) {
                sink.push(Diagnostic::note(loc_of(note.location()), note.to_string()));
            }
            true
        });
        Capture {
            context,
            handler: Some(handler),
            recorded,
        }
    }

    /// Everything recorded so far, emptying the record.
    pub fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.recorded.borrow_mut())
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if let Some(handler) = self.handler.take() {
            self.context.detach_diagnostic_handler(handler);
        }
    }
}

fn severity(severity: DiagnosticSeverity) -> Severity {
    match severity {
        DiagnosticSeverity::Error => Severity::Error,
        DiagnosticSeverity::Warning => Severity::Warning,
        DiagnosticSeverity::Remark => Severity::Remark,
        DiagnosticSeverity::Note => Severity::Note,
    }
}

/// The line and column of `location` in the text it was parsed from: a file location itself, or
/// the first file location under a name or fused location. Other locations have none.
pub fn loc_of(location: Location<'_>) -> Option<Loc> {
    if location.is_file_line_col_range() {
        let line = location.file_line_col_range_start_line();
        let col = location.file_line_col_range_start_column();
        return (line > 0).then(|| Loc::new(line, col.max(1)));
    }
    if location.is_name() {
        return loc_of(location.name_child_location());
    }
    if location.is_fused() {
        return (0..location.fused_num_locations())
            .find_map(|i| loc_of(location.fused_location(i)));
    }
    None
}
