//! Whatever LIR the parser and structural verifier accept, `mpas,dlr` and `mpas,dlr,cpe` plan
//! validly (the independent verifier agrees) or fail with an error, never a panic
//! (`lattice_passes::fuzz::check_plans`). Each run costs a parse and two pipeline runs.
#![no_main]

use lattice_passes::fuzz::{check_lir, check_plans};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let checked = check_lir(data).and_then(|module| module.map(|m| check_plans(&m)).transpose());
    if let Err(e) = checked {
        panic!("{e}");
    }
});
