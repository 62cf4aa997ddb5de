//! `lattice-lit`: runs lattice's `.lir` regression tests without cargo (see
//! `lattice_lit::standalone`). Exit codes: 0 every test passed, 101 some failed (libtest's),
//! 2 bad usage.

fn main() {
    lattice_lit::standalone::main()
}
