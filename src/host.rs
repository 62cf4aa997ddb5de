//! A *host IR*: an IR in which lattice modules live among ops of its own (MLIR), added to a tool
//! by a crate that implements it (the MLIR bridge), so the driver can read it, write results
//! back into it and hand it pipelines that name its own passes, without depending on that crate.
//!
//! Invariants every host keeps (the driver relies on them): [`Host::read`] returns the lattice
//! modules of an input in text order, parsed but not structurally verified (the driver verifies
//! them, as it verifies LIR); [`Host::write`] puts results back in that same order, leaving
//! everything outside the lattice modules as it was, and refuses a count that does not match;
//! errors are diagnostics located in the input; what [`Host::read`] parsed may come back to
//! [`Host::write`] as [`Parsed`], so the input is parsed once. A build without the host's
//! implementation still has the host, with [`Host::missing`] saying which feature to build, so
//! that `.mlir` input and MLIR-only flags are refused with that sentence rather than misread.
//! Plain data and function pointers, besides the host's parse that [`Parsed`] owns: O(1).

use crate::diagnostic::Diagnostic;
use lattice_lir::diag::Loc;
use lattice_lir::Module;
use std::path::Path;

/// [`Host::write`]: the input (if it was in the host IR), what [`Host::read`] parsed of it (if
/// the driver kept it; the host parses the input again otherwise) and the results, to host IR
/// text.
pub type WriteFn = fn(Option<&[u8]>, Option<Parsed>, &[Module]) -> Result<String, Vec<Diagnostic>>;

/// A host IR and what the driver may ask of it.
#[derive(Clone, Copy, Debug)]
pub struct Host {
    /// Its name for users (`MLIR`).
    pub name: &'static str,
    /// Extensions of input files in it, without the dot; the first is the one its text is written
    /// as (`mlir`), the others are read only (`mlirbc`, bytecode).
    pub extensions: &'static [&'static str],
    /// Why this build cannot read or write it (the feature to build), or `None` when it can.
    pub missing: Option<&'static str>,
    /// Whether an input without a file name (standard input) is in this IR, judged by how it
    /// begins; never true of LIR or JSON text.
    pub sniff: fn(&[u8]) -> bool,
    /// The lattice modules of an input (text or binary), in text order, and what else it holds.
    pub read: fn(&[u8]) -> Result<Hosted, Vec<Diagnostic>>,
    /// The input with its lattice modules replaced, in order, by `modules`, as text, written into
    /// the [`Parsed`] input when one is handed back (else into the input parsed again); with
    /// neither, `modules` alone in this IR.
    pub write: WriteFn,
    /// Checks a pipeline that names passes lattice does not have (`canonicalize,lattice-mpas`)
    /// and returns it as the host prints it; an error is a usage error, worded.
    pub check_pipeline: fn(&str) -> Result<String, String>,
    /// Runs such a pipeline over an input in this IR, or over a LIR module converted to it.
    pub run_pipeline: fn(HostInput<'_>, &str) -> Result<HostRun, Vec<Diagnostic>>,
}

/// What [`Host::read`] found.
#[derive(Debug)]
pub struct Hosted {
    /// The lattice modules, in text order.
    pub modules: Vec<Module>,
    /// The ops outside them, when there are any (what writing LIR alone would drop).
    pub outside: Option<Outside>,
    /// What the host's parser reported besides errors (warnings, remarks), in order.
    pub diagnostics: Vec<Diagnostic>,
    /// The parsed input, for [`Host::write`] (`None` from hosts that keep nothing, and for LIR
    /// and contest input).
    pub parsed: Option<Parsed>,
}

impl Hosted {
    /// Modules read from LIR or contest input: nothing outside them, nothing parsed to keep.
    pub fn lir(modules: Vec<Module>) -> Self {
        Hosted {
            modules,
            outside: None,
            diagnostics: Vec::new(),
            parsed: None,
        }
    }
}

/// A host's parsed input, opaque to the driver, which hands it from [`Host::read`] back to
/// [`Host::write`] for the same input (parsing a large MLIR file takes longer than the lattice
/// passes run on it).
pub struct Parsed(pub Box<dyn std::any::Any>);

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parsed(..)")
    }
}

/// The ops of an input that are not in a lattice module (nor modules holding one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outside {
    /// How many (counting top-level ones: a `func.func`, not the ops in its body).
    pub count: usize,
    /// The name of the first (`func.func`).
    pub first: String,
    /// Where the first is written, when the input is text or carries locations (bytecode).
    pub loc: Option<Loc>,
    /// The file `loc` is in, when it is not the input (bytecode carries its text's locations).
    pub file: Option<String>,
}

/// What a host pipeline runs over.
#[derive(Clone, Copy, Debug)]
pub enum HostInput<'a> {
    /// An input in the host IR (text or binary).
    Source(&'a [u8]),
    /// A LIR module (from LIR or contest input), converted to the host IR.
    Module(&'a Module),
}

/// The result of [`Host::run_pipeline`].
#[derive(Clone, Debug)]
pub struct HostRun {
    /// The whole result, as text of the host IR.
    pub text: String,
    /// Its lattice modules, in text order, as LIR (for LIR output and metrics).
    pub modules: Vec<Module>,
    /// The ops outside them, when there are any.
    pub outside: Option<Outside>,
    /// What the run reported besides failing: warnings and remarks, in order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Host {
    /// Whether `path` names a file in this IR, by its extension.
    pub fn owns(&self, path: &Path) -> bool {
        let extension = path.extension().and_then(|e| e.to_str());
        self.extensions.iter().any(|e| Some(*e) == extension)
    }

    /// The extension its text is written as (`mlir`).
    pub fn text_extension(&self) -> &'static str {
        self.extensions.first().copied().unwrap_or(self.name)
    }
}
