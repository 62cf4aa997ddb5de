//! `reuse`: a grid of UB operand tiles, each read by several cells, so that no order keeps every
//! tile it will read again and still stays within a squeezed UB — the oracle's family whose
//! traffic optimum is above zero (at the oracle's sizes, each unit of the other families reads
//! tiles loaded for it alone, so some order never spills).
//!
//! A unit is an `nr × nc` grid (each side drawn from 2 to 3, shrunk to the budget but never below
//! 2, so the smallest unit is a 2 × 2 grid of 22 ops): row tiles `A_i` and column tiles `B_j` are
//! copied into UB at their first use and freed after their last reader in row order; row i
//! accumulates `A_i ∘ B_j` over j into one output tile with a binary vector op per cell, then
//! copies it out and frees it; the last row's output first takes up to 8 in-place vector ops (an
//! epilogue), as many as the budget leaves, so that modules of every size hold one grid and little
//! padding (padding groups are independent of the grid and multiply the orders `order-exact`
//! explores; an epilogue is a chain and adds few). As both sides are at least 2, every order's
//! second cell of a 2 × 2 subgrid finds three of its four tiles read before or now and read again
//! later (two if it shares a tile with the first cell, plus the first cell's other tile; all four
//! if not), all live with the cell's output unless one is loaded twice: with UB below three tiles
//! and an output, as when it holds only what one cell names, every order spills (the traffic
//! optimum is above zero).
//!
//! Sizes: tiles and outputs are 1/8 of UB, so all six tiles of a 3 × 3 grid and one output fit
//! the bound of [`crate::generate::space`]. Cost: 3 · (nr + nc) + nr · (3 + nc) + epilogue ops.
//! O(cost).

use super::{shrink_to, Unit};
use crate::generate::builder::Builder;
use crate::generate::ops::Vector;
use crate::rng::Rng;
use lattice_lir::BufferId;

/// Most tiles per side.
const MAX_SIDE: usize = 3;

/// Most epilogue ops.
const MAX_EPILOGUE: usize = 8;

/// The binary vector ops a cell combines its two tiles into the row's output with.
const BINARY: [Vector; 4] = [Vector::Add, Vector::Sub, Vector::Mul, Vector::Max];

/// The grid generator.
pub(crate) struct Reuse {
    tile: u64,
}

impl Reuse {
    /// Tiles and outputs of 1/8 of UB.
    pub(crate) fn new(b: &Builder) -> Self {
        Reuse {
            tile: b.machine.ub.frac(3),
        }
    }

    /// Ops of a grid of `p[0]` rows and `p[1]` columns (see the header).
    fn cost(p: &[usize]) -> usize {
        let (nr, nc) = (p[0], p[1]);
        3 * (nr + nc) + nr * (3 + nc)
    }

    /// A tile copied into UB.
    fn load(&self, b: &mut Builder) -> BufferId {
        let tile = b.alloc(b.machine.ub.id, self.tile);
        b.copy_in(tile);
        tile
    }
}

impl Unit for Reuse {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        let mut p = [rng.range(2, MAX_SIDE), rng.range(2, MAX_SIDE)];
        if !shrink_to(&mut p, &[2, 2], budget, Reuse::cost) {
            return false;
        }
        let [nr, nc] = p;
        let epilogue = (budget - Reuse::cost(&p)).min(MAX_EPILOGUE);
        let mut cols: Vec<Option<BufferId>> = vec![None; nc];
        for i in 0..nr {
            let out = b.alloc(b.machine.ub.id, self.tile);
            let a = self.load(b);
            for (j, col) in cols.iter_mut().enumerate() {
                let c = match *col {
                    Some(c) => c,
                    None => *col.insert(self.load(b)),
                };
                let op = rng.pick(&BINARY).unwrap_or(Vector::Add);
                b.vector(op, out, &[a, c]);
                // Row i's last cell reads A_i last, row nr − 1 each B_j.
                if j + 1 == nc {
                    b.free(a);
                }
                if i + 1 == nr {
                    b.free(c);
                }
            }
            if i + 1 == nr {
                for _ in 0..epilogue {
                    let op = rng.pick(&Vector::ELEMENTWISE).unwrap_or(Vector::Relu);
                    b.vector(op, out, &[]);
                }
            }
            b.copy_out(out);
            b.free(out);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::{builder, check_contract};

    #[test]
    fn grids_cost_what_they_say() {
        check_contract(Reuse::new, Reuse::cost(&[2, 2]));
        for seed in 0..10 {
            let mut b = builder();
            let mut probe = Rng::new(seed);
            let p = [probe.range(2, MAX_SIDE), probe.range(2, MAX_SIDE)];
            assert!(Reuse::new(&b).emit(&mut b, &mut Rng::new(seed), usize::MAX));
            let cost = Reuse::cost(&p) + MAX_EPILOGUE;
            assert_eq!((b.len(), b.live()), (cost, 0));
        }
        // An epilogue takes up what the grid leaves of the budget.
        for extra in 0..=MAX_EPILOGUE {
            let mut b = builder();
            let budget = Reuse::cost(&[2, 2]) + extra;
            assert!(Reuse::new(&b).emit(&mut b, &mut Rng::new(1), budget));
            assert_eq!(b.len(), budget);
        }
    }
}
