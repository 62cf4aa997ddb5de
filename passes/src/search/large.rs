//! Large moves of the task phase, and the adaptive choice between them and the small moves.
//!
//! A small move (`super::local`) changes a task order a few places at a time, so a chain stays
//! in the basin of the portfolio member it started from: on a graph numbered differently it
//! starts elsewhere and ends elsewhere. A large move rearranges a whole substructure of the
//! task DAG in one step; which tasks move together is read off the DAG's edges alone:
//! - **gather**: one task's cone (the main tasks it waits for, transitively) moves to just
//!   before it — its inputs are computed just in time, layer-fused;
//! - **cone first**: one sink task (no main task waits for it) moves to the front with its
//!   cone — that sink's results come first, the root order changes;
//! - **consumers**: the nearest main tasks that wait for one task move to just after it —
//!   consumer-first, the loop nesting of a producer family and its consumers turns;
//! - **block**: a block of up to half the sequence moves anywhere — two halves of a loop swap;
//! - **adopt**: a window of a structural reference sequence (a root order, a loop nesting, a
//!   curve over a task grid of some band width) re-sequences its tasks in the places they hold
//!   (`super::adopt`).
//!
//! Which task a move starts from is drawn from the chain's stream by its place in the current
//! sequence (for cone first, among the sinks in the sequence's order), never by its task number
//! (τ, `super::tasks`, which follows the numbering).
//!
//! Moved tasks keep their relative order, so a move carries the chain's refinements along. Every
//! sequence is a permutation of the main tasks, which `super::realize` turns into a legal,
//! L0-exclusive σ whatever the permutation, so no move can produce an illegal order.
//!
//! The choice is adaptive and deterministic: each kind is drawn with probability proportional
//! to its prior share times its smoothed rate of improving the chain's current order
//! ((wins + 1) / (tries + 2)); the tallies are the chain's own and the draws come from its own
//! random stream, so a chain's moves are a function of its seed.
//!
//! O(T + E_T) per large move for T tasks and E_T task edges (one walk of a cone and one pass
//! over the sequence); O(KINDS) per choice.

use super::adopt::References;
use super::tasks::{Class, Tasks};
use crate::rng::Rng;

/// The kinds of task-phase moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// One of `super::local`'s small moves.
    Small,
    Gather,
    ConeFirst,
    Consumers,
    Block,
    Adopt,
}

/// The large moves that rearrange the sequence around one task ([`Large::rearranged`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Around {
    Gather,
    ConeFirst,
    Consumers,
}

const KINDS: [Kind; 6] = [
    Kind::Small,
    Kind::Gather,
    Kind::ConeFirst,
    Kind::Consumers,
    Kind::Block,
    Kind::Adopt,
];
/// Prior weights (small moves 800 of 1,050, 76% of the draws at first): small moves refine, so
/// they keep most of the steps until the large ones prove themselves on the module at hand.
const PRIOR: [u64; 6] = [800, 50, 50, 50, 50, 50];

/// The large moves of one chain and its tallies.
pub(crate) struct Large {
    /// Per task: its index in [`Tasks::main`], `usize::MAX` for a feeder or drain.
    main_index: Vec<usize>,
    /// Per main task (index into [`Tasks::main`]): whether no main task waits for it.
    sink: Vec<bool>,
    /// Tries and wins per kind.
    tries: [u64; 6],
    wins: [u64; 6],
    /// Visit marks of the current walk (`stamp` is the current walk's mark).
    mark: Vec<u32>,
    stamp: u32,
}

impl Large {
    /// The large moves over `tasks`' main tasks. O(T + E_T).
    pub(crate) fn new(tasks: &Tasks) -> Self {
        let mut main_index = vec![usize::MAX; tasks.len()];
        for (i, &task) in tasks.main.iter().enumerate() {
            main_index[task] = i;
        }
        // Whether a main task waits for each task (directly or through feeders and drains):
        // one pass over the task DAG from its sinks back, not one walk per main task.
        let mut feeds_main = vec![false; tasks.len()];
        for &k in tasks.topo.iter().rev() {
            feeds_main[k] = tasks.succ[k]
                .iter()
                .any(|&s| tasks.class[s] == Class::Main || feeds_main[s]);
        }
        let sink = tasks.main.iter().map(|&task| !feeds_main[task]).collect();
        Large {
            main_index,
            sink,
            tries: [0; 6],
            wins: [0; 6],
            mark: vec![0; tasks.len()],
            stamp: 0,
        }
    }

    /// Draws the kind of the next move.
    pub(crate) fn pick(&self, rng: &mut Rng) -> Kind {
        let weight = |k: usize| PRIOR[k] * 1_000_000 * (self.wins[k] + 1) / (self.tries[k] + 2);
        let total: u64 = (0..KINDS.len()).map(weight).sum();
        let mut draw = rng.next_u64() % total;
        for (k, &kind) in KINDS.iter().enumerate() {
            let w = weight(k);
            if draw < w {
                return kind;
            }
            draw -= w;
        }
        Kind::Small
    }

