//! Loading modules from a file the way every tool does: LIR text, a contest JSON graph
//! (recognised by its `.json` extension), or the host IR a tool adds ([`Host`], recognised by its
//! extensions or, on standard input, its first bytes: the MLIR bridge's `.mlir` and `.mlirbc`),
//! with errors that keep the source text for rendering.
//!
//! Invariant: a contest import returned here has passed the structural verifier; LIR text and host
//! IR are verified by the caller (the driver times and reports it), so a pipeline always starts
//! from valid IR. Only host IR may be binary. O(input) plus the parsers'.

use crate::diagnostic::Diagnostic;
use crate::host::{Host, Hosted};
use crate::io::{read_bytes, read_text, text_of, IoError};
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
    /// LIR or contest input that is not UTF-8 text (the offset of the first bad byte).
    #[error("the input is not UTF-8 text (at byte {0})")]
    NotText(usize),
    /// Host IR input is malformed (or this build cannot read it); its diagnostics say where.
    #[error("{}", .0.first().map_or("the input is malformed", |d| d.message.as_str()))]
    Host(Vec<Diagnostic>),
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
    /// An error found after the host's parser read the input and reported warnings or remarks,
    /// which come first.
    #[error("{error}")]
    AfterReport {
        /// What the host's parser reported besides errors.
        reported: Vec<Diagnostic>,
        /// The error.
        error: Box<LoadError>,
    },
}

impl LoadError {
    /// Whether the command line is at fault (exit 2), not the input: `--capacity` naming a tier
    /// the target lacks.
    pub fn is_usage(&self) -> bool {
        match self {
            LoadError::CapacityTier { .. } => true,
            LoadError::AfterReport { error, .. } => error.is_usage(),
            _ => false,
        }
    }

    /// The error as diagnostics: one per problem, then a summary note for verifier errors.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            LoadError::Io(e) => vec![Diagnostic::error(None, e.to_string())],
            LoadError::Parse(e) => vec![Diagnostic::from_located(e)],
            LoadError::Contest(e) => vec![Diagnostic::from_located(e)],
            LoadError::Host(diagnostics) => diagnostics.clone(),
            LoadError::Verify(errors) => {
                verify_diagnostics(errors, "the module is not well formed")
            }
            LoadError::CapacityTier { .. } | LoadError::NotText(_) => {
                vec![Diagnostic::error(None, self.to_string())]
            }
            LoadError::AfterReport { reported, error } => reported
                .iter()
                .cloned()
                .chain(error.diagnostics())
                .collect(),
        }
    }

    /// `error`, found after the host's parser reported `reported` (none: `error` itself).
    pub fn after(reported: Vec<Diagnostic>, error: LoadError) -> LoadError {
        if reported.is_empty() {
            error
        } else {
            LoadError::AfterReport {
                reported,
                error: Box::new(error),
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

/// What an input file holds, decided by its name (or, for standard input, its first bytes).
#[derive(Clone, Debug)]
pub enum InputKind {
    /// LIR text.
    Lir,
    /// A contest JSON graph; the module takes the file's stem as its name.
    Contest {
        /// The module name.
        name: String,
    },
    /// The host IR a tool added (MLIR, text or bytecode).
    Host(Host),
}

impl InputKind {
    /// `.json` files are contest graphs, files with an extension of `host` are in the host IR,
    /// and everything else (including `-`) is LIR.
    pub fn of(path: &Path, host: Option<&Host>) -> Self {
        if let Some(host) = host.filter(|h| h.owns(path)) {
            return InputKind::Host(*host);
        }
        if path.extension().and_then(|e| e.to_str()) == Some("json") {
            let name = path
                .file_stem()
                .map_or("module".into(), |s| s.to_string_lossy().into_owned());
            return InputKind::Contest { name };
        }
        InputKind::Lir
    }

    /// [`InputKind::of`] for a file, and for standard input (`-`, which has no extension) the
    /// kind its bytes begin like: `{` a contest graph (named `stdin`), the host IR when its
    /// `sniff` accepts them, else LIR (whose parser then says what is wrong).
    pub fn of_input(path: &Path, bytes: &[u8], host: Option<&Host>) -> Self {
        if path != Path::new("-") {
            return InputKind::of(path, host);
        }
        if bytes.trim_ascii_start().starts_with(b"{") {
            return InputKind::Contest {
                name: "stdin".into(),
            };
        }
        match host.filter(|h| (h.sniff)(bytes)) {
            Some(host) => InputKind::Host(*host),
            None => InputKind::Lir,
        }
    }

    /// Whether the input is text split by `--split-input-file` (LIR and host IR; a contest graph
    /// is one JSON document).
    pub fn splits(&self) -> bool {
        !matches!(self, InputKind::Contest { .. })
    }
}

/// An input read whole: text, or the bytes of binary host IR (MLIR bytecode).
#[derive(Clone, Debug)]
pub enum Content {
    /// UTF-8 text.
    Text(String),
    /// Bytes that are not UTF-8, of an input in the host IR.
    Binary(Vec<u8>),
}

impl Content {
    /// The bytes, whatever the kind.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Content::Text(text) => text.as_bytes(),
            Content::Binary(bytes) => bytes,
        }
    }

    /// The text, when it is text.
    pub fn text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Binary(_) => None,
        }
    }
}

