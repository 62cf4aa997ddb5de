//! The portfolio: the candidate orders the search scores before any local search.
//!
//! - Op orders: MPAS (always first, so the search never returns worse than MPAS), the reference
//!   orders of `order{policy=…}`, a greedy peak-directed order (a FREE as soon as ready, then
//!   ordinary ops, then the smallest ALLOC; DLR's tightening then compacts it) and a reverse
//!   depth-first order from the sinks. These use the order engine with the L0 gate.
//! - Task orders (`super::realize`, feeder leads 0–2): the main tasks in τ order, the reverse
//!   depth-first family read off the task DAG's structure (`super::family`), the task order each
//!   op order above visits them, both loop nestings of nested task families
//!   (`super::nest`), and every curve over a detected task grid and its transpose
//!   (`super::grid`); each with loaders inlined into their tasks and with feeders 0, 1 and 2
//!   tasks ahead.
//! - Last, so that a step budget that cuts the portfolio keeps the members above: MPAS along
//!   each beam order (`mpas-along-beam`, `mpas-along-beam-guests`: MPAS on the module renumbered
//!   in that order, whose L0 turns and ties then follow the structure rather than the ids; on
//!   gen-matmul-n400-s3's renumbered copies it plans the least peak MPAS reaches on the module
//!   as given, docs/search.md), the reverse depth-first order along each beam order
//!   (`sink-dfs-along-beam`, `-guests`: its sinks, predecessors and turns in the beam's
//!   sequence, [`sink_dfs_along`]), then the beam searches' least-peak op orders themselves
//!   (`super::beam`, alone and with guests), read off the structure alone.
//!
//! - Only where MPAS leads the scored portfolio (`super::stages::score_portfolio`), the
//!   shuffle members ([`Portfolio::shuffles`]): MPAS along structural shuffles
//!   (`super::shuffle`), so that its ties and L0 turns are drawn alike for every numbering
//!   instead of taken from the ids (gen-resnet-n400-s3: MPAS's peak 484–672 over five
//!   numberings, 460 on each with them).
//!
//! Every member is legal; an op order the engine cannot build (it reports a cycle) is left out.
//! MPAS's order is the caller's (the search runs it through the back end before building the
//! rest). The build asks `go_on` before each op order and before the task orders, and stops
//! with the members so far when told to (a time limit). O(P · realize) to build P members,
//! plus, on modules of at most `BEAM_OPS` ops, the two beams and along each an MPAS run and a
//! reverse depth-first order (each with a renumbering, O(V + E + B log B)); for the shuffle
//! members, [`SHUFFLES`] shuffles, renumberings and MPAS runs (on the turnless graph and
//! fingerprints the build kept, [`Portfolio`]).

use super::adopt::References;
use super::beam::{beam, Opening, BEAM_OPS};
use super::family::{family, fingerprints, task_fingerprints};
use super::grid::{curves, detect};
use super::nest::nested;
use super::realize::TaskOrder;
use super::shuffle::shuffled;
use super::tasks::Tasks;
use crate::analysis::{bottom_levels, BottomLevels};
use crate::order::engine::{traverse, KeyHeap, Lifecycle};
use crate::order::graph::{Graph, Role};
use crate::order::{mpas_order, order_by, MpasOptions, OrderError, Policy};
use crate::renumber::along;
use lattice::OptionType;
use lattice_lir::{Module, OpId};

/// How many structural shuffles MPAS runs along ([`Portfolio::shuffles`]).
const SHUFFLES: u64 = 4;

/// A portfolio member (or a candidate scored like one, `super::prefetch`).
#[derive(Clone, Debug)]
pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) start: Start,
    /// A beam's order or MPAS's along one (`beam`, `beam-guests`, `mpas-along-beam`,
    /// `mpas-along-beam-guests`): read off the structure rather than the numbering, these are
    /// the makespan objective's bases for prefetching (`super::prefetch`). The reverse
    /// depth-first orders along the beams (`sink-dfs-along-beam…`) are not: the prefetched
    /// members are measured on these four bases (`super::prefetch`'s header).
    pub(crate) beam_led: bool,
}

