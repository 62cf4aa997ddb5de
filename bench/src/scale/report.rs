//! The outputs of `lattice-bench scale`: `scale.md` (a Markdown table), `scale.json` (the
//! [`ScaleReport`] as JSON) and `scale.svg` (time per stage and in total against nodes, log-log).
//!
//! The table has one row per size: nodes, edges, then `ms / MiB` (wall time, peak heap) per stage
//! and for the whole pipeline. Every file is written atomically. Its numbers are measurements,
//! so unlike the rest of lattice's outputs they differ between runs; the Markdown says so.
//! O(sizes · stages).

use super::{ScaleError, ScaleReport, Stage};
use lattice::io::write_atomic;
use lattice_figures::{log_log, Line};
use std::fmt::Write as _;
use std::path::Path;

const MIB: f64 = 1024.0 * 1024.0;

/// The results as a Markdown table (with a heading line saying what the cells hold).
pub fn markdown(report: &ScaleReport) -> String {
    let mut out = String::new();
    let mut header = "| nodes | edges |".to_owned();
    let mut rule = "|---:|---:|".to_owned();
    for stage in Stage::ALL {
        let _ = write!(header, " {} |", stage.name());
        rule.push_str("---:|");
    }
    header.push_str(" total |");
    rule.push_str("---:|");
    let _ = writeln!(out, "{header}\n{rule}");
    for run in &report.runs {
        let _ = write!(out, "| {} | {} |", run.nodes, run.edges);
        for s in &run.stages {
            let _ = write!(out, " {} |", cell(s.ms, s.peak_bytes));
        }
        let _ = writeln!(out, " {} |", cell(run.total_ms, run.peak_bytes));
    }
    out
}

fn cell(ms: f64, bytes: u64) -> String {
    format!("{ms:.1} ms / {:.1} MiB", bytes as f64 / MIB)
}

/// Writes `scale.md`, `scale.json` and `scale.svg` into `dir` (which must exist).
pub fn write_outputs(dir: &Path, report: &ScaleReport) -> Result<(), ScaleError> {
    let md = format!(
        "# lattice-bench scale\n\n\
         The LATTICE pipeline (MPAS, DLR, fixed-graph construction, CPE, independent replay) on \
         generated `{}` DAGs (seed {}), every result verified. Each cell is the stage's wall time \
         and the peak heap of the whole process during it (inputs included). These are \
         measurements: they vary between runs and machines, unlike the modules, which are \
         deterministic. CPE starts from the `fixed-graph` stage's Freeze timing (it builds only \
         its own constraint graph on top), as the `cpe` pass takes it from the timing analysis.\n\n{}",
        report.shape,
        report.seed,
        markdown(report)
    );
    write_atomic(&dir.join("scale.md"), md.as_bytes())?;
    let json = serde_json::to_string_pretty(report)? + "\n";
    write_atomic(&dir.join("scale.json"), json.as_bytes())?;
    log_log(
        &dir.join("scale.svg"),
        &format!("Pipeline time vs DAG size (generated {})", report.shape),
        "nodes",
        "wall time (ms)",
        &lines(report),
    )?;
    Ok(())
}

/// One line per stage and one for the total; a zero time (below the clock's resolution) has no
/// point on a log axis and is left out.
fn lines(report: &ScaleReport) -> Vec<Line> {
    let mut lines: Vec<Line> = Stage::ALL
        .iter()
        .map(|&stage| Line {
            name: stage.name().to_owned(),
            points: report
                .runs
                .iter()
                .filter_map(|run| {
                    let s = run.stages.iter().find(|s| s.stage == stage)?;
                    (s.ms > 0.0).then_some((run.nodes as f64, s.ms))
                })
                .collect(),
        })
        .collect();
    lines.push(Line {
        name: "total".to_owned(),
        points: report
            .runs
            .iter()
            .filter(|run| run.total_ms > 0.0)
            .map(|run| (run.nodes as f64, run.total_ms))
            .collect(),
    });
    lines
}
