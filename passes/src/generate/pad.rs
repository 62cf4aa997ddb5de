//! Padding: small self-contained load/compute/store groups that bring a module to exactly the
//! requested number of ops once the shape's units no longer fit.
//!
//! A group of `g ≥ 3` ops is ALLOC, COPY_IN, FREE of an L1 buffer (g = 3, a prefetch nobody
//! reads) or ALLOC, COPY_IN, `g − 4` in-place vector ops, COPY_OUT, FREE of a UB buffer. Groups run
//! on an empty machine (every other buffer is freed first), one buffer at a time, so they fit any
//! tier and keep every σ invariant. Any count `r ≥ 3` splits into groups of 3 to 6 ops; a count of
//! 1 or 2 cannot be met and gives one group of 3. O(r).

use super::builder::Builder;
use super::ops::Vector;
use crate::rng::Rng;

/// The smallest group, and so the fewest ops padding can add.
pub(crate) const MIN_GROUP: usize = 3;

/// The largest group drawn while more than one group remains.
const MAX_GROUP: usize = 6;

/// Emits groups totalling `count` ops (3 when `count` is 1 or 2).
pub(crate) fn pad(b: &mut Builder, rng: &mut Rng, count: usize) {
    let mut left = count;
    while left > 0 {
        let g = if left <= MAX_GROUP {
            left.max(MIN_GROUP)
        } else {
            // Leave at least one whole group behind.
            let most = (left - 2 * MIN_GROUP).min(MAX_GROUP - MIN_GROUP);
            MIN_GROUP + rng.range(0, most)
        };
        group(b, rng, g);
        left = left.saturating_sub(g);
    }
}

/// One group of exactly `g ≥ 3` ops.
fn group(b: &mut Builder, rng: &mut Rng, g: usize) {
    let m = b.machine;
    if g == MIN_GROUP {
        let x = b.alloc(m.l1.id, m.l1.frac(rng.range(4, 8)));
        b.copy_in(x);
        b.free(x);
        return;
    }
    let x = b.alloc(m.ub.id, m.ub.frac(rng.range(3, 9)));
    b.copy_in(x);
    for _ in 4..g {
        let op = rng.pick(&Vector::ELEMENTWISE).unwrap_or(Vector::Relu);
        b.vector(op, x, &[]);
    }
    b.copy_out(x);
    b.free(x);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::shapes::tests::builder;

    #[test]
    fn pads_exactly() {
        let mut rng = Rng::new(2);
        for count in 0..60 {
            let mut b = builder();
            pad(&mut b, &mut rng, count);
            let expected = if count == 0 { 0 } else { count.max(MIN_GROUP) };
            assert_eq!((b.len(), b.live()), (expected, 0), "count {count}");
        }
    }
}
