//! Deterministic SVG figures: one function per figure kind, each writing one file from plain
//! data, and [`plan`], the pictures of any plan (its pipe activity and per-tier residency map)
//! that `lattice-translate --export-svg` writes and `lattice-bench paper` draws for each case.
//! A crate of its own, so that `lattice-opt` builds without the plotting stack.
//!
//! Kinds, one file each: [`grouped_bars`], [`stacked_bars`], [`residency_map`],
//! [`pipe_activity`], [`log_log`] and [`log2_distribution`]; [`cover`] merges the many small
//! rectangles of the two maps into few; [`axis`] is the category axis of bars, rows and buckets.
//!
//! Invariants every figure keeps:
//! - **deterministic bytes**: the same input gives an identical file on every machine. plotters
//!   runs without font features, so text is laid out by its fixed estimate and written as SVG
//!   `<text>`; nothing depends on time, hashing or the system's fonts;
//! - **atomic output**: the SVG is rendered into a string, then written with
//!   [`lattice::io::write_atomic`], so a failure never leaves a partial file;
//! - **checked input**: a value the chart cannot show (not finite, not positive on a log axis,
//!   negative in a stack, a block outside its panel, a series of the wrong length, an interval
//!   on an unknown pipe) is a [`FigureError`] naming the file, never a panic;
//! - **bounded size**: the residency and activity maps round every block and interval to whole
//!   pixels (at least one pixel each way, so nothing vanishes) and draw the union of what they
//!   cover as few disjoint rectangles ([`cover::cover`]), so a figure stays well under 1 MB
//!   however many residencies or commands a workload has.
//!
//! Complexity: linear in the data plus the pixels of the map panels.

pub mod activity;
pub mod axis;
pub mod cover;
pub mod distribution;
pub mod grouped;
pub mod lines;
pub mod plan;
pub mod residency;
pub mod stacked;

pub use activity::{pipe_activity, ActivityPanel, Interval};
pub use distribution::log2_distribution;
pub use grouped::grouped_bars;
pub use lines::{log_log, Line};
pub use plan::PlanFigures;
pub use residency::{residency_map, Block, ResidencyPanel};
pub use stacked::stacked_bars;

use axis::CategoryAxis;
use lattice::io::{write_atomic, IoError};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;
use std::path::Path;

/// One named row of values, one per category; `None` draws nothing there.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// One value per category.
    pub values: Vec<Option<f64>>,
}

/// Why a figure was not written.
#[derive(Debug, thiserror::Error)]
pub enum FigureError {
    /// Writing the file failed (the error names the path).
    #[error(transparent)]
    Io(#[from] IoError),
    /// plotters failed to draw.
    #[error("{path}: cannot draw the figure: {message}")]
    Draw {
        /// The figure's file.
        path: String,
        /// What plotters said.
        message: String,
    },
    /// A value the chart cannot show.
    #[error("{path}: series \"{series}\": value {value} cannot be drawn: {reason}")]
    Value {
        /// The figure's file.
        path: String,
        /// The series (or panel) holding it.
        series: String,
        /// The value.
        value: f64,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A series whose length differs from the number of categories.
    #[error("{path}: series \"{series}\" has {found} values for {expected} categories")]
    Length {
        /// The figure's file.
        path: String,
        /// The series.
        series: String,
        /// The number of categories.
        expected: usize,
        /// The number of values.
        found: usize,
    },
    /// A block or interval that does not fit its panel.
    #[error("{path}: panel \"{panel}\": {message}")]
    Panel {
        /// The figure's file.
        path: String,
        /// The panel's label.
        panel: String,
        /// What does not fit.
        message: String,
    },
}

/// Width of every figure, in pixels.
pub const WIDTH: u32 = 960;

/// Colors of successive series (Tableau 10, a palette that survives grey-scale printing).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// Fill of resident blocks in residency maps.
pub const RESIDENT: RGBColor = RGBColor(0x2f, 0x6f, 0xb5);
/// Fill of residencies that a spill ends or a reload begins, in residency maps.
pub const SPILLED: RGBColor = RGBColor(0xd6, 0x27, 0x28);
/// Busy compute pipes in activity maps.
pub const COMPUTE: RGBColor = RGBColor(0xf2, 0x8e, 0x2b);
/// Busy data-movement (MTE) pipes in activity maps.
pub const TRANSFER: RGBColor = RGBColor(0x1f, 0x9e, 0x89);

/// The color of series `i`.
pub fn series_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const FONT: &str = "sans-serif";
const TITLE_SIZE: u32 = 22;
const CAPTION_SIZE: u32 = 17;
const LABEL_SIZE: u32 = 14;

/// The drawing surface every figure function draws on.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Renders an SVG of `WIDTH` × `height` with `draw`, then writes it to `path` atomically.
pub(crate) fn render(
    path: &Path,
    height: u32,
    draw: impl FnOnce(&Area<'_>) -> Result<(), String>,
) -> Result<(), FigureError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)
            .map_err(drawing)
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(drawing))
            .map_err(|message| FigureError::Draw {
                path: path.display().to_string(),
                message,
            })?;
    }
    write_atomic(path, svg.as_bytes())?;
    Ok(())
}

