//! Loading a module from a file the way every tool does: LIR text, or a contest JSON graph
//! (recognised by its `.json` extension), with errors that keep the source text for rendering.
//!
//! Invariant: a contest import returned here has passed the structural verifier; LIR text is
//! verified by the caller (the driver times and reports it), so a pipeline always starts from
//! valid IR.

use crate::diagnostic::Diagnostic;
use crate::io::{read_text, IoError};
use lattice_lir::contest::{import_graph, ContestError, ImportOptions};
use lattice_lir::{parse_module, Module, ParseError, VerifyError};
use std::path::Path;

/// A named source text, kept so diagnostics can quote the offending line.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user wrote it (`-` for standard input).
    pub name: String,
    /// The whole text.
    pub text: String,
}

/// Why a module could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The LIR text is malformed.
    #[error("{0}")]
    Parse(ParseError),
    /// The contest JSON is malformed or describes an invalid graph.
    #[error("{0}")]
    Contest(ContestError),
    /// The module parsed but breaks structural invariants.
    #[error("the module is not well formed ({} problems)", .0.len())]
    Verify(Vec<VerifyError>),
}

impl LoadError {
    /// The error as diagnostics: one per problem, then a summary note for verifier errors.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            LoadError::Io(e) => vec![Diagnostic::error(None, e.to_string())],
            LoadError::Parse(e) => vec![Diagnostic::from_located(e)],
            LoadError::Contest(e) => vec![Diagnostic::from_located(e)],
            LoadError::Verify(errors) => {
                verify_diagnostics(errors, "the module is not well formed")
            }
        }
    }
}

/// Structural-verifier errors as diagnostics, closed by a note that counts them under `context`.
fn verify_diagnostics(errors: &[VerifyError], context: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = errors.iter().map(|e| Diagnostic::from_located(e)).collect();
    out.push(Diagnostic::note(
        None,
        format!("{context}: {} structural error(s)", errors.len()),
    ));
    out
}

/// What an input file holds, decided by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// LIR text.
    Lir,
    /// A contest JSON graph; the module takes the file's stem as its name.
    Contest {
        /// The module name.
        name: String,
    },
}

impl InputKind {
    /// `.json` files are contest graphs; everything else (including `-`) is LIR.
    pub fn of(path: &Path) -> Self {
        if path.extension().is_some_and(|e| e == "json") {
            let name = path
                .file_stem()
                .map_or("module".into(), |s| s.to_string_lossy().into_owned());
            return InputKind::Contest { name };
        }
        InputKind::Lir
    }
}

/// Reads the file at `path` (`-`: standard input).
pub fn read_source(path: &Path) -> Result<SourceFile, LoadError> {
    let text = read_text(path)?;
    Ok(SourceFile {
        name: path.display().to_string(),
        text,
    })
}

/// Parses `text` as `kind`. A contest import is verified by the importer; LIR text is only parsed
/// here, so callers can time and report the structural verifier on their own.
pub fn parse_source(
    text: &str,
    kind: &InputKind,
    import: &ImportOptions,
) -> Result<Module, LoadError> {
    match kind {
        InputKind::Lir => parse_module(text).map_err(LoadError::Parse),
        InputKind::Contest { name } => import_graph(text, name, import).map_err(LoadError::Contest),
    }
}

/// Reads a `--capacity TIER=N` value.
pub fn parse_capacity(text: &str) -> Result<(String, u64), String> {
    let (tier, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected TIER=N, found `{text}`"))?;
    let value = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not a capacity in bytes"))?;
    Ok((tier.trim().to_owned(), value))
}
