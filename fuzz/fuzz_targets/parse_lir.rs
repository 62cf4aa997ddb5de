//! The LIR parser on arbitrary bytes: no panic, and what it accepts round trips through the
//! printer (`lattice_passes::fuzz::check_lir`). O(input) per run.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = lattice_passes::fuzz::check_lir(data) {
        panic!("{e}");
    }
});
