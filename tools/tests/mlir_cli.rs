//! The tools built with the MLIR bridge (feature `mlir`), run as a user runs them:
//! `lattice-translate --lir-to-mlir` / `--mlir-to-lir` round trips, `lattice-opt` gives the same
//! module from `.mlir` as from `.lir` input (also on standard input), and bad input gets a
//! located error and exit code 1.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(tool: &str, args: &[&str]) -> Output {
    let exe = match tool {
        "lattice-translate" => env!("CARGO_BIN_EXE_lattice-translate"),
        _ => env!("CARGO_BIN_EXE_lattice-opt"),
    };
    Command::new(exe).args(args).output().unwrap()
}

fn ok(tool: &str, args: &[&str]) -> String {
    let out = run(tool, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{tool} {args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mlir-cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/matmul_tile.lir")
}

#[test]
fn translate_round_trips_and_opt_reads_mlir() {
    let lir_path = example();
    let lir = std::fs::read_to_string(&lir_path).unwrap();
    let mlir = ok(
        "lattice-translate",
        &["--lir-to-mlir", lir_path.to_str().unwrap()],
    );
    assert!(mlir.starts_with("module @"), "{mlir}");
    assert!(mlir.contains("\"lattice.target\"()"), "{mlir}");
    let mlir_path = scratch("example.mlir");
    std::fs::write(&mlir_path, &mlir).unwrap();
    let back = ok(
        "lattice-translate",
        &["--mlir-to-lir", mlir_path.to_str().unwrap()],
    );
    // Everything but the file's leading comment comes back.
    let body: String = lir
        .lines()
        .skip_while(|l| l.starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(back, body);

    let pipeline = ["--mpas", "--dlr", "--verify"];
    let from_lir = ok(
        "lattice-opt",
        &[&pipeline[..], &[lir_path.to_str().unwrap()]].concat(),
    );
    let from_mlir = ok(
        "lattice-opt",
        &[&pipeline[..], &[mlir_path.to_str().unwrap()]].concat(),
    );
    assert_eq!(from_mlir, from_lir);
    assert!(from_lir.contains("phase(planned)"), "{from_lir}");
}

#[test]
fn bad_input_gets_a_located_error() {
    let bad = scratch("bad.mlir");
    std::fs::write(
        &bad,
        "module @m {\n  \"lattice.phase\"() {phase = 3} : () -> ()\n}\n",
    )
    .unwrap();
    let out = run(
        "lattice-translate",
        &["--mlir-to-lir", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let expected = format!("{}:2:3: error: ", bad.display());
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(stderr.contains("\n  ^\n"), "{stderr}");

    let out = run("lattice-opt", &[bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(&expected));

    let out = run(
        "lattice-translate",
        &["--lir-to-mlir", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("{}:1:11: error: ", bad.display())),
        "{stderr}"
    );

    let example = example();
    let example = example.to_str().unwrap();
    let out = run(
        "lattice-translate",
        &["--lir-to-mlir", example, "--mlir-to-lir", example],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn mlir_on_standard_input_is_read_as_mlir() {
    // `mlir-opt … | lattice-opt -`: standard input has no extension, so its text decides.
    use std::io::Write;
    let lir_path = example();
    let mlir = ok(
        "lattice-translate",
        &["--lir-to-mlir", lir_path.to_str().unwrap()],
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_lattice-opt"))
        .args(["-", "--mpas", "--dlr", "--verify"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(mlir.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let from_lir = ok(
        "lattice-opt",
        &["--mpas", "--dlr", "--verify", lir_path.to_str().unwrap()],
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), from_lir);
}