impl Member {
    /// A member that is not beam-led.
    pub(crate) fn new(name: impl Into<String>, start: Start) -> Self {
        Member {
            name: name.into(),
            start,
            beam_led: false,
        }
    }
}

/// Where a member starts.
#[derive(Clone, Debug)]
pub(crate) enum Start {
    /// A complete op order.
    Ops(Vec<OpId>),
    /// A task order to realize.
    Tasks(TaskOrder),
}

/// The feeder placements every task order is tried with: (lead, inline).
pub(crate) const PLACEMENTS: [(u32, bool); 4] = [(0, true), (0, false), (1, false), (2, false)];

/// How a member's name spells its feeder placement: `inline` or `lead-K`.
pub(crate) fn placement_name(lead: u32, inline: bool) -> String {
    if inline {
        "inline".to_string()
    } else {
        format!("lead-{lead}")
    }
}

/// The portfolio as built, with what its structural members were read off, which the shuffle
/// members ([`Portfolio::shuffles`]) and the search's chains read too.
pub(crate) struct Portfolio<'m> {
    /// Every member, named, MPAS first.
    pub(crate) members: Vec<Member>,
    /// The precedence graph without L0 turns and its ops' fingerprints
    /// (`super::family::fingerprints`), where the build reached them: not on modules above
    /// `BEAM_OPS` ops without main tasks, nor when `go_on` said no before.
    pub(crate) turnless: Option<(Graph<'m>, Vec<u64>)>,
    /// The chains' adopt references (`super::adopt`): the family, nest and grid-curve
    /// sequences the task members were built from; none where the build did not reach them.
    pub(crate) references: References,
}

/// Every member, named, MPAS (`mpas`, its order) first; the members built while `go_on` said
/// yes.
pub(crate) fn portfolio<'m>(
    module: &'m Module,
    levels: &BottomLevels,
    tasks: &Tasks,
    mpas: Vec<OpId>,
    go_on: &dyn Fn() -> bool,
) -> Result<Portfolio<'m>, OrderError> {
    let mut portfolio = Portfolio {
        members: vec![Member::new("mpas", Start::Ops(mpas))],
        turnless: None,
        references: References::none(),
    };
    let members = &mut portfolio.members;
    for policy in [
        Policy::Input,
        Policy::Stable,
        Policy::MemoryFirst,
        Policy::CriticalFirst,
    ] {
        if !go_on() {
            return Ok(portfolio);
        }
        if let Ok(order) = order_by(module, policy, levels) {
            members.push(Member::new(policy.print_option(), Start::Ops(order)));
        }
    }
    if !go_on() {
        return Ok(portfolio);
    }
    let graph = Graph::build(module)?;
    if let Ok(order) = greedy(&graph) {
        members.push(Member::new("greedy", Start::Ops(order)));
    }
    if !go_on() {
        return Ok(portfolio);
    }
    if let Ok(order) = sink_dfs(&graph) {
        members.push(Member::new("sink-dfs", Start::Ops(order)));
    }
    if !go_on() {
        return Ok(portfolio);
    }
    // The task members and the beam read the structure off the graph without L0 turns; neither
    // runs on a module above the beam's size without main tasks.
    if tasks.main.is_empty() && module.ops.len() > BEAM_OPS {
        return Ok(portfolio);
    }
    let turnless = Graph::build_with(module, false)?;
    let print = fingerprints(&turnless);
    if !tasks.main.is_empty() {
        portfolio.references =
            task_members(module, tasks, &task_fingerprints(&print, tasks), members);
    }
    // Last, so that a step budget that cuts the portfolio keeps the members before them.
    let mut beams = Vec::new();
    for (name, opening) in [("beam", Opening::Alone), ("beam-guests", Opening::Guests)] {
        if !go_on() {
            break;
        }
        if let Some(order) = beam(&turnless, &print, tasks, opening, go_on) {
            beams.push((name, order));
        }
    }
    // MPAS along each beam (beam-led: the makespan objective prefetches it), then the reverse
    // depth-first order along each.
    let alongs: [(&str, AlongFn, bool); 2] = [
        ("mpas-along", mpas_along, true),
        ("sink-dfs-along", sink_dfs_along, false),
    ];
    for (prefix, run, beam_led) in alongs {
        for (name, order) in &beams {
            if !go_on() {
                break;
            }
            if let Some(found) = run(module, order) {
                members.push(Member {
                    name: format!("{prefix}-{name}"),
                    start: Start::Ops(found),
                    beam_led,
                });
            }
        }
    }
    members.extend(beams.into_iter().map(|(name, order)| Member {
        name: name.to_string(),
        start: Start::Ops(order),
        beam_led: true,
    }));
    portfolio.turnless = Some((turnless, print));
    Ok(portfolio)
}

