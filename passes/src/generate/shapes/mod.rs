//! The workload shapes: each emits self-contained *units* (a matmul output block, an attention
//! query block, a conv block, a random step, a resnet layer, an attention head, a block of
//! matmul tiles) until the node budget is spent.
//!
//! Contract of a unit, which the generator's exact node count rests on: given a budget, it either
//! emits nothing and returns false (the budget is below its smallest unit), or emits ops that
//! raise `ops emitted + buffers still live` by at most the budget. Each shape also keeps the two
//! σ invariants of the module: an L0 buffer is freed before the next one of its tier is
//! allocated, and every allocation satisfies the size bound of [`super::space`], so the trivial
//! plan places it. O(unit size) per unit.

mod attention;
mod conv;
mod heads;
mod matmul;
mod random;
mod resnet;
mod reuse;
mod tiles;

use super::builder::Builder;
use super::Shape;
use crate::rng::Rng;

/// A shape's generator, with the per-module choices (tile sizes, …) it made up front.
pub(crate) trait Unit {
    /// Emits one unit within `budget` (see the module docs); false when none fits.
    fn emit(&mut self, b: &mut Builder, rng: &mut Rng, budget: usize) -> bool;
}

/// The generator of `shape`, its per-module parameters drawn from `rng`.
pub(crate) fn unit_of(shape: Shape, b: &Builder, rng: &mut Rng) -> Box<dyn Unit> {
    match shape {
        Shape::Matmul => Box::new(matmul::Matmul::new(b, rng)),
        Shape::Attention => Box::new(attention::Attention::new(b, rng)),
        Shape::Conv => Box::new(conv::Conv::new(b, rng)),
        Shape::Random => Box::new(random::Random::new()),
        Shape::Resnet => Box::new(resnet::Resnet::new()),
        Shape::HeadsKv => Box::new(heads::Heads::new(b, true)),
        Shape::HeadsQ => Box::new(heads::Heads::new(b, false)),
        Shape::MatmulRows => Box::new(tiles::Tiles::new(b, true)),
        Shape::MatmulCols => Box::new(tiles::Tiles::new(b, false)),
    }
}

/// The generator of the oracle's `reuse` grids (not a [`Shape`]: see
/// [`crate::generate::generate_reuse`]).
pub(crate) fn reuse(b: &Builder) -> Box<dyn Unit> {
    Box::new(reuse::Reuse::new(b))
}

/// Shrinks the parameters `params` of a unit (each at least its floor in `floors`) until `cost`
/// fits `budget`, lowering the first parameter above its floor first. False when even the floors
/// cost too much.
fn shrink_to(
    params: &mut [usize],
    floors: &[usize],
    budget: usize,
    cost: impl Fn(&[usize]) -> usize,
) -> bool {
    loop {
        if cost(params) <= budget {
            return true;
        }
        let Some(i) = params.iter().zip(floors).position(|(&p, &floor)| p > floor) else {
            return false;
        };
        params[i] -= 1;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::generate::machine::Machine;
    use lattice_lir::Target;

    /// A fresh builder on the contest target.
    pub(crate) fn builder() -> Builder {
        let target = Target::contest();
        let machine = Machine::resolve(&target).unwrap();
        Builder::new("t".into(), target, machine)
    }

    /// Emits a unit of a fresh generator from `make` on a fresh builder for growing budgets and
    /// checks the unit contract: nothing below the smallest unit, never more than the budget.
    pub(crate) fn check_contract<U: Unit>(make: impl Fn(&Builder) -> U, smallest: usize) {
        let mut rng = Rng::new(3);
        for budget in 0..400 {
            let mut b = builder();
            let emitted = make(&b).emit(&mut b, &mut rng, budget);
            let grew = b.len() + b.live();
            assert_eq!(emitted, budget >= smallest, "budget {budget}");
            assert!(grew <= budget, "budget {budget}: grew by {grew}");
        }
    }

    #[test]
    fn shrink_lowers_params_in_order() {
        let mut p = [3, 2];
        assert!(shrink_to(&mut p, &[1, 1], 3, |p| p[0] + p[1]));
        assert_eq!(p, [1, 2]);
        assert!(!shrink_to(&mut p, &[1, 1], 1, |p| p[0] + p[1]));
        assert_eq!(p, [1, 1]);
    }
}
