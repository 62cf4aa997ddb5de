//! `lattice-bench search` on the shipped cases: for every case and objective the search's row is
//! never worse than the paper pipeline's on that objective (both columns come from the verifier's
//! replay), the order-independent bound is never above either plan, and bad `--options` are
//! usage errors (exit 2).

use std::path::Path;
use std::process::Command;

fn bench(args: &[&str]) -> std::process::Output {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases");
    Command::new(env!("CARGO_BIN_EXE_lattice-bench"))
        .arg("search")
        .arg("--cases")
        .arg(cases)
        .args(args)
        .output()
        .expect("lattice-bench runs")
}

#[test]
fn the_search_is_never_worse_than_the_paper_pipeline_on_its_objective() {
    let out = bench(&["--options", "budget=24"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).expect("utf-8");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(2)
        .map(|line| line.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    assert!(rows.len() >= 6 && rows.len() % 2 == 0, "{table}");
    for pair in rows.chunks(2) {
        let (paper, search) = (&pair[0], &pair[1]);
        assert_eq!((paper[2], search[2]), ("mpas", "order-search"), "{table}");
        assert_eq!(paper[..2], search[..2], "{table}");
        let column = match paper[1] {
            "peak" => 3,
            "traffic" => 4,
            "makespan" => 7,
            other => panic!("unknown objective {other}"),
        };
        let value = |row: &[&str]| row[column].parse::<u64>().expect("a number");
        assert!(value(search) <= value(paper), "{}: {table}", paper[0]);
        let bound = search[8].parse::<u64>().expect("a bound");
        assert!(
            bound <= value(search),
            "{}: bound above the plan: {table}",
            paper[0]
        );
        assert_eq!(search[10], "24", "{table}");
    }
}

#[test]
fn bad_options_are_usage_errors() {
    let out = bench(&["--options", "budget=0"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "expected `auto`, a positive integer or `work:` and a positive integer, found `0`"
        ),
        "{stderr}"
    );
    let out = bench(&["--objective", "fast"]);
    assert_eq!(out.status.code(), Some(2));
}
