//! The regression tests of `lattice-opt` and `lattice-translate`: every `test/**/*.lir` file
//! except `test/bench/` (whose RUN lines call `lattice-bench`, built by its own crate), run by
//! the lit stand-in of `lattice-lit` with this crate's freshly built binaries first on `PATH`.

fn main() {
    lattice_lit::main(
        &lattice_lit::Suite {
            dir: "",
            skip: &["bench"],
        },
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_lattice-opt"),
        env!("CARGO_TARGET_TMPDIR"),
    )
}
