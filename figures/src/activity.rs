//! Per-pipe activity (Gantt) charts: one panel per label (for example Freeze and CPE) on a
//! shared time axis normalized to `horizon`, one row per pipe in the order given; compute pipes
//! orange, data-movement pipes (names starting with `MTE`) teal.
//!
//! Intervals are mapped to whole pixel columns with integer arithmetic (each at least one pixel
//! wide); the busy pixels of each color are drawn as their union ([`cover`]), so tens of
//! thousands of commands stay well under 1 MB. Zero-length intervals draw nothing. An interval on
//! a pipe not listed, ending before it starts or after `horizon` is a [`FigureError::Panel`].
//! Deterministic; O(intervals · row height + panel pixels).

use super::axis::CategoryAxis;
use super::cover::{cover, PixelRect};
use super::{
    caption_font, drawing, fill_and_frame, format_value, label_font, name, render, titled,
    FigureError,
};
use super::{draw_legend, Swatch, COMPUTE, LEGEND_WIDTH, TRANSFER};
use plotters::prelude::*;
use std::path::Path;

/// A pipe busy over `start..end` (cycles).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    /// The pipe's name.
    pub pipe: String,
    /// First busy cycle.
    pub start: u64,
    /// One past the last busy cycle.
    pub end: u64,
}

/// One panel: a label and what ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActivityPanel {
    /// The panel's caption (`Freeze`, `CPE`, …).
    pub label: String,
    /// The busy intervals, on any pipe of the figure.
    pub intervals: Vec<Interval>,
}

const ROW_HEIGHT: u32 = 34;

/// Whether `pipe` moves data (drawn teal) rather than computes (orange).
pub fn is_transfer(pipe: &str) -> bool {
    pipe.starts_with("MTE")
}

/// Writes the activity chart of `panels` over `pipes` to `path`.
pub fn pipe_activity(
    path: &Path,
    title: &str,
    pipes: &[String],
    panels: &[ActivityPanel],
    horizon: u64,
) -> Result<(), FigureError> {
    let rows = panels
        .iter()
        .map(|panel| check(path, pipes, panel, horizon))
        .collect::<Result<Vec<_>, _>>()?;
    let panel_height = 110 + ROW_HEIGHT * pipes.len().max(1) as u32;
    let height = 48 + panel_height * panels.len().max(1) as u32;
    let n = pipes.len();
    render(path, height, |root| {
        let area = titled(root, title)?;
        for ((panel, rows), area) in panels
            .iter()
            .zip(&rows)
            .zip(area.split_evenly((panels.len().max(1), 1)))
        {
            let last = panel.intervals.iter().map(|i| i.end).max().unwrap_or(0);
            let caption = format!(
                "{}: last command ends at {} of the horizon ({} cycles)",
                panel.label,
                format_value(last as f64 / horizon.max(1) as f64),
                horizon
            );
            let mut chart = ChartBuilder::on(&area)
                .caption(caption, caption_font())
                .margin(12)
                .margin_right(16 + LEGEND_WIDTH)
                .x_label_area_size(40)
                .y_label_area_size(72)
                .build_cartesian_2d(0.0..1.0, CategoryAxis::new(n))
                .map_err(drawing)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(6)
                .y_labels(n)
                .x_label_formatter(&|x| format_value(*x))
                // Row 0 is drawn at the top, and the y axis grows upwards.
                .y_label_formatter(&|y| {
                    let from_top = n as f64 - y.floor() - 1.0;
                    pipes.get(from_top as usize).cloned().unwrap_or_default()
                })
                .x_desc("time / horizon")
                .label_style(label_font())
                .axis_desc_style(label_font())
                .draw()
                .map_err(drawing)?;
            let plot = chart.plotting_area().strip_coord_spec();
            let (w, h) = plot.dim_in_pixel();
            let layers = [(false, COMPUTE), (true, TRANSFER)].map(|(transfer, color)| {
                let rects = panel
                    .intervals
                    .iter()
                    .zip(rows)
                    .filter(|(i, row)| i.end > i.start && is_transfer(&pipes[**row]) == transfer)
                    .map(|(i, &row)| pixels(i, row, n, horizon, w, h));
                (cover(rects, w, h), color)
            });
            fill_and_frame(&plot, layers)?;
            let entries = [
                ("compute".to_owned(), Swatch::Fill(COMPUTE)),
                ("MTE (data movement)".to_owned(), Swatch::Fill(TRANSFER)),
            ];
            draw_legend(&area, &plot, &entries)?;
        }
        Ok(())
    })
}

