//! The tools built with the MLIR bridge (feature `mlir`), run as a user runs them:
//! `lattice-translate --lir-to-mlir` / `--mlir-to-lir` round trips, `lattice-opt` gives the same
//! module from `.mlir` as from `.lir` input (also on standard input), and bad input gets a
//! located error and exit code 1. With the real `mlir-opt` (Debian's `mlir-22-tools`, which CI
//! installs; these tests fail, naming the package, when it is missing): a file goes
//! `mlir-opt → lattice-opt → mlir-opt` keeping the user's IR, as text and as bytecode, on
//! standard input too, and through a pipeline that mixes upstream and lattice passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn exe(tool: &str) -> &'static str {
    match tool {
        "lattice-translate" => env!("CARGO_BIN_EXE_lattice-translate"),
        _ => env!("CARGO_BIN_EXE_lattice-opt"),
    }
}

fn run(tool: &str, args: &[&str]) -> Output {
    Command::new(exe(tool)).args(args).output().unwrap()
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
        &[&pipeline[..], &["--emit=lir", mlir_path.to_str().unwrap()]].concat(),
    );
    assert_eq!(from_mlir, from_lir);
    assert!(from_lir.contains("phase(planned)"), "{from_lir}");
    // MLIR in, MLIR out (as mlir-opt does), unless asked otherwise.
    let mlir_out = ok(
        "lattice-opt",
        &[&pipeline[..], &[mlir_path.to_str().unwrap()]].concat(),
    );
    let planned = scratch("planned.lir");
    std::fs::write(&planned, &from_lir).unwrap();
    let expected = ok(
        "lattice-translate",
        &["--lir-to-mlir", planned.to_str().unwrap()],
    );
    assert_eq!(mlir_out, expected);
}

#[test]
fn bad_input_gets_a_located_error() {
    let bad = scratch("bad.mlir");
    std::fs::write(
        &bad,
        "module @m {\n  \"lattice.phase\"() {order = array<i64>, phase = 3} : () -> ()\n}\n",
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
    // The error is the phase's (a number where a string belongs), not a missing attribute's.
    assert!(
        stderr.contains("expected base attribute 'builtin.string'"),
        "{stderr}"
    );

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
        .args(["-", "--mpas", "--dlr", "--verify", "--emit=lir"])
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

/// Runs `program` with `args` and `stdin`; its output, asserting success.
fn piped(program: &str, args: &[&str], stdin: &[u8]) -> Vec<u8> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Upstream `mlir-opt` of LLVM 22 (Debian `mlir-22-tools`), which these tests drive.
fn mlir_opt() -> &'static str {
    let found = ["mlir-opt-22", "/usr/lib/llvm-22/bin/mlir-opt"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    found.unwrap_or_else(|| {
        panic!(
            "mlir-opt-22 not found: install Debian's mlir-22-tools (docs/mlir.md); CI installs it"
        )
    })
}

fn irdl() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mlir/src/lattice.irdl.mlir")
        .display()
        .to_string()
}

/// The example's lattice module beside a function canonicalize folds.
fn users_file() -> String {
    let lattice = ok(
        "lattice-translate",
        &["--lir-to-mlir", example().to_str().unwrap()],
    );
    format!(
        "module {{\n  func.func @fold() -> i32 {{\n    %a = arith.constant 20 : i32\n    %b = arith.constant 22 : i32\n    %c = arith.addi %a, %b : i32\n    return %c : i32\n  }}\n{lattice}}}\n"
    )
}

#[test]
fn mlir_opt_lattice_opt_mlir_opt_keeps_the_users_ir() {
    let mlir_opt = mlir_opt();
    let irdl_flag = format!("--irdl-file={}", irdl());
    let planned_lir = ok(
        "lattice-opt",
        &["--mpas", "--dlr", example().to_str().unwrap()],
    );
    let user = users_file();

    // Text: mlir-opt (canonicalize) | lattice-opt - (MLIR out) | mlir-opt (verifies the dialect).
    let canonical = piped(
        mlir_opt,
        &[&irdl_flag, "--canonicalize", "-"],
        user.as_bytes(),
    );
    let optimized = piped(exe("lattice-opt"), &["-", "--mpas", "--dlr"], &canonical);
    let back = piped(mlir_opt, &[&irdl_flag, "-"], &optimized);
    let back_text = String::from_utf8(back.clone()).unwrap();
    assert!(back_text.contains("func.func @fold()"), "{back_text}");
    assert!(back_text.contains("arith.constant 42 : i32"), "{back_text}");
    let lir = piped(exe("lattice-translate"), &["--mlir-to-lir", "-"], &back);
    assert_eq!(String::from_utf8(lir).unwrap(), planned_lir);

    // Bytecode: from a file and on standard input, the same MLIR text comes out.
    let bytecode = piped(
        mlir_opt,
        &[&irdl_flag, "--emit-bytecode", "-"],
        user.as_bytes(),
    );
    assert!(bytecode.starts_with(b"ML\xefR"));
    let bc_path = scratch("user.mlirbc");
    std::fs::write(&bc_path, &bytecode).unwrap();
    let text_path = scratch("user.mlir");
    std::fs::write(&text_path, &user).unwrap();
    let from_text = ok(
        "lattice-opt",
        &["--mpas", "--dlr", text_path.to_str().unwrap()],
    );
    let from_bc = ok(
        "lattice-opt",
        &["--mpas", "--dlr", bc_path.to_str().unwrap()],
    );
    assert_eq!(from_bc, from_text);
    let from_stdin = piped(exe("lattice-opt"), &["-", "--mpas", "--dlr"], &bytecode);
    assert_eq!(String::from_utf8(from_stdin).unwrap(), from_text);
    // lattice-translate reads bytecode too, and says what LIR leaves out.
    let out = run(
        "lattice-translate",
        &["--mlir-to-lir", bc_path.to_str().unwrap()],
    );
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("warning: `func.func` outside the lattice module left out"),
        "{stderr}"
    );

    // A pipeline mixing upstream and lattice passes, in lattice-opt, then mlir-opt.
    let mixed = ok(
        "lattice-opt",
        &[
            "--pass-pipeline=builtin.module(canonicalize,lattice-mpas,lattice-dlr)",
            text_path.to_str().unwrap(),
        ],
    );
    let back = piped(mlir_opt, &[&irdl_flag, "-"], mixed.as_bytes());
    let back_text = String::from_utf8(back.clone()).unwrap();
    assert!(!back_text.contains("arith.addi"), "{back_text}");
    let lir = piped(exe("lattice-translate"), &["--mlir-to-lir", "-"], &back);
    assert_eq!(String::from_utf8(lir).unwrap(), planned_lir);
}
