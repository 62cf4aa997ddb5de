//! The search's results table: for every case and objective, the paper pipeline (`mpas`, then
//! the back end) against `order-search` with the same back end — logical peak, traffic, spills
//! and makespan, all from the independent verifier's replay, plus the search's evaluations and
//! wall time (the one column that varies between runs). O(cases · objectives · search).

use super::{search, Objective, SearchError, SearchOptions};
use lattice::OptionType;
use lattice_lir::Module;
use std::fmt::Write;

/// A Markdown table with two lines (paper pipeline, search) per case and objective; fails on
/// the first case the search fails on, naming it.
pub fn results_table(
    cases: &[Module],
    objectives: &[Objective],
    options: &SearchOptions,
) -> Result<String, (String, SearchError)> {
    let mut md = String::from(
        "| case | objective | pipeline | peak | traffic | spills | makespan | evaluations | seconds |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for case in cases {
        for &objective in objectives {
            let options = SearchOptions {
                objective,
                ..options.clone()
            };
            let found = search(case, &options, &|| {}).map_err(|e| (case.name.clone(), e))?;
            let name = objective.print_option();
            for (label, m, evaluations, seconds) in [
                ("mpas", &found.mpas, String::new(), String::new()),
                (
                    "order-search",
                    &found.measure,
                    found.evaluations.to_string(),
                    format!("{:.2}", found.time.as_secs_f64()),
                ),
            ] {
                let _ = writeln!(
                    md,
                    "| {} | {name} | {label} | {} | {} | {} | {} | {evaluations} | {seconds} |",
                    case.name, m.peak, m.traffic, m.spills, m.makespan
                );
            }
        }
    }
    Ok(md)
}
