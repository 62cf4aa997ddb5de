//! What the replay reports: a [`Violation`] at an op, classified by a [`Category`].
//!
//! Categories are grouped by the replay [`Level`] that finds them, so callers can ask for the
//! static errors (order and plan levels) apart from the timing ones. Names are kebab case and
//! stable: they are statistic names, JSON keys and the prefix of every diagnostic. O(1) per call.

use lattice_lir::OpId;
use serde::{Serialize, Serializer};
use std::fmt;

/// The replay layer a check belongs to (DESIGN §1.3, paper §"Validity").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// σ alone: coverage, edges, lifetimes, L0 exclusivity. Checked in every phase.
    Order,
    /// The memory plan: offsets, residencies, spills, backing. Checked once planned.
    Plan,
    /// The augmented graph and its timing: acyclicity, hand-offs, ownership. Checked once planned.
    Timing,
}

macro_rules! categories {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $level:ident, $summary:literal; )+) => {
        /// The kind of a violation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Category {
            $( $(#[$doc])* $variant, )+
        }

        impl Category {
            /// Every category, in report order (by level, then as declared).
            pub const ALL: &'static [Category] = &[$( Category::$variant ),+];

            /// The kebab-case name (statistic name, JSON key, diagnostic prefix).
            pub fn name(self) -> &'static str {
                match self { $( Category::$variant => $name, )+ }
            }

            /// The replay level that finds it.
            pub fn level(self) -> Level {
                match self { $( Category::$variant => Level::$level, )+ }
            }

            /// One line saying what it counts (the statistic's description).
            pub fn summary(self) -> &'static str {
                match self { $( Category::$variant => $summary, )+ }
            }
        }
    };
}

categories! {
    /// An id (op, buffer, tier, pipe) points outside its arena; nothing else is checked then.
    Dangling = "dangling", Order, "ids that point outside their arena";
    /// σ misses an op or lists one twice.
    Coverage = "coverage", Order, "ops missing from σ or listed twice";
    /// A dependency is placed at or after its user in σ.
    EdgeOrder = "edge-order", Order, "dependencies placed after their user in σ";
    /// ALLOC/FREE pairing: a missing, repeated or misplaced ALLOC or FREE, or an ALLOC not ordered
    /// before its FREE in the augmented graph.
    Lifecycle = "lifecycle", Order, "buffers whose ALLOC/FREE pairing is broken";
    /// An op names a buffer that is not resident at its position in σ.
    UseOutsideResidency = "use-outside-residency", Order, "uses of buffers that are not resident";
    /// Two buffers live at once in a staging tier that must hold one.
    L0Exclusive = "l0-exclusive", Order, "second live buffers in an exclusive staging tier";
    /// A planned ALLOC has no offset.
    MissingOffset = "missing-offset", Plan, "planned ALLOCs without an offset";
    /// A residency ends past its tier's capacity.
    Capacity = "capacity", Plan, "residencies past their tier's capacity";
    /// Two residencies of one tier overlap in σ and in address.
    Overlap = "overlap", Plan, "residencies overlapping in σ and address";
    /// A spill transition out of sequence: SPILL_OUT of a non-resident buffer, FREE while spilled.
    Residency = "residency", Plan, "spill transitions out of sequence";
    /// A SPILL_IN without a copy to reload, or a `backed` flag that disagrees with the COPY_INs.
    Backing = "backing", Plan, "reloads without a valid copy and wrong backed flags";
    /// A spill op's pipe or cycles disagree with the target's spill model.
    SpillCost = "spill-cost", Plan, "spill ops with the wrong pipe or cycles";
    /// An ordering a spill requires is implied by no path of the augmented graph.
    SpillEdge = "spill-edge", Plan, "spill orderings no dependency path enforces";
    /// The augmented graph has a cycle.
    Cycle = "cycle", Timing, "cycles in the augmented graph";
    /// A residency takes bytes whose previous owner's end no path of the augmented graph orders
    /// before it.
    HandOff = "hand-off", Timing, "address hand-offs no dependency path enforces";
    /// Under the replayed timing, two residencies sharing bytes are held at the same time.
    Ownership = "ownership", Timing, "residencies sharing bytes at the same time";
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Category {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One broken rule of DESIGN §1.3, at the op it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The op the violation is reported at (`None` for the module or a buffer without ops).
    pub op: Option<OpId>,
    /// What kind of rule is broken.
    pub category: Category,
    /// A sentence naming the ops and buffers involved as users read them (`%12`, `@b3`).
    pub message: String,
}

impl Violation {
    /// A violation at `op`.
    pub fn new(op: Option<OpId>, category: Category, message: impl Into<String>) -> Self {
        Violation {
            op,
            category,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.category, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_levels_ascend() {
        let mut names: Vec<&str> = Category::ALL.iter().map(|c| c.name()).collect();
        assert!(names.iter().all(|n| n
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')));
        assert!(Category::ALL
            .windows(2)
            .all(|w| w[0].level() <= w[1].level()));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Category::ALL.len());
        assert_eq!(Category::L0Exclusive.to_string(), "l0-exclusive");
    }
}
