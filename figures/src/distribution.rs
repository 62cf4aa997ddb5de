//! Distributions over power-of-two buckets (allocation sizes, ALLOC-to-last-use spans): one line
//! with markers per workload, y the share of that workload's values in each bucket.
//!
//! Bucket 0 holds the value 0; bucket k + 1 holds [2^k, 2^(k+1)). The x axis shows the buckets
//! from the lowest to the highest any series uses, labelled by their lower bounds (`1K` = 1024,
//! `1M` = 2^20); each line runs over its own lowest to highest bucket, zeros in between
//! included. A series without values has a legend entry (`n=0`) and no line. Deterministic;
//! O(values + buckets · series).

use super::{
    category_chart, draw_legend, drawing, render, series_color, titled, FigureError, Swatch,
};
use plotters::prelude::*;
use std::path::Path;

/// Most bucket labels on the x axis (more would overlap); beyond it every k-th is labelled.
const MAX_LABELS: usize = 20;

/// The bucket of `v`: 0 for 0, k + 1 for values in [2^k, 2^(k+1)).
pub fn bucket(v: u64) -> usize {
    if v == 0 {
        0
    } else {
        64 - v.leading_zeros() as usize
    }
}

/// The lower bound of bucket `b`, short: `0`, `1`, …, `512`, `1K`, …, `512K`, `1M`, ….
pub fn bucket_label(b: usize) -> String {
    if b == 0 {
        return "0".to_owned();
    }
    let k = b - 1;
    match k {
        0..10 => format!("{}", 1u64 << k),
        10..20 => format!("{}K", 1u64 << (k - 10)),
        20..30 => format!("{}M", 1u64 << (k - 20)),
        30..40 => format!("{}G", 1u64 << (k - 30)),
        _ => format!("2^{k}"),
    }
}

/// Writes the distribution of each named series of values over log2 buckets to `path`.
pub fn log2_distribution(
    path: &Path,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<u64>)],
) -> Result<(), FigureError> {
    // Per series: its first bucket and the share of its values in each bucket from there.
    let shares: Vec<(usize, Vec<f64>)> = series
        .iter()
        .map(|(_, values)| {
            let mut counts = Vec::new();
            for &v in values {
                let b = bucket(v);
                if counts.len() <= b {
                    counts.resize(b + 1, 0u64);
                }
                counts[b] += 1;
            }
            let first = counts.iter().position(|&c| c > 0).unwrap_or(counts.len());
            let total = values.len().max(1) as f64;
            (
                first,
                counts[first..].iter().map(|&c| c as f64 / total).collect(),
            )
        })
        .collect();
    let used = shares.iter().filter(|(_, s)| !s.is_empty());
    let lo = used.clone().map(|(first, _)| *first).min().unwrap_or(0);
    let hi = used
        .map(|(first, s)| first + s.len())
        .max()
        .unwrap_or(lo + 1);
    let n = hi - lo;
    let top = shares
        .iter()
        .flat_map(|(_, s)| s.iter().copied())
        .fold(0.0f64, f64::max);
    let top = if top > 0.0 {
        (top * 1.12).min(1.05)
    } else {
        1.0
    };
    render(path, 520, |root| {
        let area = titled(root, title)?;
        let label = |x: &f64| bucket_label(lo + x.floor() as usize);
        let descs = (Some(x_label), "share of values");
        let mut chart = category_chart(&area, n, 0.0..top, n.min(MAX_LABELS), &label, descs)?;
        for (j, (first, share)) in shares.iter().enumerate() {
            let color = series_color(j);
            let points: Vec<(f64, f64)> = share
                .iter()
                .enumerate()
                .map(|(i, &s)| ((first + i - lo) as f64 + 0.5, s))
                .collect();
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(drawing)?;
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(drawing)?;
        }
        let entries: Vec<_> = series
            .iter()
            .enumerate()
            .map(|(j, (name, values))| {
                let label = format!("{name} (n={})", values.len());
                (label, Swatch::Line(series_color(j)))
            })
            .collect();
        let plot = chart.plotting_area().strip_coord_spec();
        draw_legend(&area, &plot, &entries)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{count, has_text, scratch, svg};

    #[test]
    fn buckets_are_powers_of_two_with_zero_apart() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(1), 1);
        assert_eq!(bucket(2), 2);
        assert_eq!(bucket(3), 2);
        assert_eq!(bucket(4), 3);
        assert_eq!(bucket(u64::MAX), 64);
        assert_eq!(bucket_label(0), "0");
        assert_eq!(bucket_label(bucket(512)), "512");
        assert_eq!(bucket_label(bucket(4096)), "4K");
        assert_eq!(bucket_label(bucket(3 << 20)), "2M");
    }

    #[test]
    fn shares_are_drawn_per_bucket_deterministically() {
        let dir = scratch("distribution");
        let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
        let series = vec![
            ("Conv_Case0".to_owned(), vec![32, 32, 64, 4096]),
            ("Matmul_Case0".to_owned(), vec![0, 1024]),
            ("empty".to_owned(), vec![]),
        ];
        for path in [&a, &b] {
            log2_distribution(
                path,
                "Allocation sizes",
                "bytes (bucket lower bound)",
                &series,
            )
            .unwrap();
        }
        let text = svg(&a);
        assert_eq!(text, svg(&b));
        // 32..4096 spans buckets 6..13: 8 markers; 0..1024 spans buckets 0..11: 12 markers;
        // one more per legend entry.
        assert_eq!(count(&a, "<circle"), 8 + 12 + 3);
        for label in [
            "Allocation sizes",
            "Conv_Case0 (n=4)",
            "empty (n=0)",
            "4K",
            "share of values",
        ] {
            assert!(has_text(&text, label), "{label} missing");
        }
    }

    #[test]
    fn empty_input_gives_a_valid_svg() {
        let dir = scratch("distribution-empty");
        let path = dir.join("empty.svg");
        log2_distribution(&path, "nothing", "x", &[]).unwrap();
        svg(&path);
    }
}
