//! `--timing=json:FILE`, `--pass-statistics=json:FILE` and `--trace=FILE` each write one whole
//! JSON document to their file, while remarks stay on stderr and the IR goes to its output; with
//! both reports on stderr instead, they are two documents back to back (why the files exist).

use std::path::PathBuf;
use std::process::Command;

fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("report-files-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lattice_opt(args: &[&str]) -> (bool, String) {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/matmul_tile.lir");
    let out = Command::new(env!("CARGO_BIN_EXE_lattice-opt"))
        .arg(example)
        .args(["--mpas", "--dlr", "--cpe", "--test-remark"])
        .args(args)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stderr).unwrap())
}

/// The file's text, checked to be exactly one JSON document (trailing text fails to parse).
fn one_document(path: &PathBuf) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

#[test]
fn each_report_file_holds_one_json_document() {
    let dir = scratch("json");
    let file = |name: &str| dir.join(name);
    let (timing, statistics, trace) = (file("timing.json"), file("stats.json"), file("t.json"));
    let flag = |name: &str, path: &PathBuf| format!("{name}{}", path.display());
    let (ok, stderr) = lattice_opt(&[
        "-o",
        file("out.lir").to_str().unwrap(),
        &flag("--timing=json:", &timing),
        &flag("--pass-statistics=json:", &statistics),
        &flag("--trace=", &trace),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("remark:"),
        "the remark stays on stderr: {stderr}"
    );
    assert!(!stderr.contains('{'), "no JSON on stderr: {stderr}");
    let timing = one_document(&timing);
    assert!(timing["total_seconds"].is_f64());
    let names: Vec<&str> = timing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["parse", "mpas", "dlr", "cpe", "test-remark", "output"]
    );
    let statistics = one_document(&statistics);
    assert!(statistics["passes"][0]["pass"]
        .as_str()
        .unwrap()
        .starts_with("mpas"));
    assert!(one_document(&trace)["traceEvents"].is_array());
    assert!(file("out.lir").exists());

    // Both on stderr: two documents back to back, which no JSON reader takes as one.
    let (ok, stderr) = lattice_opt(&["-o", "/dev/null", "--timing=json", "--pass-statistics=json"]);
    assert!(ok, "{stderr}");
    let json = &stderr[stderr.find('{').unwrap()..];
    assert!(serde_json::from_str::<serde_json::Value>(json).is_err());
}

#[test]
fn a_report_file_that_cannot_be_written_fails_the_run() {
    let dir = scratch("unwritable");
    let missing = dir.join("no-such-dir").join("t.json");
    let (ok, stderr) = lattice_opt(&[
        "-o",
        "/dev/null",
        &format!("--timing=json:{}", missing.display()),
    ]);
    assert!(!ok);
    // The error names the file, then the directory it could not be created in.
    assert!(
        stderr.contains("no-such-dir/t.json: cannot create a file in ")
            && stderr.contains("No such file or directory"),
        "{stderr}"
    );
    let (ok, stderr) = lattice_opt(&["-o", "/dev/null", "--pass-statistics=yaml:x.json"]);
    assert!(!ok);
    assert!(stderr.contains("unknown format `yaml`"), "{stderr}");
}
