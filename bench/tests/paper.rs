//! `lattice-bench paper` end to end on the three smallest shipped workloads (a full run of all of
//! them is the command in docs/results.md; in debug builds it is too slow for every test run):
//! - every metric in `results.json` equals what `lattice-opt --pass-pipeline=P --metrics` writes
//!   for that workload and pipeline, checked for every run of every study (lattice-opt's driver
//!   `lattice::cli::main_with_args` run in-process over the shipped registry: its binary belongs
//!   to another crate, so this test cannot name it);
//! - the output does not depend on the thread count: `results.json` and the report (without its
//!   wall-clock section) are byte-identical with 1 and 2 jobs, and so is every deterministic figure;
//! - every cell the report says LATTICE loses is a cell where some method is lower, and the
//!   best-or-tied count matches the cells;
//! - bad usage fails cleanly without writing.

use lattice_bench::paper::{reproduce, write, PaperOptions};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::Module;
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

const CASES: [&str; 3] = ["Conv_Case0", "FlashAttention_Case0", "Matmul_Case0"];

fn shared_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases")
}

fn cases() -> Vec<Module> {
    CASES
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(shared_cases().join(format!("{name}.json")))
                .expect("the shared cases are beside the checkout");
            import_graph(&text, name, &ImportOptions::default()).expect("a shipped case imports")
        })
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The report without its wall-clock section (the last one).
fn deterministic_part(report: &str) -> &str {
    report
        .split("## Compile time")
        .next()
        .expect("split yields at least one part")
}

/// `lattice-opt --pass-pipeline=<pipeline> --metrics=FILE` on a shipped case, as JSON.
fn lattice_opt_metrics(case: &str, pipeline: &str) -> Value {
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "paper-metrics-{case}-{}.json",
        pipeline.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    ));
    let mut stderr = Vec::new();
    let code = lattice::cli::main_with_args(
        lattice_passes::REGISTRY,
        [
            "lattice-opt".into(),
            shared_cases().join(format!("{case}.json")).into_os_string(),
            format!("--pass-pipeline={pipeline}").into(),
            format!("--metrics={}", file.display()).into(),
            OsString::from("-o"),
            "/dev/null".into(),
        ],
        &mut stderr,
    );
    assert_eq!(
        code,
        0,
        "{case} {pipeline}: {}",
        String::from_utf8_lossy(&stderr)
    );
    let written = std::fs::read(&file).expect("--metrics=FILE writes the file");
    let mut metrics: Value = serde_json::from_slice(&written).expect("--metrics writes JSON");
    // `--metrics` adds the lower bounds (LPs and reachability, not part of the replay) to the
    // metrics, the traffic ones to a planned module's; the paper's cells hold the replay's alone.
    let fields = metrics.as_object_mut().expect("an object");
    let planned = matches!(fields["phase"].as_str(), Some("planned" | "refined"));
    assert_eq!(
        fields.remove("traffic_lower_bound_fixed_order").is_some(),
        planned
    );
    assert_eq!(
        fields.remove("traffic_lower_bound_any_order").is_some(),
        planned
    );
    assert!(fields.remove("peak_lower_bound").is_some());
    for gap in [
        "traffic_gap_fixed_order_percent",
        "peak_gap_percent",
        "traffic_gap_any_order_percent",
        "makespan_lower_bound_any_order",
        "makespan_gap_any_order_percent",
        "bounds_capped",
    ] {
        fields.remove(gap);
    }
    metrics
}

#[test]
fn paper_results_equal_lattice_opt_and_do_not_depend_on_jobs() {
    let modules = cases();
    let one = scratch("paper-jobs-1");
    let two = scratch("paper-jobs-2");
    for (dir, jobs) in [(&one, 1), (&two, 2)] {
        let options = PaperOptions {
            jobs,
            progress: false,
        };
        let results = reproduce(&modules, options).expect("every study verifies");
        write(&results, dir, "lattice-bench paper (test)").expect("writes");
    }

    assert_eq!(read(&one, "results.json"), read(&two, "results.json"));
    let (r1, r2) = (read(&one, "report.md"), read(&two, "report.md"));
    assert_eq!(deterministic_part(&r1), deterministic_part(&r2));
    for section in [
        "## Workloads",
        "## End to end",
        "## Stage attribution",
        "## Order sensitivity",
        "## Constraint diagnostics (Table III)",
        "## Figures",
        "## Compile time",
    ] {
        assert!(r1.contains(section), "report lacks {section}");
    }
    let mut svgs = 0;
    for entry in std::fs::read_dir(&one).expect("out dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".svg") {
            svgs += 1;
            assert!(r1.contains(name), "{name} is written but not in the report");
            if name != "compile-time.svg" {
                assert_eq!(read(&one, name), read(&two, name), "{name} differs");
            }
        }
    }
    // Seven summary figures, two per workload, and the compile-time composition.
    assert_eq!(svgs, 7 + 2 * CASES.len() + 1);

    let results: Value =
        serde_json::from_str(&read(&one, "results.json")).expect("results.json is JSON");
    let mut checked = 0;
    for study in ["end_to_end", "stages", "orders"] {
        for cell in results[study]["cells"].as_array().expect("cells") {
            let case = cell["case"].as_str().expect("case");
            let pipeline = cell["pipeline"].as_str().expect("pipeline");
            assert_eq!(
                cell["metrics"],
                lattice_opt_metrics(case, pipeline),
                "{case} `{pipeline}`"
            );
            assert_eq!(cell["metrics"]["valid"], Value::Bool(true));
            checked += 1;
        }
    }
    assert_eq!(checked, CASES.len() * (6 + 4 + 4));

    let versus = results["lattice_vs_best_external"]
        .as_array()
        .expect("cells");
    let mut best = 0;
    for v in versus {
        let (ours, theirs) = (v["lattice"].as_u64(), v["best_external"].as_u64());
        let tied = v["best_or_tied"].as_bool().expect("flag");
        assert_eq!(tied, ours <= theirs);
        best += u64::from(tied);
        if !tied {
            let line = format!(
                "- {} {}: LATTICE {} vs {} {}",
                v["case"].as_str().unwrap_or(""),
                v["metric"].as_str().unwrap_or("").replace('-', " "),
                ours.unwrap_or(0),
                v["best_method"].as_str().unwrap_or(""),
                theirs.unwrap_or(0)
            );
            assert!(r1.contains(&line), "the report does not list {line}");
        }
    }
    assert_eq!(results["best_or_tied"][0].as_u64(), Some(best));
    assert_eq!(
        results["best_or_tied"][1].as_u64(),
        Some(versus.len() as u64)
    );
    assert_eq!(
        results["diagnostic_totals"]["valid_full_pipeline"].as_u64(),
        Some(CASES.len() as u64)
    );
}

#[test]
fn bad_usage_fails_without_writing() {
    let bench = env!("CARGO_BIN_EXE_lattice-bench");
    let out = scratch("paper-bad-usage");
    let zero_jobs = Command::new(bench)
        .args(["paper", "--jobs", "0", "--out"])
        .arg(&out)
        .arg("--cases")
        .arg(shared_cases())
        .output()
        .expect("runs");
    assert_eq!(zero_jobs.status.code(), Some(2));
    let empty = scratch("paper-no-cases");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let no_cases = Command::new(bench)
        .args(["paper", "--cases"])
        .arg(&empty)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert_eq!(no_cases.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&no_cases.stderr).contains("no *.json case"));
    assert!(!out.exists(), "nothing is written on failure");
}
