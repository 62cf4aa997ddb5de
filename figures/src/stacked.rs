//! Stacked bar charts: one bar per category, one layer per series stacked bottom-up in series
//! order, the bar's total printed above it (compile-time composition, command mix as shares).
//!
//! Layers must not be negative (a stack of signed parts has no honest picture); `None` counts
//! as an absent layer. Deterministic; O(values).

use super::{
    bar_range, category_at, category_chart, check_series, draw_legend, drawing, fill_legend,
    format_value, label_font, name, render, series_color, titled, FigureError, Series,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Share of a category's width its bar takes.
const BAR_WIDTH: f64 = 0.6;

/// Writes a stacked bar chart of `layers` over `categories` to `path`.
pub fn stacked_bars(
    path: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    layers: &[Series],
) -> Result<(), FigureError> {
    check_series(path, categories.len(), layers)?;
    for layer in layers {
        if let Some(&value) = layer.values.iter().flatten().find(|v| **v < 0.0) {
            return Err(FigureError::Value {
                path: name(path),
                series: layer.name.clone(),
                value,
                reason: "stacked layers must not be negative",
            });
        }
    }
    let n = categories.len();
    let totals: Vec<f64> = (0..n)
        .map(|i| layers.iter().filter_map(|l| l.values[i]).sum())
        .collect();
    let (lo, hi) = bar_range(totals.iter().copied());
    render(path, 520, |root| {
        let area = titled(root, title)?;
        let label = |x: &f64| category_at(categories, *x);
        let mut chart = category_chart(&area, n, lo..hi, n, &label, (None, y_label))?;
        let mut base = vec![0.0; n];
        let left = (1.0 - BAR_WIDTH) / 2.0;
        for (j, layer) in layers.iter().enumerate() {
            let color = series_color(j);
            let mut parts = Vec::new();
            for (i, v) in layer.values.iter().enumerate() {
                if let Some(v) = v.filter(|v| *v > 0.0) {
                    let x0 = i as f64 + left;
                    parts.push(Rectangle::new(
                        [(x0, base[i]), (x0 + BAR_WIDTH, base[i] + v)],
                        color.filled(),
                    ));
                    base[i] += v;
                }
            }
            chart.draw_series(parts).map_err(drawing)?;
        }
        let above = label_font().pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(totals.iter().enumerate().map(|(i, total)| {
                Text::new(
                    format_value(*total),
                    (i as f64 + 0.5, *total),
                    above.clone(),
                )
            }))
            .map_err(drawing)?;
        // Top-down like the stack itself.
        let mut entries = fill_legend(layers.iter().map(|s| s.name.as_str()));
        entries.reverse();
        let plot = chart.plotting_area().strip_coord_spec();
        draw_legend(&area, &plot, &entries)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{count, has_text, scratch, svg};

    fn layers() -> Vec<Series> {
        vec![
            Series {
                name: "MPAS".to_owned(),
                values: vec![Some(2.0), Some(10.0)],
            },
            Series {
                name: "DLR".to_owned(),
                values: vec![Some(1.5), None],
            },
        ]
    }

    fn categories() -> Vec<String> {
        vec!["FlashAttention_Case0".to_owned(), "Matmul_Case1".to_owned()]
    }

    #[test]
    fn layers_stack_and_totals_are_printed() {
        let dir = scratch("stacked");
        let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
        for path in [&a, &b] {
            stacked_bars(path, "Compile time", "ms", &categories(), &layers()).unwrap();
        }
        let text = svg(&a);
        assert_eq!(text, svg(&b));
        assert!(has_text(&text, "3.5"), "the first total");
        assert!(has_text(&text, "10"), "the second total");
        let three = count(&a, "<rect");
        let mut full = layers();
        full[1].values[1] = Some(1.0);
        stacked_bars(&b, "Compile time", "ms", &categories(), &full).unwrap();
        assert_eq!(count(&b, "<rect"), three + 1);
    }

    #[test]
    fn empty_input_gives_a_valid_svg() {
        let dir = scratch("stacked-empty");
        let path = dir.join("empty.svg");
        stacked_bars(&path, "nothing", "y", &[], &[]).unwrap();
        svg(&path);
    }

    #[test]
    fn negative_layers_are_rejected() {
        let dir = scratch("stacked-bad");
        let path = dir.join("bad.svg");
        let mut bad = layers();
        bad[0].values[1] = Some(-1.0);
        let e = stacked_bars(&path, "t", "y", &categories(), &bad).unwrap_err();
        assert!(e.to_string().contains("negative"), "{e}");
        assert!(!path.exists());
    }
}
