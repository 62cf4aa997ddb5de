//! `report.md`: the studies of [`Results`] as Markdown, in the paper's order — workloads, end to
//! end, stage attribution, order sensitivity, constraint diagnostics, figures, compile time.
//!
//! Every table names the pipeline behind its numbers, and the end-to-end section lists plainly
//! every cell where LATTICE is not the lowest (against the best external method, and against
//! Base), so nothing is hidden by an average. Integers are printed exactly as `lattice-opt
//! --metrics` prints them. Everything but the compile-time section is deterministic. Linear in
//! the size of [`Results`].

use super::configs::{Config, LATTICE};
use super::metric::Metric;
use super::plots::Figure;
use super::results::{Results, Study};
use super::workload::CLASSES;
use super::{CaseResult, StageTimes};
use std::fmt::Write as _;

/// The whole report.
pub fn render(results: &[CaseResult], r: &Results, figures: &[Figure], command: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# LATTICE evaluation, reproduced\n");
    let _ = writeln!(
        out,
        "Produced by `{command}` on {} workload(s). Every number outside the compile-time \
         section is the independent verifier's replay of a verified result and equals \
         `lattice-opt --pass-pipeline='<pipeline>' --metrics` on the same case; each table names \
         its pipelines. Those numbers are deterministic; `results.json` holds all of them. \
         Lower is better for every metric. Peaks and traffic are in bytes, makespans in cycles.\n",
        results.len()
    );
    workloads(&mut out, r);
    end_to_end(&mut out, r);
    stages(&mut out, r);
    orders(&mut out, r);
    diagnostics(&mut out, r);
    figure_list(&mut out, figures);
    compile_time(&mut out, results);
    out
}

fn percent(value: Option<f64>) -> String {
    value.map_or("n/a".into(), |v| format!("{v:+.1}%"))
}

fn ratio(value: Option<f64>) -> String {
    value.map_or("n/a".into(), |v| format!("{v:.3}"))
}

fn header(out: &mut String, first: &str, columns: impl IntoIterator<Item = String>) {
    let columns: Vec<String> = columns.into_iter().collect();
    let _ = writeln!(out, "| {first} | {} |", columns.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(columns.len()));
}

fn pipelines(out: &mut String, configs: &[Config]) {
    header(out, "configuration", ["pipeline".to_string()]);
    for c in configs {
        let _ = writeln!(out, "| {} | `{}` |", c.label, c.pipeline);
    }
    out.push('\n');
}

