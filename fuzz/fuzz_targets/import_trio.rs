//! The solution-trio importer on arbitrary bytes (graph, schedule, memory and spill sections
//! separated by NUL bytes): no panic, and what it accepts is well formed and exports back to a
//! trio that imports to the same module (`lattice_passes::fuzz::check_trio`). O(input log input).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = lattice_passes::fuzz::check_trio(data) {
        panic!("{e}");
    }
});
