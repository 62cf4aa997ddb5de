//! The library behind `lattice-bench`: what it computes and draws, kept out of the binary so
//! tests can call it as plain functions. Its own crate (not `lattice-tools`) so that building
//! `lattice-opt` does not compile the plotting and progress-bar dependencies. Its charts are
//! `lattice_figures`', which `lattice-translate --export-svg` draws plans with too.
//!
//! - [`paper`]: `lattice-bench paper`, the paper's whole evaluation (report, results, figures);
//! - [`generated`]: the generated modules of `lattice-bench search --generated`;
//! - [`scale`]: `lattice-bench scale`, the pipeline's time and peak heap per stage on generated
//!   DAGs of growing size;
//! - [`alloc_meter`]: the counting global allocator `scale` reads its peak heap from.

// `print!`/`eprint!` panic when the stream is closed (`| head`); library code writes through
// `std::io::Write` and handles the error (lattice::io), so the macros are forbidden here.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod alloc_meter;
pub mod generated;
pub mod paper;
pub mod scale;
