//! Diagnostics as data: every message the driver reports (load errors, verifier errors, pass
//! failures and remarks) becomes a [`Diagnostic`] first, so it can either be rendered for a human or
//! matched against `expected-*` directives by `--verify-diagnostics`.
//!
//! Invariant: a diagnostic's location is a line and column of the text the user gave (for
//! `--split-input-file`, of the whole file, not of the chunk), unless it names a file of its own:
//! MLIR bytecode carries the locations of the text it was made from, and those are reported at
//! that file, without quoting a line of the input.

use lattice_lir::diag::{render, Loc, Located, Severity};

/// One message with its severity and, when it has one, its place in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning, remark or note.
    pub severity: Severity,
    /// Where, when the message has a place in the input.
    pub loc: Option<Loc>,
    /// The sentence.
    pub message: String,
    /// The file `loc` is in, when it is not the input (see the module header).
    pub file: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `severity` at `loc`.
    pub fn new(severity: Severity, loc: Option<Loc>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            loc,
            message: message.into(),
            file: None,
        }
    }

    /// The same diagnostic, located in `file` rather than in the input.
    pub fn in_file(self, file: Option<String>) -> Self {
        Diagnostic { file, ..self }
    }

    /// An error at `loc`.
    pub fn error(loc: Option<Loc>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, loc, message)
    }

    /// A note at `loc`.
    pub fn note(loc: Option<Loc>, message: impl Into<String>) -> Self {
        Self::new(Severity::Note, loc, message)
    }

    /// The error of any located error type.
    pub fn from_located(error: &dyn Located) -> Self {
        Self::error(error.loc(), error.to_string())
    }

    /// `file:line:col: severity: message`, quoting the line of `text` with a caret; a diagnostic
    /// in a file of its own names that file and quotes nothing.
    pub fn render(&self, file: &str, text: Option<&str>) -> String {
        match &self.file {
            Some(own) => render(own, None, self.loc, self.severity, &self.message),
            None => render(file, text, self.loc, self.severity, &self.message),
        }
    }
}