/// The row of each interval of `panel`, or why it cannot be drawn.
fn check(
    path: &Path,
    pipes: &[String],
    panel: &ActivityPanel,
    horizon: u64,
) -> Result<Vec<usize>, FigureError> {
    let fail = |message: String| FigureError::Panel {
        path: name(path),
        panel: panel.label.clone(),
        message,
    };
    panel
        .intervals
        .iter()
        .map(|i| {
            if i.end < i.start || i.end > horizon {
                return Err(fail(format!(
                    "interval {}..{} on {} is not inside the horizon 0..{horizon}",
                    i.start, i.end, i.pipe
                )));
            }
            pipes.iter().position(|p| *p == i.pipe).ok_or_else(|| {
                fail(format!(
                    "interval on pipe \"{}\", which is not listed",
                    i.pipe
                ))
            })
        })
        .collect()
}

/// The interval's pixels on `row` of `rows` in a `w` × `h` plot, at least one column wide.
fn pixels(i: &Interval, row: usize, rows: usize, horizon: u64, w: u32, h: u32) -> PixelRect {
    let column =
        |t: u64| ((t as u128 * w as u128 + horizon as u128 / 2) / horizon.max(1) as u128) as i32;
    let x0 = column(i.start);
    let x1 = column(i.end).max(x0 + 1);
    let band = |r: usize| (r as u64 * h as u64 / rows as u64) as i32;
    let (top, bottom) = (band(row), band(row + 1));
    // A gap between rows keeps neighbouring pipes apart.
    let gap = (bottom - top) / 6;
    PixelRect::new(x0, top + gap, x1, (bottom - gap).max(top + gap + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{count, has_text, scratch, svg};

    const ORANGE: &str = "fill=\"#F28E2B\"";
    const TEAL: &str = "fill=\"#1F9E89\"";

    fn pipes() -> Vec<String> {
        ["MTE2", "CUBE", "VECTOR", "MTE3"]
            .map(str::to_owned)
            .to_vec()
    }

    fn interval(pipe: &str, start: u64, end: u64) -> Interval {
        Interval {
            pipe: pipe.to_owned(),
            start,
            end,
        }
    }

    fn panels() -> Vec<ActivityPanel> {
        vec![
            ActivityPanel {
                label: "Freeze".to_owned(),
                intervals: vec![
                    interval("MTE2", 0, 100),
                    interval("CUBE", 100, 300),
                    interval("MTE3", 300, 400),
                ],
            },
            ActivityPanel {
                label: "CPE".to_owned(),
                intervals: vec![
                    interval("MTE2", 0, 100),
                    interval("CUBE", 100, 250),
                    interval("VECTOR", 120, 200),
                ],
            },
        ]
    }

    #[test]
    fn intervals_appear_in_their_colors_deterministically() {
        let dir = scratch("activity");
        let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
        for path in [&a, &b] {
            pipe_activity(path, "Conv_Case0 pipes", &pipes(), &panels(), 400).unwrap();
        }
        let text = svg(&a);
        assert_eq!(text, svg(&b));
        // Busy rectangles plus one legend swatch per color and panel.
        assert_eq!(count(&a, ORANGE), 3 + 2);
        assert_eq!(count(&a, TEAL), 3 + 2);
        for label in [
            "Conv_Case0 pipes",
            "Freeze: last command ends at 1 of the horizon (400 cycles)",
            "CPE: last command ends at 0.625 of the horizon (400 cycles)",
            "VECTOR",
            "MTE3",
            "time / horizon",
        ] {
            assert!(has_text(&text, label), "{label} missing");
        }
    }

    #[test]
    fn back_to_back_commands_merge_into_one_bar() {
        let dir = scratch("activity-merge");
        let path = dir.join("m.svg");
        let intervals = (0..1000)
            .map(|k| interval("CUBE", 10 * k, 10 * k + 10))
            .collect();
        let panel = ActivityPanel {
            label: "Freeze".to_owned(),
            intervals,
        };
        pipe_activity(&path, "merged", &pipes(), &[panel], 10_000).unwrap();
        assert_eq!(count(&path, ORANGE), 1 + 1);
    }

    #[test]
    fn empty_input_gives_a_valid_svg() {
        let dir = scratch("activity-empty");
        let path = dir.join("empty.svg");
        pipe_activity(&path, "nothing", &[], &[], 0).unwrap();
        svg(&path);
    }

    #[test]
    fn unknown_pipes_and_late_intervals_are_rejected() {
        let dir = scratch("activity-bad");
        let path = dir.join("bad.svg");
        for bad in [
            interval("FIXP", 0, 10),
            interval("CUBE", 10, 5),
            interval("CUBE", 0, 401),
        ] {
            let panel = ActivityPanel {
                label: "CPE".to_owned(),
                intervals: vec![bad],
            };
            let e = pipe_activity(&path, "t", &pipes(), &[panel], 400).unwrap_err();
            assert!(matches!(e, FigureError::Panel { .. }), "{e}");
        }
        assert!(!path.exists());
    }
}
