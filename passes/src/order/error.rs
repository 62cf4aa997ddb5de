//! Why an ordering pass found no legal order, as a typed error that names the ops involved.
//!
//! Each variant carries the [`OpId`]s to anchor diagnostics at and the user-visible names (`%12`,
//! `@b3`, `L0A`) to print without the module; [`From<OrderError> for PassError`] turns one into a
//! located pass failure with a note per step of the explanation. O(length of the explanation).

use lattice::PassError;
use lattice_lir::OpId;
use std::fmt;

/// Why one op of a cycle must wait for the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// An `after(...)` dependency of the input.
    Dependency,
    /// A buffer's lifetime: its ALLOC precedes every use, every use precedes its FREE.
    Lifetime {
        /// The buffer's name (`@b<name>`).
        buffer: u32,
    },
    /// L0 exclusivity: a staging tier's buffers take turns in their input order, so an ALLOC
    /// waits for the FREE of the buffer that had the tier before it.
    L0Turn {
        /// The staging tier.
        tier: String,
    },
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Dependency => f.write_str("a dependency"),
            Link::Lifetime { buffer } => write!(f, "the lifetime of @b{buffer}"),
            Link::L0Turn { tier } => write!(f, "L0 exclusivity of {tier}"),
        }
    }
}

/// One step of a cycle: `op` must run before the next step's op, because of `link`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The op.
    pub op: OpId,
    /// Its name (`%<name>`).
    pub name: u32,
    /// Why the next op of the cycle waits for it.
    pub link: Link,
}

/// Why the search for L0 turns ([`super::backtrack`]) returned no order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnSearch {
    /// Every choice of grants was tried: the set has no L0-exclusive order.
    Exhausted,
    /// The search stopped after visiting this many states.
    Limit(u64),
}

/// No legal order exists under the constraints the ordering passes keep.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    /// One op names two buffers of a staging tier, so both are live at once in every order.
    #[error(
        "%{op_name} uses @b{first} and @b{second}, two buffers of the L0 tier {tier}; with \
         l0_exclusive = true no order can keep both live at once"
    )]
    SharedL0Tier {
        /// The op.
        op: OpId,
        /// Its name.
        op_name: u32,
        /// The staging tier.
        tier: String,
        /// The first buffer of that tier it names.
        first: u32,
        /// The second one.
        second: u32,
    },
    /// The dependencies, buffer lifetimes and L0 turns together form a cycle, so the traversal
    /// stopped with ops left over.
    #[error(
        "no legal order: {left} of {total} ops cannot be scheduled; the dependencies, buffer \
         lifetimes and L0 turns form the cycle {}{}",
        cycle_text(.cycle),
        search_text(.search)
    )]
    Cycle {
        /// Ops left unscheduled.
        left: usize,
        /// Ops in the module.
        total: usize,
        /// The cycle in execution direction: each step's op must run before the next step's (the
        /// last step's before the first's).
        cycle: Vec<Step>,
        /// When the input's own L0 turns closed the cycle: how the search for turns derived from
        /// the graph ended (`None` when there was no such search).
        search: Option<TurnSearch>,
    },
}

fn search_text(search: &Option<TurnSearch>) -> String {
    match search {
        None => String::new(),
        Some(TurnSearch::Exhausted) => {
            "; no other L0 turns avoid a cycle either: the search for an L0-exclusive order \
             tried every choice"
                .into()
        }
        Some(TurnSearch::Limit(states)) => format!(
            "; the search for other L0 turns stopped at its limit of {states} states without \
             finding an L0-exclusive order (one may still exist)"
        ),
    }
}

fn cycle_text(cycle: &[Step]) -> String {
    let mut names: Vec<String> = cycle.iter().map(|s| format!("%{}", s.name)).collect();
    if let Some(first) = names.first().cloned() {
        names.push(first);
    }
    names.join(" -> ")
}

impl From<OrderError> for PassError {
    fn from(error: OrderError) -> Self {
        let message = error.to_string();
        match error {
            OrderError::SharedL0Tier { op, .. } => PassError::at(op, message),
            OrderError::Cycle { cycle, .. } => {
                // Anchor at the step that made the cycle an L0 problem when there is one: that is
                // what the user can change (the input order of the tier's buffers, or the flag).
                let anchor = cycle
                    .iter()
                    .position(|s| matches!(s.link, Link::L0Turn { .. }))
                    .map_or(0, |i| (i + 1) % cycle.len());
                let mut pass_error = match cycle.get(anchor) {
                    Some(step) => PassError::at(step.op, message),
                    None => PassError::new(message),
                };
                for (i, step) in cycle.iter().enumerate() {
                    let next = &cycle[(i + 1) % cycle.len()];
                    pass_error = pass_error.with_note(
                        Some(next.op),
                        format!("%{} waits for %{} ({})", next.name, step.name, step.link),
                    );
                }
                pass_error
            }
        }
    }
}
