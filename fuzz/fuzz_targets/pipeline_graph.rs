//! Whatever contest graph the importer accepts, `mpas,dlr` and `mpas,dlr,cpe` plan validly (the
//! independent verifier agrees) or fail with an error, never a panic
//! (`lattice_passes::fuzz::check_plans`). Each run costs an import and two pipeline runs.
#![no_main]

use lattice_passes::fuzz::{check_graph, check_plans};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let checked = check_graph(data).and_then(|module| module.map(|m| check_plans(&m)).transpose());
    if let Err(e) = checked {
        panic!("{e}");
    }
});
