//! `lattice-opt`: runs pass pipelines over LIR modules (or contest JSON graphs, or MLIR — `.mlir`,
//! `.mlirbc`, pipelines with upstream passes — when built with the MLIR bridge), with the
//! instrumentation of mlir-opt. All behaviour is the library's (`lattice::cli`); this binary only
//! supplies the registry of passes lattice ships and MLIR as its host IR.
//!
//! Exit codes: 0 success, 1 invalid input, failing pass or invalid IR, 2 bad usage.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Without the `mlir` feature the bridge's host refuses MLIR with the feature to build.
    let registry = lattice_passes::REGISTRY.with_host(&lattice_mlir::MLIR_HOST);
    lattice::cli::opt_main(registry)
}
