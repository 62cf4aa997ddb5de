//! `random`: an unstructured command DAG over the same data path, for workloads no kernel has.
//!
//! A unit is one step: load a new L1 or UB buffer (COPY_IN), move an L1 buffer to a new L0A or
//! L0B buffer, multiply the live L0A and L0B into the live or a new L0C buffer, drain L0C to a new
//! UB or L1 buffer, apply a vector op to one or two UB buffers (into a new buffer or in place),
//! copy a UB buffer to L1, store a buffer (COPY_OUT), or free one. Operands are drawn from the
//! live buffers, which gives long and crossing lifetimes, fan-in and fan-out; a step whose
//! operands are missing loads instead. The first steps follow a fixed tour through every tier.
//!
//! Invariants: at most one live buffer per L0 tier (the previous one is freed first); at most
//! [`MAX_LIVE`] live buffers in L1 and in UB; sizes at most 1/8 of L1 and 1/4 of UB, and before an
//! allocation the oldest buffers that the step does not read are freed until the buffer fits,
//! which always succeeds because a step reads at most two buffers of the tier it allocates in
//! ([`crate::generate::space`]: 3/4 of the tier). A step costs at most 3 ops (one command and
//! one new buffer's ALLOC and FREE). O(MAX_LIVE) per step.

use super::Unit;
use crate::generate::builder::Builder;
use crate::generate::machine::Space;
use crate::generate::ops::{Cube, Vector};
use crate::rng::Rng;
use lattice_lir::BufferId;

/// Most live buffers kept in L1 and in UB.
const MAX_LIVE: usize = 12;

/// Largest growth of `ops + live buffers` in one step.
const STEP_COST: usize = 3;

/// What a step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    LoadL1,
    LoadUb,
    MoveA,
    MoveB,
    Mmad,
    Drain,
    Vector,
    ToL1,
    Store,
    Free,
}

/// The first steps: one pass through every tier and pipe.
const TOUR: [Step; 9] = [
    Step::LoadL1,
    Step::MoveA,
    Step::LoadL1,
    Step::MoveB,
    Step::Mmad,
    Step::Drain,
    Step::LoadUb,
    Step::Vector,
    Step::Store,
];

/// Every step with its weight in the draw after the tour.
const WEIGHTS: [(Step, usize); 10] = [
    (Step::LoadL1, 2),
    (Step::LoadUb, 2),
    (Step::MoveA, 2),
    (Step::MoveB, 2),
    (Step::Mmad, 3),
    (Step::Drain, 2),
    (Step::Vector, 4),
    (Step::ToL1, 1),
    (Step::Store, 1),
    (Step::Free, 2),
];

/// Vector ops the random shape draws from.
const VECTOR_OPS: [Vector; 9] = [
    Vector::Add,
    Vector::Sub,
    Vector::Mul,
    Vector::Max,
    Vector::Exp,
    Vector::RowMax,
    Vector::RowSum,
    Vector::Relu,
    Vector::Cast,
];

/// The live buffers the next steps draw from.
pub(crate) struct Random {
    /// Live L1 buffers, oldest first.
    l1: Vec<BufferId>,
    /// Live UB buffers, oldest first.
    ub: Vec<BufferId>,
    l0a: Option<BufferId>,
    l0b: Option<BufferId>,
    l0c: Option<BufferId>,
    steps: usize,
}

impl Random {
    /// A generator with nothing live.
    pub(crate) fn new() -> Self {
        Random {
            l1: Vec::new(),
            ub: Vec::new(),
            l0a: None,
            l0b: None,
            l0c: None,
            steps: 0,
        }
    }

    fn draw(&self, rng: &mut Rng) -> Step {
        if let Some(&step) = TOUR.get(self.steps) {
            return step;
        }
        let total: usize = WEIGHTS.iter().map(|w| w.1).sum();
        let mut ticket = rng.range(1, total);
        for (step, weight) in WEIGHTS {
            if ticket <= weight {
                return step;
            }
            ticket -= weight;
        }
        Step::LoadL1
    }

    /// A new buffer of `size` in L1 (`to_l1`) or UB, after freeing the oldest buffers of that
    /// tier outside `keep` until it fits and the tier has room under [`MAX_LIVE`].
    fn fresh(&mut self, b: &mut Builder, to_l1: bool, size: u64, keep: &[BufferId]) -> BufferId {
        let space = if to_l1 { b.machine.l1 } else { b.machine.ub };
        let live = if to_l1 { &mut self.l1 } else { &mut self.ub };
        while live.len() >= MAX_LIVE || !b.fits(space.id, size) {
            let Some(at) = live.iter().position(|x| !keep.contains(x)) else {
                break;
            };
            b.free(live.remove(at));
        }
        let fresh = b.alloc(space.id, size);
        live.push(fresh);
        fresh
    }

