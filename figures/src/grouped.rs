//! Grouped bar charts: one group per category, one bar per series, an optional dashed
//! reference line (for example 1.0, the baseline that the values are normalized to).
//!
//! The y axis starts at 0 (or below the lowest negative value) with headroom above the highest
//! bar or the reference; `None` values leave a gap in their group. Deterministic; O(values).

use super::{
    bar_range, category_at, category_chart, check_series, draw_legend, drawing, fill_legend, name,
    render, series_color, titled, FigureError, Series,
};
use plotters::prelude::*;
use std::path::Path;

/// Share of a category's width its bars take together.
const GROUP_WIDTH: f64 = 0.8;

/// Writes a grouped bar chart of `series` over `categories` to `path`.
pub fn grouped_bars(
    path: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[Series],
    reference: Option<f64>,
) -> Result<(), FigureError> {
    check_series(path, categories.len(), series)?;
    if let Some(value) = reference.filter(|r| !r.is_finite()) {
        return Err(FigureError::Value {
            path: name(path),
            series: "reference".to_owned(),
            value,
            reason: "values must be finite",
        });
    }
    let values = series
        .iter()
        .flat_map(|s| s.values.iter().flatten().copied())
        .chain(reference);
    let (lo, hi) = bar_range(values);
    let n = categories.len();
    render(path, 520, |root| {
        let area = titled(root, title)?;
        let label = |x: &f64| category_at(categories, *x);
        let mut chart = category_chart(&area, n, lo..hi, n, &label, (None, y_label))?;
        let width = GROUP_WIDTH / series.len().max(1) as f64;
        for (j, s) in series.iter().enumerate() {
            let color = series_color(j);
            let left = (1.0 - GROUP_WIDTH) / 2.0 + j as f64 * width;
            let bars = s.values.iter().enumerate().filter_map(|(i, v)| {
                let x0 = i as f64 + left;
                v.map(|v| Rectangle::new([(x0, 0.0), (x0 + width, v)], color.filled()))
            });
            chart.draw_series(bars).map_err(drawing)?;
        }
        if let Some(r) = reference {
            let line = DashedLineSeries::new(
                [(0.0, r), (n.max(1) as f64, r)],
                8,
                5,
                BLACK.stroke_width(1),
            );
            chart.draw_series(line).map_err(drawing)?;
        }
        let entries = fill_legend(series.iter().map(|s| s.name.as_str()));
        let plot = chart.plotting_area().strip_coord_spec();
        draw_legend(&area, &plot, &entries)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{count, has_text, scratch, svg};

    fn categories() -> Vec<String> {
        vec!["Conv_Case0".to_owned(), "Matmul_Case1".to_owned()]
    }

    fn series() -> Vec<Series> {
        vec![
            Series {
                name: "Base".to_owned(),
                values: vec![Some(1.0), Some(1.0)],
            },
            Series {
                name: "LATTICE".to_owned(),
                values: vec![Some(0.7), None],
            },
        ]
    }

    #[test]
    fn bars_legend_and_reference_are_drawn_deterministically() {
        let dir = scratch("grouped");
        let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
        for path in [&a, &b] {
            grouped_bars(
                path,
                "Peak vs Base",
                "peak / Base",
                &categories(),
                &series(),
                Some(1.0),
            )
            .unwrap();
        }
        let text = svg(&a);
        assert_eq!(text, svg(&b));
        for label in [
            "Peak vs Base",
            "peak / Base",
            "Conv_Case0",
            "Matmul_Case1",
            "LATTICE",
        ] {
            assert!(has_text(&text, label), "{label} missing");
        }
        // Three bars (the None is skipped), so one rectangle fewer than with it present.
        let with_gap = count(&a, "<rect");
        let mut full = series();
        full[1].values[1] = Some(0.9);
        grouped_bars(
            &b,
            "Peak vs Base",
            "peak / Base",
            &categories(),
            &full,
            Some(1.0),
        )
        .unwrap();
        assert_eq!(count(&b, "<rect"), with_gap + 1);
        assert!(text.contains("stroke-dasharray") || text.matches("<polyline").count() > 1);
    }

    #[test]
    fn empty_input_gives_a_valid_svg() {
        let dir = scratch("grouped-empty");
        let path = dir.join("empty.svg");
        grouped_bars(&path, "nothing", "y", &[], &[], None).unwrap();
        svg(&path);
    }

    #[test]
    fn bad_values_are_typed_errors() {
        let dir = scratch("grouped-bad");
        let path = dir.join("bad.svg");
        let mut short = series();
        short[0].values.pop();
        let e = grouped_bars(&path, "t", "y", &categories(), &short, None).unwrap_err();
        assert!(
            matches!(
                e,
                FigureError::Length {
                    expected: 2,
                    found: 1,
                    ..
                }
            ),
            "{e}"
        );
        let mut nan = series();
        nan[0].values[0] = Some(f64::NAN);
        let e = grouped_bars(&path, "t", "y", &categories(), &nan, None).unwrap_err();
        assert!(e.to_string().contains("finite"), "{e}");
        assert!(!path.exists());
    }

    #[test]
    fn an_unwritable_path_names_the_file() {
        let path = Path::new("/nonexistent-dir/x.svg");
        let e = grouped_bars(path, "t", "y", &categories(), &series(), None).unwrap_err();
        assert!(matches!(e, FigureError::Io(_)));
        assert!(e.to_string().contains("/nonexistent-dir/x.svg"), "{e}");
    }
}
