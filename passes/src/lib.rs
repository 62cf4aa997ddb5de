//! The passes of lattice and the registry that lists them.
//!
//! Every pass is a thin [`Pass`](lattice::Pass) wrapper over plain functions that tests can call
//! directly. [`REGISTRY`] is the one list the CLI flags, `--list-passes`, pipeline parsing and the
//! manual's pass table come from.

// `print!`/`eprint!` panic when the stream is closed (`| head`); library code writes through
// `std::io::Write` and handles the error (lattice::io), so the macros are forbidden here.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![deny(missing_docs)]

pub mod analysis;
pub mod baselines;
pub mod cpe;
pub mod dlr;
pub mod exact;
pub mod fuzz;
#[cfg(feature = "generate")]
pub mod generate;
pub mod order;
pub mod outcome;
pub mod reduce;
pub mod renumber;
mod rng;
pub mod search;
pub mod testing;
pub mod timing;
pub mod trace;
pub mod verify;

use lattice::diagnostic::Diagnostic;
use lattice::io::Stream;
use lattice::{MetricsFormat, PassInfo, Registry};
use lattice_lir::Module;

/// Every pass lattice ships, real passes first, then the `test-` passes.
pub static REGISTRY: Registry = Registry::new(&[
    PassInfo::of::<order::Mpas>(),
    PassInfo::of::<order::Order>(),
    PassInfo::of::<search::OrderSearch>(),
    PassInfo::of::<exact::OrderExact>(),
    PassInfo::of::<dlr::Dlr>(),
    PassInfo::of::<cpe::Cpe>(),
    PassInfo::of::<verify::Verify>(),
    PassInfo::of::<baselines::Base>(),
    PassInfo::of::<baselines::Hmcos>(),
    PassInfo::of::<baselines::Magis>(),
    PassInfo::of::<baselines::Cosma>(),
    PassInfo::of::<baselines::Eda>(),
    PassInfo::of::<testing::TestAnalyses>(),
    PassInfo::of::<testing::TestCorrupt>(),
    PassInfo::of::<testing::TestCount>(),
    PassInfo::of::<testing::TestFail>(),
    PassInfo::of::<testing::TestRemark>(),
    PassInfo::of::<testing::TestReverse>(),
])
.with_metrics(report_metrics)
.with_trace(trace_modules);

/// `--metrics`: the independent replay's metrics of the final module, with the fixed-order
/// traffic lower bound of a planned one and the order-independent bounds.
fn report_metrics(module: &Module, format: MetricsFormat) -> String {
    let mut metrics = verify::metrics(module);
    let planned = module.phase.has_plan();
    if planned {
        // A module the bound cannot be computed for (operands over capacity) is one the replay
        // already reports as invalid; the field then stays null.
        if let Ok(bound) = analysis::traffic_lower_bound(module) {
            metrics.set_traffic_lower_bound_fixed_order(bound.bytes);
        }
    }
    // Likewise: no bounds for a module no order can plan (a cycle, operands over capacity).
    if let Ok(b) = analysis::any_order_bounds(module) {
        metrics.set_any_order_bounds((b.peak, b.traffic, b.makespan), b.capped, planned);
    }
    match format {
        MetricsFormat::Json => metrics.to_json_string(),
        MetricsFormat::Text => metrics.to_text(),
    }
}

/// `--trace`: the replay's timeline of every final module, then their Chrome trace.
fn trace_modules<'a>(modules: &'a [&'a Module]) -> Result<Stream<'a>, Vec<Diagnostic>> {
    let timelines = modules
        .iter()
        .map(|m| trace::traceable(m))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(move |out| {
        let traced: Vec<_> = modules.iter().copied().zip(&timelines).collect();
        trace::write_trace(&traced, out)
    }))
}
