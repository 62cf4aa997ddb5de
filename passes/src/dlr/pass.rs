//! The `dlr` pass: a thin wrapper over [`super::plan`] that replaces the module by its plan and
//! reports the plan's counters as statistics. With `victim` at its default it takes the key the
//! pass before it chose ([`VictimChoice`], left by `order-search`). O(plan).

use super::{plan, DlrOptions, VictimChoice};
use lattice::{Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::Module;

/// Deterministic Linear Repackaging.
pub struct Dlr(DlrOptions);

impl RegisteredPass for Dlr {
    const NAME: &'static str = "dlr";
    const SUMMARY: &'static str =
        "Deterministic Linear Repackaging: offsets, spills and the memory-plan contract";
    type Options = DlrOptions;
    fn new(options: DlrOptions) -> Self {
        Dlr(options)
    }
}

impl Pass for Dlr {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let mut options = self.0.clone();
        if let Some(&VictimChoice(victim)) = cx.left_by_previous::<VictimChoice>() {
            if options.victim == DlrOptions::default().victim {
                options.victim = victim;
            }
        }
        let planned = plan(module, &options)?;
        let s = planned.stats;
        cx.statistic("spills", "SPILL_OUT events", s.spills);
        cx.statistic(
            "drops",
            "SPILL_OUTs of backed buffers (no cycles, no traffic)",
            s.drops,
        );
        cx.statistic("reloads", "SPILL_IN events", s.reloads);
        cx.statistic("traffic", "extra DDR traffic in bytes", s.traffic);
        cx.statistic("reuse-edges", "address-reuse dependencies", s.reuse_edges);
        cx.statistic(
            "physical-peak",
            "most bytes resident in all tiers at once",
            s.physical_peak,
        );
        cx.statistic(
            "frag-evictions",
            "eviction rounds that enough free bytes, but no single hole, could have served",
            s.frag_evictions,
        );
        cx.statistic(
            "frag-shortfall-sum",
            "sum over eviction rounds of request minus largest free hole",
            s.frag_shortfall_sum,
        );
        cx.statistic(
            "frag-shortfall-max",
            "largest request minus largest free hole of any eviction round",
            s.frag_shortfall_max,
        );
        *module = planned.module;
        Ok(())
    }
}
