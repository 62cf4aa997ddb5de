//! Task grids and the locality-aware curves over them.
//!
//! # Detection (structure only)
//! A main task's *inputs* are the buffers it names that a loader fills. Two tasks that read a
//! common input share a *reader set* (the main tasks reading that buffer). A tiled product whose
//! output tile (i, j) reads A-tiles of row i and B-tiles of column j has exactly two reader sets
//! per task: its row and its column. The detector looks for that pattern: from a task t0 and two
//! reader sets X, Y through it that meet only in t0, it takes for each y ∈ Y the reader set
//! through y that is parallel to X (same size, meets Y only in y, disjoint from X unless y = t0)
//! as row y, and symmetrically the columns; it accepts when rows and columns each partition the
//! same tasks and every row meets every column in exactly one task. Nothing is keyed on names or
//! sizes; a module without such sets simply has no grid.
//!
//! # Curves
//! Over an r × c grid (and its transpose): row-major, serpentine rows, and bands of at most w
//! rows, 2 ≤ w ≤ 8 (the remainder band last, first, or the rows balanced over ⌈r/w⌉ bands), swept
//! column by column in alternating directions, the rows within a column in one direction or
//! alternating — the orders that keep an input
//! tile resident while its neighbours reuse it — plus the Morton (Z) curve. A curve permutes the
//! grid's tasks among the places they hold in a structural sequence (the reverse depth-first
//! family's `dfs-latest`), leaving every other main task in place.
//!
//! Detection is O(S · k + R · c) for S reader sets of at most k tasks; each curve O(r · c).

use super::tasks::{Class, Tasks};
use lattice_lir::{Module, OpKind};
use std::collections::BTreeMap;

/// A detected grid: `cells[r][c]` is a main-task index (into [`Tasks::main`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub(crate) cells: Vec<Vec<usize>>,
}

impl Grid {
    /// Rows.
    pub(crate) fn rows(&self) -> usize {
        self.cells.len()
    }

    /// Columns.
    pub(crate) fn cols(&self) -> usize {
        self.cells.first().map_or(0, Vec::len)
    }

    /// The grid with rows and columns exchanged.
    pub(crate) fn transposed(&self) -> Grid {
        let cells = (0..self.cols())
            .map(|c| (0..self.rows()).map(|r| self.cells[r][c]).collect())
            .collect();
        Grid { cells }
    }

    /// The main-task sequence in which the grid's tasks follow `curve` and every other main task
    /// keeps its place in `base` (a structural order of all main tasks), the grid's tasks taking
    /// the places `base` gives them — so the result does not follow the input's numbering.
    pub(crate) fn sequence(&self, curve: &[(usize, usize)], base: &[usize]) -> Vec<usize> {
        let mut in_grid = vec![false; base.len()];
        for &cell in self.cells.iter().flatten() {
            in_grid[cell] = true;
        }
        let mut cells = curve.iter().map(|&(r, c)| self.cells[r][c]);
        base.iter()
            .map(|&i| {
                if in_grid[i] {
                    cells.next().unwrap_or(i)
                } else {
                    i
                }
            })
            .collect()
    }
}

