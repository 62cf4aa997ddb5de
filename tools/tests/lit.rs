//! The regression-test driver run by `cargo test --test lit`: a Python-free
//! stand-in for LLVM's lit + FileCheck.
//!
//! Every `*.lir` file under `<workspace>/test/` (outside `Inputs/` fixture
//! directories) becomes one libtest-mimic trial named by its path relative to
//! the workspace root, so the usual libtest CLI (filters, `--list`, `--exact`,
//! ...) selects files. A trial runs the file's `// RUN:` lines in order; see
//! the sibling modules for the conventions each step implements.
//!
//! Invariants: trials never share mutable state (each gets its own temp paths
//! and FileCheck source manager), so libtest-mimic may run them in parallel;
//! the set and order of trials depends only on the files in the tree.

// A crate root looks for its modules beside itself (`tests/`), where cargo
// would take them for separate test targets; they live in `tests/lit/`.
#[path = "lit/discovery.rs"]
mod discovery;
#[path = "lit/filecheck.rs"]
mod filecheck;
#[path = "lit/golden.rs"]
mod golden;
#[path = "lit/pipeline.rs"]
mod pipeline;
#[path = "lit/report.rs"]
mod report;
#[path = "lit/run_lines.rs"]
mod run_lines;
#[path = "lit/runner.rs"]
mod runner;
#[path = "lit/shell.rs"]
mod shell;
#[path = "lit/substitution.rs"]
mod substitution;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Trial};

/// What every trial needs to know about the environment it runs in.
pub struct Context {
    pub workspace: PathBuf,
    /// Directory of the freshly built tool binaries; put first on `PATH` so a
    /// RUN line never picks up a stale installed copy.
    pub bin_dir: PathBuf,
    /// Root of all `%t`/`%T` paths. Lives in cargo's target dir, so a fresh
    /// clone starts without it and `cargo clean` removes it.
    pub tmp_root: PathBuf,
    /// The read-only data directory beside the checkout (`%shared`).
    pub shared: PathBuf,
    /// `LATTICE_TEST_BLESS=1`: rewrite golden sections instead of comparing.
    pub bless: bool,
}

fn main() {
    let args = Arguments::from_args();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate lives inside the workspace")
        .to_path_buf();
    let ctx = Arc::new(Context {
        bin_dir: Path::new(env!("CARGO_BIN_EXE_lattice-opt"))
            .parent()
            .expect("a binary path has a parent directory")
            .to_path_buf(),
        tmp_root: Path::new(env!("CARGO_TARGET_TMPDIR")).join("lit"),
        shared: workspace
            .parent()
            .expect("the workspace has a parent directory")
            .join("shared"),
        bless: std::env::var_os("LATTICE_TEST_BLESS").is_some_and(|v| v == "1"),
        workspace,
    });

    let tests = discovery::discover(&ctx.workspace).unwrap_or_else(|err| {
        panic!(
            "cannot list the tests under {}: {err}",
            ctx.workspace.join(discovery::TEST_ROOT).display()
        )
    });
    let trials = tests
        .into_iter()
        .map(|test| {
            let ctx = Arc::clone(&ctx);
            Trial::test(test.name.clone(), move || {
                runner::run(&ctx, &test).map_err(Into::into)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
