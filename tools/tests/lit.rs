//! The regression tests of `lattice-opt` and `lattice-translate`: every `test/**/*.lir` file
//! except `test/bench/` (whose RUN lines call `lattice-bench`, built by its own crate) and
//! `test/mlir-plugin/` (run by `tests/mlir_plugin.rs` once the `mlir-opt` plugin is built), run by
//! the lit stand-in of `lattice-lit` with this crate's freshly built binaries first on `PATH`.

fn main() {
    lattice_lit::main(
        &lattice_lit::Suite {
            dir: "",
            skip: &["bench", "mlir-plugin"],
            // `test/driver/mlir-without-feature.lir` is UNSUPPORTED with the bridge.
            features: if cfg!(feature = "mlir") {
                &["mlir"]
            } else {
                &[]
            },
        },
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_lattice-opt"),
        env!("CARGO_TARGET_TMPDIR"),
    )
}
