//! `attention`: flash attention with an online softmax, as in the FlashAttention cases.
//!
//! A unit is one query block: Q is copied into L1 once and reused by `j` key/value blocks. Per
//! block: S = Q·Kᵀ (MOVEs to L0A/L0B, MATMUL into L0C, FIXPIPE to UB), the row max, the running
//! max and its correction of the running sum and output (MAX, SUB, EXP, MUL), P = exp(S − m),
//! its row sum, P back to L1 (COPY on MTE3), O = P·V through L0 again, and the output
//! accumulation in UB. The unit ends by scaling the output with 1/l (REC, MUL) and COPY_OUT.
//! Running max, sum and output live across blocks; the first block's values become them.
//!
//! Sizes: L1 tiles 1/8 or 1/16 of L1, L0 tiles 1/2 of L0A/L0B, scores 1/2 of L0C, UB rows 1/8
//! of UB and row statistics 1/512 of UB. At most four buffers are live in UB when one is
//! allocated, so a request needs at most five rows (5/8 of UB) under the bound of
//! [`crate::generate::space`]. Cost: 50j + 1 ops. O(cost).

use super::{shrink_to, Unit};
use crate::generate::builder::Builder;
use crate::generate::ops::{Cube, Vector};
use crate::rng::Rng;
use lattice_lir::BufferId;

/// Most key/value blocks per query block.
const MAX_BLOCKS: usize = 6;

/// The per-module tile sizes.
pub(crate) struct Attention {
    tile: u64,
    l0a: u64,
    l0b: u64,
    score: u64,
    row: u64,
    stat: u64,
}

/// The running state of the online softmax across blocks.
pub(crate) struct Running {
    max: BufferId,
    sum: BufferId,
    out: BufferId,
}

impl Attention {
    /// Draws the tile sizes.
    pub(crate) fn new(b: &Builder, rng: &mut Rng) -> Self {
        Attention::sized(b, rng.range(3, 4), 3)
    }

    /// L1 tiles of `span >> tile_shift`, UB rows of `span >> row_shift`, the rest as [`Self::new`].
    pub(crate) fn sized(b: &Builder, tile_shift: usize, row_shift: usize) -> Self {
        let m = b.machine;
        Attention {
            tile: m.l1.frac(tile_shift),
            l0a: m.l0a.frac(1),
            l0b: m.l0b.frac(1),
            score: m.l0c.frac(1),
            row: m.ub.frac(row_shift),
            stat: m.ub.frac(9),
        }
    }

    /// A new L1 tile loaded from outside.
    pub(crate) fn load(&self, b: &mut Builder) -> BufferId {
        let tile = b.alloc(b.machine.l1.id, self.tile);
        b.copy_in(tile);
        tile
    }

    /// Ops of a unit of `p[0]` blocks.
    fn cost(p: &[usize]) -> usize {
        50 * p[0] + 1
    }

    /// `acc` (L0C) = `a` (L1) × `b` (L1) through L0A/L0B; frees `b` when `consume_b`.
    fn product(&self, bld: &mut Builder, a: BufferId, b: BufferId, consume_b: bool) -> BufferId {
        let m = bld.machine;
        let acc = bld.alloc(m.l0c.id, self.score);
        let la = bld.alloc(m.l0a.id, self.l0a);
        bld.move_l0(la, a);
        let lb = bld.alloc(m.l0b.id, self.l0b);
        bld.move_l0(lb, b);
        if consume_b {
            bld.free(b);
        }
        bld.cube(Cube::Matmul, acc, lb, la);
        bld.free(la);
        bld.free(lb);
        acc
    }

    /// The L0C result `acc` → a new UB row buffer; frees `acc`.
    fn drain(&self, b: &mut Builder, acc: BufferId) -> BufferId {
        let row = b.alloc(b.machine.ub.id, self.row);
        b.fixpipe(row, acc);
        b.free(acc);
        row
    }

