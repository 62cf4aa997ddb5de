//! Loading a module from a file the way every tool does: LIR text, a contest JSON graph
//! (recognised by its `.json` extension), or a format a tool adds ([`InputFormat`], recognised by
//! its extension: the MLIR bridge's `.mlir`), with errors that keep the source text for rendering.
//!
//! Invariant: a contest import returned here has passed the structural verifier; LIR text and
//! added formats are verified by the caller (the driver times and reports it), so a pipeline
//! always starts from valid IR.

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
    /// Text in an added format is malformed; its diagnostics say where.
    #[error("{}", .0.first().map_or("the input is malformed", |d| d.message.as_str()))]
    Format(Vec<Diagnostic>),
    /// The module parsed but breaks structural invariants.
    #[error("the module is not well formed ({} problems)", .0.len())]
    Verify(Vec<VerifyError>),
    /// `--capacity` names a tier the module's target does not have.
    #[error(
        "--capacity names tier `{tier}`, which the target does not have; valid tiers: {valid}"
    )]
    CapacityTier {
        /// The tier named.
        tier: String,
        /// The target's tiers.
        valid: String,
    },
}

impl LoadError {
    /// The error as diagnostics: one per problem, then a summary note for verifier errors.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            LoadError::Io(e) => vec![Diagnostic::error(None, e.to_string())],
            LoadError::Parse(e) => vec![Diagnostic::from_located(e)],
            LoadError::Contest(e) => vec![Diagnostic::from_located(e)],
            LoadError::Format(diagnostics) => diagnostics.clone(),
            LoadError::Verify(errors) => {
                verify_diagnostics(errors, "the module is not well formed")
            }
            LoadError::CapacityTier { .. } => vec![Diagnostic::error(None, self.to_string())],
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

/// A module format a tool adds to the driver, recognised by its file extension (the MLIR
/// bridge's `.mlir`), so the driver reads it without depending on the crate that implements it.
#[derive(Clone, Copy, Debug)]
pub struct InputFormat {
    /// The file extension, without the dot.
    pub extension: &'static str,
    /// Reads one module from the text (not yet structurally verified), or says what is wrong with
    /// diagnostics located in that text.
    pub parse: fn(&str) -> Result<Module, Vec<Diagnostic>>,
    /// Whether a text without a file name (standard input) is in this format, judged by how it
    /// begins; never true of LIR or JSON text.
    pub sniff: fn(&str) -> bool,
}

/// What an input file holds, decided by its name.
#[derive(Clone, Debug)]
pub enum InputKind {
    /// LIR text.
    Lir,
    /// A contest JSON graph; the module takes the file's stem as its name.
    Contest {
        /// The module name.
        name: String,
    },
    /// Text in a format a tool added.
    Format(InputFormat),
}

impl InputKind {
    /// `.json` files are contest graphs, files with the extension of one of `formats` are in that
    /// format, and everything else (including `-`) is LIR.
    pub fn of(path: &Path, formats: &[InputFormat]) -> Self {
        let extension = path.extension().and_then(|e| e.to_str());
        if let Some(format) = formats.iter().find(|f| Some(f.extension) == extension) {
            return InputKind::Format(*format);
        }
        if extension == Some("json") {
            let name = path
                .file_stem()
                .map_or("module".into(), |s| s.to_string_lossy().into_owned());
            return InputKind::Contest { name };
        }
        InputKind::Lir
    }

