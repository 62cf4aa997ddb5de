//! Finds a suite's test files: every `*.lir` and `*.mlir` file below the suite's directory of
//! `<workspace>/test/`, recursively, except anything inside a directory named `Inputs`
//! (fixtures that tests read through `%S/Inputs/...`, never tests themselves) or one the suite
//! leaves to another crate.
//!
//! Invariants: the result is sorted by name and independent of directory
//! iteration order; names use `/` separators whatever the host, so filters
//! such as `test/lit/` select the same trials everywhere.

use std::io;
use std::path::{Path, PathBuf};

/// Directory, relative to the workspace root, that holds all lit tests.
pub const TEST_ROOT: &str = "test";

const FIXTURE_DIR: &str = "Inputs";
/// LIR tests, and MLIR tests (the `mlir-opt` plugin's, written like upstream MLIR's: the file is
/// the input, its `// RUN:` lines are MLIR comments).
const TEST_EXTENSIONS: [&str; 2] = ["lir", "mlir"];

pub struct TestFile {
    /// Path relative to the workspace root, e.g. `test/dialect/roundtrip.lir`.
    pub name: String,
    /// Absolute path (what `%s` expands to).
    pub path: PathBuf,
}

/// Which tests a crate's `lit` target runs: the tests that call that crate's binaries.
pub struct Suite {
    /// The directory to search, relative to `TEST_ROOT` (`""`: all of it).
    pub dir: &'static str,
    /// Directories below it (relative to `TEST_ROOT`) whose tests another crate runs.
    pub skip: &'static [&'static str],
    /// The features the crate's build offers to `REQUIRES:` lines (`lattice-bench`, `mlir`,
    /// `mlir-plugin`).
    pub features: &'static [&'static str],
}

pub fn discover(workspace: &Path, suite: &Suite) -> io::Result<Vec<TestFile>> {
    let root = workspace.join(TEST_ROOT);
    let skip: Vec<PathBuf> = suite.skip.iter().map(|dir| root.join(dir)).collect();
    let mut paths = Vec::new();
    collect(&root.join(suite.dir), &skip, &mut paths)?;
    Ok(named(workspace, paths))
}

/// The tests at or below each of `paths` (files or directories inside `workspace`), each once.
pub fn discover_paths(workspace: &Path, paths: &[PathBuf]) -> io::Result<Vec<TestFile>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect(path, &[], &mut found)?;
        } else {
            found.push(path.clone());
        }
    }
    let mut tests = named(workspace, found);
    tests.dedup_by(|a, b| a.name == b.name);
    Ok(tests)
}

/// `paths` as tests, sorted by name.
fn named(workspace: &Path, paths: Vec<PathBuf>) -> Vec<TestFile> {
    let mut tests: Vec<TestFile> = paths
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(workspace)
                .expect("discovered files lie below the workspace")
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            TestFile { name, path }
        })
        .collect();
    tests.sort_by(|a, b| a.name.cmp(&b.name));
    tests
}

fn collect(dir: &Path, skip: &[PathBuf], out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if entry.file_name() != FIXTURE_DIR && !skip.contains(&path) {
                collect(&path, skip, out)?;
            }
        } else if path
            .extension()
            .is_some_and(|ext| TEST_EXTENSIONS.iter().any(|t| ext == *t))
        {
            out.push(path);
        }
    }
    Ok(())
}
