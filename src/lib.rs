//! Framework core of lattice: the pass abstraction and registry, typed pass options, pipelines
//! and their text syntax, the analysis manager, the pass manager with its instrumentation (IR
//! printing, timing, statistics, reproducers), diagnostics, and the `lattice-opt` driver library.
//!
//! Dependencies point one way: the dialect (`lattice-lir`) below, the passes (`lattice-passes`)
//! and the tools above. Concrete passes are not known here; a driver is given a [`Registry`].

// `print!`/`eprint!` panic when the stream is closed (`| head`); library code writes through
// `std::io::Write` and handles the error (lattice::io), so the macros are forbidden here.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

pub mod analysis;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod driver;
pub mod error_limit;
pub mod expected;
pub mod host;
pub mod host_pipeline;
pub mod input;
pub mod io;
pub mod ir_printing;
pub mod manager;
pub mod options;
pub mod output;
pub mod parallel;
pub mod pass;
pub mod pipeline;
pub mod registry;
pub mod report_to;
pub mod reproducer;
pub mod split;
pub mod statistics;
pub mod timing;

pub use analysis::{Analysis, AnalysisManager, Preserved};
pub use manager::PassManager;
pub use options::{NoOptions, OptionType, PassOptions};
pub use pass::{Pass, PassBuilder, PassContext, PassError, PassInfo, RegisteredPass};
pub use pipeline::{parse_pipeline, PassSpec, Pipeline};
pub use registry::{MetricsFormat, Registry};
