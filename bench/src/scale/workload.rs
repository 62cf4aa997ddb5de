//! What `lattice-bench scale --shape` names: a shape of the workload generator
//! ([`lattice_passes::generate`]) or a stress workload ([`super::stress`]).
//!
//! Invariants: the names of the two kinds are disjoint, and a module depends only on the
//! workload, the node count and (generated shapes only) the seed. O(nodes) to build.

use super::stress::Stress;
use lattice_lir::Module;
use lattice_passes::generate::{generate, GenSpec, Shape};
use std::fmt;
use std::str::FromStr;

/// A scaling workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// A generated shape.
    Generated(Shape),
    /// A stress workload.
    Stress(Stress),
}

impl Workload {
    /// The module of `nodes` ops; `seed` seeds the generator.
    pub fn build(self, nodes: usize, seed: u64) -> Module {
        match self {
            Workload::Generated(shape) => generate(&GenSpec { shape, nodes, seed }),
            Workload::Stress(stress) => stress.build(nodes),
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Workload::Generated(shape) => shape.fmt(f),
            Workload::Stress(stress) => stress.fmt(f),
        }
    }
}

impl FromStr for Workload {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let generated = Shape::ALL.into_iter().map(Workload::Generated);
        let stress = Stress::ALL.into_iter().map(Workload::Stress);
        let mut all = generated.chain(stress);
        all.clone().find(|w| w.to_string() == s).ok_or_else(|| {
            let names: Vec<String> = all.by_ref().map(|w| w.to_string()).collect();
            format!("unknown shape \"{s}\"; valid shapes: {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_unknown_one_lists_them_all() {
        for name in ["attention", "chain", "fan-in", "fan-out"] {
            assert_eq!(name.parse::<Workload>().unwrap().to_string(), name);
        }
        let err = "cube".parse::<Workload>().unwrap_err();
        assert_eq!(
            err,
            "unknown shape \"cube\"; valid shapes: matmul, attention, conv, random, resnet, heads-kv, heads-q, matmul-rows, matmul-cols, chain, fan-in, fan-out"
        );
    }
}
