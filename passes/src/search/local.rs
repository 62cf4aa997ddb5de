//! Local search: one late-acceptance hill-climbing chain (LAHC, Burke & Bykov) from a portfolio
//! member, first over task orders, then over single op moves.
//!
//! - **Task phase** (60% of the chain's budget when the module has two or more main tasks):
//!   swaps of two main tasks at most 16 apart, reinsertions of one task at most 16 places away,
//!   reversals of blocks of 2–12 tasks, flips of one task's op order (`super::tasks`), and
//!   changes of the feeder placement (lead 0–3, loaders inlined or not); and the large moves of
//!   `super::large` (a task's cone gathered before it, a sink's cone first, a task's consumers
//!   right after it, a block of up to half the sequence moved, a window of a structural
//!   reference — a root order, a loop nesting, a grid curve — adopted in place), drawn
//!   adaptively by how often each kind has improved this chain's order. Every neighbour is
//!   realized (`super::realize`), so it is legal and L0-exclusive by construction.
//! - **Op phase** (the rest): one op moves to another place inside its dependency window (after
//!   its last predecessor, before its first successor, in the precedence graph without L0 turns).
//!   The window ignores the op's *carried* neighbours — an ALLOC of a non-staging buffer with no
//!   predecessor before it, a FREE of one with no successor after it — which move along with it
//!   (to just before it, just after it): DLR's tightening re-places those anyway, and without
//!   carrying, an op whose output buffer is allocated right before it could never move earlier.
//!   ALLOCs and FREEs of staging tiers never move, so the relative order of the staging tiers'
//!   lifetimes — and with it L0 exclusivity — is the one of the phase's start, which is
//!   exclusive; the order stays a topological order because the moved op stays inside its
//!   window, a carried ALLOC (a source) only moves earlier and a carried FREE (a sink) only later,
//!   and no other op changes relative order.
//!
//! A neighbour is accepted when its key is no worse than the current one or than the current
//! key of `HISTORY` steps ago. Deterministic: the chain's moves come from its own SplitMix64
//! stream, and it stops once its [`Allowance`] of steps or work units is spent (work counted by
//! `super::score`, so it too is a function of the seed), or once its best meets the search's
//! floor (`super::floor`: nothing better exists); a phase also ends once its moves keep
//! returning to orders the chain has scored (`super::memo`, which answers those for O(V)
//! instead of a scan). Each step is one realization or an O(V) rotation, plus one evaluation
//! or memo lookup; a large move adds O(T + E_T) for T tasks and E_T task edges.

use super::adopt::References;
use super::large::{Kind, Large};
use super::memo::{Lookup, Memo};
use super::moves::{relocate, shift, window};
use super::options::Objective;
use super::progress::Progress;
use super::realize::{realize, TaskOrder};
use super::repair::repair;
use super::score::{key, realize_work, Allowance, Evaluator, Key, Measure, Spent};
use super::tasks::Tasks;
use crate::dlr::Tightened;
use crate::order::graph::{Graph, Role};
use crate::rng::Rng;
use lattice_lir::{Module, OpId, OpKind};
use std::time::Instant;

/// Length of the late-acceptance history.
const HISTORY: usize = 32;
/// Farthest a swap or reinsertion moves a task.
const REACH: usize = 16;
/// Repair moves per search step: a move costs O(span + uses) where a full evaluation costs
/// O((V + E) log V), so on modules of thousands of ops a step's worth of moves costs about what
/// the step it replaces would (FlashAttention_Case1's peak runs take no longer with the repair).
const REPAIR_MOVES: u64 = 512;

/// The best a chain found.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub(crate) key: Key,
    pub(crate) measure: Measure,
    pub(crate) order: Vec<OpId>,
    pub(crate) evaluations: u64,
    /// Work units spent.
    pub(crate) work: u64,
    pub(crate) improvements: u64,
    /// The orders the chain has scored.
    pub(crate) memo: Memo,
}

impl Found {
    /// A chain's start: `order`, scored `key` and `measure`, nothing spent yet, an empty memo
    /// for `module`.
    pub(crate) fn start(key: Key, measure: Measure, order: Vec<OpId>, module: &Module) -> Self {
        Found {
            key,
            measure,
            order,
            evaluations: 0,
            work: 0,
            improvements: 0,
            memo: Memo::of(module),
        }
    }

