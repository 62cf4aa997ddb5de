//! One build serves README's commands, the tour and the examples: for each pair of documented
//! cargo commands that share a profile, every crate the later one builds is one the earlier one
//! already built with the same features, so it compiles nothing of the workspace again
//! (docs/testing.md#one-build). Cargo resolves features per command from the packages it selects;
//! `cargo tree` prints that resolution, one `name version|features` line per unit, without
//! building anything (`--offline --locked`: the lock file's packages, which the build fetched).
//!
//! The pairs: `cargo test --workspace`, then `cargo run --example embed` (any example of the
//! root package) or `cargo test -p lattice-tools -p lattice-bench --test lit`; `cargo run
//! --release -p lattice-tools --bin lattice-opt`, then `cargo build --release -p lattice-tools -p
//! lattice-bench -p lattice-lit`. A new dependency whose features differ between them fails this
//! test with the unit the later command would rebuild; `hack/Cargo.toml` is where they are pinned.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The units (`name version`, features) cargo resolves for a command selecting `args`.
fn units(args: &[&str]) -> BTreeSet<(String, String)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate lives in the workspace");
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "--locked", "--prefix", "none"])
        .args(["--format", "{p}|{f}"])
        .args(args)
        .current_dir(workspace)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let (package, features) = line.split_once('|')?;
            // `name v1.2.3 (/path) (*)`: the name and version say which crate it is.
            let mut words = package.split_whitespace();
            let name = format!("{} {}", words.next()?, words.next()?);
            Some((name, features.trim_end_matches(" (*)").to_owned()))
        })
        .collect()
}

/// Fails with every unit `later` needs that `earlier` did not build.
fn assert_reuses(later: &[&str], earlier: &[&str]) {
    let built = units(earlier);
    let missing: Vec<_> = units(later).difference(&built).cloned().collect();
    assert!(
        missing.is_empty(),
        "after `{earlier:?}`, `{later:?}` would rebuild these (and every crate above them): \
         {missing:?}; pin their features in hack/Cargo.toml"
    );
}

#[test]
fn the_examples_and_the_lit_suites_reuse_the_workspace_test_build() {
    let test_build = ["--workspace", "-e", "normal,build,dev"];
    assert_reuses(&["-p", "lattice", "-e", "normal,build,dev"], &test_build);
    assert_reuses(
        &[
            "-p",
            "lattice-tools",
            "-p",
            "lattice-bench",
            "-e",
            "normal,build,dev",
        ],
        &test_build,
    );
}

#[test]
fn the_tools_build_reuses_the_main_job_build() {
    assert_reuses(
        &["-p", "lattice-tools", "-e", "normal,build"],
        &[
            "-p",
            "lattice-tools",
            "-p",
            "lattice-bench",
            "-p",
            "lattice-lit",
            "-e",
            "normal,build",
        ],
    );
}
