//! The independent check DLR's tests hold plans to: the `verify` replay (written from DESIGN §1.3
//! and sharing no code with DLR) must find no violation, and its recomputed spill count and
//! traffic are returned for comparison with DLR's own statistics.

use lattice_lir::Module;
use lattice_passes::verify::{replay, ReplayOptions};

/// What the replay recomputed.
#[derive(Debug)]
pub struct Replay {
    /// SPILL_OUT count.
    pub spills: u64,
    /// Extra DDR traffic.
    pub traffic: u64,
}

/// Panics with the first violations the replay finds.
pub fn check_plan(m: &Module) -> Replay {
    let result = replay(m, &ReplayOptions::default());
    let shown = &result.violations[..result.violations.len().min(5)];
    assert!(result.violations.is_empty(), "{}: {shown:?}", m.name);
    Replay {
        spills: result.metrics.spill_count,
        traffic: result.metrics.extra_traffic,
    }
}
