//! `lattice-opt`: runs pass pipelines over LIR modules (or contest JSON graphs, or `.mlir` files
//! when built with the MLIR bridge), with the instrumentation of mlir-opt. All behaviour is the
//! library's (`lattice::cli`); this binary only supplies the registry of passes lattice ships and
//! the input formats it was built with.
//!
//! Exit codes: 0 success, 1 invalid input, failing pass or invalid IR, 2 bad usage.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Without the `mlir` feature the bridge's `.mlir` format refuses with the feature to build.
    let registry = lattice_passes::REGISTRY.with_formats(&[lattice_mlir::MLIR_INPUT]);
    lattice::cli::opt_main(registry)
}
