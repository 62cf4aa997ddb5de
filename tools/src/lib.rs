//! The library behind lattice's command-line tools: what `lattice-bench` computes and draws,
//! kept out of the binaries so tests can call it as plain functions.
//!
//! - [`paper`]: `lattice-bench paper`, the paper's whole evaluation (report, results, figures);
//! - [`figures`]: deterministic SVG charts (bars, residency maps, pipe activity, log-log lines,
//!   log2 distributions) from plain data;
//! - [`scale`]: `lattice-bench scale`, the pipeline's time and peak heap per stage on generated
//!   DAGs of growing size;
//! - [`alloc_meter`]: the counting global allocator `scale` reads its peak heap from.

pub mod alloc_meter;
pub mod figures;
pub mod paper;
pub mod scale;
