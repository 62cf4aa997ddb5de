//! Structured inputs for the pipeline property: the bytes choose a generated workload (shape,
//! size, seed; `crate::generate`) and how far to squeeze its non-staging tiers, so a fuzzer
//! explores valid modules under memory pressure rather than text the parser mostly rejects.
//!
//! Invariants: the module is a pure function of the bytes (missing bytes read as zero); it passes
//! the structural verifier, because a squeezed tier keeps room for its largest buffer. What it
//! does not promise is that a plan exists — a command whose operands cannot be resident together
//! must then be refused with an error. Complexity: O(nodes), at most [`MAX_NODES`].

use crate::generate::{generate, GenSpec, Shape};
use lattice_lir::Module;

/// The largest workload the bytes can ask for: big enough for every shape's units, small enough
/// for thousands of pipeline runs a minute.
pub const MAX_NODES: usize = 600;

/// The generated module `data` describes: byte 0 the shape, bytes 1–2 the node count, bytes 3–10
/// the seed, byte 11 the squeeze (each L1 and UB capacity shifted right by 0–3 bits, never below
/// the tier's largest buffer).
pub fn generated(data: &[u8]) -> Module {
    let byte = |i: usize| data.get(i).copied().unwrap_or(0);
    let shape = Shape::ALL[usize::from(byte(0)) % Shape::ALL.len()];
    let nodes = 3 + usize::from(u16::from_le_bytes([byte(1), byte(2)])) % (MAX_NODES - 2);
    let seed = u64::from_le_bytes(std::array::from_fn(|i| byte(3 + i)));
    let mut module = generate(&GenSpec { shape, nodes, seed });
    let shift = byte(11) % 4;
    for (t, tier) in module.target.tiers.iter_mut().enumerate() {
        if tier.staging {
            continue;
        }
        let largest = module
            .buffers
            .iter()
            .filter(|b| b.tier.index() == t)
            .map(|b| b.size)
            .max()
            .unwrap_or(0);
        tier.capacity = (tier.capacity >> shift).max(largest);
    }
    module
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::verify_module;

    #[test]
    fn the_bytes_choose_the_workload_and_it_is_valid() {
        let small = generated(&[]);
        assert_eq!(small.ops.len(), 3);
        let data = [1, 200, 1, 7, 0, 0, 0, 0, 0, 0, 0, 3];
        let big = generated(&data);
        assert_eq!(big.ops.len(), 459);
        assert!(big.name.starts_with("gen-attention-n459-s7"));
        assert_eq!(big, generated(&data));
        verify_module(&big).unwrap();
        let l1 = &big.target.tiers[0];
        assert!(l1.capacity < 4096, "L1 was not squeezed: {}", l1.capacity);
    }
}
