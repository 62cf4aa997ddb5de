//! The `order-search` pass: a thin wrapper over [`super::search_with`] that takes its back end
//! from the passes that follow it ([`Pass::follow`]) unless `back-end` is given, takes the bottom
//! levels from the analysis manager, installs the order found as σ (phase `scheduled`), leaves
//! the victim key it chose for the `dlr` that follows ([`VictimChoice`]) when it searched the
//! key, reports statistics and a remark naming the winning candidate, and draws a progress bar
//! on stderr when stderr is a terminal (nothing otherwise): steps done of the budget and the
//! time left ([`super::progress`]). O(search).

use super::{progress, score::value, search_with, BackEnd, SearchOptions};
use crate::analysis::{pressure, BottomLevels};
use crate::dlr::VictimChoice;
use lattice::OptionType;
use lattice::{Pass, PassContext, PassError, PassSpec, RegisteredPass};
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
    /// The back end is the passes that follow, unless `back-end` was given; a given one that
    /// differs from them gets a warning, since the plan they build may not be the one scored.
    fn follow(&mut self, following: &[PassSpec]) -> Vec<String> {
        let back_end = &mut self.0.back_end;
        let ahead = BackEnd::of_following(following);
        if back_end.following {
            // With no `dlr` right after it, nothing takes a victim choice: DLR's default key,
            // which a later `dlr` uses.
            *back_end = ahead.unwrap_or_default();
            return Vec::new();
        }
        match ahead {
            Some(ahead) if (&ahead.dlr, &ahead.cpe) != (&back_end.dlr, &back_end.cpe) => {
                vec![format!(
                    "order-search scores with back-end=\"{}\" but the passes that follow are `{}`: \
                     the plan they build may not be the one scored; leave `back-end` out to \
                     score with them",
                    back_end.spec(),
                    ahead.spec()
                )]
            }
            _ => Vec::new(),
        }
    }

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
            "work",
            "work units spent (portfolio, chains, final stage)",
            found.work,
        );
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
                "order-search: {} {} (MPAS {}) from `{}`{}",
                objective.print_option(),
                value(objective, &found.measure),
                value(objective, &found.mpas),
                found.winner,
                if options.back_end.victim_search {
                    format!(", victim={}", found.victim.print_option())
                } else {
                    String::new()
                }
            ),
        );
        if options.back_end.victim_search {
            // The `dlr` that follows plans with the key the winner was scored with.
            cx.leave(VictimChoice(found.victim));
        }
        module.schedule = found.order;
        module.phase = Phase::Scheduled;
        cx.preserve::<BottomLevels>();
        Ok(())
    }
}
