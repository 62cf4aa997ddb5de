//! The trace of every shipped case loads in a real viewer in a real browser: speedscope's built
//! app (the npm package, which reads the Chrome Trace Event format offline), served on
//! 127.0.0.1, opens the `lattice-opt --trace` of the case's `mpas,dlr,cpe` plan in Debian's
//! headless Chromium (driven by playwright-core: `tests/viewer/speedscope.mjs`), and lists, as
//! its profiles, exactly the tracks of the pipes that run commands, each named after its pipe.
//!
//! Needs Node, Chromium (`/usr/bin/chromium`, or `LATTICE_CHROMIUM`) and the packages of
//! `tests/viewer/package.json` installed beside it (`npm ci --prefix tools/tests/viewer`, as
//! `.ci/run` does); where one is missing the test says so and passes, unless
//! `LATTICE_REQUIRE_VIEWER=1` (CI) makes that a failure. `LATTICE_VIEWER_SCREENSHOT=DIR` keeps a
//! screenshot per case there (docs/interop.md's was made so).

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

/// Why the viewer cannot run here, if it cannot.
fn missing(chromium: &Path) -> Option<String> {
    let viewer = Path::new(MANIFEST).join("tests/viewer/node_modules");
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Some("Node.js (`node`) is not installed".into());
    }
    if !chromium.exists() {
        return Some(format!("Chromium is not at {}", chromium.display()));
    }
    for package in ["speedscope", "playwright-core"] {
        if !viewer.join(package).join("package.json").exists() {
            return Some(format!(
                "{package} is not installed (npm ci --prefix tools/tests/viewer)"
            ));
        }
    }
    None
}

#[test]
fn every_shipped_case_opens_in_speedscope_with_a_track_per_pipe() {
    let chromium = std::env::var_os("LATTICE_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if let Some(why) = missing(&chromium) {
        assert!(
            std::env::var_os("LATTICE_REQUIRE_VIEWER").is_none(),
            "LATTICE_REQUIRE_VIEWER is set, but {why}"
        );
        eprintln!("note: viewer test skipped: {why}");
        return;
    }
    let shots = std::env::var_os("LATTICE_VIEWER_SCREENSHOT").map(PathBuf::from);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cases = Path::new(MANIFEST).join("../../shared/cases");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap_or_else(|e| panic!("{}: {e}", cases.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    for case in cases {
        let name = case.file_stem().unwrap().to_string_lossy().into_owned();
        let trace = dir.join(format!("{name}.trace.json"));
        let planned = Command::new(env!("CARGO_BIN_EXE_lattice-opt"))
            .arg(&case)
            .args(["--mpas", "--dlr", "--cpe", "-o", "/dev/null"])
            .arg(format!("--trace={}", trace.display()))
            .output()
            .unwrap();
        assert!(
            planned.status.success(),
            "{}",
            String::from_utf8_lossy(&planned.stderr)
        );

        // The tracks that hold commands, as speedscope names them: "<process> (pid 1), <pipe> (tid N)".
        let events: Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
        let events = events["traceEvents"].as_array().unwrap();
        let busy: BTreeSet<u64> = events
            .iter()
            .filter(|e| e["ph"] == "X")
            .map(|e| e["tid"].as_u64().unwrap())
            .collect();
        let tracks: BTreeSet<String> = events
            .iter()
            .filter(|e| e["name"] == "thread_name" && busy.contains(&e["tid"].as_u64().unwrap()))
            .map(|e| format!("{} (tid {})", e["args"]["name"].as_str().unwrap(), e["tid"]))
            .collect();
        assert_eq!(tracks.len(), busy.len());

        let mut viewer = Command::new("node");
        viewer
            .arg(Path::new(MANIFEST).join("tests/viewer/speedscope.mjs"))
            .arg(&trace)
            .arg(&chromium);
        if let Some(shots) = &shots {
            viewer.arg(shots.join(format!("{name}-speedscope.png")));
        }
        let out = viewer.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: the viewer failed: {stderr}");
        let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(shown["errors"], Value::Array(Vec::new()), "{name}");
        assert_eq!(
            shown["count"].as_u64(),
            Some(tracks.len() as u64),
            "{name}: {shown}"
        );
        let rows: Vec<&str> = shown["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let process = format!("@{name} (refined) (pid 1), ");
        for track in &tracks {
            let listed = rows
                .iter()
                .filter(|r| r.contains(&format!("{process}{track}")))
                .count();
            assert_eq!(
                listed, 1,
                "{name}: track {track} is not listed once: {rows:?}"
            );
        }
    }
}