    /// Steps and work spent so far.
    fn spent(&self) -> Spent {
        Spent {
            steps: self.evaluations,
            work: self.work,
        }
    }
}

/// What every chain shares.
pub(crate) struct Space<'a, 'm> {
    pub(crate) evaluator: &'a Evaluator<'m>,
    pub(crate) tasks: &'a Tasks,
    /// The precedence graph without L0 turns (the op phase's windows).
    pub(crate) graph: &'a Graph<'m>,
    /// The structural sequences the task phase's adopt moves take windows of.
    pub(crate) references: &'a References,
    pub(crate) deadline: Option<Instant>,
    /// Told of every step spent, in the unit of `currency`.
    pub(crate) progress: &'a dyn Progress,
    /// The budget's kind (steps or work units), for `progress`.
    pub(crate) currency: Allowance,
    /// The search's floor (`super::floor`): a chain whose best meets it stops.
    pub(crate) floor: u64,
}

impl Space<'_, '_> {
    /// Whether a phase of the chain of `found` ends now: out of time, the best meets the floor
    /// (nothing better exists), or the phase's moves keep returning to known orders.
    fn stop(&self, found: &Found) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || found.key[0] <= self.floor
            || found.memo.stale()
    }

    /// Counts `steps` steps and `work` units as spent by the chain of `found`.
    fn spend(&self, found: &mut Found, steps: u64, work: u64) {
        found.evaluations += steps;
        found.work += work;
        self.progress.advance(self.currency.cost(steps, work));
    }

    /// Scores `order` (or, when its tightened form was scored before, looks the answer up in the
    /// chain's memo); `None` when it is infeasible or sure to be rejected against `bound`.
    fn score(&self, order: &[OpId], bound: &Key, found: &mut Found) -> Option<(Key, Measure)> {
        let e = self.evaluator;
        let tightened = found.memo.is_open().then(|| Tightened::of(e.module, order));
        let mut lookup_work = 0;
        if let Some(t) = &tightened {
            lookup_work = e.tighten_work() + t.order().len() as u64;
            if let Lookup::Hit(answer) = found.memo.lookup(t.order(), bound) {
                self.spend(found, 1, lookup_work);
                return answer;
            }
        }
        let (measure, work) = match &tightened {
            Some(t) if e.objective != Objective::Makespan => e.measure_tightened(t, Some(bound)),
            _ => e.measure(order, Some(bound)),
        };
        self.spend(found, 1, lookup_work + work);
        let answer = measure.map(|m| (key(e.objective, &m), m));
        if let Some(t) = &tightened {
            found.memo.record(t.order(), bound, answer);
        }
        answer
    }
}

/// Runs one chain within `budget`; `tasks_from` starts the task phase, `found` holds the best
/// order known to the chain (the op phase starts from it).
pub(crate) fn chain(
    space: &Space<'_, '_>,
    tasks_from: Option<(TaskOrder, Key)>,
    mut found: Found,
    seed: u64,
    budget: Allowance,
) -> Found {
    let mut rng = Rng::new(seed);
    let repairing = if space.evaluator.objective == Objective::Peak {
        budget.part(1, 4)
    } else {
        budget.part(0, 1)
    };
    let mut left = budget.minus(repairing);
    if let Some((start, start_key)) = tasks_from.filter(|_| space.tasks.main.len() >= 2) {
        let steps = left.part(3, 5);
        left = left.minus(steps);
        task_phase(space, start, start_key, &mut found, &mut rng, steps);
    }
    op_phase(space, &mut found, &mut rng, left);
    repair_phase(space, &mut found, &mut rng, repairing);
    found
}

/// The peak objective's last phase (`super::repair`): `steps − 1` steps' worth of incremental
/// moves, [`REPAIR_MOVES`] per step, then one evaluation of the repaired order; a work
/// allowance is worth as many steps as it buys at the chain's average cost per step so far.
fn repair_phase(space: &Space<'_, '_>, found: &mut Found, rng: &mut Rng, allowance: Allowance) {
    found.memo.new_phase();
    if allowance.is_empty() || space.stop(found) {
        return;
    }
    let per_step = found.work / found.evaluations.max(1);
    let steps = allowance.steps_at(per_step);
    let mut order = found.order.clone();
    repair(space.graph, &mut order, rng, (steps - 1) * REPAIR_MOVES);
    space.spend(found, steps - 1, (steps - 1) * per_step);
    let bound = found.key;
    if let Some((k, measure)) = space.score(&order, &bound, found) {
        if k < found.key {
            found.key = k;
            found.measure = measure;
            found.order = order;
            found.improvements += 1;
        }
    }
}

