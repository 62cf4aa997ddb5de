//! `lattice-opt`: runs pass pipelines over LIR modules (or contest JSON graphs), with the
//! instrumentation of mlir-opt. All behaviour is the library's (`lattice::cli`); this binary only
//! supplies the registry of passes lattice ships.
//!
//! Exit codes: 0 success, 1 invalid input, failing pass or invalid IR, 2 bad usage.

use std::process::ExitCode;

fn main() -> ExitCode {
    lattice::cli::opt_main(lattice_passes::REGISTRY)
}
