//! Framework core of lattice: the driver library behind `lattice-opt`, input/output conventions,
//! and (with the pass-manager issue) the pass manager, pipelines and instrumentation.

#![deny(missing_docs)]

pub mod driver;
pub mod input;
pub mod io;