fn task_phase(
    space: &Space<'_, '_>,
    mut current: TaskOrder,
    mut current_key: Key,
    found: &mut Found,
    rng: &mut Rng,
    allowance: Allowance,
) {
    let mut history = [current_key; HISTORY];
    let flippable = space.tasks.flippable();
    let mut large = Large::new(space.tasks);
    let start = found.spent();
    let mut steps = 0;
    found.memo.new_phase();
    while allowance.allows(found.spent() - start) {
        if space.stop(found) {
            return;
        }
        let step = steps;
        steps += 1;
        let drawn = large.pick(rng);
        // A large move that would leave the sequence as it is gives way to a small move, and
        // the try counts as the small move's: a no-op-prone kind must not borrow its rate.
        let (kind, candidate) =
            match large.apply(space.tasks, space.references, drawn, &current.seq, rng) {
                Some(seq) => (
                    drawn,
                    TaskOrder {
                        seq,
                        ..current.clone()
                    },
                ),
                None => (Kind::Small, neighbour(&current, &flippable, rng)),
            };
        let order = realize(space.tasks, &candidate);
        space.spend(found, 0, realize_work(space.evaluator.module));
        let slot = step as usize % HISTORY;
        let bound = current_key.max(history[slot]);
        let Some((k, measure)) = space.score(&order, &bound, found) else {
            large.record(kind, false);
            history[slot] = current_key;
            continue;
        };
        large.record(kind, k < current_key);
        if k <= bound {
            current = candidate;
            current_key = k;
            if k < found.key {
                found.key = k;
                found.measure = measure;
                found.order = order;
                found.improvements += 1;
            }
        }
        history[slot] = current_key;
    }
}

/// A random neighbour of a task order; `flippable` lists the main tasks a flip can change.
fn neighbour(current: &TaskOrder, flippable: &[usize], rng: &mut Rng) -> TaskOrder {
    let mut next = current.clone();
    let m = next.seq.len();
    let i = rng.range(0, m - 1);
    let far = |rng: &mut Rng| {
        let lo = i.saturating_sub(REACH);
        let hi = (i + REACH).min(m - 1);
        let j = rng.range(lo, hi);
        if j == i {
            (i + 1) % m
        } else {
            j
        }
    };
    match rng.range(0, 9) {
        0..=3 => {
            let j = far(rng);
            next.seq.swap(i, j);
        }
        4..=6 => {
            let j = far(rng);
            let task = next.seq.remove(i);
            next.seq.insert(j, task);
        }
        7..=8 => {
            let len = rng.range(2, 12.min(m));
            let start = i.min(m - len);
            next.seq[start..start + len].reverse();
        }
        9 if !flippable.is_empty() && rng.range(0, 1) == 0 => {
            let task = flippable[rng.range(0, flippable.len() - 1)];
            if !next.flips.remove(&task) {
                next.flips.insert(task);
            }
        }
        _ => {
            // One of the other seven placements: lead 0–3, loaders inlined or not.
            let code =
                (next.lead as usize * 2 + usize::from(next.inline) + 1 + rng.range(0, 6)) % 8;
            next.lead = (code / 2) as u32;
            next.inline = code % 2 == 1;
        }
    }
    next
}

