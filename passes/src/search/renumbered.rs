//! The renumbering table (`lattice-bench search --renumber K`): how much the search's result
//! depends on how a module happens to be numbered, and how it compares with the reverse
//! depth-first family.
//!
//! For every module and objective: the search on the module as given and on K renumbered copies
//! (`crate::generate::renumber`: the first by the order of MPAS's plan — another plan's order —
//! the others random topological orders, seeds 1..K), each result through the real back end as
//! the pipeline `order-search{…},dlr,cpe` builds it; the worst of the K + 1 over the best; and
//! the best member of the reverse depth-first family (`super::family`, every feeder placement)
//! through the same back end with DLR's default key. The worst of all the search's results must
//! not be above that member (a `!` marks where it is). The last column names each run's winning
//! candidate (a portfolio member or `chain-K`). A renumbered copy the search cannot order is a
//! `fails` cell and the row's ratio counts the failures (the module as given must plan).
//! O(modules · objectives · (K + 1) · search).

use super::family_floor::family_orders;
use super::options::BackEnd;
use super::score::{value, Evaluator};
use super::tasks::Tasks;
use super::{search, Objective, SearchError, SearchOptions, Silent};
use crate::analysis::bottom_levels;
use crate::generate::{random_topological, renumber};
use crate::order::{mpas_order, MpasOptions};
use lattice::OptionType;
use lattice_lir::{Module, Phase};
use std::fmt::Write;

/// The K renumbered copies of `module`: MPAS's order first, then random topological orders.
pub fn renumberings(module: &Module, k: usize) -> Result<Vec<Module>, SearchError> {
    let mut copies = Vec::with_capacity(k);
    for i in 0..k {
        let order = if i == 0 {
            mpas_order(module, &bottom_levels(module), &MpasOptions::default())?
        } else {
            random_topological(module, i as u64)?
        };
        // A permutation of a valid module's ops in a topological order: renumbering succeeds.
        if let Ok(copy) = renumber(module, &order) {
            copies.push(copy);
        }
    }
    Ok(copies)
}

/// The best objective value of the reverse depth-first family of `module` through `back_end`
/// (DLR's own victim key), `None` when the module has no main tasks.
pub fn family_best(
    module: &Module,
    objective: Objective,
    back_end: &BackEnd,
) -> Result<Option<u64>, SearchError> {
    let tasks = Tasks::of(module)?;
    let work = Module {
        phase: Phase::Scheduled,
        ..module.clone()
    };
    let evaluator = Evaluator::new(&work, objective, back_end);
    Ok(family_orders(module, &tasks)?
        .iter()
        .filter_map(|(_, order)| evaluator.finish(order).ok())
        .map(|m| value(objective, &m))
        .min())
}

/// The Markdown table (see the header); fails on the first module the search fails on.
pub fn renumbered_table(
    modules: &[Module],
    objectives: &[Objective],
    options: &SearchOptions,
    k: usize,
) -> Result<String, (String, SearchError)> {
    let mut md = format!(
        "| module | objective | family best | as given | {k} renumbered | worst / best | seconds (max) | winners |\n\
         |---|---|---:|---:|---|---:|---:|---|\n"
    );
    for module in modules {
        let fail = |e| (module.name.clone(), e);
        let copies = renumberings(module, k).map_err(fail)?;
        for &objective in objectives {
            let options = SearchOptions {
                objective,
                back_end: options.back_end.before_default_passes(),
                ..options.clone()
            };
            // The module as given must plan; a copy that fails is a row's "fails".
            let mut values: Vec<Option<u64>> = Vec::with_capacity(k + 1);
            let mut seconds: f64 = 0.0;
            let mut winners = Vec::with_capacity(k + 1);
            for (i, m) in std::iter::once(module).chain(&copies).enumerate() {
                match search(m, &options, &Silent) {
                    Ok(found) => {
                        values.push(Some(value(objective, &found.measure)));
                        winners.push(found.winner);
                        seconds = seconds.max(found.time.as_secs_f64());
                    }
                    Err(e) if i == 0 => return Err(fail(e)),
                    Err(_) => {
                        values.push(None);
                        winners.push("—".into());
                    }
                }
            }
            let back_end = options.back_end.with_victim(options.back_end.dlr.victim);
            let family = family_best(module, objective, &back_end).map_err(fail)?;
            let planned: Vec<u64> = values.iter().flatten().copied().collect();
            let (best, worst) = (planned.iter().min(), planned.iter().max());
            let failed = values.len() - planned.len();
            let ratio = match (best, worst) {
                _ if failed > 0 => format!("{failed} fail"),
                (Some(&b), Some(&w)) if b > 0 => format!("{:.3}", w as f64 / b as f64),
                // A best of 0 against a worse one: no finite ratio says how far apart they are.
                (_, Some(&w)) if w > 0 => "∞".into(),
                _ => "1.000".into(),
            };
            let beaten = family.is_some_and(|f| worst.is_some_and(|&w| w > f));
            let cell = |v: &Option<u64>| v.map_or_else(|| "fails".into(), |v| v.to_string());
            let rest: Vec<String> = values[1..].iter().map(cell).collect();
            let _ = writeln!(
                md,
                "| {} | {} | {}{} | {} | {} | {ratio} | {seconds:.2} | {} |",
                module.name,
                objective.print_option(),
                family.map_or_else(|| "—".into(), |f| f.to_string()),
                if beaten { " !" } else { "" },
                cell(&values[0]),
                rest.join(", "),
                winners.join(", "),
            );
        }
    }
    Ok(md)
}