    /// A new buffer in the L0 tier `space` whose live buffer is `slot`, freeing that one first.
    fn fresh_l0(b: &mut Builder, slot: &mut Option<BufferId>, space: Space, size: u64) -> BufferId {
        if let Some(old) = slot.take() {
            b.free(old);
        }
        let fresh = b.alloc(space.id, size);
        *slot = Some(fresh);
        fresh
    }

    fn size(rng: &mut Rng, space: Space, shifts: (usize, usize)) -> u64 {
        space.frac(rng.range(shifts.0, shifts.1))
    }

    /// Runs `step`; false when its operands are missing and nothing was emitted.
    fn run(&mut self, b: &mut Builder, rng: &mut Rng, step: Step) -> bool {
        let m = b.machine;
        match step {
            Step::LoadL1 | Step::LoadUb => {
                let to_l1 = step == Step::LoadL1;
                let size = if to_l1 {
                    Random::size(rng, m.l1, (3, 8))
                } else {
                    Random::size(rng, m.ub, (2, 9))
                };
                let x = self.fresh(b, to_l1, size, &[]);
                b.copy_in(x);
            }
            Step::MoveA | Step::MoveB => {
                let Some(src) = rng.pick(&self.l1) else {
                    return false;
                };
                let (slot, space) = if step == Step::MoveA {
                    (&mut self.l0a, m.l0a)
                } else {
                    (&mut self.l0b, m.l0b)
                };
                let size = Random::size(rng, space, (0, 2));
                let dst = Random::fresh_l0(b, slot, space, size);
                b.move_l0(dst, src);
            }
            Step::Mmad => {
                let (Some(a), Some(bt)) = (self.l0a, self.l0b) else {
                    return false;
                };
                let acc = match self.l0c {
                    Some(acc) if rng.chance(2, 3) => acc,
                    _ => {
                        let size = Random::size(rng, m.l0c, (0, 2));
                        Random::fresh_l0(b, &mut self.l0c, m.l0c, size)
                    }
                };
                b.cube(Cube::Matmul, acc, bt, a);
            }
            Step::Drain => {
                let Some(acc) = self.l0c else {
                    return false;
                };
                let to_l1 = rng.chance(1, 3);
                let size = if to_l1 {
                    Random::size(rng, m.l1, (3, 6))
                } else {
                    Random::size(rng, m.ub, (2, 5))
                };
                let dst = self.fresh(b, to_l1, size, &[]);
                b.fixpipe(dst, acc);
            }
            Step::Vector => {
                let Some(x) = rng.pick(&self.ub) else {
                    return false;
                };
                let y = rng.pick(&self.ub).filter(|&y| y != x && rng.chance(1, 2));
                let srcs: Vec<BufferId> = std::iter::once(x).chain(y).collect();
                let op = rng.pick(&VECTOR_OPS).unwrap_or(Vector::Add);
                if rng.chance(1, 2) {
                    let size = Random::size(rng, m.ub, (2, 9));
                    let dst = self.fresh(b, false, size, &srcs);
                    b.vector(op, dst, &srcs);
                } else {
                    b.vector(op, x, &srcs[1..]);
                }
            }
            Step::ToL1 => {
                let Some(src) = rng.pick(&self.ub) else {
                    return false;
                };
                let size = b.size(src).min(m.l1.frac(3));
                let dst = self.fresh(b, true, size, &[]);
                b.ub_to_l1(dst, src);
            }
            Step::Store => {
                let from_l1 = rng.chance(1, 2);
                let live = if from_l1 { &self.l1 } else { &self.ub };
                let Some(src) = rng.pick(live) else {
                    return false;
                };
                b.copy_out(src);
            }
            Step::Free => {
                let from_l1 = rng.chance(1, 2);
                let live = if from_l1 { &mut self.l1 } else { &mut self.ub };
                let Some(last) = live.len().checked_sub(1) else {
                    return false;
                };
                b.free(live.remove(rng.range(0, last)));
            }
        }
        true
    }
}

impl Unit for Random {
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool {
        if budget < STEP_COST {
            return false;
        }
        let step = self.draw(rng);
        if !self.run(b, rng, step) {
            // A load needs no operand, so the fallback always emits.
            let load = if rng.chance(1, 2) {
                Step::LoadL1
            } else {
                Step::LoadUb
            };
            self.run(b, rng, load);
        }
        self.steps += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::{builder, check_contract};

    #[test]
    fn steps_cost_at_most_three() {
        check_contract(|_| Random::new(), STEP_COST);
        let mut b = builder();
        let mut r = Random::new();
        let mut rng = Rng::new(5);
        for _ in 0..5000 {
            let before = b.len() + b.live();
            assert!(r.emit(&mut b, &mut rng, STEP_COST));
            assert!(b.len() + b.live() <= before + STEP_COST);
            assert!(r.l1.len() <= MAX_LIVE && r.ub.len() <= MAX_LIVE);
        }
    }
}
