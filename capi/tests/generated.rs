//! The files generated from this crate, checked to be current: the C header cbindgen makes of the
//! ABI (`mlir/cxx/include/lattice/capi.h`). A stale file fails with the command that updates it;
//! `LATTICE_BLESS=1` writes the new one instead.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compares `path` (from the root) with `generated`; rewrites it under `LATTICE_BLESS=1`.
fn check(path: &str, generated: &str) {
    let file = root().join(path);
    if std::env::var_os("LATTICE_BLESS").is_some() {
        std::fs::write(&file, generated).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        current == generated,
        "{path} is not what the crate generates; update it with \
         `LATTICE_BLESS=1 cargo test -p lattice-capi --test generated`"
    );
}

#[test]
fn the_c_header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(dir).join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .unwrap();
    let mut header = Vec::new();
    bindings.write(&mut header);
    check(
        "mlir/cxx/include/lattice/capi.h",
        &String::from_utf8(header).unwrap(),
    );
}

#[test]
fn the_pass_declarations_are_current() {
    use lattice_capi::cxx::{enums_h, passes_inc, passes_td, Group};
    let registry = &lattice_passes::REGISTRY;
    let include = "mlir/cxx/include/lattice";
    check(
        &format!("{include}/Passes.td"),
        &passes_td(registry, Group::Passes),
    );
    check(
        &format!("{include}/TestPasses.td"),
        &passes_td(registry, Group::Test),
    );
    check(&format!("{include}/PassEnums.h"), &enums_h(registry));
    check(
        "mlir/cxx/lib/Passes.cpp.inc",
        &passes_inc(registry, Group::Passes),
    );
    check(
        "mlir/cxx/test/lib/TestPasses.cpp.inc",
        &passes_inc(registry, Group::Test),
    );
}
