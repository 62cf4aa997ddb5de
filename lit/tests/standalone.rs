//! `lattice-lit` without cargo: on the harness's own tests (`test/lit/`, which call no tool) it
//! reports every file, passing, under the names cargo's lit targets give them; on a scratch
//! checkout it runs the FileCheck forms lit users write anywhere in a RUN line, `DEFINE:`d
//! substitutions and `REQUIRES:`, and fails a failing file with a non-zero exit.

use std::path::Path;
use std::process::Command;

fn lattice_lit(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lattice-lit"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("lattice-lit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_harness_tests_pass_under_their_cargo_names() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the lit crate lives in the workspace");
    let files = std::fs::read_dir(workspace.join("test/lit"))
        .expect("test/lit is readable")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "lir"))
        })
        .count();
    let (code, stdout, stderr) = lattice_lit(workspace, &["test/lit", "--test-threads=2"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let passed = stdout
        .lines()
        .filter(|l| l.starts_with("test test/lit/") && l.ends_with(" ... ok"))
        .count();
    assert_eq!(passed, files, "{stdout}");
}

#[test]
fn a_scratch_checkout_runs_the_lit_forms_and_fails_what_fails() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lattice-lit-scratch");
    let _ = std::fs::remove_dir_all(&root);
    let tests = root.join("test");
    std::fs::create_dir_all(&tests).expect("creates the scratch checkout");
    let write = |name: &str, text: &str| std::fs::write(tests.join(name), text).expect("writes");
    write(
        "forms.lir",
        "// DEFINE: %{greet} = printf 'hello %%s\\n'\n\
         // RUN: %{greet} world > %t\n\
         // RUN: FileCheck %s < %t\n\
         // RUN: FileCheck --input-file=%t %s\n\
         // RUN: FileCheck -input-file %{t} %{s}\n\
         // RUN: not FileCheck --check-prefix=NO %s < %t\n\
         // REDEFINE: %{greet} = printf 'bye\\n'\n\
         // RUN: %{greet} | FileCheck --check-prefix=BYE %s\n\
         // CHECK: hello world\n\
         // NO: goodbye\n\
         // BYE: bye\n",
    );
    write("needs.lir", "// REQUIRES: no-such-feature\n// RUN: false\n");
    write(
        "fails.lir",
        "// RUN: echo one | FileCheck %s\n// CHECK: two\n",
    );
    let (code, stdout, stderr) = lattice_lit(&root, &["test"]);
    assert_ne!(code, 0, "{stdout}{stderr}");
    for line in [
        "test test/forms.lir ... ok",
        "test test/needs.lir ... ignored",
        "test test/fails.lir ... FAILED",
    ] {
        assert!(stdout.contains(line), "{line} missing in\n{stdout}");
    }
    assert!(stdout.contains("fails.lir:1:"), "{stdout}");
    let (code, _, stderr) = lattice_lit(&root, &["nowhere"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("lattice-lit: error: nowhere"), "{stderr}");
}
