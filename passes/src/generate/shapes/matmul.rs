//! `matmul`: tiled matrix multiplication, as in the Matmul cases.
//!
//! A unit is one output row block: a panel of `k` A tiles is copied into L1 once and reused by
//! `nb` output tiles; each output tile accumulates `k` MATMULs in one L0C buffer (B tile COPY_IN
//! to L1, MOVE of the A and B tiles to L0A/L0B, MATMUL), then FIXPIPE to UB, optional vector
//! epilogue, COPY_OUT. L0 buffers are freed right after their last use, so σ keeps one live
//! buffer per L0 tier.
//!
//! Sizes: L0 tiles are 1/1 or 1/2 of L0A/L0B, the accumulator 1/1 or 1/2 of L0C, L1 tiles an L0
//! tile or twice one (at most 1/8 of L1), the output 1/4 or 1/8 of UB. The A panel holds at most
//! half of L1, so with one B tile live each L1 request needs at most half + 1/8 of L1 under the
//! bound of [`crate::generate::space`]. Cost of a unit: 3k + nb·(6 + 10k + v) ops. O(cost).

use super::{shrink_to, Unit};
use crate::generate::builder::Builder;
use crate::generate::ops::{Cube, Vector};
use crate::rng::Rng;

/// Largest reduction depth of one output tile.
const MAX_K: usize = 8;
/// Most output tiles sharing one A panel.
const MAX_NB: usize = 4;

/// The per-module tile sizes.
pub(crate) struct Matmul {
    l0a: u64,
    l0b: u64,
    l1_tile: u64,
    acc: u64,
    out: u64,
    max_k: usize,
}

impl Matmul {
    /// Draws the tile sizes.
    pub(crate) fn new(b: &Builder, rng: &mut Rng) -> Self {
        let m = b.machine;
        let shift = rng.range(0, 1);
        let (l0a, l0b) = (m.l0a.frac(shift), m.l0b.frac(shift));
        let l1_tile = (l0a.max(l0b) << rng.range(0, 1)).min(m.l1.frac(3));
        let max_k = usize::try_from(m.l1.frac(1) / l1_tile)
            .unwrap_or(MAX_K)
            .clamp(1, MAX_K);
        Matmul {
            l0a,
            l0b,
            l1_tile,
            acc: m.l0c.frac(rng.range(0, 1)),
            out: m.ub.frac(rng.range(2, 3)),
            max_k,
        }
    }

    /// Ops of a unit with epilogue ops `v`, `nb` output tiles and depth `k`.
    fn cost(p: &[usize]) -> usize {
        let (v, nb, k) = (p[0], p[1], p[2]);
        3 * k + nb * (6 + 10 * k + v)
    }
}

impl Unit for Matmul {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        let mut p = [
            rng.range(0, 1),
            rng.range(1, MAX_NB),
            rng.range(1, self.max_k),
        ];
        if !shrink_to(&mut p, &[0, 1, 1], budget, Matmul::cost) {
            return false;
        }
        let [v, nb, k] = p;
        let m = b.machine;
        let panel: Vec<_> = (0..k)
            .map(|_| {
                let a = b.alloc(m.l1.id, self.l1_tile);
                b.copy_in(a);
                a
            })
            .collect();
        for _ in 0..nb {
            let acc = b.alloc(m.l0c.id, self.acc);
            for &a in &panel {
                let bt = b.alloc(m.l1.id, self.l1_tile);
                b.copy_in(bt);
                let la = b.alloc(m.l0a.id, self.l0a);
                b.move_l0(la, a);
                let lb = b.alloc(m.l0b.id, self.l0b);
                b.move_l0(lb, bt);
                b.free(bt);
                b.cube(Cube::Matmul, acc, lb, la);
                b.free(la);
                b.free(lb);
            }
            let out = b.alloc(m.ub.id, self.out);
            b.fixpipe(out, acc);
            b.free(acc);
            for _ in 0..v {
                let op = rng.pick(&Vector::ELEMENTWISE).unwrap_or(Vector::Relu);
                b.vector(op, out, &[]);
            }
            b.copy_out(out);
            b.free(out);
        }
        for a in panel {
            b.free(a);
        }
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
            |b| Matmul::new(b, &mut Rng::new(1)),
            Matmul::cost(&[0, 1, 1]),
        );
        for seed in 0..20 {
            let mut b = builder();
            let mut rng = Rng::new(seed);
            let mut m = Matmul::new(&b, &mut rng);
            let mut probe = rng.clone();
            let p = [
                probe.range(0, 1),
                probe.range(1, MAX_NB),
                probe.range(1, m.max_k),
            ];
            assert!(m.emit(&mut b, &mut rng, usize::MAX));
            assert_eq!((b.len(), b.live()), (Matmul::cost(&p), 0));
        }
    }
}