/// Finds a task grid in `module`, if its main tasks form one.
pub(crate) fn detect(module: &Module, tasks: &Tasks) -> Option<Grid> {
    let mut main_index = vec![usize::MAX; tasks.len()];
    for (i, &t) in tasks.main.iter().enumerate() {
        main_index[t] = i;
    }
    // Buffers filled by loaders, and the main tasks naming each.
    let mut loaded = vec![false; module.buffers.len()];
    for (t, ops) in tasks.ops.iter().enumerate() {
        if tasks.class[t] == Class::Feeder {
            for &op in ops {
                if let OpKind::Compute { operands, .. } = &module.op(op).kind {
                    for b in operands {
                        loaded[b.index()] = true;
                    }
                }
            }
        }
    }
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); module.buffers.len()];
    for (i, &t) in tasks.main.iter().enumerate() {
        for &op in &tasks.ops[t] {
            for b in module.op(op).kind.buffers() {
                if loaded[b.index()] && readers[b.index()].last() != Some(&i) {
                    readers[b.index()].push(i);
                }
            }
        }
    }
    let mut sets: Vec<Vec<usize>> = readers
        .into_iter()
        .map(|mut r| {
            r.sort_unstable();
            r.dedup();
            r
        })
        .filter(|r| r.len() >= 2)
        .collect();
    sets.sort();
    sets.dedup();
    let mut through: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (s, set) in sets.iter().enumerate() {
        for &task in set {
            through.entry(task).or_default().push(s);
        }
    }
    let mut best: Option<Grid> = None;
    for (&t0, mine) in through.iter().take(8) {
        for (a, &x) in mine.iter().enumerate() {
            for &y in &mine[a + 1..] {
                if let Some(grid) = grid_from(&sets, &through, t0, x, y) {
                    let size = grid.rows() * grid.cols();
                    if best.as_ref().is_none_or(|b| size > b.rows() * b.cols()) {
                        best = Some(grid);
                    }
                }
            }
        }
    }
    best
}

fn meet(a: &[usize], b: &[usize]) -> usize {
    a.iter().filter(|v| b.binary_search(v).is_ok()).count()
}

/// The grid whose row 0 is `sets[x]` and column 0 is `sets[y]`, both through `t0`, if any.
fn grid_from(
    sets: &[Vec<usize>],
    through: &BTreeMap<usize, Vec<usize>>,
    t0: usize,
    x: usize,
    y: usize,
) -> Option<Grid> {
    let (row0, col0) = (&sets[x], &sets[y]);
    if meet(row0, col0) != 1 {
        return None;
    }
    let parallel = |start: usize, line: usize, cross: usize| -> Option<usize> {
        if start == t0 {
            return Some(line);
        }
        through.get(&start)?.iter().copied().find(|&s| {
            sets[s].len() == sets[line].len()
                && meet(&sets[s], &sets[cross]) == 1
                && meet(&sets[s], &sets[line]) == 0
        })
    };
    let rows: Vec<usize> = col0
        .iter()
        .map(|&v| parallel(v, x, y))
        .collect::<Option<_>>()?;
    let cols: Vec<usize> = row0
        .iter()
        .map(|&v| parallel(v, y, x))
        .collect::<Option<_>>()?;
    let mut cells = Vec::with_capacity(rows.len());
    let mut seen = std::collections::BTreeSet::new();
    for &r in &rows {
        let mut line = Vec::with_capacity(cols.len());
        for &c in &cols {
            let common: Vec<usize> = sets[r]
                .iter()
                .copied()
                .filter(|v| sets[c].binary_search(v).is_ok())
                .collect();
            let [cell] = common[..] else {
                return None;
            };
            if !seen.insert(cell) {
                return None;
            }
            line.push(cell);
        }
        cells.push(line);
    }
    let covered = rows.iter().map(|&r| sets[r].len()).sum::<usize>();
    (covered == seen.len() && cells.len() >= 2 && cols.len() >= 2).then_some(Grid { cells })
}

/// A named visiting order of an r × c grid.
pub(crate) struct Curve {
    /// What it is, for reports (`bands-3-serpentine`, …).
    pub(crate) name: String,
    /// Every cell once.
    pub(crate) cells: Vec<(usize, usize)>,
}

/// Every curve the portfolio tries on an r × c grid.
pub(crate) fn curves(r: usize, c: usize) -> Vec<Curve> {
    let mut out = vec![
        Curve {
            name: "row-major".into(),
            cells: bands(c, &vec![1; r], false, false),
        },
        Curve {
            name: "serpentine".into(),
            cells: bands(c, &vec![1; r], true, false),
        },
        Curve {
            name: "morton".into(),
            cells: morton(r, c),
        },
    ];
    for w in 2..=8.min(r) {
        for (split, widths) in band_splits(r, w) {
            for (flip_inner, tag) in [(false, "serpentine"), (true, "boustrophedon")] {
                out.push(Curve {
                    name: format!("bands-{w}-{split}-{tag}"),
                    cells: bands(c, &widths, true, flip_inner),
                });
            }
        }
    }
    out
}