fn op_phase(space: &Space<'_, '_>, found: &mut Found, rng: &mut Rng, allowance: Allowance) {
    let graph = space.graph;
    let module = graph.module;
    let staging_lifecycle = |op: OpId| match graph.role(op) {
        Role::Alloc(b) | Role::Free(b) => module.target.tier(module.buffer(b).tier).staging,
        Role::Work => false,
    };
    let movable: Vec<OpId> = module
        .op_ids()
        .filter(|&op| !staging_lifecycle(op))
        .collect();
    if movable.is_empty() || found.order.len() < 2 {
        return;
    }
    let mut order = found.order.clone();
    let mut pos = vec![0; order.len()];
    for (p, op) in order.iter().enumerate() {
        pos[op.index()] = p;
    }
    let mut current_key = found.key;
    let mut history = [current_key; HISTORY];
    let steer = space.evaluator.objective == Objective::Peak;
    let mut shifts = Vec::new();
    let start = found.spent();
    let mut steps = 0;
    found.memo.new_phase();
    while allowance.allows(found.spent() - start) {
        if space.stop(found) {
            return;
        }
        let step = steps;
        steps += 1;
        // Choosing and making the move: O(V) (the steered move's scan, the rotation).
        space.spend(found, 0, realize_work(module));
        let steered = if steer && step % 2 == 0 {
            steered_move(graph, &order, &pos, rng)
        } else {
            None
        };
        let Some((p, q)) = steered.or_else(|| random_move(graph, &movable, &order, &pos, rng))
        else {
            space.spend(found, 1, 0);
            continue;
        };
        relocate(graph, &mut order, &mut pos, p, q, &mut shifts);
        let slot = step as usize % HISTORY;
        let bound = current_key.max(history[slot]);
        match space.score(&order, &bound, found) {
            Some((k, measure)) if k <= bound => {
                current_key = k;
                if k < found.key {
                    found.key = k;
                    found.measure = measure;
                    found.order.clone_from(&order);
                    found.improvements += 1;
                }
            }
            _ => {
                for &(from, to) in shifts.iter().rev() {
                    shift(&mut order, &mut pos, to, from);
                }
            }
        }
        history[slot] = current_key;
    }
}

/// A uniformly random op of `movable` to a uniformly random other place of its window.
fn random_move(
    graph: &Graph<'_>,
    movable: &[OpId],
    order: &[OpId],
    pos: &[usize],
    rng: &mut Rng,
) -> Option<(usize, usize)> {
    let v = rng.pick(movable)?;
    let p = pos[v.index()];
    let (lo, hi) = window(graph, order, pos, v);
    if lo >= hi {
        return None;
    }
    let q = rng.range(lo, hi - 1);
    Some((p, if q >= p { q + 1 } else { q }))
}

/// A move aimed at the logical peak: with every non-staging buffer live from its first to its
/// last use in σ (the residency DLR's tightening gives it), take a position of most live
/// bytes (one of them at random), a buffer live there, and move its first use past that point or its last use before
/// it, as far as the op's window allows. O(V + B).
fn steered_move(
    graph: &Graph<'_>,
    order: &[OpId],
    pos: &[usize],
    rng: &mut Rng,
) -> Option<(usize, usize)> {
    let module = graph.module;
    let nb = module.buffers.len();
    let (mut first, mut last) = (vec![usize::MAX; nb], vec![0usize; nb]);
    for (p, &op) in order.iter().enumerate() {
        if let OpKind::Compute { operands, .. } = &module.op(op).kind {
            for b in operands {
                if !module.target.tier(module.buffer(*b).tier).staging {
                    first[b.index()] = first[b.index()].min(p);
                    last[b.index()] = p;
                }
            }
        }
    }
    let mut delta = vec![0i128; order.len() + 1];
    for b in module.buffer_ids() {
        if first[b.index()] != usize::MAX {
            let size = i128::from(module.buffer(b).size);
            delta[first[b.index()]] += size;
            delta[last[b.index()] + 1] -= size;
        }
    }
    let (mut live, mut peak, mut points) = (0i128, i128::MIN, Vec::new());
    for (p, d) in delta.iter().take(order.len()).enumerate() {
        live += d;
        if live > peak {
            (peak, points) = (live, vec![p]);
        } else if live == peak {
            points.push(p);
        }
    }
    let at = rng.pick(&points)?;
    let holders: Vec<usize> = (0..nb)
        .filter(|&b| first[b] != usize::MAX && first[b] <= at && at <= last[b])
        .collect();
    let b = rng.pick(&holders)?;
    if rng.range(0, 1) == 0 && first[b] < at {
        let p = first[b];
        let (_, hi) = window(graph, order, pos, order[p]);
        (hi > at).then(|| (p, rng.range(at, hi)))
    } else if last[b] > at {
        let p = last[b];
        let (lo, _) = window(graph, order, pos, order[p]);
        (lo < at).then(|| (p, rng.range(lo, at)))
    } else {
        None
    }
}
