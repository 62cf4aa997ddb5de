//! Runs one command line with bash the way every RUN line is run: `bash -c`
//! with `set -o pipefail`, cwd = the test file's directory, the freshly built
//! tools first on `PATH`, stdin empty, stdout and stderr captured separately.
//!
//! The prelude defines `not CMD...`, which succeeds iff CMD exits non-zero,
//! except that a crash is never an expected failure: exit status 101 (a Rust
//! panic; our tools must report errors, never panic), >= 128 (killed by a
//! signal) and 126/127 (not executable / not found, so `not typo` cannot
//! pass) make `not` fail too, like lit's `not` without `--crash`. It also
//! defines `FileCheck` (and `filecheck`) as the harness's own executable in
//! FileCheck mode, so that `FileCheck %s < %t`, `--input-file=%t` and
//! `not FileCheck` work anywhere in a RUN line, and `golden` to fail with an
//! explanation, since it exists only as the harness-run last stage of a
//! pipeline.
//!
//! Invariants: the prelude and the command share bash's line 1, so bash's own
//! "line N" diagnostics match a one-line command; the command sees the
//! caller's environment except that the tools dir (under cargo) is prepended to `PATH`,
//! `LATTICE_LIT_EXE` names the harness's executable (for `FileCheck`) and
//! `BASH_ENV` is removed (a user's startup file must not alter a run).

use std::io;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::Context;

const PRELUDE: &str = "set -o pipefail; \
    not() { \
        \"$@\"; local status=$?; \
        if [ $status -ge 126 ] || [ $status -eq 101 ]; then \
            echo \"not: '$*' crashed or could not run (exit status $status)\" >&2; \
            return $status; \
        fi; \
        [ $status -ne 0 ]; \
    }; \
    FileCheck() { \"$LATTICE_LIT_EXE\" --lattice-lit-filecheck \"$@\"; }; \
    filecheck() { FileCheck \"$@\"; }; \
    golden() { \
        echo \"golden: run by the harness only as the last stage of a RUN pipeline, after a plain '|'\" >&2; \
        return 2; \
    }; ";

pub fn run(ctx: &Context, cwd: &Path, command: &str) -> io::Result<Output> {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        ctx.bin_dir
            .iter()
            .cloned()
            .chain(std::env::split_paths(&inherited)),
    )
    .map_err(io::Error::other)?;
    Command::new("bash")
        .arg("-c")
        .arg(format!("{PRELUDE}{command}"))
        .current_dir(cwd)
        .env("PATH", path)
        .env("LATTICE_LIT_EXE", &ctx.exe)
        .env_remove("BASH_ENV")
        .stdin(Stdio::null())
        .output()
}

#[cfg(test)]
mod tests {
    use super::PRELUDE;
    use crate::filecheck::MODE_FLAG;

    #[test]
    fn filecheck_runs_the_harness_in_filecheck_mode() {
        assert!(PRELUDE.contains(&format!("\"$LATTICE_LIT_EXE\" {MODE_FLAG} \"$@\"")));
    }
}
