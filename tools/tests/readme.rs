//! README.md's pass table is generated from the registry; this test fails when they drift and
//! rewrites the table with `LATTICE_TEST_BLESS=1`.

use lattice_passes::REGISTRY;
use std::path::Path;

const BEGIN: &str = "<!-- pass-table:begin (generated from the registry; LATTICE_TEST_BLESS=1 cargo test -p lattice-tools --test readme) -->\n";
const END: &str = "<!-- pass-table:end -->";

#[test]
fn readme_pass_table_matches_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(BEGIN)
        .expect("README.md has no pass-table:begin marker")
        + BEGIN.len();
    let end = start
        + readme[start..]
            .find(END)
            .expect("README.md has no pass-table:end marker");
    let table = REGISTRY.markdown_table();
    if readme[start..end] == table {
        return;
    }
    if std::env::var_os("LATTICE_TEST_BLESS").is_some() {
        let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "README.md's pass table is out of date; rerun with LATTICE_TEST_BLESS=1.\n{}",
        similar::TextDiff::from_lines(&readme[start..end], &table).unified_diff()
    );
}
