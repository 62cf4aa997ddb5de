//! The baseline passes: thin wrappers over the plain functions of this module. The order-only
//! baselines (`hmcos`, `magis`, `eda`) go through the ordering passes' wrapper (σ replaced by a
//! complete order, phase `scheduled`, the order statistics) and are planned by a later `dlr`;
//! `cosma` and `base` plan themselves and leave a `planned` module. Each reports its search and
//! plan counters as statistics. Cost: the wrapped function's.

use super::base::base;
use super::cosma::{cosma, CosmaOptions};
use super::eda::{eda_order, EdaOptions};
use super::hmcos::{hmcos_order, HmcosOptions, HmcosStats};
use super::magis::{magis_order, MagisOptions, MagisStats};
use crate::analysis::pressure;
use crate::dlr::DlrStats;
use crate::order::pass::reorder;
use lattice::{NoOptions, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::Module;

/// HMCOS (baselines.md §3).
pub struct Hmcos(HmcosOptions);

impl RegisteredPass for Hmcos {
    const NAME: &'static str = "hmcos";
    const SUMMARY: &'static str =
        "HMCOS baseline (baselines.md §3): hierarchical grouping and frontier DP under a budget; reorder σ";
    type Options = HmcosOptions;
    fn new(options: HmcosOptions) -> Self {
        Hmcos(options)
    }
}

impl Pass for Hmcos {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let mut stats = HmcosStats::default();
        reorder(Self::NAME, module, cx, |module, _| {
            hmcos_order(module, &self.0).map(|(order, s)| {
                stats = s;
                order
            })
        })?;
        cx.statistic(
            "sequences",
            "sequences after the join pass",
            stats.sequences,
        );
        cx.statistic("groups", "groups formed (cell and intruded)", stats.groups);
        cx.statistic(
            "iterations",
            "schedule-and-ungroup iterations",
            stats.iterations,
        );
        cx.statistic(
            "ungrouped",
            "groups dissolved at peak instants",
            stats.ungrouped,
        );
        cx.statistic(
            "dp-states",
            "frontier-DP states kept, all levels",
            stats.states,
        );
        cx.statistic(
            "beam-hits",
            "frontier DPs that hit max-states (result not proven optimal)",
            stats.beam_hits,
        );
        cx.statistic(
            "fallback",
            "1 when every DP broke the budget and the Base order was kept",
            stats.fallback,
        );
        Ok(())
    }
}

/// MAGIS (baselines.md §4).
pub struct Magis(MagisOptions);

impl RegisteredPass for Magis {
    const NAME: &'static str = "magis";
    const SUMMARY: &'static str =
        "MAGIS baseline (baselines.md §4): forward RPO, then windowed exact re-scheduling; reorder σ";
    type Options = MagisOptions;
    fn new(options: MagisOptions) -> Self {
        Magis(options)
    }
}

impl Pass for Magis {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let mut stats = MagisStats::default();
        reorder(Self::NAME, module, cx, |module, _| {
            magis_order(module, &self.0).map(|(order, s)| {
                stats = s;
                order
            })
        })?;
        cx.statistic(
            "cut-points",
            "narrow-waist commands (nw <= 1)",
            stats.cut_points,
        );
        cx.statistic(
            "windows",
            "re-scheduling windows over all passes",
            stats.windows,
        );
        cx.statistic(
            "extended",
            "window ends ExtendBound moved onto a narrower waist",
            stats.extended,
        );
        cx.statistic(
            "blocks",
            "weakly connected blocks scheduled by the DP",
            stats.blocks,
        );
        cx.statistic(
            "beam-hits",
            "blocks whose DP hit max-states (result not proven optimal)",
            stats.beam_hits,
        );
        cx.statistic("dp-states", "frontier-DP states kept", stats.states);
        Ok(())
    }
}

/// EDA placeholder traversals (baselines.md §6).
pub struct Eda(EdaOptions);

