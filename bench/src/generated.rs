//! The generated modules `lattice-bench search --generated` runs the search on: every generator
//! shape at three sizes up to 50,000 nodes, so the search's time and results are seen on
//! workloads the repo does not ship, the deep residual conv network (`resnet`) among them.
//!
//! By default every shape at [`SIZES`], seed 1; `--shape`, `--nodes` and `--seed` pick others
//! (the 1M-node DAG of `lattice-bench scale` is `--shape attention --nodes 1000000`; the
//! numbering test's 300-node modules are `--nodes 300 --seed 2`). The list is fixed (shape ×
//! size, one seed), so the table's rows never depend on results; each module is a pure
//! function of its spec. O(total nodes) to generate.

use lattice_lir::Module;
use lattice_passes::generate::{generate, GenSpec, Shape};

/// The node counts of every shape by default.
pub const SIZES: [usize; 3] = [2_000, 12_000, 50_000];

/// The specs, shape by shape in the order given, each at every node count in the order given,
/// all with `seed`.
pub fn specs(shapes: &[Shape], nodes: &[usize], seed: u64) -> Vec<GenSpec> {
    shapes
        .iter()
        .flat_map(|&shape| {
            nodes
                .iter()
                .map(move |&nodes| GenSpec { shape, nodes, seed })
        })
        .collect()
}

/// The modules of [`specs`], each named `gen-<shape>-n<nodes>-s<seed>`.
pub fn modules(shapes: &[Shape], nodes: &[usize], seed: u64) -> Vec<Module> {
    specs(shapes, nodes, seed).iter().map(generate).collect()
}
