//! The pass table of docs/lattice-opt.md is generated from the registry; this test fails when
//! they drift and rewrites the table with `LATTICE_TEST_BLESS=1`.

use lattice_passes::REGISTRY;
use std::path::Path;

const BEGIN: &str = "<!-- pass-table:begin (generated from the registry; LATTICE_TEST_BLESS=1 cargo test -p lattice-tools --test pass_table) -->\n";
const END: &str = "<!-- pass-table:end -->";

#[test]
fn the_manual_pass_table_matches_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/lattice-opt.md");
    let manual = std::fs::read_to_string(&path).unwrap();
    let start = manual
        .find(BEGIN)
        .expect("docs/lattice-opt.md has no pass-table:begin marker")
        + BEGIN.len();
    let end = start
        + manual[start..]
            .find(END)
            .expect("docs/lattice-opt.md has no pass-table:end marker");
    let table = REGISTRY.markdown_table();
    if manual[start..end] == table {
        return;
    }
    if std::env::var_os("LATTICE_TEST_BLESS").is_some() {
        let updated = format!("{}{table}{}", &manual[..start], &manual[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "docs/lattice-opt.md's pass table is out of date; rerun with LATTICE_TEST_BLESS=1.\n{}",
        similar::TextDiff::from_lines(&manual[start..end], &table).unified_diff()
    );
}