/// plotters' error as text (its error types borrow the backend, so they cannot escape `render`).
pub(crate) fn drawing(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// The figure's title above `area`; returns the area below it.
pub(crate) fn titled<'a>(area: &Area<'a>, title: &str) -> Result<Area<'a>, String> {
    area.titled(title, (FONT, TITLE_SIZE)).map_err(drawing)
}

pub(crate) fn caption_font() -> TextStyle<'static> {
    (FONT, CAPTION_SIZE).into_font().into()
}

pub(crate) fn label_font() -> TextStyle<'static> {
    (FONT, LABEL_SIZE).into_font().into()
}

/// A number for an axis or a label: at most three significant decimals, no trailing zeros,
/// powers of ten from 1e4 on, and the same text on every machine.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        return "0".to_owned();
    }
    if !(1e-3..1e4).contains(&a) {
        return format!("{v:.1e}").replace(".0e", "e");
    }
    let decimals = if a >= 100.0 {
        0
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// How a legend entry is marked.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Swatch {
    /// A filled square (bars, blocks).
    Fill(RGBColor),
    /// A short line with a marker (line charts).
    Line(RGBColor),
}

/// Room kept right of a plot for [`draw_legend`].
pub(crate) const LEGEND_WIDTH: u32 = 190;

/// Draws `entries` top-down right of `plot` on `area`, its chart's area — beside the data, in
/// the room [`LEGEND_WIDTH`] keeps, so no legend ever hides a bar or a point. (It is drawn on
/// `area` because a drawing area clamps coordinates to its own bounds.)
pub(crate) fn draw_legend(
    area: &Area<'_>,
    plot: &Area<'_>,
    entries: &[(String, Swatch)],
) -> Result<(), String> {
    let ((ax, ay), (px, py)) = (area.get_base_pixel(), plot.get_base_pixel());
    let (x, y) = (px - ax + plot.dim_in_pixel().0 as i32 + 16, py - ay);
    let text = label_font().pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, swatch)) in entries.iter().enumerate() {
        let cy = y + 10 + 20 * i as i32;
        match *swatch {
            Swatch::Fill(color) => area.draw(&Rectangle::new(
                [(x, cy - 6), (x + 14, cy + 6)],
                color.filled(),
            )),
            Swatch::Line(color) => area
                .draw(&PathElement::new(
                    [(x, cy), (x + 20, cy)],
                    color.stroke_width(2),
                ))
                .and_then(|()| area.draw(&Circle::new((x + 10, cy), 3, color.filled()))),
        }
        .map_err(drawing)?;
        area.draw(&Text::new(label.as_str(), (x + 26, cy), text.clone()))
            .map_err(drawing)?;
    }
    Ok(())
}

/// A legend of filled swatches, one per name in series order.
pub(crate) fn fill_legend<'n>(names: impl Iterator<Item = &'n str>) -> Vec<(String, Swatch)> {
    names
        .enumerate()
        .map(|(j, name)| (name.to_owned(), Swatch::Fill(series_color(j))))
        .collect()
}

/// A chart over `n` category slots along x and `y` up, with the legend strip kept free.
pub(crate) type CategoryChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<CategoryAxis, RangedCoordf64>>;

/// The category chart of every bar figure and the distribution, its mesh drawn: no vertical
/// lines, x labels from `x_label` (at most `labels` of them), y labels by [`format_value`].
pub(crate) fn category_chart<'a, 'b>(
    area: &'a Area<'b>,
    n: usize,
    y: Range<f64>,
    labels: usize,
    x_label: &dyn Fn(&f64) -> String,
    (x_desc, y_desc): (Option<&str>, &str),
) -> Result<CategoryChart<'a, 'b>, String> {
    let mut chart = ChartBuilder::on(area)
        .margin(16)
        .margin_right(16 + LEGEND_WIDTH)
        .x_label_area_size(if x_desc.is_some() { 40 } else { 36 })
        .y_label_area_size(72)
        .build_cartesian_2d(CategoryAxis::new(n), y)
        .map_err(drawing)?;
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(labels)
        .x_label_formatter(x_label)
        .y_label_formatter(&|y| format_value(*y))
        .y_desc(y_desc)
        .label_style(label_font())
        .axis_desc_style(label_font());
    if let Some(desc) = x_desc {
        mesh.x_desc(desc);
    }
    mesh.draw().map_err(drawing)?;
    Ok(chart)
}

