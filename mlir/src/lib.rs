//! The MLIR bridge of lattice, built with the cargo feature `mlir` (it links LLVM/MLIR 22 through
//! `melior`; without the feature this crate holds only `MLIR_HOST`, which refuses MLIR input,
//! output and pipelines and names the feature, and the default build needs no LLVM).
//!
//! - `dialect`: the `lattice` dialect, defined in IRDL and registered in an MLIR context at run
//!   time, so MLIR's verifier checks lattice ops;
//! - `export` and `import`: LIR ↔ MLIR, exact for every phase (`print(import(export(m))) ==
//!   print(m)`), and `text` for the tools (`lattice-translate --lir-to-mlir/--mlir-to-lir`);
//! - `host`: MLIR as `lattice-opt`'s host IR — `.mlir`/`.mlirbc` input, MLIR output that keeps the
//!   user's IR around the lattice modules, and pipelines mixing upstream and lattice passes;
//! - `external` and `pipeline`: every pass of a lattice registry as an MLIR external pass, and
//!   mixed pipelines such as `canonicalize,lattice-mpas,lattice-dlr,lattice-verify` in an MLIR
//!   `PassManager`, failures reported as MLIR diagnostics; `external::run_on_operation` is also
//!   what the `mlir-opt` pass plugin (`mlir/plugin`, its own workspace) runs;
//! - in both builds, `error` (what can be wrong with a module read from MLIR), `names` (the
//!   names LIR can print), `run` (one lattice pass on a LIR module, as `lattice-opt` runs it)
//!   and `snapshot` (whether a pass changed a module, without a copy of it),
//!   which the C ABI (`lattice_capi`, behind the C++ MLIR library) uses as well.

// `print!`/`eprint!` panic when the stream is closed (`| head`); library code writes through
// `std::io::Write` and handles the error (lattice::io), so the macros are forbidden here.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

pub mod error;
pub mod names;
pub mod run;
pub mod snapshot;
pub mod sniff;

#[cfg(not(feature = "mlir"))]
mod absent;
#[cfg(not(feature = "mlir"))]
pub use absent::{MLIR_HOST, WITHOUT_BRIDGE};

#[cfg(feature = "mlir")]
mod chunks;
#[cfg(feature = "mlir")]
pub mod diagnostics;
#[cfg(feature = "mlir")]
pub mod dialect;
#[cfg(feature = "mlir")]
pub mod export;
#[cfg(feature = "mlir")]
pub mod external;
#[cfg(all(test, feature = "mlir"))]
mod fixtures;
#[cfg(feature = "mlir")]
pub mod host;
#[cfg(feature = "mlir")]
pub mod import;
#[cfg(feature = "mlir")]
pub mod pipeline;
#[cfg(feature = "mlir")]
mod rewrite;
#[cfg(feature = "mlir")]
pub mod strings;
#[cfg(feature = "mlir")]
pub mod text;

#[cfg(feature = "mlir")]
pub use error::{BridgeError, ImportError, ImportErrorKind};
#[cfg(feature = "mlir")]
pub use export::{lir_to_mlir, Carried, Kept};
#[cfg(feature = "mlir")]
pub use external::lattice_pass;
#[cfg(feature = "mlir")]
pub use host::MLIR_HOST;
#[cfg(feature = "mlir")]
pub use import::{
    import_module, import_single, lattice_modules, outside_lattice_modules, Imported,
};
#[cfg(feature = "mlir")]
pub use pipeline::{add_pipeline, pipeline_text, PipelineError};
#[cfg(feature = "mlir")]
pub use text::{lir_to_mlir_text, mlir_to_lir};
