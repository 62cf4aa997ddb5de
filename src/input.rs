//! Loading a module from a file the way every tool does: LIR text, or a contest JSON graph
//! (recognised by its `.json` extension), with errors that keep the source text for rendering.
//!
//! Invariant: a module returned here has passed the dialect's structural verifier (the importer
//! verifies what it builds; LIR is verified here), so a pipeline always starts from valid IR.

use crate::diagnostic::{render_all, Diagnostic};
use crate::io::{read_text, IoError};
use lattice_lir::contest::{import_graph, ContestError, ImportOptions};
use lattice_lir::{parse_module, verify_module, Module, ParseError, VerifyError};
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

    /// The error as the user sees it: `file:line:col: error: …` with the source line quoted.
    pub fn render(&self, source: &SourceFile) -> String {
        let text = (!source.text.is_empty()).then_some(source.text.as_str());
        render_all(&self.diagnostics(), &source.name, text)
    }
}

/// Structural-verifier errors as diagnostics, closed by a note that counts them under `context`.
pub fn verify_diagnostics(errors: &[VerifyError], context: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = errors.iter().map(|e| Diagnostic::from_located(e)).collect();
    out.push(Diagnostic::note(
        None,
        format!("{context}: {} structural error(s)", errors.len()),
    ));
    out
}

/// Reads `path` and parses it as LIR text, or as a contest graph when it ends in `.json`.
pub fn load_module(path: &Path, import: &ImportOptions) -> (SourceFile, Result<Module, LoadError>) {
    let name = path.display().to_string();
    let text = match read_text(path) {
        Ok(text) => text,
        Err(e) => {
            let source = SourceFile {
                name,
                text: String::new(),
            };
            return (source, Err(e.into()));
        }
    };
    let source = SourceFile { name, text };
    let result = if path.extension().is_some_and(|e| e == "json") {
        let stem = path
            .file_stem()
            .map_or("module".into(), |s| s.to_string_lossy());
        import_graph(&source.text, &stem, import).map_err(LoadError::Contest)
    } else {
        parse_lir(&source.text)
    };
    (source, result)
}

/// Parses LIR text and checks its structure.
pub fn parse_lir(text: &str) -> Result<Module, LoadError> {
    let module = parse_module(text).map_err(LoadError::Parse)?;
    verify_module(&module).map_err(LoadError::Verify)?;
    Ok(module)
}
