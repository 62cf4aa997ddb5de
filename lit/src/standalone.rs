//! `lattice-lit`: the regression suite without cargo, as `lit` runs LLVM's.
//!
//! `lattice-lit [libtest options] PATH...` runs every test file at or below the PATHs (files or
//! directories inside a checkout's `test/`) with the tools found on `PATH` (`cargo install --path
//! tools`, or `target/release` put first on `PATH`), and prints libtest's report: one line per
//! file, named as `cargo test`'s lit targets name it, so the two runs can be compared line by line.
//! The libtest options are those of a cargo test binary (`--list`, `--exact`, `--skip NAME`,
//! `--test-threads N`, `-q`, `--include-ignored`, ...).
//!
//! Features, for `REQUIRES:`/`UNSUPPORTED:` lines, are found on the machine: `lattice-bench` when
//! that command is on `PATH`; `mlir-plugin` when `mlir-opt` is and `$LATTICE_MLIR_PLUGIN` names a
//! file; `mlir` when `lattice-opt` was built with the MLIR bridge (it does not answer `--emit=mlir`
//! with "built without the `mlir` feature"). `%t` paths lie in `<checkout>/target/lattice-lit/`.
//!
//! Invariants: the checkout is the parent of the nearest `test` directory above the first PATH,
//! and every PATH must lie in it; a missing PATH or one outside a checkout is a usage error
//! (exit 2) before anything runs. O(files) besides the tests themselves.

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::Arguments;

use crate::discovery::{self, TEST_ROOT};
use crate::Context;

/// libtest options that take a value (the next argument when not written `--opt=value`).
const WITH_VALUE: [&str; 6] = [
    "--test-threads",
    "--format",
    "--color",
    "--logfile",
    "--skip",
    "-Z",
];

/// The `lattice-lit` command: runs the tests the arguments name and exits.
pub fn main() -> ! {
    crate::filecheck_mode();
    let (paths, options) = split(std::env::args().skip(1));
    let args = Arguments::from_iter(std::iter::once("lattice-lit".to_owned()).chain(options));
    let (workspace, paths) = locate(&paths).unwrap_or_else(|message| usage(&message));
    let tests = discovery::discover_paths(&workspace, &paths)
        .unwrap_or_else(|err| usage(&format!("cannot list the tests: {err}")));
    let tmp_root = workspace.join("target").join("lattice-lit");
    let mut ctx = Context::new(workspace, None, tmp_root);
    ctx.features = features();
    crate::run(ctx, tests, &args)
}

/// The arguments as test paths and libtest options.
fn split(args: impl Iterator<Item = String>) -> (Vec<String>, Vec<String>) {
    let (mut paths, mut options) = (Vec::new(), Vec::new());
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        if arg.starts_with('-') {
            let takes_value = WITH_VALUE.contains(&arg.as_str());
            options.push(arg);
            if takes_value {
                options.extend(args.next());
            }
        } else {
            paths.push(arg);
        }
    }
    (paths, options)
}

/// The checkout holding `paths`, and the paths made absolute.
fn locate(paths: &[String]) -> Result<(PathBuf, Vec<PathBuf>), String> {
    if paths.is_empty() {
        return Err("no test path given (e.g. `lattice-lit test/`)".to_owned());
    }
    let absolute: Vec<PathBuf> = paths
        .iter()
        .map(|p| std::fs::canonicalize(p).map_err(|err| format!("{p}: {err}")))
        .collect::<Result<_, _>>()?;
    let workspace = absolute[0]
        .ancestors()
        .find(|dir| dir.file_name().is_some_and(|name| name == TEST_ROOT))
        .and_then(Path::parent)
        .ok_or_else(|| {
            format!(
                "{}: not inside a checkout's `{TEST_ROOT}/` directory",
                paths[0]
            )
        })?
        .to_path_buf();
    let suite = workspace.join(TEST_ROOT);
    if let Some(outside) = absolute.iter().find(|p| !p.starts_with(&suite)) {
        return Err(format!(
            "{}: not inside {}",
            outside.display(),
            suite.display()
        ));
    }
    Ok((workspace, absolute))
}

fn usage(message: &str) -> ! {
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("lattice-lit: error: {message}\n").as_bytes(),
    );
    std::process::exit(2)
}

/// The features this machine offers.
fn features() -> Vec<String> {
    let mut features = Vec::new();
    if on_path("lattice-bench") {
        features.push("lattice-bench");
    }
    let plugin = std::env::var_os("LATTICE_MLIR_PLUGIN").is_some_and(|p| Path::new(&p).is_file());
    if plugin && on_path("mlir-opt") {
        features.push("mlir-plugin");
    }
    let bridge = Command::new("lattice-opt")
        .args(["--emit=mlir", "/dev/null"])
        .output()
        .is_ok_and(|out| {
            !String::from_utf8_lossy(&out.stderr).contains("built without the `mlir` feature")
        });
    if bridge {
        features.push("mlir");
    }
    features.into_iter().map(str::to_owned).collect()
}

fn on_path(command: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(command).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_options_are_told_apart() {
        let args = ["test/", "--skip", "x", "-q", "--test-threads=1", "test/lit"];
        let (paths, options) = split(args.iter().map(|a| (*a).to_owned()));
        assert_eq!(paths, ["test/", "test/lit"]);
        assert_eq!(options, ["--skip", "x", "-q", "--test-threads=1"]);
    }
}
