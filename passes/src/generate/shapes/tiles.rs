//! `matmul-rows` and `matmul-cols`: a tiled matrix multiplication whose A row panels and B column
//! panels are each loaded once, in the two loop nestings — the same command DAG numbered two ways.
//!
//! A unit is an `nr × nc` block of output tiles of depth `k` (each drawn up to 4): row panel i
//! (`k` A tiles) and column panel j (`k` B tiles) are copied into L1 at their first use and read
//! by every output tile of their row or column; output tile (i, j) accumulates its `k` steps in
//! one L0C buffer (MOVE of the A and B tiles to L0A/L0B, MATMUL), then FIXPIPE to UB and
//! COPY_OUT. `matmul-rows` emits the row loop outside, `matmul-cols` the column loop outside.
//! Every buffer sees the same ops in the same order under both nestings — a panel is loaded once
//! and then only read, by its tiles in row or column order, and freed after tile (i, nc − 1) or
//! (nr − 1, j), its last reader under both — so with one seed the two modules are the same DAG
//! under other ids (the tests check it).
//!
//! Sizes: L0 tiles 1/2 of L0A/L0B, the accumulator 1/2 of L0C, the output 1/8 of UB, L1 tiles
//! 1/32 of L1: the outer loop's panel and every panel of the inner one are live at once, at most
//! (4 + 1) · k + 1 tiles, and `k` is capped so that fits the span (4 on the contest core), under
//! the bound of [`crate::generate::space`]. Cost: nr · nc · (6 + 7k) + 3k · (nr + nc) ops.
//! O(cost).

use super::{shrink_to, Unit};
use crate::generate::builder::Builder;
use crate::generate::ops::Cube;
use crate::rng::Rng;
use lattice_lir::BufferId;

/// Most row panels, column panels and steps per unit.
const MAX_SIDE: usize = 4;

/// A block of output tiles and which loop is outside.
pub(crate) struct Tiles {
    rows_outside: bool,
    l1_tile: u64,
    l0a: u64,
    l0b: u64,
    acc: u64,
    out: u64,
    max_k: usize,
}

impl Tiles {
    /// The generator with the row loop outside (`rows_outside`) or the column loop.
    pub(crate) fn new(b: &Builder, rows_outside: bool) -> Self {
        let m = b.machine;
        let l1_tile = m.l1.frac(5);
        let slots = usize::try_from(m.l1.span / l1_tile).unwrap_or(usize::MAX);
        Tiles {
            rows_outside,
            l1_tile,
            l0a: m.l0a.frac(1),
            l0b: m.l0b.frac(1),
            acc: m.l0c.frac(1),
            out: m.ub.frac(3),
            max_k: (slots.saturating_sub(1) / (MAX_SIDE + 1)).clamp(1, MAX_SIDE),
        }
    }

    /// Ops of a unit of `p[0]` rows, `p[1]` columns and depth `p[2]` (see the header).
    fn cost(p: &[usize]) -> usize {
        let (nr, nc, k) = (p[0], p[1], p[2]);
        nr * nc * (6 + 7 * k) + 3 * k * (nr + nc)
    }

    /// `k` tiles loaded into L1.
    fn panel(&self, b: &mut Builder, k: usize) -> Vec<BufferId> {
        (0..k)
            .map(|_| {
                let tile = b.alloc(b.machine.l1.id, self.l1_tile);
                b.copy_in(tile);
                tile
            })
            .collect()
    }

    /// Output tile of row panel `a` and column panel `bt`, stored.
    fn tile(&self, b: &mut Builder, a: &[BufferId], bt: &[BufferId]) {
        let m = b.machine;
        let acc = b.alloc(m.l0c.id, self.acc);
        for (&x, &y) in a.iter().zip(bt) {
            let la = b.alloc(m.l0a.id, self.l0a);
            b.move_l0(la, x);
            let lb = b.alloc(m.l0b.id, self.l0b);
            b.move_l0(lb, y);
            b.cube(Cube::Matmul, acc, lb, la);
            b.free(la);
            b.free(lb);
        }
        let out = b.alloc(m.ub.id, self.out);
        b.fixpipe(out, acc);
        b.free(acc);
        b.copy_out(out);
        b.free(out);
    }
}

impl Unit for Tiles {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        let mut p = [
            rng.range(1, MAX_SIDE),
            rng.range(1, MAX_SIDE),
            rng.range(1, self.max_k),
        ];
        if !shrink_to(&mut p, &[1, 1, 1], budget, Tiles::cost) {
            return false;
        }
        let [nr, nc, k] = p;
        let mut rows: Vec<Vec<BufferId>> = vec![Vec::new(); nr];
        let mut cols: Vec<Vec<BufferId>> = vec![Vec::new(); nc];
        let cells: Vec<(usize, usize)> = if self.rows_outside {
            (0..nr).flat_map(|i| (0..nc).map(move |j| (i, j))).collect()
        } else {
            (0..nc).flat_map(|j| (0..nr).map(move |i| (i, j))).collect()
        };
        for (i, j) in cells {
            if rows[i].is_empty() {
                rows[i] = self.panel(b, k);
            }
            if cols[j].is_empty() {
                cols[j] = self.panel(b, k);
            }
            self.tile(b, &rows[i], &cols[j]);
            // Tile (i, nc − 1) reads row panel i last, tile (nr − 1, j) column panel j, under
            // both nestings.
            for (last, panel) in [(j + 1 == nc, &rows[i]), (i + 1 == nr, &cols[j])] {
                if last {
                    panel.iter().for_each(|&t| b.free(t));
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::{builder, check_contract};

    #[test]
    fn tiles_cost_what_they_say() {
        for rows_outside in [false, true] {
            check_contract(|b| Tiles::new(b, rows_outside), Tiles::cost(&[1, 1, 1]));
            for seed in 0..10 {
                let mut b = builder();
                let mut t = Tiles::new(&b, rows_outside);
                let mut probe = Rng::new(seed);
                let p = [
                    probe.range(1, MAX_SIDE),
                    probe.range(1, MAX_SIDE),
                    probe.range(1, t.max_k),
                ];
                assert!(t.emit(&mut b, &mut Rng::new(seed), usize::MAX));
                assert_eq!((b.len(), b.live()), (Tiles::cost(&p), 0));
            }
        }
    }
}
