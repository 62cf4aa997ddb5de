//! The contest graph importer on arbitrary bytes: no panic, and what it accepts is well formed,
//! round trips through LIR and exports (`lattice_passes::fuzz::check_graph`). O(input log input).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = lattice_passes::fuzz::check_graph(data) {
        panic!("{e}");
    }
});
