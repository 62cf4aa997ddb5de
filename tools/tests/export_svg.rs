//! `lattice-translate --export-svg` draws, for every shipped case, the same files `lattice-bench
//! paper` draws for it: the bench's Freeze and LATTICE plans (its own pipelines, run by its own
//! `run`), drawn as the bench draws them, against the CLI given those plans as LIR files.
//! Byte-identical, so a reader may take either. (Built with `--features svg`.)

use lattice_bench::paper::configs::{FREEZE, LATTICE};
use lattice_bench::paper::run::run;
use lattice_figures::PlanFigures;
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::print_module;
use std::path::{Path, PathBuf};
use std::process::Command;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/cases");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (shared/ must sit beside the checkout)",
                dir.display()
            )
        })
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    cases
}

#[test]
fn every_shipped_case_draws_as_the_bench_draws_it() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-svg");
    let _ = std::fs::remove_dir_all(&root);
    for path in cases() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let json = std::fs::read_to_string(&path).unwrap();
        let case = import_graph(&json, &name, &ImportOptions::default()).unwrap();
        let (freeze, lattice) = (run(&case, FREEZE).unwrap(), run(&case, LATTICE).unwrap());
        let dir = root.join(&name);
        let (bench, cli) = (dir.join("bench"), dir.join("cli"));
        std::fs::create_dir_all(&bench).unwrap();
        let figures = PlanFigures::of(&[&freeze.module, &lattice.module]);
        figures.draw_residency(&bench).unwrap();
        figures.draw_activity(&bench).unwrap();

        let (a, b) = (dir.join("freeze.lir"), dir.join("lattice.lir"));
        std::fs::write(&a, print_module(&freeze.module)).unwrap();
        std::fs::write(&b, print_module(&lattice.module)).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_lattice-translate"))
            .arg("--export-svg")
            .args([&a, &b])
            .arg("-o")
            .arg(&cli)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for file in [figures.residency_file(), figures.activity_file()] {
            let drawn = std::fs::read(cli.join(&file)).unwrap();
            assert!(
                drawn == std::fs::read(bench.join(&file)).unwrap(),
                "{name}: {file} differs"
            );
            assert!(drawn.starts_with(b"<svg"));
        }
    }
}

#[test]
fn an_export_needs_a_directory_and_readable_modules() {
    let translate = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lattice-translate"))
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/matmul_tile.lir");
    let (code, stderr) = translate(&["--export-svg", example, "-o", "-"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("-o must name a directory"), "{stderr}");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-svg-missing");
    let _ = std::fs::remove_dir_all(&dir);
    let (code, stderr) = translate(&[
        "--export-svg",
        example,
        "no-such.lir",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no-such.lir"), "{stderr}");
    assert!(
        !dir.exists(),
        "nothing is written before every input was read"
    );
}
