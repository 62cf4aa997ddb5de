//! Why no order goes below `stable` on the Matmul cases, checked on the model `order/mpas.rs`
//! states it for: an n×n grid of output tiles, each computed atomically (its L0C accumulator is
//! exclusive) by steps k = 0..n−1 that read A[i][k] and B[k][j]; an L1 tile is live from its first
//! to its last read. An exhaustive search over every order of the cells (dynamic programming over
//! the subsets of finished cells) finds the least peak of live tiles, n(n+1), for every n ≤ 4, and
//! the row-major order (the traces' own, which `stable` and MPAS keep) reaches it; for n = 8 and
//! n = 16, the Matmul_Case0 and Matmul_Case1 grids, row-major is 72 and 272 tiles (× 128 B =
//! 9,216 and 34,816 B, their logical peaks). Exhaustive only up to n = 4 (2^16 subsets; n = 5
//! would need 2^25).
//!
//! O(2^(n²) · n⁵) for the search, O(n⁵) for one order.

/// Live tiles at the worst step of cell `(ci, cj)`, `is_done(i, j)` telling the finished cells.
fn cell_peak(n: usize, is_done: impl Fn(usize, usize) -> bool, (ci, cj): (usize, usize)) -> usize {
    // Whether a row (or column) has a finished cell, and a cell left after the current one.
    let row = |i: usize| {
        let done = (0..n).any(|j| is_done(i, j));
        let left = (0..n).any(|j| !is_done(i, j) && (i, j) != (ci, cj));
        (done, left)
    };
    let col = |j: usize| {
        let done = (0..n).any(|i| is_done(i, j));
        let left = (0..n).any(|i| !is_done(i, j) && (i, j) != (ci, cj));
        (done, left)
    };
    (0..n)
        .map(|k| {
            // A tile of the current row or column is live at step k if read now, or read both
            // before (by a finished cell or an earlier step) and after (by a cell left or a later
            // step); a tile of another line is live if finished and left cells both read it.
            let line = |(done, left): (bool, bool), current: bool| match current {
                true => (0..n)
                    .filter(|&t| t == k || ((done || t < k) && (left || t > k)))
                    .count(),
                false if done && left => n,
                false => 0,
            };
            (0..n).map(|i| line(row(i), i == ci)).sum::<usize>()
                + (0..n).map(|j| line(col(j), j == cj)).sum::<usize>()
        })
        .max()
        .unwrap_or(0)
}

/// The least peak over every order of the cells (n ≤ 5: finished cells as a bit set).
fn least_peak(n: usize) -> usize {
    let cells = n * n;
    let full = (1u32 << cells) - 1;
    let mut best = vec![usize::MAX; 1 << cells];
    best[full as usize] = 0;
    // A superset of `done` is numerically larger, so a descending sweep has it ready.
    for done in (0..full).rev() {
        let is_done = |i: usize, j: usize| done >> (i * n + j) & 1 == 1;
        best[done as usize] = (0..cells)
            .filter(|c| done >> c & 1 == 0)
            .map(|c| cell_peak(n, is_done, (c / n, c % n)).max(best[(done | 1 << c) as usize]))
            .min()
            .unwrap_or(0);
    }
    best[0]
}

/// The peak of the row-major order (any n).
fn row_major_peak(n: usize) -> usize {
    (0..n * n)
        .map(|c| {
            let (ci, cj) = (c / n, c % n);
            cell_peak(n, |i, j| i < ci || (i == ci && j < cj), (ci, cj))
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn row_major_is_optimal_on_small_grids_and_gives_the_matmul_peaks() {
    for n in 1..=4 {
        assert_eq!(row_major_peak(n), least_peak(n), "n = {n}");
    }
    // 2 tiles for n = 1 and 5 for n = 2, then n(n+1) — 12 for n = 3, 20 for n = 4: from the
    // second row on, every B tile was read by a finished row and will be by a later one (n²
    // tiles), plus the current row's n A tiles.
    assert_eq!((1..=4).map(least_peak).collect::<Vec<_>>(), [2, 5, 12, 20]);
    for n in 3..=16 {
        assert_eq!(row_major_peak(n), n * (n + 1), "row-major, n = {n}");
    }
    // Matmul_Case0 (8×8 tiles) and Matmul_Case1 (16×16), 128 B per tile.
    assert_eq!(row_major_peak(8) * 128, 9_216);
    assert_eq!(row_major_peak(16) * 128, 34_816);
}

#[test]
fn a_column_interleaved_order_is_worse() {
    // The model is not trivially flat: visiting the cells column by column inside row pairs
    // ((0,0), (1,0), (0,1), (1,1), …) keeps two rows of A live and peaks above n(n+1).
    let n = 4;
    let mut done = 0u32;
    let mut peak = 0;
    for pair in 0..n / 2 {
        for j in 0..n {
            for i in [2 * pair, 2 * pair + 1] {
                peak = peak.max(cell_peak(n, |a, b| done >> (a * n + b) & 1 == 1, (i, j)));
                done |= 1 << (i * n + j);
            }
        }
    }
    assert!(peak > n * (n + 1), "interleaved peak {peak}");
}
