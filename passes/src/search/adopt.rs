//! The *adopt* move of the chains' task phase: a window of a structural reference sequence
//! re-sequences, in the places they hold, the tasks it names.
//!
//! The references are the structural task sequences the portfolio starts from, grouped by
//! what they vary: the reverse depth-first family's root orders (`super::family`), both loop
//! nestings of nested task families (`super::nest`), and every curve over a detected task grid
//! and its transpose, band widths 2–8 among them (`super::grid`; a curve lists the grid's tasks
//! only). A move draws a group, a reference in it and a window of it (at least two tasks); the
//! window's tasks keep the set of places they hold in the chain's current sequence and take
//! them in the reference's order, every other task stays. So a chain can turn one family's loop
//! nesting, change the band width over part of a grid (or all of it, when the window is the
//! whole curve) or take one region in another root order, and keep the refinements it made
//! elsewhere. The result is a permutation of the main tasks like any sequence, which
//! `super::realize` turns into a legal, L0-exclusive σ.
//!
//! Everything is read off the structure (fingerprints, not task numbers, break ties in the
//! references), and the window is drawn from the chain's own stream, so the move depends on the
//! numbering no more than the references do.
//!
//! The portfolio's build hands them over (`super::portfolio`, which reads the same sequences
//! off the structure for its task members), so they cost only their copies, O(R · T) for R
//! references over T tasks, once per search; a move costs O(T).

use crate::rng::Rng;

/// The references, by group; every group and reference non-empty.
pub(crate) struct References {
    groups: Vec<Vec<Vec<usize>>>,
}

impl References {
    /// No references: the adopt move never applies.
    pub(crate) fn none() -> Self {
        References { groups: Vec::new() }
    }

    /// The references in their groups: the family's root orders, the loop nestings, the grid
    /// curves (each a sequence of main tasks); sequences of fewer than two tasks and empty
    /// groups are left out.
    pub(crate) fn new(groups: [Vec<Vec<usize>>; 3]) -> Self {
        let groups = groups
            .into_iter()
            .map(|group| {
                group
                    .into_iter()
                    .filter(|s| s.len() >= 2)
                    .collect::<Vec<_>>()
            })
            .filter(|group| !group.is_empty())
            .collect();
        References { groups }
    }

    /// `seq` (a permutation of the main tasks) after one adopt move drawn from `rng`; `None`
    /// when there are no references or the move leaves `seq` as it is.
    pub(crate) fn adopt(&self, seq: &[usize], rng: &mut Rng) -> Option<Vec<usize>> {
        let group = self
            .groups
            .get(rng.range(0, self.groups.len().checked_sub(1)?))?;
        let reference = &group[rng.range(0, group.len() - 1)];
        let len = rng.range(2, reference.len());
        let start = rng.range(0, reference.len() - len);
        let next = adopted(seq, &reference[start..start + len]);
        (next != seq).then_some(next)
    }

    /// The references, by group (for tests).
    #[cfg(test)]
    pub(crate) fn groups(&self) -> &[Vec<Vec<usize>>] {
        &self.groups
    }
}

/// `seq` (a permutation of the main tasks) with `window`'s tasks (distinct) in the places they
/// hold, in `window`'s order; every other task stays.
pub(crate) fn adopted(seq: &[usize], window: &[usize]) -> Vec<usize> {
    let mut in_window = vec![false; seq.len()];
    for &i in window {
        in_window[i] = true;
    }
    let mut taken = window.iter();
    seq.iter()
        .map(|&i| {
            if in_window[i] {
                *taken.next().unwrap_or(&i)
            } else {
                i
            }
        })
        .collect()
}
