//! A category axis for plotters: linear over `0..n`, with one tick in the middle of each of the
//! `n` unit slots, so bars, rows and buckets are placed by plain `f64` coordinates while labels
//! sit under their centers (the caller's label formatter names slot `floor(x)`).
//!
//! plotters' own `WithKeyPoints` over `f64` lacks a value formatter, and its segmented axes
//! cannot place several bars inside one segment; this wraps its linear `f64` axis instead.
//! When plotters asks for fewer ticks than slots, every k-th slot is labelled. O(n) per query.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use std::ops::Range;

/// `n` slots of width 1 on `0..n` (an empty axis still spans `0..1`).
#[derive(Clone)]
pub struct CategoryAxis {
    linear: RangedCoordf64,
    slots: usize,
}

impl CategoryAxis {
    /// The axis of `slots` categories.
    pub fn new(slots: usize) -> Self {
        CategoryAxis {
            linear: (0.0..slots.max(1) as f64).into(),
            slots,
        }
    }
}

impl Ranged for CategoryAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.linear.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points();
        if hint.weight().allow_light_points() || max == 0 {
            return Vec::new();
        }
        let step = self.slots.div_ceil(max).max(1);
        (0..self.slots)
            .step_by(step)
            .map(|i| i as f64 + 0.5)
            .collect()
    }

    fn range(&self) -> Range<f64> {
        self.linear.range()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::coord::ranged1d::BoldPoints;

    #[test]
    fn ticks_sit_in_the_middle_of_each_slot() {
        let axis = CategoryAxis::new(3);
        assert_eq!(axis.key_points(BoldPoints(10)), vec![0.5, 1.5, 2.5]);
        assert_eq!(axis.key_points(BoldPoints(2)), vec![0.5, 2.5]);
        assert!(CategoryAxis::new(0).key_points(BoldPoints(10)).is_empty());
        assert_eq!(axis.map(&1.5, (0, 300)), 150);
    }
}
