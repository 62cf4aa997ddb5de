//! `conv`: a convolution network block computed as implicit GEMM, after the Conv cases.
//!
//! A unit is a block of 1–3 layers. The input feature map is copied into L1; each layer computes
//! its output map tile by tile: per tile an L0C accumulator collects `c` input-channel chunks, each
//! a weight COPY_IN to L1 and MOVE to L0B, an IMG2COL patch of the input map to L0A, and a CONV on
//! CUBE; FIXPIPE writes the tile into the layer's output map (L1, or UB for the last layer). The
//! input map is freed when the layer is done, so maps chain through L1. The block may add a
//! residual loaded into UB and a vector epilogue before its COPY_OUT.
//!
//! Sizes: feature maps 1/8 or 1/16 of L1, weights 1/32 or 1/64 of L1, L0 tiles 1/1 or 1/2 of
//! their tier, outputs 1/4 or 1/8 of UB: at most two maps and a weight are live in L1 and two
//! buffers in UB, within the bound of [`crate::generate::space`]. Cost: 4 + Σ_layers (2 + t·(3 +
//! 10c)) + 4·residual + epilogue ops. O(cost).

use super::{shrink_to, Unit};
use crate::generate::builder::Builder;
use crate::generate::ops::{Cube, Vector};
use crate::rng::Rng;

/// Most layers in a block.
const MAX_LAYERS: usize = 3;
/// Most output tiles per layer.
const MAX_TILES: usize = 4;
/// Most input-channel chunks per tile.
const MAX_CHUNKS: usize = 3;

/// The per-module sizes.
pub(crate) struct Conv {
    map: u64,
    weight: u64,
    l0a: u64,
    l0b: u64,
    acc: u64,
    out: u64,
}

impl Conv {
    /// Draws the sizes.
    pub(crate) fn new(b: &Builder, rng: &mut Rng) -> Self {
        let m = b.machine;
        Conv {
            map: m.l1.frac(rng.range(3, 4)),
            weight: m.l1.frac(rng.range(5, 6)),
            l0a: m.l0a.frac(rng.range(0, 1)),
            l0b: m.l0b.frac(rng.range(0, 1)),
            acc: m.l0c.frac(rng.range(0, 1)),
            out: m.ub.frac(rng.range(2, 3)),
        }
    }

    /// Ops of a unit: `p = [epilogue, residual, (tiles, chunks) per layer …]`.
    fn cost(p: &[usize]) -> usize {
        let layers: usize = p[2..].chunks(2).map(|l| 2 + l[0] * (3 + 10 * l[1])).sum();
        4 + layers + 4 * p[1] + p[0]
    }
}

impl Unit for Conv {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        // Layers at the back shrink last, and a layer with no tile is dropped: its floor is 0
        // tiles and 1 chunk, except for the first layer, which keeps one tile.
        let layers = rng.range(1, MAX_LAYERS);
        let mut p = vec![rng.range(0, 1), rng.range(0, 1)];
        let mut floors = vec![0, 0];
        for l in 0..layers {
            p.extend([rng.range(1, MAX_TILES), rng.range(1, MAX_CHUNKS)]);
            floors.extend([usize::from(l == 0), 1]);
        }
        let cost = |p: &[usize]| {
            let kept: Vec<usize> = p[..2]
                .iter()
                .chain(p[2..].chunks(2).filter(|l| l[0] > 0).flatten())
                .copied()
                .collect();
            Conv::cost(&kept)
        };
        if !shrink_to(&mut p, &floors, budget, cost) {
            return false;
        }
        let layers: Vec<(usize, usize)> = p[2..]
            .chunks(2)
            .filter(|l| l[0] > 0)
            .map(|l| (l[0], l[1]))
            .collect();
        let m = b.machine;
        let mut input = b.alloc(m.l1.id, self.map);
        b.copy_in(input);
        for (i, &(tiles, chunks)) in layers.iter().enumerate() {
            let output = if i + 1 == layers.len() {
                b.alloc(m.ub.id, self.out)
            } else {
                b.alloc(m.l1.id, self.map)
            };
            for _ in 0..tiles {
                let acc = b.alloc(m.l0c.id, self.acc);
                for _ in 0..chunks {
                    let w = b.alloc(m.l1.id, self.weight);
                    b.copy_in(w);
                    let wb = b.alloc(m.l0b.id, self.l0b);
                    b.move_l0(wb, w);
                    b.free(w);
                    let patch = b.alloc(m.l0a.id, self.l0a);
                    b.img2col(patch, input);
                    b.cube(Cube::Conv, acc, wb, patch);
                    b.free(patch);
                    b.free(wb);
                }
                b.fixpipe(output, acc);
                b.free(acc);
            }
            b.free(input);
            input = output;
        }
        if p[1] == 1 {
            let residual = b.alloc(m.ub.id, self.out);
            b.copy_in(residual);
            b.vector(Vector::Add, input, &[residual]);
            b.free(residual);
        }
        if p[0] == 1 {
            b.vector(Vector::Relu, input, &[]);
        }
        b.copy_out(input);
        b.free(input);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::{builder, check_contract};

    #[test]
    fn units_cost_what_they_say() {
        check_contract(
            |b| Conv::new(b, &mut Rng::new(1)),
            Conv::cost(&[0, 0, 1, 1]),
        );
        assert_eq!(Conv::cost(&[0, 0, 1, 1]), 19);
        assert_eq!(
            Conv::cost(&[1, 1, 2, 3, 1, 1]),
            4 + 2 + 2 * 33 + 2 + 13 + 4 + 1
        );
        for seed in 0..20 {
            let mut b = builder();
            let mut c = Conv::new(&b, &mut Rng::new(seed));
            assert!(c.emit(&mut b, &mut Rng::new(seed), 100));
            assert!(b.len() <= 100 && b.live() == 0);
        }
    }
}
