//! The metrics the studies compare (paper §V-B), read off the replay's [`Metrics`], and the
//! aggregate arithmetic the paper uses for them: ratios to a reference, geometric means of
//! per-workload ratios, percentage reductions and per-workload ranges.
//!
//! Zero needs a rule, since traffic and spills can be 0: a ratio to a zero reference is 1 when
//! the value is also 0 and undefined otherwise; undefined ratios are left out of a mean (and the
//! report shows "n/a" where nothing is left). All functions are O(n) in their inputs.

use lattice_passes::verify::Metrics;
use serde::Serialize;

/// A compared metric; lower is better for all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Logical L1+UB peak (pre-placement).
    LogicalPeak,
    /// Physical resident peak over every tier (post-placement).
    PhysicalPeak,
    /// Extra DDR traffic of the spills.
    ExtraTraffic,
    /// SPILL_OUT count.
    Spills,
    /// Replayed makespan.
    Makespan,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 5] = [
        Metric::LogicalPeak,
        Metric::PhysicalPeak,
        Metric::ExtraTraffic,
        Metric::Spills,
        Metric::Makespan,
    ];

    /// Column label.
    pub fn label(self) -> &'static str {
        match self {
            Metric::LogicalPeak => "logical peak",
            Metric::PhysicalPeak => "physical peak",
            Metric::ExtraTraffic => "extra traffic",
            Metric::Spills => "spills",
            Metric::Makespan => "makespan",
        }
    }

    /// The value in `metrics`.
    pub fn of(self, metrics: &Metrics) -> u64 {
        match self {
            Metric::LogicalPeak => metrics.logical_peak,
            Metric::PhysicalPeak => metrics.physical_peak,
            Metric::ExtraTraffic => metrics.extra_traffic,
            Metric::Spills => metrics.spill_count,
            Metric::Makespan => metrics.makespan,
        }
    }
}

/// `value / reference`, with the zero rule of the module header.
pub fn ratio(value: u64, reference: u64) -> Option<f64> {
    match (value, reference) {
        (0, 0) => Some(1.0),
        (_, 0) => None,
        (v, r) => Some(v as f64 / r as f64),
    }
}

/// Geometric mean of the defined ratios (`None` when none is defined; 0 when one is 0).
pub fn geomean(ratios: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let (mut log_sum, mut n, mut zero) = (0.0f64, 0u32, false);
    for r in ratios.into_iter().flatten() {
        n += 1;
        if r == 0.0 {
            zero = true;
        } else {
            log_sum += r.ln();
        }
    }
    match n {
        0 => None,
        _ if zero => Some(0.0),
        _ => Some((log_sum / f64::from(n)).exp()),
    }
}

/// How much lower `value` is than `reference`, in percent (negative: higher).
pub fn reduction_percent(value: u64, reference: u64) -> Option<f64> {
    ratio(value, reference).map(|r| (1.0 - r) * 100.0)
}

/// The spread of `values` as a share of the largest: (max − min) / max in percent (0 when all are
/// 0 or there are none).
pub fn range_percent(values: &[u64]) -> f64 {
    let max = values.iter().copied().max().unwrap_or(0);
    let min = values.iter().copied().min().unwrap_or(0);
    if max == 0 {
        0.0
    } else {
        (max - min) as f64 / max as f64 * 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_references_follow_the_rule() {
        assert_eq!(ratio(0, 0), Some(1.0));
        assert_eq!(ratio(3, 0), None);
        assert_eq!(ratio(0, 4), Some(0.0));
        assert_eq!(reduction_percent(3, 4), Some(25.0));
    }

    #[test]
    fn geomean_skips_undefined_ratios() {
        let g = geomean([Some(2.0), None, Some(8.0)]).expect("two defined");
        assert!((g - 4.0).abs() < 1e-12);
        assert_eq!(geomean([None, None]), None);
        assert_eq!(geomean([Some(0.0), Some(5.0)]), Some(0.0));
    }

    #[test]
    fn range_is_relative_to_the_largest() {
        assert_eq!(range_percent(&[50, 100, 75]), 50.0);
        assert_eq!(range_percent(&[0, 0]), 0.0);
        assert_eq!(range_percent(&[]), 0.0);
    }
}
