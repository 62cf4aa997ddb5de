//! Finds the test files: every `*.lir` file below `<workspace>/test/`,
//! recursively, except anything inside a directory named `Inputs` (fixtures
//! that tests read through `%S/Inputs/...`, never tests themselves).
//!
//! Invariants: the result is sorted by name and independent of directory
//! iteration order; names use `/` separators whatever the host, so filters
//! such as `test/lit/` select the same trials everywhere.

use std::io;
use std::path::{Path, PathBuf};

/// Directory, relative to the workspace root, that holds all lit tests.
pub const TEST_ROOT: &str = "test";

const FIXTURE_DIR: &str = "Inputs";
const TEST_EXTENSION: &str = "lir";

pub struct TestFile {
    /// Path relative to the workspace root, e.g. `test/dialect/roundtrip.lir`.
    pub name: String,
    /// Absolute path (what `%s` expands to).
    pub path: PathBuf,
}

pub fn discover(workspace: &Path) -> io::Result<Vec<TestFile>> {
    let mut paths = Vec::new();
    collect(&workspace.join(TEST_ROOT), &mut paths)?;
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
    Ok(tests)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if entry.file_name() != FIXTURE_DIR {
                collect(&path, out)?;
            }
        } else if path.extension().is_some_and(|ext| ext == TEST_EXTENSION) {
            out.push(path);
        }
    }
    Ok(())
}
