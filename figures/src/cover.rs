//! The union of many pixel rectangles as few disjoint ones, so maps of thousands of blocks or
//! intervals stay small files.
//!
//! [`cover`] clips every rectangle to the panel, marks it row by row in a difference array (one
//! +1/−1 pair per covered row), reads each row back as maximal runs of covered pixels, and merges
//! a run with the identical run of the row above into one taller rectangle. Invariants: the
//! output covers exactly the pixels the (clipped) input covers, its rectangles are disjoint, and
//! it is sorted by (top, left), so it depends only on the set of covered pixels, not on the
//! input's order. Complexity: O(Σ rectangle heights + width · height).

use std::collections::BTreeMap;

/// A rectangle of whole pixels: columns `x0..x1`, rows `y0..y1` (half-open, y down).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PixelRect {
    /// Top row.
    pub y0: i32,
    /// Left column.
    pub x0: i32,
    /// One past the bottom row.
    pub y1: i32,
    /// One past the right column.
    pub x1: i32,
}

impl PixelRect {
    /// The rectangle with corners (`x0`, `y0`) and (`x1`, `y1`).
    pub fn new(x0: i32, y0: i32, x1: i32, y1: i32) -> Self {
        PixelRect { y0, x0, y1, x1 }
    }
}

/// The pixels `rects` cover inside `width` × `height`, as disjoint rectangles sorted by
/// (top, left).
pub fn cover(
    rects: impl IntoIterator<Item = PixelRect>,
    width: u32,
    height: u32,
) -> Vec<PixelRect> {
    let (w, h) = (width as i32, height as i32);
    let mut diff = vec![vec![0i32; width as usize + 1]; height as usize];
    for r in rects {
        let (x0, x1) = (r.x0.clamp(0, w), r.x1.clamp(0, w));
        let (y0, y1) = (r.y0.clamp(0, h), r.y1.clamp(0, h));
        if x0 >= x1 {
            continue;
        }
        for row in &mut diff[y0 as usize..y1 as usize] {
            row[x0 as usize] += 1;
            row[x1 as usize] -= 1;
        }
    }
    let mut out = Vec::new();
    // Runs still growing downwards: (x0, x1) → top row.
    let mut open: BTreeMap<(i32, i32), i32> = BTreeMap::new();
    for (y, row) in diff.iter().enumerate() {
        let y = y as i32;
        let runs = runs(row);
        let mut next = BTreeMap::new();
        for run in runs {
            let top = open.remove(&run).unwrap_or(y);
            next.insert(run, top);
        }
        out.extend(
            open.into_iter()
                .map(|((x0, x1), top)| PixelRect::new(x0, top, x1, y)),
        );
        open = next;
    }
    out.extend(
        open.into_iter()
            .map(|((x0, x1), top)| PixelRect::new(x0, top, x1, h)),
    );
    out.sort_unstable();
    out
}

/// The maximal runs of covered columns of one row of the difference array.
fn runs(row: &[i32]) -> Vec<(i32, i32)> {
    let mut runs = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (x, &d) in row.iter().enumerate() {
        let before = depth;
        depth += d;
        if before == 0 && depth > 0 {
            start = x as i32;
        } else if before > 0 && depth == 0 {
            runs.push((start, x as i32));
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn pixels(rects: &[PixelRect], width: i32, height: i32) -> BTreeSet<(i32, i32)> {
        let mut set = BTreeSet::new();
        for r in rects {
            for y in r.y0.max(0)..r.y1.min(height) {
                for x in r.x0.max(0)..r.x1.min(width) {
                    set.insert((x, y));
                }
            }
        }
        set
    }

    #[test]
    fn merging_keeps_exactly_the_covered_pixels() {
        // A pseudo-random field of overlapping, adjacent and out-of-panel rectangles.
        let mut seed = 12345u64;
        let mut next = |m: i32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % m as u64) as i32
        };
        let rects: Vec<PixelRect> = (0..400)
            .map(|_| {
                let (x, y) = (next(70) - 5, next(50) - 5);
                PixelRect::new(x, y, x + 1 + next(12), y + 1 + next(8))
            })
            .collect();
        let merged = cover(rects.iter().copied(), 60, 40);
        assert_eq!(pixels(&merged, 60, 40), pixels(&rects, 60, 40));
        assert!(merged.len() < rects.len());
        // Disjoint: the areas add up to the number of covered pixels.
        let area: i32 = merged.iter().map(|r| (r.x1 - r.x0) * (r.y1 - r.y0)).sum();
        assert_eq!(area as usize, pixels(&rects, 60, 40).len());
    }

    #[test]
    fn adjacent_and_stacked_rectangles_become_one() {
        let rects = [
            PixelRect::new(0, 0, 5, 2),
            PixelRect::new(5, 0, 9, 2),
            PixelRect::new(0, 2, 9, 4),
            PixelRect::new(2, 1, 4, 3),
        ];
        assert_eq!(cover(rects, 20, 20), vec![PixelRect::new(0, 0, 9, 4)]);
    }

    #[test]
    fn order_of_the_input_does_not_matter() {
        let a = [PixelRect::new(0, 0, 3, 3), PixelRect::new(5, 1, 8, 2)];
        let b = [a[1], a[0]];
        assert_eq!(cover(a, 10, 10), cover(b, 10, 10));
    }

    #[test]
    fn nothing_and_empty_panels_give_nothing() {
        assert!(cover([], 10, 10).is_empty());
        assert!(cover([PixelRect::new(0, 0, 3, 3)], 0, 0).is_empty());
        assert!(cover([PixelRect::new(4, 0, 4, 3)], 10, 10).is_empty());
    }
}
