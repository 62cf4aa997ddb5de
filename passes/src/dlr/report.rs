//! DLR's results table: traffic, spills and physical peak under every victim key for each
//! (case, order) pair, with the fixed-order traffic lower bound of the planned σ and each key's
//! gap to it, as Markdown. The caller supplies the scheduled modules (one per case and order
//! pass), so the table does not depend on which order passes exist. O(rows · (plan + bound)).

use super::{plan, DlrError, DlrOptions, Victim};
use crate::analysis::traffic_lower_bound;
use lattice::options::OptionType;
use lattice_lir::Module;
use std::fmt::Write;

/// One row's input: a case name, the order that scheduled it, and the scheduled module.
pub struct Row<'a> {
    /// The workload.
    pub case: &'a str,
    /// The order pass that produced σ (`mpas`, `stable`, …).
    pub order: &'a str,
    /// The scheduled module.
    pub module: &'a Module,
}

/// The victim keys the table compares, in column order.
const VICTIMS: [Victim; 4] = [Victim::Paper, Victim::Cost, Victim::Auto, Victim::Lru];

/// A Markdown table with one line per row and victim key; fails on the first row DLR rejects.
pub fn results_table(rows: &[Row<'_>]) -> Result<String, DlrError> {
    let mut md = String::from(
        "| case | order | victim | spills | drops | traffic | traffic bound | gap | physical peak |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut totals = [0u64; VICTIMS.len()];
    let mut bound_total = 0;
    for row in rows {
        let mut row_bound = None;
        for (i, victim) in VICTIMS.into_iter().enumerate() {
            let options = DlrOptions {
                victim,
                ..DlrOptions::default()
            };
            let planned = plan(row.module, &options)?;
            let s = planned.stats;
            // Every key plans the same σ of ops, so the bound is the row's, computed once; a
            // planned module's operands fit their tiers, so it always exists.
            let bound = *row_bound.get_or_insert_with(|| {
                let bound = traffic_lower_bound(&planned.module).map_or(0, |b| b.bytes);
                bound_total += bound;
                bound
            });
            totals[i] += s.traffic;
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {bound} | {} | {} |",
                row.case,
                row.order,
                victim.print_option(),
                s.spills,
                s.drops,
                s.traffic,
                gap(s.traffic, bound),
                s.physical_peak
            );
        }
    }
    let labels: Vec<String> = VICTIMS.iter().map(OptionType::print_option).collect();
    let values: Vec<String> = totals.iter().map(ToString::to_string).collect();
    let _ = writeln!(
        md,
        "| **total** | | {} | | | {} | {bound_total} | | |",
        labels.join(" / "),
        values.join(" / ")
    );
    Ok(md)
}

/// `traffic` above `bound` in percent of the bound, one decimal.
pub fn gap(traffic: u64, bound: u64) -> String {
    match (traffic, bound) {
        (0, 0) => "0.0%".into(),
        (_, 0) => "—".into(),
        (t, b) => format!("{:.1}%", (t as f64 - b as f64) * 100.0 / b as f64),
    }
}
