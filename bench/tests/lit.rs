//! The regression tests of `lattice-bench`: every `test/bench/**/*.lir` file, run by the lit
//! stand-in of `lattice-lit` with this crate's freshly built binary first on `PATH`. (The rest of
//! `test/` is `lattice-tools`' suite; `lattice-opt` is not built for this one, so these RUN lines
//! call `lattice-bench` only.)

fn main() {
    lattice_lit::main(
        &lattice_lit::Suite {
            dir: "bench",
            skip: &[],
            features: &["lattice-bench"],
        },
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_lattice-bench"),
        env!("CARGO_TARGET_TMPDIR"),
    )
}
