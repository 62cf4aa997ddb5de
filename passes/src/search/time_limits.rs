//! The time-limit table (`lattice-bench search --time-limits T,…`): for every case, objective
//! and limit T, `order-search{time-limit=T}`'s wall time (the whole [`search`] call, bottom
//! levels included) against T + 1 s, the most the pass may take (the limit, plus the step under
//! way when it passes), with the objective's value against MPAS's order's, which a limit must
//! never lose to. Wall times vary between runs and with the machine's load; the rows are
//! returned as [`Run`]s so a caller can check them. O(cases · objectives · limits · search).

use super::report::Run;
use super::{search, Objective, SearchError, SearchOptions, Silent};
use lattice::OptionType;
use lattice_lir::Module;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// The slack `time-limit=T` allows past T: the step under way when the limit passes.
pub const SLACK: Duration = Duration::from_secs(1);

/// A Markdown table with one line per case, objective and limit (each in the order given), and
/// the runs in table order; fails on the first case the search fails on, naming it.
pub fn time_limit_table(
    cases: &[Module],
    objectives: &[Objective],
    options: &SearchOptions,
    limits: &[u64],
) -> Result<(String, Vec<Run>), (String, SearchError)> {
    let mut md = String::from(
        "| case | objective | time-limit | seconds | T + 1 | within | value | MPAS | evaluations |\n\
         |---|---|---:|---:|---:|---|---:|---:|---:|\n",
    );
    let mut runs = Vec::with_capacity(cases.len() * objectives.len() * limits.len());
    for case in cases {
        for &objective in objectives {
            for &limit in limits {
                let options = SearchOptions {
                    objective,
                    time_limit: limit,
                    back_end: options.back_end.before_default_passes(),
                    ..options.clone()
                };
                let clock = Instant::now();
                let found = search(case, &options, &Silent).map_err(|e| (case.name.clone(), e))?;
                let time = clock.elapsed();
                let most = Duration::from_secs(limit) + SLACK;
                let run = Run {
                    case: case.name.clone(),
                    objective,
                    value: super::score::value(objective, &found.measure),
                    mpas: super::score::value(objective, &found.mpas),
                    time,
                    time_limit: limit,
                };
                let _ = writeln!(
                    md,
                    "| {} | {} | {limit} | {:.2} | {} | {} | {} | {} | {} |",
                    case.name,
                    objective.print_option(),
                    time.as_secs_f64(),
                    most.as_secs(),
                    if time <= most { "yes" } else { "**no**" },
                    run.value,
                    run.mpas,
                    found.evaluations,
                );
                runs.push(run);
            }
        }
    }
    Ok((md, runs))
}
