//! A chain's memo of the orders it has scored, so that proposing one of them again costs a
//! lookup instead of DLR's scan, and a chain can tell when its moves keep returning to orders it
//! has already seen. Orders are remembered in their tightened form (`crate::dlr::Tightened`):
//! the search-stage measure is a function of it (DLR plans the tightened order), and many
//! proposals — an op move that only shifts an ALLOC or a FREE — tighten to a known one.
//!
//! Invariants:
//! - **Same answers**: an entry records what scoring the order answered — its measure, or that
//!   its key exceeds some bound `b` (or that it is infeasible, which answers alike under every
//!   bound); a lookup under a bound at most `b` gives the same "rejected", a lookup under a larger
//!   bound is a miss and the order is scored again. So a chain with the memo takes the very steps
//!   it would take without, only cheaper (a hit costs the tightening, V + E, plus hashing and
//!   comparing, V; a miss costs the tightening on top of the score).
//! - **Small modules only**: a chain keeps a memo on modules of at most [`MEMO_MAX_OPS`] ops,
//!   where orders recur (a module of a few dozen ops has only thousands of tightened orders); on
//!   larger ones it keeps none and scores as before, so their results and costs are unchanged.
//!   The memo holds at most [`MEMO_OPS`] op ids and stops taking new orders when full.
//! - **Staleness** ([`Memo::stale`]): after [`STALE`] proposals in a row that were all hits, the
//!   phase's moves keep returning to known orders, and spending the rest of its share would only
//!   rescore them; the phase ends (deterministically: hits are a function of the chain's seed).
//!
//! Cost: O(V) per lookup or insertion (hashing the order), memory O(min(orders · V, MEMO_OPS)).

use super::score::{Key, Measure};
use lattice_lir::{Module, OpId};
use std::collections::HashMap;

/// Most op ids the memo stores, over all its orders (16 MiB).
pub const MEMO_OPS: usize = 1 << 22;
/// The largest module a chain keeps a memo for.
pub const MEMO_MAX_OPS: usize = 256;
/// Hits in a row after which a phase is stale.
pub const STALE: u64 = 4096;

/// What scoring an order answered.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// Its key and measure.
    Scored(Key, Measure),
    /// Nothing under this bound or a smaller one: its key exceeds it, or it is infeasible.
    Rejected(Key),
}

/// The orders a chain has scored.
#[derive(Clone, Debug, Default)]
pub(crate) struct Memo {
    /// Whether the module is small enough to keep one.
    open: bool,
    answers: HashMap<Box<[OpId]>, Answer>,
    /// Op ids stored.
    stored: usize,
    /// Lookups in a row that hit.
    streak: u64,
    /// Whether some phase went stale.
    went_stale: bool,
}

/// A lookup's result: the answer scoring would give, or a miss.
pub(crate) enum Lookup {
    /// The order was scored before: scoring it again gives this.
    Hit(Option<(Key, Measure)>),
    /// Score it.
    Miss,
}

impl Memo {
    /// The memo of a chain over `module`'s orders: open when it has at most [`MEMO_MAX_OPS`]
    /// ops.
    pub(crate) fn of(module: &Module) -> Memo {
        Memo {
            open: module.ops.len() <= MEMO_MAX_OPS,
            ..Memo::default()
        }
    }

    /// Whether the memo is kept (see [`Memo::of`]).
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// What scoring `order` under `bound` answers, if the memo knows.
    pub(crate) fn lookup(&mut self, order: &[OpId], bound: &Key) -> Lookup {
        let found = match self.answers.get(order) {
            Some(&Answer::Scored(k, m)) => Lookup::Hit(Some((k, m))),
            Some(Answer::Rejected(b)) if bound <= b => Lookup::Hit(None),
            _ => Lookup::Miss,
        };
        self.streak = match found {
            Lookup::Hit(_) => self.streak + 1,
            Lookup::Miss => 0,
        };
        self.went_stale |= self.stale();
        found
    }

    /// Records that scoring `order` under `bound` answered `answer`.
    pub(crate) fn record(&mut self, order: &[OpId], bound: &Key, answer: Option<(Key, Measure)>) {
        let answer = match answer {
            Some((k, m)) => Answer::Scored(k, m),
            None => Answer::Rejected(*bound),
        };
        if let Some(known) = self.answers.get_mut(order) {
            *known = answer;
        } else if self.stored + order.len() <= MEMO_OPS {
            self.stored += order.len();
            self.answers.insert(order.into(), answer);
        }
    }

    /// Whether the last [`STALE`] lookups all hit.
    pub(crate) fn stale(&self) -> bool {
        self.streak >= STALE
    }

    /// Whether some phase of the chain went stale.
    pub(crate) fn went_stale(&self) -> bool {
        self.went_stale
    }

    /// Starts a new phase's count of hits in a row.
    pub(crate) fn new_phase(&mut self) {
        self.streak = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(ids: &[u32]) -> Vec<OpId> {
        ids.iter().map(|&i| OpId::new(i as usize)).collect()
    }

    #[test]
    fn a_hit_gives_what_scoring_gave_and_a_larger_bound_rescores_a_rejection() {
        let mut memo = Memo::of(&Module::new("m", lattice_lir::Target::contest()));
        assert!(memo.is_open());
        let (a, b) = (order(&[0, 1, 2]), order(&[1, 0, 2]));
        let m = Measure {
            peak: 7,
            ..Measure::default()
        };
        let key_a = [7, 0, 0, 0, 0];
        assert!(matches!(memo.lookup(&a, &key_a), Lookup::Miss));
        memo.record(&a, &key_a, Some((key_a, m)));
        memo.record(&b, &[5, 0, 0, 0, 0], None);
        assert!(
            matches!(memo.lookup(&a, &[1, 0, 0, 0, 0]), Lookup::Hit(Some((k, _))) if k == key_a)
        );
        assert!(matches!(
            memo.lookup(&b, &[4, 0, 0, 0, 0]),
            Lookup::Hit(None)
        ));
        assert!(matches!(memo.lookup(&b, &[6, 0, 0, 0, 0]), Lookup::Miss));
    }

    #[test]
    fn hits_in_a_row_make_a_phase_stale_and_a_miss_or_a_new_phase_resets_them() {
        let mut memo = Memo::default();
        let a = order(&[0, 1]);
        let key = [1, 0, 0, 0, 0];
        memo.record(&a, &key, None);
        for _ in 0..STALE {
            assert!(!memo.stale());
            memo.lookup(&a, &key);
        }
        assert!(memo.stale());
        memo.new_phase();
        assert!(!memo.stale());
        memo.lookup(&a, &key);
        assert!(matches!(memo.lookup(&order(&[1, 0]), &key), Lookup::Miss));
        assert!(!memo.stale());
    }
}