impl Portfolio<'_> {
    /// The shuffle members: MPAS along each of [`SHUFFLES`] structural shuffles of the module
    /// (`super::shuffle`, seeds 1 to [`SHUFFLES`], drawn on the portfolio's turnless graph and
    /// fingerprints), named `mpas-along-shuffle-K`, on modules of at most `BEAM_OPS` ops; those
    /// built while `go_on` says yes. The search adds them only where MPAS leads the scored
    /// portfolio (`super::stages::score_portfolio`). None where the build did not reach the
    /// turnless graph: there the module is above `BEAM_OPS` ops or `go_on` said no already.
    pub(crate) fn shuffles(&self, go_on: &dyn Fn() -> bool) -> Vec<Member> {
        let Some((graph, print)) = &self.turnless else {
            return Vec::new();
        };
        if graph.module.ops.len() > BEAM_OPS {
            return Vec::new();
        }
        (1..=SHUFFLES)
            .take_while(|_| go_on())
            .filter_map(|seed| {
                let turned = mpas_along(graph.module, &shuffled(graph, print, seed))?;
                let name = format!("mpas-along-shuffle-{seed}");
                Some(Member::new(name, Start::Ops(turned)))
            })
            .collect()
    }
}

/// The task orders (see the module docs), each with every feeder placement, after `members`
/// (the op orders); returns the adopt references read off the same sequences.
fn task_members(
    module: &Module,
    tasks: &Tasks,
    print: &[u64],
    members: &mut Vec<Member>,
) -> References {
    let mut sequences: Vec<(String, Vec<usize>)> =
        vec![("tasks".into(), (0..tasks.main.len()).collect())];
    let dfs = family(tasks, print);
    let nestings = nested(tasks, print);
    let latest = dfs[0].1.clone();
    let only = |named: &[(String, Vec<usize>)]| -> Vec<Vec<usize>> {
        named.iter().map(|(_, seq)| seq.clone()).collect()
    };
    let (roots, loops) = (only(&dfs), only(&nestings));
    sequences.extend(dfs);
    sequences.extend(nestings);
    for member in members.iter() {
        if let Start::Ops(order) = &member.start {
            let name = &member.name;
            sequences.push((format!("tasks-of-{name}"), tasks.sequence_of(order)));
        }
    }
    let mut grid_curves = Vec::new();
    if let Some(grid) = detect(module, tasks) {
        // A curve as a reference lists the grid's tasks only, the transpose's curves first.
        for g in [grid.transposed(), grid.clone()] {
            for curve in curves(g.rows(), g.cols()) {
                grid_curves.push(curve.cells.iter().map(|&(r, c)| g.cells[r][c]).collect());
            }
        }
        for (tag, g) in [("", grid.clone()), ("transposed-", grid.transposed())] {
            for curve in curves(g.rows(), g.cols()) {
                sequences.push((
                    format!("grid-{tag}{}", curve.name),
                    g.sequence(&curve.cells, &latest),
                ));
            }
        }
    }
    // The first of equal sequences names their members; `seen` borrows from `sequences`, so
    // the check copies none.
    let mut seen = std::collections::HashSet::new();
    for (name, seq) in &sequences {
        if !seen.insert(seq.as_slice()) {
            continue;
        }
        for (lead, inline) in PLACEMENTS {
            members.push(Member::new(
                format!("{name}/{}", placement_name(lead, inline)),
                Start::Tasks(TaskOrder {
                    seq: seq.clone(),
                    lead,
                    inline,
                    flips: Default::default(),
                }),
            ));
        }
    }
    References::new([roots, loops, grid_curves])
}
/// An order of a module run along another order of it (`mpas_along`, `sink_dfs_along`).
type AlongFn = fn(&Module, &[OpId]) -> Option<Vec<OpId>>;

