//! Address–time residency maps: one panel per tier, stacked vertically; x is the σ position as
//! a fraction of σ's length, y the address as a fraction of the tier's capacity; every residency
//! a blue block, the ones a spill ends or a reload begins red (spills marked), free space white.
//!
//! Blocks are mapped to whole pixels with integer arithmetic (each at least one pixel wide and
//! high, so a one-step or one-byte residency stays visible), and each panel draws the union of
//! its blocks as few disjoint rectangles ([`cover`]), which keeps Matmul_Case1's thousands of
//! residencies well under 1 MB; red is drawn over blue. A block outside its panel (past σ's end or the capacity, or
//! empty) is a [`FigureError::Panel`]. Deterministic; O(blocks · panel height + panel pixels).

use super::cover::{cover, PixelRect};
use super::{
    caption_font, drawing, fill_and_frame, format_value, label_font, name, render, titled,
    FigureError,
};
use super::{draw_legend, Swatch, LEGEND_WIDTH, RESIDENT, SPILLED};
use plotters::prelude::*;
use std::path::Path;

/// One residency: σ positions `from..to`, bytes `offset..offset + size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// First σ position it is resident at.
    pub from: u64,
    /// One past the last σ position.
    pub to: u64,
    /// First byte.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
    /// A SPILL_OUT ends it or a SPILL_IN begins it.
    pub spill: bool,
}

/// One tier's panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResidencyPanel {
    /// The tier's name (`L1`, `UB`, …).
    pub tier: String,
    /// Its capacity in bytes (the y axis's full height).
    pub capacity: u64,
    /// σ's length (the x axis's full width).
    pub steps: u64,
    /// The residencies.
    pub blocks: Vec<Block>,
}

const PANEL_HEIGHT: u32 = 300;

/// Writes the residency map of `panels` to `path`.
pub fn residency_map(
    path: &Path,
    title: &str,
    panels: &[ResidencyPanel],
) -> Result<(), FigureError> {
    for panel in panels {
        check(path, panel)?;
    }
    let height = 48 + PANEL_HEIGHT * panels.len().max(1) as u32;
    render(path, height, |root| {
        let area = titled(root, title)?;
        for (panel, area) in panels
            .iter()
            .zip(area.split_evenly((panels.len().max(1), 1)))
        {
            let caption = format!(
                "{} (capacity {} B, {} residencies)",
                panel.tier,
                panel.capacity,
                panel.blocks.len()
            );
            let mut chart = ChartBuilder::on(&area)
                .caption(caption, caption_font())
                .margin(12)
                .margin_right(16 + LEGEND_WIDTH)
                .x_label_area_size(40)
                .y_label_area_size(64)
                .build_cartesian_2d(0.0..1.0, 0.0..1.0)
                .map_err(drawing)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(6)
                .y_labels(5)
                .x_label_formatter(&|x| format_value(*x))
                .y_label_formatter(&|y| format_value(*y))
                .x_desc("schedule position / length of schedule")
                .y_desc("address / capacity")
                .label_style(label_font())
                .axis_desc_style(label_font())
                .draw()
                .map_err(drawing)?;
            let plot = chart.plotting_area().strip_coord_spec();
            let (w, h) = plot.dim_in_pixel();
            let layers = [(false, RESIDENT), (true, SPILLED)].map(|(spill, color)| {
                let blocks = panel.blocks.iter().filter(|b| b.spill == spill);
                (cover(blocks.map(|b| pixels(panel, b, w, h)), w, h), color)
            });
            fill_and_frame(&plot, layers)?;
            let entries = [
                ("resident".to_owned(), Swatch::Fill(RESIDENT)),
                ("spilled or reloaded".to_owned(), Swatch::Fill(SPILLED)),
            ];
            draw_legend(&area, &plot, &entries)?;
        }
        Ok(())
    })
}

fn check(path: &Path, panel: &ResidencyPanel) -> Result<(), FigureError> {
    let bad = panel.blocks.iter().find(|b| {
        b.from >= b.to
            || b.to > panel.steps
            || b.size == 0
            || b.offset
                .checked_add(b.size)
                .is_none_or(|end| end > panel.capacity)
    });
    match bad {
        None => Ok(()),
        Some(b) => Err(FigureError::Panel {
            path: name(path),
            panel: panel.tier.clone(),
            message: format!(
                "block at positions {}..{}, bytes {}+{} is empty or outside the {} steps × {} bytes of the panel",
                b.from, b.to, b.offset, b.size, panel.steps, panel.capacity
            ),
        }),
    }
}

/// `value / total` of `pixels` pixels, rounded to the nearest.
fn scale(value: u64, total: u64, pixels: u32) -> i32 {
    let (v, t) = (value as u128, total.max(1) as u128);
    ((v * pixels as u128 + t / 2) / t) as i32
}

