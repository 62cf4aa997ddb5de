//! The generated modules `lattice-bench search --generated` runs the search on: every generator
//! shape at three sizes up to 50,000 nodes, so the search's time and results are seen on
//! workloads the repo does not ship, the deep residual conv network (`resnet`) among them.
//!
//! The list is fixed (shape × size, seed 1), so the table's rows never depend on results; each
//! module is a pure function of its spec. O(total nodes) to generate.

use lattice_lir::Module;
use lattice_passes::generate::{generate, GenSpec, Shape};

/// The node counts of every shape.
pub const SIZES: [usize; 3] = [2_000, 12_000, 50_000];

/// The specs, shape by shape, smallest first.
pub fn specs() -> Vec<GenSpec> {
    Shape::ALL
        .into_iter()
        .flat_map(|shape| {
            SIZES.map(|nodes| GenSpec {
                shape,
                nodes,
                seed: 1,
            })
        })
        .collect()
}

/// The modules of [`specs`], each named `gen-<shape>-n<nodes>-s1`.
pub fn modules() -> Vec<Module> {
    specs().iter().map(generate).collect()
}