    /// [`InputKind::of`] for a file, and for standard input (`-`, which has no extension) the
    /// kind its text begins like: `{` a contest graph (named `stdin`), a format whose `sniff`
    /// accepts it, else LIR (whose parser then says what is wrong).
    pub fn of_text(path: &Path, text: &str, formats: &[InputFormat]) -> Self {
        if path != Path::new("-") {
            return InputKind::of(path, formats);
        }
        if text.trim_start().starts_with('{') {
            return InputKind::Contest {
                name: "stdin".into(),
            };
        }
        match formats.iter().find(|f| (f.sniff)(text)) {
            Some(format) => InputKind::Format(*format),
            None => InputKind::Lir,
        }
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

/// Parses `text` as `kind`. A contest import is verified by the importer; LIR text and added
/// formats are only parsed here, so callers can time and report the structural verifier on their
/// own.
pub fn parse_source(
    text: &str,
    kind: &InputKind,
    import: &ImportOptions,
) -> Result<Module, LoadError> {
    let mut module = match kind {
        // The importer applies the overrides to the contest target itself.
        InputKind::Contest { name } => {
            return import_graph(text, name, import).map_err(LoadError::Contest)
        }
        InputKind::Lir => parse_module(text).map_err(LoadError::Parse)?,
        InputKind::Format(format) => (format.parse)(text).map_err(LoadError::Format)?,
    };
    // The module's own target, with `--capacity` and `--no-l0-exclusive` applied: a buffer or
    // offset the smaller tier cannot hold is then the structural verifier's located error. The
    // flag only lifts the rule (the default options leave a module's own `l0_exclusive` alone).
    let target = &mut module.target;
    if !import.l0_exclusive {
        target.l0_exclusive = false;
    }
    target
        .set_capacities(&import.capacities)
        .map_err(|tier| LoadError::CapacityTier {
            tier,
            valid: target.tier_names(),
        })?;
    Ok(module)
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

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::diag::Loc;

    /// A format whose files hold LIR after one `#` header line.
    fn headed(text: &str) -> Result<Module, Vec<Diagnostic>> {
        let Some((_, lir)) = text.split_once('\n').filter(|(h, _)| h.starts_with('#')) else {
            return Err(vec![Diagnostic::error(
                Some(Loc::new(1, 1)),
                "expected a `#` header",
            )]);
        };
        parse_module(&format!("\n{lir}")).map_err(|e| vec![Diagnostic::from_located(&e)])
    }

    const HEADED: InputFormat = InputFormat {
        extension: "hlir",
        parse: headed,
        sniff: |text| text.starts_with('#'),
    };

    #[test]
    fn standard_input_is_judged_by_its_text() {
        let kind = |text: &str| InputKind::of_text(Path::new("-"), text, &[HEADED]);
        assert!(matches!(kind(" {\"Nodes\": []}"), InputKind::Contest { name } if name == "stdin"));
        assert!(matches!(kind("# h\nmodule @m"), InputKind::Format(f) if f.extension == "hlir"));
        assert!(matches!(kind("module @m phase(parsed) {"), InputKind::Lir));
        assert!(matches!(kind(""), InputKind::Lir));
        // A named file keeps its extension's kind whatever its text.
        let file = InputKind::of_text(Path::new("a.lir"), "{", &[HEADED]);
        assert!(matches!(file, InputKind::Lir));
    }

    #[test]
    fn added_formats_are_chosen_by_extension() {
        let kind = |p: &str| InputKind::of(Path::new(p), &[HEADED]);
        assert!(matches!(kind("a.hlir"), InputKind::Format(f) if f.extension == "hlir"));
        assert!(matches!(kind("a.json"), InputKind::Contest { name } if name == "a"));
        assert!(matches!(kind("a.lir"), InputKind::Lir));
        assert!(matches!(kind("-"), InputKind::Lir));
        assert!(matches!(
            InputKind::of(Path::new("a.hlir"), &[]),
            InputKind::Lir
        ));
    }

    #[test]
    fn added_formats_parse_or_report_their_diagnostics() {
        let kind = InputKind::Format(HEADED);
        let options = ImportOptions::default();
        let text = "# a header\nmodule @m phase(parsed) {\n  target {\n    tiers L1 = 64\n    pipes P\n    spill_out P, spill_in P, spill_cost = 0 + 0 * size\n    l0_exclusive = false\n  }\n}\n";
        let module = parse_source(text, &kind, &options).unwrap();
        assert_eq!(module.name, "m");
        let Err(LoadError::Format(diagnostics)) = parse_source("module", &kind, &options) else {
            panic!("a missing header must fail");
        };
        assert_eq!(diagnostics[0].loc, Some(Loc::new(1, 1)));
        assert_eq!(
            LoadError::Format(diagnostics.clone()).diagnostics(),
            diagnostics
        );
    }
}