/// MPAS's order of `module` renumbered along `order` (a legal, L0-exclusive order), in
/// `module`'s ids: MPAS takes its L0 turns and breaks its ties in input order, so this is MPAS
/// with `order`'s turns instead of the numbering's. `None` where MPAS fails on the copy.
fn mpas_along(module: &Module, order: &[OpId]) -> Option<Vec<OpId>> {
    along(module, order, |copy| {
        mpas_order(copy, &bottom_levels(copy), &MpasOptions::default()).ok()
    })
}

/// [`sink_dfs`] of `module` renumbered along `order` (a legal, L0-exclusive order), in
/// `module`'s ids: the sinks, each op's predecessors and the L0 turns taken in `order`'s
/// sequence instead of the numbering's. Along a beam's order, which is read off the structure,
/// the member is alike on every numbering, and the beam's sequence makes a good one to visit
/// the predecessors in: on `gen-random-n400-s3` (peak objective) `sink-dfs` gave 1,540 B on
/// the copy numbered by MPAS and 2,784–3,366 B on the others, where the search ended at 1,598
/// B; along `beam` it gives 1,460 B on all five (along MPAS's own order 1,540–2,508 B). `None`
/// where the renumbering or the traversal fails.
fn sink_dfs_along(module: &Module, order: &[OpId]) -> Option<Vec<OpId>> {
    along(module, order, |copy| {
        sink_dfs(&Graph::build(copy).ok()?).ok()
    })
}

/// FREE first, then ordinary ops, then the smallest ALLOC; ties by incoming position.
fn greedy(graph: &Graph<'_>) -> Result<Vec<OpId>, OrderError> {
    let module = graph.module;
    let keys: Vec<(u8, u64, usize)> = (0..graph.len())
        .map(|v| {
            let op = OpId::new(v);
            let p = graph.position[v];
            match graph.role(op) {
                Role::Free(_) => (0, 0, p),
                Role::Work => (1, 0, p),
                Role::Alloc(b) => (2, module.buffer(b).size, p),
            }
        })
        .collect();
    traverse(graph, Lifecycle::Keyed, &mut KeyHeap::new(keys))
}

/// Reverse depth-first from the sinks: each op keyed by its post-order index in a depth-first
/// walk against the edges that starts at the sinks in incoming order and visits predecessors in
/// incoming order, so an op comes right after the last thing it waits for was finished.
fn sink_dfs(graph: &Graph<'_>) -> Result<Vec<OpId>, OrderError> {
    let n = graph.len();
    let mut by_position: Vec<OpId> = (0..n).map(OpId::new).collect();
    by_position.sort_by_key(|v| graph.position[v.index()]);
    let mut post = vec![usize::MAX; n];
    let mut visited = vec![false; n];
    let mut counter = 0;
    for &sink in by_position.iter().filter(|v| graph.succs(**v).is_empty()) {
        let mut stack = vec![(sink, false)];
        while let Some((v, done)) = stack.pop() {
            if done {
                post[v.index()] = counter;
                counter += 1;
                continue;
            }
            if visited[v.index()] {
                continue;
            }
            visited[v.index()] = true;
            stack.push((v, true));
            let mut preds: Vec<OpId> = graph.preds(v).to_vec();
            preds.sort_by_key(|p| std::cmp::Reverse(graph.position[p.index()]));
            stack.extend(preds.into_iter().map(|p| (p, false)));
        }
    }
    traverse(graph, Lifecycle::Keyed, &mut KeyHeap::new(post))
}
