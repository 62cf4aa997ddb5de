//! The passes of lattice and the registry that lists them.
//!
//! Every pass is a thin [`Pass`](lattice::Pass) wrapper over plain functions that tests can call
//! directly. [`REGISTRY`] is the one list the CLI flags, `--list-passes`, pipeline parsing and the
//! README table come from.

#![deny(missing_docs)]

pub mod analysis;
pub mod dlr;
pub mod testing;

use lattice::{PassInfo, Registry};

/// Every pass lattice ships, real passes first, then the `test-` passes.
pub static REGISTRY: Registry = Registry::new(&[
    PassInfo::of::<dlr::Dlr>(),
    PassInfo::of::<testing::TestAnalyses>(),
    PassInfo::of::<testing::TestCorrupt>(),
    PassInfo::of::<testing::TestCount>(),
    PassInfo::of::<testing::TestFail>(),
    PassInfo::of::<testing::TestRemark>(),
    PassInfo::of::<testing::TestReverse>(),
]);
