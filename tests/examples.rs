//! The cargo examples run and say what their headers promise: `custom_pass` runs its own pass
//! between lattice's in a pipeline string and reports it, `plan_case` plans a shipped contest
//! case into a valid plan. Each example's `run` is called in-process (the example files are
//! compiled into this test), so `cargo test` checks their behaviour, not only that they build.

// The examples' `main`s are their command-line wrappers; only `run` is exercised here.
#[allow(dead_code)]
#[path = "../examples/custom_pass.rs"]
mod custom_pass;
#[allow(dead_code)]
#[path = "../examples/plan_case.rs"]
mod plan_case;

use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_custom_pass_runs_in_a_pipeline_string_and_reports() {
    let mut out = Vec::new();
    let example = workspace().join("examples/matmul_tile.lir");
    custom_pass::run(example.to_str().expect("utf-8 path"), &mut out).expect("the example runs");
    let out = String::from_utf8(out).expect("utf-8");
    // matmul_tile: two copies in (MTE2), two moves (MTE1), a matmul, a fixpipe, a copy out.
    assert!(
        out.contains("remark: commands per pipe: MTE1 2, MTE2 2, MTE3 1, FIXP 1, CUBE 1"),
        "{out}"
    );
    assert!(out.contains("count-commands"), "{out}");
    assert!(out.contains("7 commands"), "{out}");
    assert!(out.ends_with("phase: planned\n"), "{out}");
}

#[test]
fn the_custom_pass_example_reports_a_missing_file() {
    let mut out = Vec::new();
    let err = custom_pass::run("no/such.lir", &mut out).unwrap_err();
    assert!(err.starts_with("no/such.lir: "), "{err}");
    assert!(out.is_empty());
}

#[test]
fn a_contest_case_is_planned_from_rust() {
    let case = workspace().join("../shared/cases/Matmul_Case0.json");
    let mut out = Vec::new();
    plan_case::run(&case, &mut out).expect("the example plans the case");
    let out = String::from_utf8(out).expect("utf-8");
    assert!(out.starts_with("Matmul_Case0 ("), "{out}");
    assert!(out.contains("phase refined"), "{out}");
    assert!(out.contains("valid"), "{out}");
}