impl RegisteredPass for Eda {
    const NAME: &'static str = "eda";
    const SUMMARY: &'static str =
        "EDA PLACEHOLDER (baselines.md §6; not the EDA paper's rule, which is unidentified): reorder σ by a stand-in traversal";
    type Options = EdaOptions;
    fn new(options: EdaOptions) -> Self {
        Eda(options)
    }
}

impl Pass for Eda {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let traversal = self.0.traversal;
        reorder(Self::NAME, module, cx, |module, _| {
            eda_order(module, traversal)
        })
    }
}

/// COSMA (baselines.md §5).
pub struct Cosma(CosmaOptions);

impl RegisteredPass for Cosma {
    const NAME: &'static str = "cosma";
    const SUMMARY: &'static str =
        "COSMA baseline (baselines.md §5): min-peak windowed order, then best-fit placement with min-cost eviction windows; plans the module";
    type Options = CosmaOptions;
    fn new(options: CosmaOptions) -> Self {
        Cosma(options)
    }
}

impl Pass for Cosma {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let (planned, stats) = cosma(module, &self.0)?;
        let (w, p) = (stats.windows, stats.place);
        cx.statistic(
            "logical-peak",
            "bytes live at once over the non-staging tiers",
            pressure(&planned, &planned.schedule).logical_peak,
        );
        cx.statistic("windows", "min-peak windows", w.windows);
        cx.statistic(
            "beam-hits",
            "windows whose DP hit max-states (result not proven optimal)",
            w.beam_hits,
        );
        cx.statistic("spills", "SPILL_OUT events", p.spills);
        cx.statistic(
            "drops",
            "SPILL_OUTs of backed buffers (no writeback)",
            p.drops,
        );
        cx.statistic("reloads", "SPILL_IN events", p.reloads);
        cx.statistic("traffic", "extra DDR traffic in bytes", p.traffic);
        cx.statistic(
            "eviction-windows",
            "placements that evicted a window",
            p.windows,
        );
        cx.statistic(
            "fragmented",
            "eviction windows the tier's free bytes could have held",
            p.fragmented,
        );
        cx.statistic(
            "compactions",
            "placements that moved the op's own operands side by side",
            p.compactions,
        );
        cx.statistic(
            "physical-peak",
            "most bytes resident in all tiers at once",
            p.physical_peak,
        );
        // Only the exact mode has MILP counters; the default statistics stay as they were.
        if self.0.ilp_window > 0 {
            let i = stats.ilp;
            cx.statistic("ilp-windows", "per-tier MILP windows solved", i.windows);
            cx.statistic(
                "ilp-variables",
                "variables of the largest MILP window",
                i.variables,
            );
            cx.statistic(
                "ilp-nodes",
                "branch-and-bound nodes over all MILP windows",
                i.nodes,
            );
        }
        *module = planned;
        Ok(())
    }
}

/// Base: stable order, DLR with LRU victims, Freeze (baselines.md §2).
pub struct Base;

impl RegisteredPass for Base {
    const NAME: &'static str = "base";
    const SUMMARY: &'static str =
        "Base reference (baselines.md §2): order{policy=stable} then dlr{victim=lru l0=single}, no CPE (Freeze)";
    type Options = NoOptions;
    fn new(_: NoOptions) -> Self {
        Base
    }
}

impl Pass for Base {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let planned = base(module)?;
        let s: DlrStats = planned.stats;
        cx.statistic(
            "logical-peak",
            "bytes live at once over the non-staging tiers",
            pressure(&planned.module, &planned.module.schedule).logical_peak,
        );
        cx.statistic("spills", "SPILL_OUT events", s.spills);
        cx.statistic(
            "drops",
            "SPILL_OUTs of backed buffers (no writeback)",
            s.drops,
        );
        cx.statistic("reloads", "SPILL_IN events", s.reloads);
        cx.statistic("traffic", "extra DDR traffic in bytes", s.traffic);
        cx.statistic(
            "physical-peak",
            "most bytes resident in all tiers at once",
            s.physical_peak,
        );
        *module = planned.module;
        Ok(())
    }
}
