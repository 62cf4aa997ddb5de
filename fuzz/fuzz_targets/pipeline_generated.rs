//! Structured inputs: the bytes choose a generated workload and a memory squeeze
//! (`lattice_passes::fuzz::generated`), which `mpas,dlr` and `mpas,dlr,cpe` must plan validly or
//! refuse with an error (`check_plans`). Each run costs O(600) generation and two pipeline runs.
#![no_main]

use lattice_passes::fuzz::{check_plans, generated};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = check_plans(&generated(data)) {
        panic!("{e}");
    }
});