    /// One key/value block against `q`; creates the running state on the first block. `kv`:
    /// the key and value tiles when the caller loaded them (and frees them); without, each is
    /// loaded here just before its product and freed after it.
    pub(crate) fn block(
        &self,
        b: &mut Builder,
        q: BufferId,
        kv: Option<(BufferId, BufferId)>,
        run: Option<Running>,
    ) -> Running {
        let m = b.machine;
        let k = kv.map_or_else(|| self.load(b), |(k, _)| k);
        let s_acc = self.product(b, q, k, kv.is_none());
        let s = self.drain(b, s_acc);
        let mj = b.alloc(m.ub.id, self.stat);
        b.vector(Vector::RowMax, mj, &[s]);
        let max = match &run {
            Some(r) => {
                b.vector(Vector::Max, r.max, &[mj]);
                b.vector(Vector::Sub, mj, &[r.max]);
                b.vector(Vector::Exp, mj, &[]);
                b.vector(Vector::Mul, r.sum, &[mj]);
                b.vector(Vector::Mul, r.out, &[mj]);
                b.free(mj);
                r.max
            }
            None => mj,
        };
        b.vector(Vector::Sub, s, &[max]);
        let p = b.alloc(m.ub.id, self.row);
        b.vector(Vector::Exp, p, &[s]);
        b.free(s);
        let lj = b.alloc(m.ub.id, self.stat);
        b.vector(Vector::RowSum, lj, &[p]);
        let sum = match &run {
            Some(r) => {
                b.vector(Vector::Add, r.sum, &[lj]);
                b.free(lj);
                r.sum
            }
            None => lj,
        };
        let p1 = b.alloc(m.l1.id, self.tile);
        b.ub_to_l1(p1, p);
        b.free(p);
        let v = kv.map_or_else(|| self.load(b), |(_, v)| v);
        let o_acc = self.product(b, p1, v, false);
        b.free(p1);
        if kv.is_none() {
            b.free(v);
        }
        let o = self.drain(b, o_acc);
        let out = match &run {
            Some(r) => {
                b.vector(Vector::Add, r.out, &[o]);
                b.free(o);
                r.out
            }
            None => o,
        };
        Running { max, sum, out }
    }

    /// Scales the output of query block `q` by 1/l, stores it and frees `q` and its state.
    pub(crate) fn finish(&self, b: &mut Builder, q: BufferId, run: Option<Running>) {
        if let Some(r) = run {
            let rec = b.alloc(b.machine.ub.id, self.stat);
            b.vector(Vector::Rec, rec, &[r.sum]);
            b.vector(Vector::Mul, r.out, &[rec]);
            b.free(rec);
            b.free(r.sum);
            b.free(r.max);
            b.copy_out(r.out);
            b.free(r.out);
        }
        b.free(q);
    }
}

impl Unit for Attention {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        let mut p = [rng.range(1, MAX_BLOCKS)];
        if !shrink_to(&mut p, &[1], budget, Attention::cost) {
            return false;
        }
        let q = self.load(b);
        let mut run = None;
        for _ in 0..p[0] {
            run = Some(self.block(b, q, None, run));
        }
        self.finish(b, q, run);
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
            |b| Attention::new(b, &mut Rng::new(1)),
            Attention::cost(&[1]),
        );
        let mut a = Attention::new(&builder(), &mut Rng::new(1));
        for blocks in 1..=MAX_BLOCKS {
            let mut b = builder();
            let budget = Attention::cost(&[blocks]);
            assert!(a.emit(&mut b, &mut Rng::new(blocks as u64), budget));
            // Exactly the cost of the number of blocks drawn (at most `blocks`).
            assert!(b.len() <= budget && b.live() == 0);
            assert_eq!((b.len() - 1) % 50, 0);
        }
        let mut b = builder();
        assert!(a.emit(&mut b, &mut Rng::new(0), Attention::cost(&[2]) - 1));
        assert_eq!(b.len(), Attention::cost(&[1]));
    }
}