/// Fills the pixel rectangles `rects` of `plot` (already merged by [`cover::cover`]) with
/// `color`, then frames the whole plot.
pub(crate) fn fill_and_frame(
    plot: &Area<'_>,
    layers: impl IntoIterator<Item = (Vec<cover::PixelRect>, RGBColor)>,
) -> Result<(), String> {
    for (rects, color) in layers {
        for r in rects {
            plot.draw(&Rectangle::new(
                [(r.x0, r.y0), (r.x1, r.y1)],
                color.filled(),
            ))
            .map_err(drawing)?;
        }
    }
    let (w, h) = plot.dim_in_pixel();
    plot.draw(&Rectangle::new(
        [(0, 0), (w as i32, h as i32)],
        BLACK.stroke_width(1),
    ))
    .map_err(drawing)
}

/// The path as a message names it.
pub(crate) fn name(path: &Path) -> String {
    path.display().to_string()
}

/// Checks that each series has one finite value (or `None`) per category.
pub(crate) fn check_series(
    path: &Path,
    categories: usize,
    series: &[Series],
) -> Result<(), FigureError> {
    for s in series {
        if s.values.len() != categories {
            return Err(FigureError::Length {
                path: name(path),
                series: s.name.clone(),
                expected: categories,
                found: s.values.len(),
            });
        }
        if let Some(&value) = s.values.iter().flatten().find(|v| !v.is_finite()) {
            return Err(FigureError::Value {
                path: name(path),
                series: s.name.clone(),
                value,
                reason: "values must be finite",
            });
        }
    }
    Ok(())
}

/// `[lo, hi]` widened so that bars and labels have headroom; 0..1 when there is nothing to show.
pub(crate) fn bar_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi - lo <= 0.0 {
        return (0.0, 1.0);
    }
    let pad = 0.12 * (hi - lo);
    (if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad)
}

/// The category whose center is `x`, for axis labels.
pub(crate) fn category_at(categories: &[String], x: f64) -> String {
    let i = x.floor();
    if i >= 0.0 && (i as usize) < categories.len() {
        categories[i as usize].clone()
    } else {
        String::new()
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers of the figure tests: a scratch directory per test and counts over the SVG text.

    use std::path::{Path, PathBuf};

    /// A fresh directory for one test's files, removed when dropped.
    pub struct Scratch(PathBuf);

    impl Scratch {
        /// A file in the directory.
        pub fn join(&self, file: &str) -> PathBuf {
            self.0.join(file)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A fresh directory for the files of `test`. Each test gets its own directory directly in
    /// the temp dir: with a shared per-process parent, one test's cleanup could remove the
    /// parent between another's creating it and creating its own directory inside (a flaky
    /// "creates the scratch directory" failure seen under load).
    pub fn scratch(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("lattice-figures-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("creates the scratch directory");
        Scratch(dir)
    }

    /// How often `needle` occurs in the file.
    pub fn count(path: &Path, needle: &str) -> usize {
        std::fs::read_to_string(path)
            .expect("the figure exists")
            .matches(needle)
            .count()
    }

    /// Whether the SVG shows `label` as a whole text element.
    pub fn has_text(svg: &str, label: &str) -> bool {
        svg.contains(&format!(">\n{label}\n</text>"))
    }

    /// The file's text, checked to be a whole SVG document.
    pub fn svg(path: &Path) -> String {
        let text = std::fs::read_to_string(path).expect("the figure exists");
        assert!(text.starts_with("<svg"), "{text}");
        assert!(text.trim_end().ends_with("</svg>"), "{text}");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_format_short_and_stable() {
        assert_eq!(format_value(0.0), "0");
        assert_eq!(format_value(1.0), "1");
        assert_eq!(format_value(0.25), "0.25");
        assert_eq!(format_value(0.8), "0.8");
        assert_eq!(format_value(3.5), "3.5");
        assert_eq!(format_value(12.345), "12.35");
        assert_eq!(format_value(4096.0), "4096");
        assert_eq!(format_value(10_000.0), "1e4");
        assert_eq!(format_value(300_000.0), "3e5");
        assert_eq!(format_value(1_500_000.0), "1.5e6");
    }

    #[test]
    fn ranges_leave_headroom_and_keep_zero() {
        assert_eq!(bar_range([].into_iter()), (0.0, 1.0));
        let (lo, hi) = bar_range([1.0, 2.0].into_iter());
        assert_eq!(lo, 0.0);
        assert!(hi > 2.0);
        let (lo, _) = bar_range([-1.0, 2.0].into_iter());
        assert!(lo < -1.0);
    }
}
