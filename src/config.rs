//! What one `lattice-opt` run is asked to do ([`OptConfig`], MLIR's `MlirOptMainConfig`) and what
//! it writes ([`Emit`]): the command line turned into data, read by the driver and by the host
//! pipeline alike.
//!
//! Invariants: plain data, no behaviour; [`OptConfig::new`] is the empty pipeline with every
//! default, so a field added here is off unless asked for.

use crate::error_limit::ErrorLimit;
use crate::host::Host;
use crate::input::InputKind;
use crate::ir_printing::IrPrinting;
use crate::pipeline::Pipeline;
use crate::registry::MetricsFormat;
use crate::report_to::ReportTo;
use crate::statistics::StatisticsFormat;
use crate::timing::TimingFormat;
use lattice_lir::contest::ImportOptions;
use std::path::{Path, PathBuf};

/// Everything one `lattice-opt` run needs (MLIR's `MlirOptMainConfig`).
#[derive(Clone, Debug)]
pub struct OptConfig {
    /// LIR text or a contest `.json` graph; `-` for standard input.
    pub input: PathBuf,
    /// Where the resulting LIR goes; `-` for standard output.
    pub output: PathBuf,
    /// How a contest graph is imported (ignored for LIR input).
    pub import: ImportOptions,
    /// The passes to run.
    pub pipeline: Pipeline,
    /// Take the pipeline (and verify-each) from the input's reproducer header instead.
    pub run_reproducer: bool,
    /// Verify after every pass; `None` keeps the default (on, or the reproducer's setting).
    pub verify_each: Option<bool>,
    /// IR printing around passes.
    pub printing: IrPrinting,
    /// Report wall times, in this format, to the error stream or a file.
    pub timing: Option<ReportTo<TimingFormat>>,
    /// Report pass statistics, in this format, to the error stream or a file.
    pub statistics: Option<ReportTo<StatisticsFormat>>,
    /// Write the Chrome trace of the resulting modules to this file (`-`: stdout, after the IR).
    pub trace: Option<PathBuf>,
    /// On a pass failure, write a reproducer here.
    pub reproducer: Option<PathBuf>,
    /// Treat `// -----` lines as separators of independent cases.
    pub split_input: bool,
    /// Check diagnostics against the input's `expected-*` directives instead of printing them.
    pub verify_diagnostics: bool,
    /// Print the canonical pipeline text to the error stream before running.
    pub dump_pipeline: bool,
    /// Write the metrics of each resulting module to these destinations (`-`: stdout).
    pub metrics: Vec<(PathBuf, MetricsFormat)>,
    /// Print at most this many errors (over all cases), then how many more there were.
    pub error_limit: ErrorLimit,
    /// What to write: `None` decides by the output's extension, then by the input ([`Emit::of`]).
    pub emit: Option<Emit>,
    /// A pipeline that names passes of the registry's host IR (`canonicalize,lattice-mpas`): the
    /// host runs it instead of `pipeline` (see [`crate::host_pipeline`]).
    pub host_pipeline: Option<String>,
}

impl OptConfig {
    /// A run of the empty pipeline from `input` to `output` with every default.
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        OptConfig {
            input: input.into(),
            output: output.into(),
            import: ImportOptions::default(),
            pipeline: Pipeline::default(),
            run_reproducer: false,
            verify_each: None,
            printing: IrPrinting::default(),
            timing: None,
            statistics: None,
            trace: None,
            reproducer: None,
            split_input: false,
            verify_diagnostics: false,
            dump_pipeline: false,
            metrics: Vec::new(),
            error_limit: ErrorLimit::default(),
            emit: None,
            host_pipeline: None,
        }
    }
}

/// What `lattice-opt` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// LIR: the resulting lattice modules alone.
    Lir,
    /// The host IR (MLIR): the input with its lattice modules replaced by the results, or the
    /// results converted when the input was LIR.
    Host,
}

impl Emit {
    /// What an mlir-opt user expects without `--emit`: by the output's extension (`.lir`, or the
    /// host's text extension `.mlir`), else what came in (MLIR in, MLIR out; LIR or JSON in, LIR
    /// out).
    pub fn of(output: &Path, kind: &InputKind, host: Option<&Host>) -> Emit {
        let extension = output.extension().and_then(|e| e.to_str());
        match (extension, host) {
            (Some("lir"), _) => Emit::Lir,
            (Some(e), Some(host)) if e == host.text_extension() => Emit::Host,
            _ if matches!(kind, InputKind::Host(_)) => Emit::Host,
            _ => Emit::Lir,
        }
    }
}
