//! The `order-exact` pass: a thin wrapper over [`super::exact_order`] that takes its back end
//! from the passes that follow it ([`Pass::follow`], as `order-search` does) unless `back-end`
//! is given, with DLR's own victim key (the key is not a dimension of the exact search), installs
//! the optimal order as σ (phase `scheduled`), reports statistics and a remark with the optimum
//! and the order-independent bound, and refuses with an error (the pipeline stops, exit 1) when
//! the module is too large to solve exactly. O(the search).

use super::{bound_of, exact_order, ExactError, ExactOptions};
use crate::search::score::value;
use crate::search::BackEnd;
use lattice::OptionType;
use lattice::{Pass, PassContext, PassError, PassSpec, RegisteredPass};
use lattice_lir::{Module, Phase, Severity};

/// Exact order for one objective.
pub struct OrderExact(ExactOptions);

impl RegisteredPass for OrderExact {
    const NAME: &'static str = "order-exact";
    const SUMMARY: &'static str =
        "Provably optimal σ for the peak, traffic or makespan on small modules (refuses past max-states)";
    type Options = ExactOptions;
    fn new(options: ExactOptions) -> Self {
        OrderExact(options)
    }
}

impl From<ExactError> for PassError {
    fn from(e: ExactError) -> Self {
        PassError::new(e.to_string())
    }
}

impl Pass for OrderExact {
    /// The back end is the passes that follow (DLR's and CPE's defaults when no `dlr` follows),
    /// unless `back-end` was given; either way with DLR's own victim key.
    fn follow(&mut self, following: &[PassSpec]) -> Vec<String> {
        let back_end = &mut self.0.back_end;
        if back_end.following {
            *back_end = BackEnd::of_following(following).unwrap_or_default();
        }
        back_end.victim_search = false;
        Vec::new()
    }

    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let objective = self.0.objective;
        let found = exact_order(module, &self.0)?;
        let bound = bound_of(&found.bounds, objective);
        cx.statistic("states", "states the exact search visited", found.states);
        cx.statistic("optimum", "optimal value of the objective", found.optimum);
        cx.statistic(
            "lower-bound",
            "order-independent lower bound of the objective",
            bound,
        );
        cx.emit(
            Severity::Remark,
            None,
            format!(
                "order-exact: {} {} is optimal (order-independent bound {bound})",
                objective.print_option(),
                value(objective, &found.measure),
            ),
        );
        module.schedule = found.order;
        module.phase = Phase::Scheduled;
        Ok(())
    }
}
