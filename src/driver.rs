//! The `lattice-opt` driver as a library: load a module, check it, print it.
//!
//! The binary only turns command-line flags into an [`OptConfig`] and calls [`run`], so embedders
//! and tests drive exactly the same code. Output is produced in memory and written atomically,
//! so a failing run leaves no partial output file.

use crate::input::load_module;
use crate::io::write_atomic;
use lattice_lir::contest::ImportOptions;
use lattice_lir::print_module;
use std::path::PathBuf;

/// Everything one `lattice-opt` run needs.
#[derive(Clone, Debug)]
pub struct OptConfig {
    /// LIR text or a contest `.json` graph; `-` for standard input.
    pub input: PathBuf,
    /// Where the resulting LIR goes; `-` for standard output.
    pub output: PathBuf,
    /// How a contest graph is imported (ignored for LIR input).
    pub import: ImportOptions,
}

/// How a run ended, with the process exit code it maps to.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Success (exit 0).
    Ok,
    /// The input or the IR was invalid; diagnostics were rendered (exit 1).
    Failed(String),
}

impl Outcome {
    /// The process exit code: 0 on success, 1 on invalid input or IR.
    pub fn exit_code(&self) -> u8 {
        match self {
            Outcome::Ok => 0,
            Outcome::Failed(_) => 1,
        }
    }
}

/// Runs the driver: parse (or import), verify, print.
pub fn run(config: &OptConfig) -> Outcome {
    let (source, loaded) = load_module(&config.input, &config.import);
    let module = match loaded {
        Ok(module) => module,
        Err(e) => return Outcome::Failed(e.render(&source)),
    };
    tracing::debug!(
        ops = module.ops.len(),
        buffers = module.buffers.len(),
        "loaded module"
    );
    match write_atomic(&config.output, print_module(&module).as_bytes()) {
        Ok(()) => Outcome::Ok,
        Err(e) => Outcome::Failed(format!("error: {e}\n")),
    }
}
