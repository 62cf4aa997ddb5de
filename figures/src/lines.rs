//! Log-log line charts with markers (scaling curves): one line per series, a legend.
//!
//! Both axes are logarithmic, so every coordinate must be positive and finite; anything else is
//! a [`FigureError::Value`] rather than a point plotters would silently drop. The axes span the
//! points with a margin of a factor 1.3 each way (1..10 when there are none). Deterministic;
//! O(points).

use super::{
    draw_legend, drawing, format_value, label_font, name, render, series_color, titled,
    FigureError, Swatch, LEGEND_WIDTH,
};
use plotters::prelude::*;
use std::path::Path;

/// One named line through `points` (x, y), drawn in the given order.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The legend entry.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
}

/// Writes a log-log chart of `lines` to `path`.
pub fn log_log(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
) -> Result<(), FigureError> {
    for line in lines {
        let bad = line
            .points
            .iter()
            .flat_map(|&(x, y)| [x, y])
            .find(|v| !(v.is_finite() && *v > 0.0));
        if let Some(value) = bad {
            return Err(FigureError::Value {
                path: name(path),
                series: line.name.clone(),
                value,
                reason: "a log axis needs positive, finite values",
            });
        }
    }
    let points = || lines.iter().flat_map(|l| l.points.iter().copied());
    let x = span(points().map(|p| p.0));
    let y = span(points().map(|p| p.1));
    render(path, 560, |root| {
        let area = titled(root, title)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(16)
            .margin_right(16 + LEGEND_WIDTH)
            .x_label_area_size(40)
            .y_label_area_size(72)
            .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())
            .map_err(drawing)?;
        chart
            .configure_mesh()
            .x_label_formatter(&|v| format_value(*v))
            .y_label_formatter(&|v| format_value(*v))
            .x_desc(x_label)
            .y_desc(y_label)
            .light_line_style(TRANSPARENT)
            .label_style(label_font())
            .axis_desc_style(label_font())
            .draw()
            .map_err(drawing)?;
        for (j, line) in lines.iter().enumerate() {
            let color = series_color(j);
            chart
                .draw_series(LineSeries::new(
                    line.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(drawing)?;
            chart
                .draw_series(
                    line.points
                        .iter()
                        .map(|&p| Circle::new(p, 4, color.filled())),
                )
                .map_err(drawing)?;
        }
        let entries: Vec<_> = lines
            .iter()
            .enumerate()
            .map(|(j, l)| (l.name.clone(), Swatch::Line(series_color(j))))
            .collect();
        let plot = chart.plotting_area().strip_coord_spec();
        draw_legend(&area, &plot, &entries)?;
        Ok(())
    })
}

/// The axis range over `values` (all positive), widened by a factor 1.3 each way.
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if hi == 0.0 {
        (1.0, 10.0)
    } else {
        (lo / 1.3, hi * 1.3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{count, has_text, scratch, svg};

    fn lines() -> Vec<Line> {
        vec![
            Line {
                name: "mpas".to_owned(),
                points: vec![(1e4, 5.0), (1e5, 60.0), (1e6, 700.0)],
            },
            Line {
                name: "total".to_owned(),
                points: vec![(1e4, 20.0), (1e5, 230.0), (1e6, 2600.0)],
            },
        ]
    }

    #[test]
    fn lines_markers_and_legend_are_drawn_deterministically() {
        let dir = scratch("loglog");
        let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
        for path in [&a, &b] {
            log_log(path, "Scaling", "nodes", "time (ms)", &lines()).unwrap();
        }
        let text = svg(&a);
        assert_eq!(text, svg(&b));
        // Three markers per line, one per legend entry.
        assert_eq!(count(&a, "<circle"), 6 + 2);
        for label in ["Scaling", "nodes", "time (ms)", "mpas", "total", "1e5"] {
            assert!(has_text(&text, label), "{label} missing");
        }
    }

    #[test]
    fn empty_input_gives_a_valid_svg() {
        let dir = scratch("loglog-empty");
        let path = dir.join("empty.svg");
        log_log(&path, "nothing", "x", "y", &[]).unwrap();
        svg(&path);
        let no_points = [Line {
            name: "none".to_owned(),
            points: vec![],
        }];
        log_log(&path, "no points", "x", "y", &no_points).unwrap();
        // The legend's marker only.
        assert_eq!(count(&path, "<circle"), 1);
    }

    #[test]
    fn zero_and_negative_values_are_typed_errors() {
        let dir = scratch("loglog-bad");
        let path = dir.join("bad.svg");
        for bad in [(0.0, 1.0), (10.0, -2.0), (f64::NAN, 1.0)] {
            let mut l = lines();
            l[1].points.push(bad);
            let e = log_log(&path, "t", "x", "y", &l).unwrap_err();
            assert!(
                matches!(&e, FigureError::Value { series, .. } if series == "total"),
                "{e}"
            );
            assert!(e.to_string().contains("positive"), "{e}");
        }
        assert!(!path.exists());
    }
}
