//! `lattice-bench search` on the shipped cases: for every case and objective the search's row is
//! never worse than the paper pipeline's on that objective (both columns come from the verifier's
//! replay), the order-independent bound is never above either plan, and bad `--options` are
//! usage errors (exit 2); on a small generated module, `--no-bounds` leaves the bound columns
//! out, `--max-seconds` fails after the table when a search takes longer, `--time-limits`
//! prints one row per limit with its T + 1, and `--seed` picks the generator's seed (only with
//! `--generated`).

use std::path::Path;
use std::process::Command;

fn bench(args: &[&str]) -> std::process::Output {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases");
    let cases = cases.to_str().expect("a UTF-8 path");
    search(&[&["--cases", cases], args].concat())
}

fn search(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lattice-bench"))
        .arg("search")
        .args(args)
        .output()
        .expect("lattice-bench runs")
}

/// The table a successful run printed, and its rows with their cells trimmed.
fn table(out: std::process::Output) -> (String, Vec<Vec<String>>) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).expect("utf-8");
    let rows = table
        .lines()
        .skip(2)
        .map(|line| {
            let cells = line.trim_matches('|').split('|');
            cells.map(|cell| cell.trim().to_owned()).collect()
        })
        .collect();
    (table, rows)
}

/// A 300-node generated matmul, traffic objective, 24 steps: a search of milliseconds.
const SMALL: [&str; 10] = [
    "--generated",
    "--shape",
    "matmul",
    "--nodes",
    "300",
    "--objective",
    "traffic",
    "--options",
    "budget=24",
    "--no-bounds",
];

#[test]
fn seed_picks_the_generated_modules_seed() {
    let (table, rows) = table(search(&[&SMALL[..], &["--seed", "2"]].concat()));
    assert_eq!(rows[1][0], "gen-matmul-n300-s2", "{table}");
    let out = search(&["--cases", "cases", "--seed", "2"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--seed without --generated is refused"
    );
}

#[test]
fn no_bounds_leaves_the_bound_columns_out_and_max_seconds_fails_after_the_table() {
    let (table, rows) = table(search(&SMALL));
    assert_eq!(rows.len(), 2, "{table}");
    assert_eq!(rows[1][0], "gen-matmul-n300-s1", "{table}");
    for row in &rows {
        assert_eq!(
            (&row[5][..], &row[8][..], &row[9][..]),
            ("—", "—", "—"),
            "{table}"
        );
    }
    let out = search(&[&SMALL[..], &["--max-seconds", "0.000001"]].concat());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gen-matmul-n300-s1: traffic: the search took")
            && stderr.contains("more than 0.000001 s"),
        "{stderr}"
    );
}

#[test]
fn time_limits_prints_each_limit_against_t_plus_one() {
    let (table, rows) = table(search(&[&SMALL[..], &["--time-limits", "2,5"]].concat()));
    let limits: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (&r[2][..], &r[4][..], &r[5][..]))
        .collect();
    assert_eq!(limits, [("2", "3", "yes"), ("5", "6", "yes")], "{table}");
    for row in &rows {
        let value = |cell: &str| cell.parse::<u64>().expect("a number");
        assert!(value(&row[6]) <= value(&row[7]), "worse than MPAS: {table}");
    }
    let out = search(&[&SMALL[..], &["--time-limits", "0"]].concat());
    assert_eq!(out.status.code(), Some(2), "a limit of 0 is no limit");
}

#[test]
fn the_search_is_never_worse_than_the_paper_pipeline_on_its_objective() {
    let (table, rows) = table(bench(&["--options", "budget=24"]));
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.iter().map(String::as_str).collect())
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
        assert_eq!(search[11], "24", "{table}");
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