/// Reads the input at `path` (`-`: standard input) and decides its kind. Only host IR may be
/// binary; other input that is not UTF-8 is the read error `read_text` gives.
pub fn read_input(path: &Path, host: Option<&Host>) -> Result<(InputKind, Content), LoadError> {
    let bytes = read_bytes(path)?;
    let kind = InputKind::of_input(path, &bytes, host);
    let content = match &kind {
        InputKind::Host(_) => match String::from_utf8(bytes) {
            Ok(text) => Content::Text(text),
            Err(e) => Content::Binary(e.into_bytes()),
        },
        _ => Content::Text(text_of(path, bytes)?),
    };
    Ok((kind, content))
}

/// Reads the file at `path` (`-`: standard input).
pub fn read_source(path: &Path) -> Result<SourceFile, LoadError> {
    let text = read_text(path)?;
    Ok(SourceFile {
        name: path.display().to_string(),
        text,
    })
}

/// Parses `input` as `kind`: one module for LIR and contest input, every lattice module of a host
/// IR input. A contest import is verified by the importer; LIR text and host IR are only parsed
/// here, so callers can time and report the structural verifier on their own.
pub fn parse_source(
    input: &[u8],
    kind: &InputKind,
    import: &ImportOptions,
) -> Result<Hosted, LoadError> {
    let mut hosted = match kind {
        InputKind::Contest { name } => {
            return Ok(Hosted::lir(vec![parse_lattice(input, Some(name), import)?]))
        }
        InputKind::Lir => return Ok(Hosted::lir(vec![parse_lattice(input, None, import)?])),
        InputKind::Host(host) => (host.read)(input).map_err(LoadError::Host)?,
    };
    for module in &mut hosted.modules {
        if let Err(error) = apply_overrides(module, import) {
            return Err(LoadError::after(hosted.diagnostics, error));
        }
    }
    Ok(hosted)
}

/// Parses input that is not host IR: the one module of LIR text, or of the contest graph named
/// `contest`, with `import`'s overrides applied (by the importer itself for a contest graph).
pub fn parse_lattice(
    input: &[u8],
    contest: Option<&str>,
    import: &ImportOptions,
) -> Result<Module, LoadError> {
    let text = std::str::from_utf8(input).map_err(|e| LoadError::NotText(e.valid_up_to()))?;
    match contest {
        Some(name) => import_graph(text, name, import).map_err(LoadError::Contest),
        None => {
            let mut module = parse_module(text).map_err(LoadError::Parse)?;
            apply_overrides(&mut module, import)?;
            Ok(module)
        }
    }
}

