//! The results table of issue 6: traffic, spills and physical peak of DLR under both victim
//! policies for every (case, order) pair, as Markdown. The caller supplies the scheduled modules
//! (one per case and order pass), so the table does not depend on which order passes exist.
//! O(rows · plan).

use super::{plan, DlrError, DlrOptions, Victim};
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

/// A Markdown table with one line per row and victim policy; fails on the first row DLR rejects.
pub fn results_table(rows: &[Row<'_>]) -> Result<String, DlrError> {
    let mut md = String::from(
        "| case | order | victim | spills | drops | traffic | physical peak |\n\
         |---|---|---|---:|---:|---:|---:|\n",
    );
    let mut totals = [0u64; 2];
    for row in rows {
        for (i, (victim, label)) in [(Victim::Cost, "cost"), (Victim::Lru, "lru")]
            .into_iter()
            .enumerate()
        {
            let options = DlrOptions {
                victim,
                ..DlrOptions::default()
            };
            let s = plan(row.module, &options)?.stats;
            totals[i] += s.traffic;
            let _ = writeln!(
                md,
                "| {} | {} | {label} | {} | {} | {} | {} |",
                row.case, row.order, s.spills, s.drops, s.traffic, s.physical_peak
            );
        }
    }
    let _ = writeln!(
        md,
        "| **total** | | cost / lru | | | {} / {} | |",
        totals[0], totals[1]
    );
    Ok(md)
}
