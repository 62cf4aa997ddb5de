//! The search's results table: for every case and objective, the paper pipeline (`mpas`, then
//! the back end) against `order-search` with the same back end — logical peak, traffic, spills
//! and makespan, all from the independent verifier's replay, the fixed-order traffic lower
//! bound of each plan's σ, the order-independent bound of the objective (`analysis::any_order`)
//! and the gap to it, the fastest plan the peak and traffic objectives chose against the makespan
//! objective's (marked when that is slower, which it should never be), plus the search's
//! evaluations and wall time (the one column that varies between runs). Each search run is also
//! returned as a [`Run`], so a caller can check its time and that it is no worse than MPAS's
//! order. The bounds can be left out ([`Bounds::Skip`]):
//! they solve a linear program and sweep reachability bitsets, which on a 1M-node module takes
//! far longer than the search. O(cases · objectives · (search + 2 plans and bounds)).

use super::{search, BackEnd, Objective, SearchError, SearchOptions, Silent};
use crate::analysis::{any_order_bounds, bottom_levels, traffic_lower_bound};
use crate::dlr::plan;
use crate::exact::bound_of;
use crate::order::{mpas_order, MpasOptions};
use crate::verify::gap_percent;
use lattice::OptionType;
use lattice_lir::{Module, OpId, Phase};
use std::fmt::Write;
use std::time::Duration;

/// Whether the table computes the bound columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// The fixed-order traffic bound, the any-order bound and the gap.
    Show,
    /// "—" in their place.
    Skip,
}

/// One search of the table: its objective's value against MPAS's order's, and its time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The module's name.
    pub case: String,
    /// What the search minimized.
    pub objective: Objective,
    /// The objective's value of the search's plan (the verifier's replay).
    pub value: u64,
    /// The objective's value of MPAS's order through the same back end.
    pub mpas: u64,
    /// The search's wall time.
    pub time: Duration,
    /// The `time-limit` it ran under (0: none).
    pub time_limit: u64,
}

/// A Markdown table with two lines (paper pipeline, search) per case and objective, and the
/// search runs in table order; fails on the first case the search fails on, naming it.
pub fn results_table(
    cases: &[Module],
    objectives: &[Objective],
    options: &SearchOptions,
    with_bounds: Bounds,
) -> Result<(String, Vec<Run>), (String, SearchError)> {
    let mut runs = Vec::with_capacity(cases.len() * objectives.len());
    let mut md = String::from(
        "| case | objective | pipeline | peak | traffic | traffic bound | spills | makespan | bound (any order) | gap | other plans' makespan | evaluations | seconds |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for case in cases {
        // A case no order can plan fails the search below with the reason.
        let bounds = match with_bounds {
            Bounds::Show => any_order_bounds(case).ok(),
            Bounds::Skip => None,
        };
        let back_end = options.back_end.before_default_passes();
        let options = SearchOptions {
            back_end,
            ..options.clone()
        };
        let mut searched = Vec::with_capacity(objectives.len());
        for &objective in objectives {
            let options = SearchOptions {
                objective,
                ..options.clone()
            };
            let found = search(case, &options, &Silent).map_err(|e| (case.name.clone(), e))?;
            searched.push((objective, found));
        }
        // The makespan objective's plan against the fastest plan the peak and traffic
        // objectives chose (when they ran): it should never be slower, and the cell says so
        // when it is.
        let others = searched
            .iter()
            .filter(|(o, _)| *o != Objective::Makespan)
            .map(|(_, f)| f.measure.makespan)
            .min();
        for (objective, found) in searched {
            let name = objective.print_option();
            let fastest = others.filter(|_| objective == Objective::Makespan);
            runs.push(Run {
                case: case.name.clone(),
                objective,
                value: super::score::value(objective, &found.measure),
                mpas: super::score::value(objective, &found.mpas),
                time: found.time,
                time_limit: options.time_limit,
            });
            // The order the search measured as MPAS's (a failure there already failed it).
            let mpas =
                mpas_order(case, &bottom_levels(case), &MpasOptions::default()).unwrap_or_default();
            let against = match fastest {
                Some(f) if found.measure.makespan > f => format!("{f} (slower)"),
                Some(f) => f.to_string(),
                None => String::new(),
            };
            for (label, m, order, evaluations, seconds, victim, against) in [
                (
                    "mpas",
                    &found.mpas,
                    &mpas,
                    String::new(),
                    String::new(),
                    options.back_end.dlr.victim,
                    String::new(),
                ),
                (
                    "order-search",
                    &found.measure,
                    &found.order,
                    found.evaluations.to_string(),
                    format!("{:.2}", found.time.as_secs_f64()),
                    found.victim,
                    against,
                ),
            ] {
                let bound = match with_bounds {
                    Bounds::Show => bound(case, order, &options.back_end.with_victim(victim)),
                    Bounds::Skip => "—".to_string(),
                };
                let (any, gap) = match bounds {
                    Some(b) => {
                        let any = bound_of(&b, objective);
                        let gap = gap_percent(super::score::value(objective, m), any)
                            .map_or_else(|| "∞".to_string(), |g| format!("{g:.1}%"));
                        (any.to_string(), gap)
                    }
                    None => ("—".to_string(), "—".to_string()),
                };
                let _ = writeln!(
                    md,
                    "| {} | {name} | {label} | {} | {} | {bound} | {} | {} | {any} | {gap} | {against} | {evaluations} | {seconds} |",
                    case.name, m.peak, m.traffic, m.spills, m.makespan
                );
            }
        }
    }
    Ok((md, runs))
}

/// The fixed-order traffic bound of the plan the back end's DLR builds for `order` ("—" if it
/// builds none, which the search's own evaluation of the order has already ruled out).
fn bound(case: &Module, order: &[OpId], back_end: &BackEnd) -> String {
    let scheduled = Module {
        schedule: order.to_vec(),
        phase: Phase::Scheduled,
        ..case.clone()
    };
    plan(&scheduled, &back_end.dlr)
        .ok()
        .and_then(|p| traffic_lower_bound(&p.module).ok())
        .map_or_else(|| "—".to_string(), |b| b.bytes.to_string())
}