/// The module's own target, with `--capacity` and `--no-l0-exclusive` applied: a buffer or
/// offset the smaller tier cannot hold is then the structural verifier's located error. The flag
/// only lifts the rule (the default options leave a module's own `l0_exclusive` alone).
fn apply_overrides(module: &mut Module, import: &ImportOptions) -> Result<(), LoadError> {
    let target = &mut module.target;
    if !import.l0_exclusive {
        target.l0_exclusive = false;
    }
    target
        .set_capacities(&import.capacities)
        .map_err(|tier| LoadError::CapacityTier {
            tier,
            valid: target.tier_names(),
        })
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
    use crate::host::{HostInput, HostRun};
    use lattice_lir::diag::{Loc, Severity};
    use lattice_lir::{print_module, Module};

    /// A host whose files hold LIR after one `#` header line, which its parser reports as a
    /// warning when it says `# warn`.
    fn headed(input: &[u8]) -> Result<Hosted, Vec<Diagnostic>> {
        let text = std::str::from_utf8(input).unwrap_or("");
        let Some((_, lir)) = text.split_once('\n').filter(|(h, _)| h.starts_with('#')) else {
            return Err(vec![Diagnostic::error(
                Some(Loc::new(1, 1)),
                "expected a `#` header",
            )]);
        };
        let module =
            parse_module(&format!("\n{lir}")).map_err(|e| vec![Diagnostic::from_located(&e)])?;
        let mut hosted = Hosted::lir(vec![module]);
        if text.starts_with("# warn") {
            let warning = Diagnostic::new(Severity::Warning, Some(Loc::new(1, 1)), "warned");
            hosted.diagnostics.push(warning);
        }
        Ok(hosted)
    }

    fn write(
        _: Option<&[u8]>,
        _: Option<crate::host::Parsed>,
        modules: &[Module],
    ) -> Result<String, Vec<Diagnostic>> {
        Ok(modules
            .iter()
            .map(|m| format!("#\n{}", print_module(m)))
            .collect())
    }

    fn run(_: HostInput<'_>, _: &str) -> Result<HostRun, Vec<Diagnostic>> {
        Err(vec![Diagnostic::error(None, "no passes")])
    }

    const HEADED: Host = Host {
        name: "HLIR",
        extensions: &["hlir", "hlirbc"],
        missing: None,
        sniff: |bytes| bytes.starts_with(b"#"),
        read: headed,
        write,
        check_pipeline: |_| Err("no passes".into()),
        run_pipeline: run,
    };

    #[test]
    fn standard_input_is_judged_by_its_bytes() {
        let kind = |text: &str| InputKind::of_input(Path::new("-"), text.as_bytes(), Some(&HEADED));
        assert!(matches!(kind(" {\"Nodes\": []}"), InputKind::Contest { name } if name == "stdin"));
        assert!(matches!(kind("# h\nmodule @m"), InputKind::Host(h) if h.name == "HLIR"));
        assert!(matches!(kind("module @m phase(parsed) {"), InputKind::Lir));
        assert!(matches!(kind(""), InputKind::Lir));
        // A named file keeps its extension's kind whatever its bytes.
        let file = InputKind::of_input(Path::new("a.lir"), b"{", Some(&HEADED));
        assert!(matches!(file, InputKind::Lir));
    }

    #[test]
    fn host_files_are_chosen_by_any_of_its_extensions() {
        let kind = |p: &str| InputKind::of(Path::new(p), Some(&HEADED));
        assert!(matches!(kind("a.hlir"), InputKind::Host(_)));
        assert!(matches!(kind("a.hlirbc"), InputKind::Host(_)));
        assert!(matches!(kind("a.json"), InputKind::Contest { name } if name == "a"));
        assert!(matches!(kind("a.lir"), InputKind::Lir));
        assert!(matches!(kind("-"), InputKind::Lir));
        assert!(matches!(
            InputKind::of(Path::new("a.hlir"), None),
            InputKind::Lir
        ));
        assert_eq!(HEADED.text_extension(), "hlir");
    }

    #[test]
    fn host_input_parses_or_reports_its_diagnostics() {
        let kind = InputKind::Host(HEADED);
        let options = ImportOptions {
            capacities: vec![("L1".into(), 32)],
            ..ImportOptions::default()
        };
        let text = "# a header\nmodule @m phase(parsed) {\n  target {\n    tiers L1 = 64\n    pipes P\n    spill_out P, spill_in P, spill_cost = 0 + 0 * size\n    l0_exclusive = false\n  }\n}\n";
        let hosted = parse_source(text.as_bytes(), &kind, &options).unwrap();
        assert_eq!(hosted.modules.len(), 1);
        assert_eq!(hosted.modules[0].name, "m");
        // `--capacity` applies to host modules too.
        assert_eq!(hosted.modules[0].target.tiers[0].capacity, 32);
        let Err(LoadError::Host(diagnostics)) = parse_source(b"module", &kind, &options) else {
            panic!("a missing header must fail");
        };
        assert_eq!(diagnostics[0].loc, Some(Loc::new(1, 1)));
        assert_eq!(
            LoadError::Host(diagnostics.clone()).diagnostics(),
            diagnostics
        );
        // What the host's parser reported stays in front of an error found afterwards.
        let warned = text.replacen("# a header", "# warn", 1);
        let hosted = parse_source(warned.as_bytes(), &kind, &options).unwrap();
        assert_eq!(hosted.diagnostics.len(), 1);
        let bad_tier = ImportOptions {
            capacities: vec![("L9".into(), 32)],
            ..ImportOptions::default()
        };
        let Err(e) = parse_source(warned.as_bytes(), &kind, &bad_tier) else {
            panic!("an unknown tier must fail");
        };
        let diagnostics = e.diagnostics();
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
        assert_eq!(diagnostics[0].message, "warned");
        assert!(diagnostics[1].message.contains("`L9`"), "{diagnostics:?}");
        // LIR must be text.
        let Err(e) = parse_source(b"module \xff", &InputKind::Lir, &options) else {
            panic!("bytes that are not UTF-8 are not LIR");
        };
        let message = &e.diagnostics()[0].message;
        assert_eq!(message, "the input is not UTF-8 text (at byte 7)");
    }
}