/// The block's pixels in a `w` × `h` plot (y down, address 0 at the bottom), at least 1 × 1.
fn pixels(panel: &ResidencyPanel, b: &Block, w: u32, h: u32) -> PixelRect {
    let x0 = scale(b.from, panel.steps, w);
    let x1 = scale(b.to, panel.steps, w).max(x0 + 1);
    let bottom = h as i32 - scale(b.offset, panel.capacity, h);
    let top = (h as i32 - scale(b.offset + b.size, panel.capacity, h)).min(bottom - 1);
    PixelRect::new(x0, top, x1, bottom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{count, has_text, scratch, svg};

    const FILL: &str = "fill=\"#2F6FB5\"";
    const SPILL: &str = "fill=\"#D62728\"";

    fn panel(blocks: Vec<Block>) -> ResidencyPanel {
        ResidencyPanel {
            tier: "L1".to_owned(),
            capacity: 4096,
            steps: 1000,
            blocks,
        }
    }

    fn block(from: u64, to: u64, offset: u64, size: u64) -> Block {
        Block {
            from,
            to,
            offset,
            size,
            spill: false,
        }
    }

    #[test]
    fn blocks_appear_and_bytes_are_deterministic() {
        let dir = scratch("residency");
        let (a, b) = (dir.join("a.svg"), dir.join("b.svg"));
        let panels = [
            panel(vec![block(0, 100, 0, 1024), block(500, 900, 2048, 512)]),
            ResidencyPanel {
                tier: "UB".to_owned(),
                capacity: 1024,
                steps: 1000,
                blocks: vec![block(10, 20, 0, 32)],
            },
        ];
        for path in [&a, &b] {
            residency_map(path, "Conv_Case0 residency", &panels).unwrap();
        }
        let text = svg(&a);
        assert_eq!(text, svg(&b));
        // Each block, and the legend's swatch in each panel.
        assert_eq!(count(&a, FILL), 3 + 2);
        assert_eq!(count(&a, SPILL), 2);
        for label in [
            "Conv_Case0 residency",
            "L1 (capacity 4096 B, 2 residencies)",
            "UB (capacity 1024 B, 1 residencies)",
            "address / capacity",
        ] {
            assert!(has_text(&text, label), "{label} missing");
        }
    }

    #[test]
    fn blocks_touching_in_pixels_merge() {
        let dir = scratch("residency-merge");
        let path = dir.join("m.svg");
        let touching = vec![
            block(0, 10, 0, 1024),
            block(10, 20, 0, 1024),
            block(20, 21, 0, 1024),
        ];
        residency_map(&path, "merged", &[panel(touching)]).unwrap();
        assert_eq!(count(&path, FILL), 1 + 1);
    }

    #[test]
    fn spilled_residencies_are_marked_red() {
        let dir = scratch("residency-spill");
        let path = dir.join("s.svg");
        let spilled = Block {
            spill: true,
            ..block(100, 200, 2048, 1024)
        };
        residency_map(
            &path,
            "spills",
            &[panel(vec![block(0, 10, 0, 1024), spilled])],
        )
        .unwrap();
        assert_eq!(count(&path, FILL), 1 + 1);
        assert_eq!(count(&path, SPILL), 1 + 1);
        assert!(has_text(&svg(&path), "spilled or reloaded"));
    }

    #[test]
    fn many_blocks_stay_small() {
        let dir = scratch("residency-large");
        let path = dir.join("large.svg");
        let steps = 72_000;
        let blocks = (0..40_000u64)
            .map(|i| {
                let size = 32 << (i % 6);
                let offset = (i * 97 % (4096 / size)) * size;
                block(i, i + 1 + i % 300, offset, size)
            })
            .collect();
        let panels = [ResidencyPanel {
            tier: "L1".to_owned(),
            capacity: 4096,
            steps,
            blocks,
        }];
        residency_map(&path, "large", &panels).unwrap();
        let bytes = std::fs::metadata(&path).unwrap().len();
        assert!(bytes < 1_000_000, "{bytes} bytes");
    }

    #[test]
    fn empty_input_gives_a_valid_svg() {
        let dir = scratch("residency-empty");
        let path = dir.join("empty.svg");
        residency_map(&path, "nothing", &[]).unwrap();
        svg(&path);
        residency_map(&path, "no blocks", &[panel(vec![])]).unwrap();
        assert_eq!(count(&path, FILL), 1, "the legend's swatch only");
    }

    #[test]
    fn blocks_outside_the_panel_are_rejected() {
        let dir = scratch("residency-bad");
        let path = dir.join("bad.svg");
        for bad in [
            block(0, 1001, 0, 32),
            block(0, 10, 4090, 32),
            block(5, 5, 0, 32),
            block(0, 1, 0, 0),
        ] {
            let e = residency_map(&path, "t", &[panel(vec![bad])]).unwrap_err();
            assert!(matches!(e, FigureError::Panel { .. }), "{e}");
        }
        assert!(!path.exists());
    }
}
