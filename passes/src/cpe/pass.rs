//! The `cpe` pass: a thin wrapper over [`super::refine`] that takes the Freeze timing from the
//! analysis manager, replaces the module by its refinement and reports the counters as
//! statistics (`freeze-makespan`, `seed-makespan`, `seed-accepted`, `moves`, `final-makespan`,
//! `time-us`). It keeps the dependencies, so the bottom levels stay valid. O(refinement).

use super::{check_phase, refine_with, untimeable, CpeOptions};
use crate::analysis::BottomLevels;
use crate::timing::TimingAnalysis;
use lattice::{Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::Module;

/// Plan-preserving Critical Path Enhancement.
pub struct Cpe(CpeOptions);

impl RegisteredPass for Cpe {
    const NAME: &'static str = "cpe";
    const SUMMARY: &'static str =
        "Critical Path Enhancement: refine the per-pipe order, keeping the memory plan";
    type Options = CpeOptions;
    fn new(options: CpeOptions) -> Self {
        Cpe(options)
    }
}

impl Pass for Cpe {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        check_phase(module)?;
        let timing = cx.analysis::<TimingAnalysis>(module);
        let freeze = match timing.0.as_ref() {
            Ok(freeze) => freeze,
            Err(cyclic) => return Err(untimeable(module, (*cyclic).into()).into()),
        };
        let refined = refine_with(module, freeze, &self.0)?;
        let s = refined.stats;
        cx.statistic(
            "freeze-makespan",
            "makespan of the incoming order (Freeze)",
            s.freeze_makespan,
        );
        cx.statistic(
            "seed-makespan",
            "makespan of the best list-scheduling seed within the memory budget (0: none)",
            s.seed_makespan,
        );
        cx.statistic(
            "seed-accepted",
            "1 if the seed was valid, plan-preserving and faster",
            u64::from(s.seed_accepted),
        );
        cx.statistic("moves", "local-search swaps accepted", s.moves);
        cx.statistic("final-makespan", "makespan of the result", s.final_makespan);
        cx.statistic(
            "time-us",
            "wall time of the refinement in microseconds",
            u64::try_from(s.time.as_micros()).unwrap_or(u64::MAX),
        );
        *module = refined.module;
        // Only σ changed; the dependencies, and so the bottom levels, are as they were.
        cx.preserve::<BottomLevels>();
        Ok(())
    }
}