fn workloads(out: &mut String, r: &Results) {
    let _ = writeln!(out, "## Workloads\n");
    let _ = writeln!(
        out,
        "V counts contest nodes (ALLOC, FREE and commands), E input-precedence edges. Spans run \
         from a buffer's ALLOC to the last command naming it, in positions of the input order.\n"
    );
    let mut columns: Vec<String> = ["V", "commands", "E", "buffers", "bytes"]
        .map(String::from)
        .to_vec();
    columns.extend(CLASSES.iter().map(|c| c.to_string()));
    columns.extend(["span median", "span p90", "span max"].map(String::from));
    header(out, "workload", columns);
    for w in &r.workloads {
        let mix: Vec<String> = w.mix.iter().map(u64::to_string).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            w.name,
            w.nodes,
            w.commands,
            w.edges,
            w.buffers,
            w.allocated_bytes,
            mix.join(" | "),
            w.spans.median,
            w.spans.p90,
            w.spans.max
        );
    }
    let _ = writeln!(
        out,
        "\nAllocation sizes per tier (buffers: min / median / max bytes):\n"
    );
    let tiers: Vec<String> = r
        .workloads
        .first()
        .map(|w| w.tiers.iter().map(|t| t.tier.clone()).collect())
        .unwrap_or_default();
    header(out, "workload", tiers);
    for w in &r.workloads {
        let cells: Vec<String> = w
            .tiers
            .iter()
            .map(|t| match t.buffers {
                0 => "–".to_string(),
                n => format!("{n}: {} / {} / {}", t.size.min, t.size.median, t.size.max),
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", w.name, cells.join(" | "));
    }
    out.push('\n');
}

/// One table per metric: workloads down, the study's configurations across.
fn per_metric(out: &mut String, study: &Study, metric: Metric) {
    let _ = writeln!(out, "**{}**\n", metric.label());
    header(
        out,
        "workload",
        study.configs.iter().map(|c| c.label.clone()),
    );
    for c in 0..study.cases() {
        let cells: Vec<String> = (0..study.configs.len())
            .map(|k| study.value(c, k, metric).to_string())
            .collect();
        let case = &study.cells[c * study.configs.len()].case;
        let _ = writeln!(out, "| {case} | {} |", cells.join(" | "));
    }
    out.push('\n');
}

fn end_to_end(out: &mut String, r: &Results) {
    let study = &r.end_to_end;
    let _ = writeln!(out, "## End to end\n");
    let _ = writeln!(
        out,
        "Each method keeps its own order and memory policy; Base (Stable order, LRU victims, \
         Freeze timing) is the reference. The EDA row is a placeholder traversal, not the EDA \
         paper's algorithm.\n"
    );
    pipelines(out, &study.configs);
    for m in Metric::ALL {
        per_metric(out, study, m);
    }
    let _ = writeln!(
        out,
        "Geometric mean over the workloads of each method's ratio to Base (lower is better):\n"
    );
    header(out, "method", Metric::ALL.map(|m| m.label().to_string()));
    for c in &study.configs {
        let cells: Vec<String> = Metric::ALL
            .iter()
            .map(|m| ratio(r.geomean_vs_base[&c.label][m]))
            .collect();
        let _ = writeln!(out, "| {} | {} |", c.label, cells.join(" | "));
    }
    let _ = writeln!(
        out,
        "\nLATTICE against the best external method (HMCOS, MAGIS, COSMA, EDA placeholder) per \
         workload and metric: reduction in percent (positive: LATTICE lower), and that method.\n"
    );
    header(out, "workload", Metric::ALL.map(|m| m.label().to_string()));
    for chunk in r.lattice_vs_best_external.chunks(Metric::ALL.len()) {
        let cells: Vec<String> = chunk
            .iter()
            .map(|v| format!("{} ({})", percent(v.reduction_percent), v.best_method))
            .collect();
        let case = chunk.first().map_or("", |v| v.case.as_str());
        let _ = writeln!(out, "| {case} | {} |", cells.join(" | "));
    }
    let means: Vec<String> = Metric::ALL
        .iter()
        .map(|m| percent(r.mean_reduction_vs_best_external[m]))
        .collect();
    let _ = writeln!(out, "| **mean** | {} |", means.join(" | "));
    let (best, cells) = r.best_or_tied;
    let _ = writeln!(
        out,
        "\nLATTICE is best or tied in **{best} of {cells}** workload–metric cells.\n"
    );
    let _ = writeln!(out, "Where LATTICE is not the lowest:\n");
    let mut any = false;
    for v in r
        .lattice_vs_best_external
        .iter()
        .filter(|v| !v.best_or_tied)
    {
        any = true;
        let _ = writeln!(
            out,
            "- {} {}: LATTICE {} vs {} {} ({})",
            v.case,
            v.metric.label(),
            v.lattice,
            v.best_method,
            v.best_external,
            percent(v.reduction_percent)
        );
    }
    let lattice = study.index(LATTICE);
    let cells = lattice
        .into_iter()
        .flat_map(|l| (0..study.cases()).map(move |c| (c, l)));
    for (c, lattice) in cells {
        for m in Metric::ALL {
            let (ours, base) = (study.value(c, lattice, m), study.value(c, 0, m));
            if base < ours {
                any = true;
                let case = &study.cells[c * study.configs.len()].case;
                let _ = writeln!(out, "- {case} {}: LATTICE {ours} vs Base {base}", m.label());
            }
        }
    }
    if !any {
        let _ = writeln!(
            out,
            "- nowhere: LATTICE is lowest or tied in every cell, against Base too."
        );
    }
    out.push('\n');
}

fn stages(out: &mut String, r: &Results) {
    let study = &r.stages;
    let _ = writeln!(out, "## Stage attribution\n");
    let _ = writeln!(
        out,
        "Each configuration adds one LATTICE stage to the one before, starting from the input \
         order with LRU victims and Freeze timing.\n"
    );
    pipelines(out, &study.configs);
    for m in Metric::ALL {
        per_metric(out, study, m);
    }
    let _ = writeln!(
        out,
        "Change of each stage against the one before (geometric mean of the per-workload ratios, \
         in percent; negative is a reduction):\n"
    );
    header(out, "stage", Metric::ALL.map(|m| m.label().to_string()));
    for (c, change) in study.configs.iter().zip(&r.stage_change).skip(1) {
        let cells: Vec<String> = Metric::ALL
            .iter()
            .map(|m| percent(change[m].map(|g| (g - 1.0) * 100.0)))
            .collect();
        let _ = writeln!(out, "| {} | {} |", c.label, cells.join(" | "));
    }
    out.push('\n');
}

fn orders(out: &mut String, r: &Results) {
    let study = &r.orders;
    let _ = writeln!(out, "## Order sensitivity\n");
    let _ = writeln!(
        out,
        "Four legal orders under the same `dlr,cpe` backend. Every order–workload combination \
         verifies (a failing one would have stopped the run).\n"
    );
    pipelines(out, &study.configs);
    for m in Metric::ALL {
        per_metric(out, study, m);
    }
    let _ = writeln!(
        out,
        "Per-workload range over the four orders, (max − min) / max:\n"
    );
    header(out, "workload", Metric::ALL.map(|m| m.label().to_string()));
    for chunk in r.order_ranges.chunks(Metric::ALL.len()) {
        let cells: Vec<String> = chunk
            .iter()
            .map(|v| format!("{:.1}%", v.range_percent))
            .collect();
        let case = chunk.first().map_or("", |v| v.case.as_str());
        let _ = writeln!(out, "| {case} | {} |", cells.join(" | "));
    }
    let widest: Vec<String> = Metric::ALL
        .iter()
        .map(|&m| {
            let max = r
                .order_ranges
                .iter()
                .filter(|v| v.metric == m)
                .map(|v| v.range_percent)
                .fold(0.0f64, f64::max);
            format!("{max:.1}%")
        })
        .collect();
    let _ = writeln!(out, "| **largest** | {} |", widest.join(" | "));
    out.push('\n');
}

fn diagnostics(out: &mut String, r: &Results) {
    let t = &r.diagnostic_totals;
    let n = t.workloads;
    let _ = writeln!(out, "## Constraint diagnostics (Table III)\n");
    let _ = writeln!(
        out,
        "(a) Reuse enforcement on the fixed `mpas,dlr` plans. Ignore times the plan without its \
         reuse dependencies; reuse violations are pairs of residencies sharing bytes that the \
         timing holds at once. MS/Freeze is the geometric mean of makespan over Freeze's.\n"
    );
    header(
        out,
        "policy",
        ["valid", "reuse violations", "MS/Freeze"].map(String::from),
    );
    let ignore_note = if t.valid_ignore < n {
        " (infeasible)"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "| Ignore | {}/{n} | {} | {}{ignore_note} |",
        t.valid_ignore,
        t.reuse_violations_ignore,
        ratio(t.ignore_makespan_over_freeze)
    );
    let _ = writeln!(
        out,
        "| Freeze | {}/{n} | {} | 1.000 |",
        t.valid_freeze, t.reuse_violations_freeze
    );
    let _ = writeln!(
        out,
        "| CPE | {}/{n} | {} | {} |",
        t.valid_cpe,
        t.reuse_violations_cpe,
        ratio(t.cpe_makespan_over_freeze)
    );
    let _ = writeln!(
        out,
        "\nCPE's makespan is strictly below Freeze's on {} of {n} workloads.\n",
        t.cpe_improved
    );
    let _ = writeln!(
        out,
        "(b) Phase-direction counterfactuals. Post-plan reorder keeps the `mpas,dlr` plan and \
         replaces its order by Stable without replanning; static errors are order- and \
         plan-level violations.\n"
    );
    header(
        out,
        "sequence",
        ["valid", "static errors", "reuse violations"].map(String::from),
    );
    let _ = writeln!(
        out,
        "| Post-plan reorder | {}/{n} | {} | -- |",
        t.valid_post_plan_reorder, t.static_errors_post_plan_reorder
    );
    let _ = writeln!(
        out,
        "| Timing without reuse | {}/{n} | {} | {} |",
        t.valid_timing_without_reuse,
        t.static_errors_timing_without_reuse,
        t.reuse_violations_ignore
    );
    let _ = writeln!(
        out,
        "| MPAS→DLR→CPE | {}/{n} | {} | {} |",
        t.valid_full_pipeline, t.static_errors_full_pipeline, t.reuse_violations_full_pipeline
    );
    let _ = writeln!(out, "\nPer workload:\n");
    header(
        out,
        "workload",
        [
            "Ignore violations",
            "Ignore MS",
            "Freeze MS",
            "CPE MS",
            "post-plan reorder errors",
        ]
        .map(String::from),
    );
    for d in &r.diagnostics {
        let categories: Vec<String> = d
            .post_plan_reorder
            .static_errors
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} ({}) |",
            d.case,
            d.ignore.reuse_violations,
            d.ignore.makespan,
            d.freeze.makespan,
            d.cpe.makespan,
            d.post_plan_reorder.static_total(),
            categories.join(", ")
        );
    }
    out.push('\n');
}

fn figure_list(out: &mut String, figures: &[Figure]) {
    let _ = writeln!(out, "## Figures\n");
    for f in figures {
        let _ = writeln!(out, "- {}: [`{}`]({})", f.caption, f.file, f.file);
    }
    out.push('\n');
}

fn compile_time(out: &mut String, results: &[CaseResult]) {
    let _ = writeln!(out, "## Compile time\n");
    let _ = writeln!(
        out,
        "Wall time of each stage of `mpas,dlr,cpe` in milliseconds (measured, so it varies from \
         run to run and with `--jobs`; also in `timings.json`). Fixed graph is the timing \
         analysis CPE starts from; verification is the independent replay.\n"
    );
    let mut columns: Vec<String> = StageTimes::LABELS.map(String::from).to_vec();
    columns.push("total".into());
    header(out, "workload", columns);
    for r in results {
        let values = r.times.values();
        let cells: Vec<String> = values
            .iter()
            .chain([&values.iter().sum::<f64>()])
            .map(|s| format!("{:.1}", s * 1000.0))
            .collect();
        let _ = writeln!(out, "| {} | {} |", r.workload.name, cells.join(" | "));
    }
}
