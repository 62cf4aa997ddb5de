//! The library behind lattice's command-line tools: what `lattice-bench` computes and draws,
//! kept out of the binaries so tests can call it as plain functions.
//!
//! - [`figures`]: deterministic SVG charts (bars, residency maps, pipe activity, log-log lines,
//!   log2 distributions) from plain data.

pub mod figures;
