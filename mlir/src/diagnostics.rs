//! MLIR diagnostics as lattice diagnostics: a handler that records what MLIR reports (parse and
//! verifier errors, with their notes) while it is attached, and the mapping of MLIR locations to
//! LIR source positions (and, for locations MLIR bytecode carries, to the file they are in).
//!
//! Invariants: while a [`Capture`] lives, every diagnostic of its context is recorded, in the order
//! MLIR emitted it, and none reaches MLIR's default handler (which would print to stderr);
//! dropping the capture detaches the handler. The handler runs inside MLIR and never panics.

use crate::strings::{diagnostic_text, identifier};
use lattice::diagnostic::Diagnostic;
use lattice_lir::diag::{Loc, Severity};
use melior::ir::Location;
use melior::Context;
use mlir_sys::{MlirDiagnostic, MlirDiagnosticHandlerID, MlirLogicalResult};
use std::cell::RefCell;
use std::ffi::c_void;
use std::rc::Rc;

type Record = RefCell<Vec<Diagnostic>>;

/// Records the diagnostics of a context while it lives.
pub struct Capture<'c> {
    context: &'c Context,
    handler: MlirDiagnosticHandlerID,
    recorded: Rc<Record>,
}

impl<'c> Capture<'c> {
    /// Starts recording the diagnostics of `context`.
    pub fn new(context: &'c Context) -> Self {
        let recorded: Rc<Record> = Rc::new(RefCell::new(Vec::new()));
        let user_data = Rc::into_raw(Rc::clone(&recorded))
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: `user_data` is an `Rc` MLIR hands back to `handle` and, once detached, to
        // `release`, which drops it.
        let handler = unsafe {
            mlir_sys::mlirContextAttachDiagnosticHandler(
                context.to_raw(),
                Some(handle),
                user_data,
                Some(release),
            )
        };
        Capture {
            context,
            handler,
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
        // SAFETY: the handler was attached to this context by `new`.
        unsafe { mlir_sys::mlirContextDetachDiagnosticHandler(self.context.to_raw(), self.handler) }
    }
}

unsafe extern "C" fn handle(diagnostic: MlirDiagnostic, data: *mut c_void) -> MlirLogicalResult {
    // SAFETY: `data` is the record `Capture::new` attached, alive until `release`.
    let record = unsafe { &*data.cast::<Record>() };
    if let Ok(mut record) = record.try_borrow_mut() {
        // SAFETY: the diagnostic is valid while this handler runs.
        unsafe { push(&mut record, diagnostic) };
    }
    MlirLogicalResult { value: 1 }
}

/// Records `diagnostic`, then its notes.
///
/// # Safety
/// `diagnostic` must be valid for the call.
unsafe fn push(record: &mut Vec<Diagnostic>, diagnostic: MlirDiagnostic) {
    // SAFETY: per the contract.
    let (raw_severity, location, message, notes) = unsafe {
        (
            mlir_sys::mlirDiagnosticGetSeverity(diagnostic),
            Location::from_raw(mlir_sys::mlirDiagnosticGetLocation(diagnostic)),
            diagnostic_text(diagnostic),
            mlir_sys::mlirDiagnosticGetNumNotes(diagnostic),
        )
    };
    let severity = match raw_severity {
        mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticWarning => Severity::Warning,
        mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticRemark => Severity::Remark,
        mlir_sys::MlirDiagnosticSeverity_MlirDiagnosticNote => Severity::Note,
        _ => Severity::Error,
    };
    record
        .push(Diagnostic::new(severity, loc_of(location), message).in_file(source_file(location)));
    for i in 0..notes {
        // SAFETY: `i` is below the note count of a valid diagnostic.
        unsafe { push(record, mlir_sys::mlirDiagnosticGetNote(diagnostic, i)) };
    }
}

unsafe extern "C" fn release(data: *mut c_void) {
    // SAFETY: `data` came from `Rc::into_raw` in `Capture::new`; MLIR releases it once.
    drop(unsafe { Rc::from_raw(data.cast_const().cast::<Record>()) });
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

/// The file named by the file location [`loc_of`] finds in `location`, when it names one: the
/// text MLIR bytecode was made from. MLIR's C API parses text under the name `-` (empty in some
/// versions), so locations in the input being read name no file, and are reported at the input.
pub fn source_file(location: Location<'_>) -> Option<String> {
    if location.is_file_line_col_range() {
        return file_of(location).filter(|f| !f.is_empty() && f != "-");
    }
    if location.is_name() {
        return source_file(location.name_child_location());
    }
    if location.is_fused() {
        return (0..location.fused_num_locations())
            .find(|&i| loc_of(location.fused_location(i)).is_some())
            .and_then(|i| source_file(location.fused_location(i)));
    }
    None
}

/// The file of a file location (`None` for other locations).
pub fn file_of(location: Location<'_>) -> Option<String> {
    location
        .is_file_line_col_range()
        .then(|| identifier(location.file_line_col_range_filename()))
}
