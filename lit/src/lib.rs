//! lattice's regression-test driver: a Python-free stand-in for LLVM's lit + FileCheck, run by
//! each tool crate's `harness = false` target `tests/lit.rs` (`cargo test --test lit`) and, without
//! cargo, by the `lattice-lit` command (`lattice-lit test/`, see [`standalone`]).
//!
//! Every `*.lir` or `*.mlir` file under a suite's directories of `<workspace>/test/` (outside
//! `Inputs/` fixture directories) becomes one libtest-mimic trial named by its path relative to the
//! workspace root, so the usual libtest CLI (filters, `--list`, `--exact`, ...) selects files. A
//! trial runs the file's `// RUN:` lines in order; see the modules for the conventions each step
//! implements. A file whose `// REQUIRES:` names a feature the run lacks, or whose
//! `// UNSUPPORTED:` names one it has, is listed as ignored: under cargo a suite states its
//! features ([`Suite::features`]), `lattice-lit` finds them on the machine.
//!
//! Why a library: a test target sees only its own package's binaries (`CARGO_BIN_EXE_*`), and
//! `lattice-bench` lives in its own crate so that `lattice-opt` builds without plotting. Each
//! tool crate therefore runs the suite of its own binaries ([`Suite`]); the suites partition
//! `test/`, so every file runs exactly once in `cargo test --workspace`, and `lattice-lit test/`
//! runs the same files under the same names.
//!
//! Invariants: trials never share mutable state (each gets its own temp paths and FileCheck
//! source manager), so libtest-mimic may run them in parallel; the set and order of trials
//! depends only on the files in the tree, the suite and the features.

// `print!`/`eprint!` panic when the stream is closed (`| head`); library code writes through
// `std::io::Write` and handles the error (lattice::io), so the macros are forbidden here.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod discovery;
mod filecheck;
mod golden;
mod pipeline;
mod report;
mod run_lines;
mod runner;
mod shell;
pub mod standalone;
mod substitution;

pub use discovery::Suite;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Trial};

/// What every trial needs to know about the environment it runs in.
pub(crate) struct Context {
    pub workspace: PathBuf,
    /// Under cargo, the directory of the freshly built tool binaries, put first on `PATH` so a
    /// RUN line never picks up a stale installed copy; `lattice-lit` uses `PATH` as it is.
    pub bin_dir: Option<PathBuf>,
    /// The running executable, which acts as `FileCheck` in RUN lines ([`filecheck::MODE_FLAG`]).
    pub exe: PathBuf,
    /// Root of all `%t`/`%T` paths. Lives in the target dir, so a fresh clone starts without it
    /// and `cargo clean` removes it.
    pub tmp_root: PathBuf,
    /// The read-only data directory beside the checkout (`%shared`).
    pub shared: PathBuf,
    /// `LATTICE_TEST_BLESS=1`: rewrite golden sections instead of comparing.
    pub bless: bool,
    /// What this run offers to `REQUIRES:` and `UNSUPPORTED:` lines.
    pub features: Vec<String>,
}

impl Context {
    /// The context of a checkout at `workspace`, with temp paths below `tmp_root`.
    pub(crate) fn new(workspace: PathBuf, bin_dir: Option<PathBuf>, tmp_root: PathBuf) -> Self {
        Context {
            exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("lattice-lit")),
            shared: workspace
                .parent()
                .expect("the workspace has a parent directory")
                .join("shared"),
            bless: std::env::var_os("LATTICE_TEST_BLESS").is_some_and(|v| v == "1"),
            workspace,
            bin_dir,
            tmp_root,
            features: Vec::new(),
        }
    }
}

/// Runs `suite` as a libtest-mimic test binary with the process's arguments and exits.
///
/// `manifest_dir` is the calling crate's `CARGO_MANIFEST_DIR` (a direct child of the workspace
/// root), `binary` one of its `CARGO_BIN_EXE_*` paths (its directory goes first on `PATH`), and
/// `tmp_dir` its `CARGO_TARGET_TMPDIR`.
pub fn main(suite: &Suite, manifest_dir: &str, binary: &str, tmp_dir: &str) -> ! {
    filecheck_mode();
    let args = Arguments::from_args();
    let workspace = Path::new(manifest_dir)
        .parent()
        .expect("a tool crate lives inside the workspace")
        .to_path_buf();
    let bin_dir = Path::new(binary)
        .parent()
        .expect("a binary path has a parent directory")
        .to_path_buf();
    let mut ctx = Context::new(workspace, Some(bin_dir), Path::new(tmp_dir).join("lit"));
    ctx.features = suite.features.iter().map(|f| (*f).to_owned()).collect();
    let tests = discovery::discover(&ctx.workspace, suite).unwrap_or_else(|err| {
        panic!(
            "cannot list the tests under {}: {err}",
            ctx.workspace.join(discovery::TEST_ROOT).display()
        )
    });
    run(ctx, tests, &args)
}

/// When the process was started as `FileCheck` by a RUN line (its first argument is
/// [`filecheck::MODE_FLAG`]), runs FileCheck and exits with its status.
pub(crate) fn filecheck_mode() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == filecheck::MODE_FLAG) {
        std::process::exit(filecheck::command(&args[1..]));
    }
}

/// Runs `tests` as libtest-mimic trials with `args` and exits with libtest's status.
pub(crate) fn run(ctx: Context, tests: Vec<discovery::TestFile>, args: &Arguments) -> ! {
    let ctx = Arc::new(ctx);
    let trials = tests
        .into_iter()
        .map(|test| {
            let unsupported = runner::unsupported(&ctx, &test);
            let ctx = Arc::clone(&ctx);
            Trial::test(test.name.clone(), move || {
                runner::run(&ctx, &test).map_err(Into::into)
            })
            .with_ignored_flag(unsupported)
        })
        .collect();
    libtest_mimic::run(args, trials).exit()
}