/// The ways to cut r rows into bands of at most w: w each with the remainder last or first,
/// and balanced (⌈r/w⌉ bands whose widths differ by at most one). Duplicates are left out.
fn band_splits(r: usize, w: usize) -> Vec<(&'static str, Vec<usize>)> {
    let mut last = vec![w; r / w];
    if r % w > 0 {
        last.push(r % w);
    }
    let count = r.div_ceil(w);
    let balanced: Vec<usize> = (0..count)
        .map(|i| r / count + usize::from(i < r % count))
        .collect();
    let mut first = last.clone();
    first.rotate_right(usize::from(r % w > 0));
    let mut splits = vec![("last", last)];
    for (name, widths) in [("first", first), ("balanced", balanced)] {
        if splits.iter().all(|(_, w)| *w != widths) {
            splits.push((name, widths));
        }
    }
    splits
}

/// Bands of the given row widths, each swept column by column; `flip_bands` reverses the sweep
/// of every other band, `flip_inner` the rows of every other column within a band.
fn bands(c: usize, widths: &[usize], flip_bands: bool, flip_inner: bool) -> Vec<(usize, usize)> {
    let mut cells = Vec::with_capacity(widths.iter().sum::<usize>() * c);
    let mut top = 0;
    for (b, &w) in widths.iter().enumerate() {
        let band: Vec<usize> = (top..top + w).collect();
        top += w;
        let columns: Vec<usize> = if flip_bands && b % 2 == 1 {
            (0..c).rev().collect()
        } else {
            (0..c).collect()
        };
        for (k, &col) in columns.iter().enumerate() {
            if flip_inner && k % 2 == 1 {
                cells.extend(band.iter().rev().map(|&row| (row, col)));
            } else {
                cells.extend(band.iter().map(|&row| (row, col)));
            }
        }
    }
    cells
}

/// The Z-order curve: cells by interleaved row and column bits.
fn morton(r: usize, c: usize) -> Vec<(usize, usize)> {
    let spread = |mut v: u64| {
        let mut out = 0u64;
        for bit in 0..32 {
            out |= (v & 1) << (2 * bit);
            v >>= 1;
        }
        out
    };
    let mut cells: Vec<(usize, usize)> = (0..r).flat_map(|i| (0..c).map(move |j| (i, j))).collect();
    cells.sort_by_key(|&(i, j)| (spread(i as u64) << 1) | spread(j as u64));
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_curve_visits_every_cell_once() {
        for (r, c) in [(1, 1), (2, 3), (5, 4), (8, 8), (9, 2)] {
            for curve in curves(r, c) {
                let mut cells = curve.cells.clone();
                cells.sort_unstable();
                cells.dedup();
                assert_eq!(cells.len(), r * c, "{} on {r}x{c}", curve.name);
                assert!(cells.iter().all(|&(i, j)| i < r && j < c));
            }
        }
    }

    #[test]
    fn band_splits_cover_the_rows() {
        assert_eq!(
            band_splits(16, 5),
            vec![
                ("last", vec![5, 5, 5, 1]),
                ("first", vec![1, 5, 5, 5]),
                ("balanced", vec![4, 4, 4, 4])
            ]
        );
        assert_eq!(band_splits(8, 4), vec![("last", vec![4, 4])]);
        for r in 1..20 {
            for w in 1..9 {
                for (_, widths) in band_splits(r, w) {
                    assert_eq!(widths.iter().sum::<usize>(), r);
                    assert!(widths.iter().all(|&x| x >= 1 && x <= w));
                }
            }
        }
    }

    #[test]
    fn serpentine_bands_sweep_back_and_forth() {
        let cells = bands(3, &[2, 2], true, false);
        assert_eq!(
            &cells[..6],
            &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
        );
        assert_eq!(&cells[6..8], &[(2, 2), (3, 2)]);
    }
}
