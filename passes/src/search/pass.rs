//! The `order-search` pass: a thin wrapper over [`super::search_with`] that takes the bottom
//! levels from the analysis manager, installs the order found as σ (phase `scheduled`), reports
//! statistics and a remark naming the winning candidate, and draws a progress bar on stderr
//! when stderr is a terminal (nothing otherwise): steps done of the budget and the time left
//! ([`super::progress`]). O(search).

use super::{progress, score::value, search_with, SearchOptions};
use crate::analysis::{pressure, BottomLevels};
use lattice::OptionType;
use lattice::{Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::Severity;
use lattice_lir::{Module, Phase};

/// Plan-in-the-loop order search.
pub struct OrderSearch(SearchOptions);

impl RegisteredPass for OrderSearch {
    const NAME: &'static str = "order-search";
    const SUMMARY: &'static str =
        "Search σ with DLR (and CPE) in the loop for the least peak, traffic or makespan";
    type Options = SearchOptions;
    fn new(options: SearchOptions) -> Self {
        OrderSearch(options)
    }
}

impl Pass for OrderSearch {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let options = &self.0;
        let levels = cx.analysis::<BottomLevels>(module);
        // The search sizes the bar once its budget is known (`auto` waits for the portfolio).
        let bar = progress::bar();
        let found = search_with(module, &levels, options, &bar)?;
        bar.finish_and_clear();
        let objective = options.objective;
        cx.statistic(
            "logical-peak-before",
            "bytes live at once over the non-staging tiers, incoming order",
            pressure(module, &module.schedule).logical_peak,
        );
        cx.statistic("members", "portfolio members scored", found.members);
        cx.statistic("evaluations", "search steps spent", found.evaluations);
        cx.statistic(
            "improvements",
            "times a local-search chain improved on its best",
            found.improvements,
        );
        cx.statistic(
            "portfolio-best",
            "best objective value among the portfolio (search stage)",
            found.portfolio_best,
        );
        cx.statistic(
            "search-best",
            "best objective value after local search (search stage)",
            found.search_best,
        );
        cx.statistic(
            "mpas-value",
            "objective value of MPAS's order through the back end",
            value(objective, &found.mpas),
        );
        cx.statistic(
            "final-value",
            "objective value of the chosen order through the back end",
            value(objective, &found.measure),
        );
        cx.emit(
            Severity::Remark,
            None,
            format!(
                "order-search: {} {} (MPAS {}) from `{}`",
                objective.print_option(),
                value(objective, &found.measure),
                value(objective, &found.mpas),
                found.winner
            ),
        );
        module.schedule = found.order;
        module.phase = Phase::Scheduled;
        cx.preserve::<BottomLevels>();
        Ok(())
    }
}