    /// Counts one try of `kind`, a win when it improved the chain's current order.
    pub(crate) fn record(&mut self, kind: Kind, won: bool) {
        // `KINDS` lists the kinds in declaration order.
        let k = kind as usize;
        self.tries[k] += 1;
        self.wins[k] += u64::from(won);
    }

    /// `seq` after one large move of `kind` (never [`Kind::Small`], which `super::local` makes;
    /// adopt windows of `references`); `None` when the move leaves the sequence as it is.
    pub(crate) fn apply(
        &mut self,
        tasks: &Tasks,
        references: &References,
        kind: Kind,
        seq: &[usize],
        rng: &mut Rng,
    ) -> Option<Vec<usize>> {
        let m = seq.len();
        let next = match kind {
            Kind::Small => return None,
            Kind::Adopt => return references.adopt(seq, rng),
            Kind::Block => {
                let len = rng.range(2, (m / 2).max(2)).min(m - 1);
                let start = rng.range(0, m - len);
                let mut rest: Vec<usize> = seq[..start]
                    .iter()
                    .chain(&seq[start + len..])
                    .copied()
                    .collect();
                let to = rng.range(0, rest.len());
                rest.splice(to..to, seq[start..start + len].iter().copied());
                rest
            }
            Kind::ConeFirst => {
                let sinks: Vec<usize> = seq.iter().copied().filter(|&i| self.sink[i]).collect();
                let sink = rng.pick(&sinks)?;
                self.rearranged(tasks, Around::ConeFirst, seq, sink)
            }
            Kind::Gather | Kind::Consumers => {
                let task = seq[rng.range(0, m - 1)];
                let around = if kind == Kind::Gather {
                    Around::Gather
                } else {
                    Around::Consumers
                };
                self.rearranged(tasks, around, seq, task)
            }
        };
        (next != seq).then_some(next)
    }

    /// `seq` after the move `around` of `task` (an index into [`Tasks::main`]).
    pub(crate) fn rearranged(
        &mut self,
        tasks: &Tasks,
        around: Around,
        seq: &[usize],
        task: usize,
    ) -> Vec<usize> {
        let group = match around {
            Around::Gather | Around::ConeFirst => self.cone(tasks, tasks.main[task]),
            Around::Consumers => self.consumers(tasks, tasks.main[task]),
        };
        self.mark_all(tasks, &group);
        let stamp = self.stamp;
        let moved = |i: usize| i != task && self.mark[tasks.main[i]] == stamp;
        let group: Vec<usize> = seq.iter().copied().filter(|&i| moved(i)).collect();
        let mut next = Vec::with_capacity(seq.len());
        if around == Around::ConeFirst {
            next.extend(&group);
            next.push(task);
        }
        for &i in seq.iter().filter(|&&i| !moved(i)) {
            match around {
                Around::ConeFirst if i == task => continue,
                Around::Gather if i == task => next.extend(&group),
                _ => {}
            }
            next.push(i);
            if around == Around::Consumers && i == task {
                next.extend(&group);
            }
        }
        next
    }

    /// Starts a new walk or marking: a fresh stamp, every mark older.
    fn fresh(&mut self) -> u32 {
        self.stamp += 1;
        if self.stamp == u32::MAX {
            self.mark.iter_mut().for_each(|x| *x = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Marks the tasks of `main` (indices into [`Tasks::main`]) with a fresh stamp.
    fn mark_all(&mut self, tasks: &Tasks, main: &[usize]) {
        let stamp = self.fresh();
        for &i in main {
            self.mark[tasks.main[i]] = stamp;
        }
    }

    /// The main tasks (indices into [`Tasks::main`]) that `task` waits for, transitively.
    fn cone(&mut self, tasks: &Tasks, task: usize) -> Vec<usize> {
        self.walk(tasks, task, true, true)
    }

    /// The nearest main tasks that wait for `task`: the walk passes through feeders and drains
    /// and stops at main tasks.
    fn consumers(&mut self, tasks: &Tasks, task: usize) -> Vec<usize> {
        self.walk(tasks, task, false, false)
    }

    /// A depth-first walk from `task` over predecessors (`up`) or successors, collecting main
    /// tasks; past a main task only when `through`. O(visited tasks + their edges).
    fn walk(&mut self, tasks: &Tasks, task: usize, up: bool, through: bool) -> Vec<usize> {
        let stamp = self.fresh();
        let mut found = Vec::new();
        let mut stack = vec![task];
        self.mark[task] = stamp;
        while let Some(k) = stack.pop() {
            let next = if up { &tasks.pred[k] } else { &tasks.succ[k] };
            for &n in next {
                if self.mark[n] == stamp {
                    continue;
                }
                self.mark[n] = stamp;
                let is_main = tasks.class[n] == Class::Main;
                if is_main {
                    found.push(self.main_index[n]);
                }
                if !is_main || through {
                    stack.push(n);
                }
            }
        }
        found
    }
}
