//! Unit tests of the search's pieces: the task decomposition, realization (legal and
//! L0-exclusive for any sequence and lead), grid detection, the reverse depth-first family
//! (every main task once; the same sequences, up to the renaming, on a renumbered copy) and the
//! beam member (legal and L0-exclusive; on attention heads the same peak on renumbered copies).

use super::beam::{beam, Opening};
use super::family::{family, fingerprints, task_fingerprints};
use super::grid::detect;
use super::nest::nested;
use super::realize::{realize, TaskOrder};
use super::tasks::Tasks;
use crate::analysis::pressure;
use crate::generate::{generate, random_topological, renumber, GenSpec, Shape};
use crate::order::graph::Graph;
use crate::rng::Rng;
use lattice_lir::{BufferId, Module, OpId, OpKind};

fn case(name: &str) -> Module {
    let path = format!(
        "{}/../../shared/cases/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let options = lattice_lir::contest::ImportOptions::default();
    lattice_lir::contest::import_graph(&text, name, &options).expect("imports")
}

fn modules() -> Vec<Module> {
    let mut out = Vec::new();
    for shape in [Shape::Matmul, Shape::Attention, Shape::Conv, Shape::Random] {
        for (nodes, seed) in [(30, 1), (200, 2), (800, 3)] {
            out.push(generate(&GenSpec { shape, nodes, seed }));
        }
    }
    out
}

/// σ lists every op once and respects every edge of the precedence graph (no L0 turns).
fn assert_legal(m: &Module, order: &[OpId]) {
    let graph = Graph::build_with(m, false).expect("graph");
    let mut pos = vec![usize::MAX; m.ops.len()];
    for (p, op) in order.iter().enumerate() {
        assert_eq!(pos[op.index()], usize::MAX, "{}: op listed twice", m.name);
        pos[op.index()] = p;
    }
    assert!(
        pos.iter().all(|&p| p != usize::MAX),
        "{}: op missing",
        m.name
    );
    for u in m.op_ids() {
        for v in graph.succs(u) {
            assert!(pos[u.index()] < pos[v.index()], "{}: edge broken", m.name);
        }
    }
}

#[test]
fn every_op_is_in_one_task_and_the_task_dag_is_acyclic() {
    for m in modules() {
        let tasks = Tasks::of(&m).expect("tasks");
        let listed: usize = tasks.ops.iter().map(Vec::len).sum();
        assert_eq!(listed, m.ops.len(), "{}", m.name);
        assert_eq!(
            tasks.topo.len(),
            tasks.len(),
            "{}: task DAG has a cycle",
            m.name
        );
        for (t, ops) in tasks.ops.iter().enumerate() {
            assert!(ops.iter().all(|op| tasks.of_op[op.index()] == t));
        }
        // Every staging buffer's ops share a task.
        for b in m.buffer_ids() {
            if !m.target.tier(m.buffer(b).tier).staging {
                continue;
            }
            let owners: std::collections::BTreeSet<usize> = m
                .op_ids()
                .filter(|&op| m.op(op).kind.buffers().contains(&b))
                .map(|op| tasks.of_op[op.index()])
                .collect();
            assert!(owners.len() <= 1, "{}: staging buffer split", m.name);
        }
    }
}

#[test]
fn any_sequence_and_lead_realizes_a_legal_l0_exclusive_order() {
    let mut rng = Rng::new(3);
    let mut cases = modules();
    cases.push(case("Matmul_Case0"));
    for m in cases {
        let tasks = Tasks::of(&m).expect("tasks");
        let flippable = tasks.flippable();
        for round in 0..8u32 {
            let seq = if round > 0 {
                permutation(tasks.main.len(), &mut rng)
            } else {
                (0..tasks.main.len()).collect()
            };
            // Rounds 4–7 flip every other flippable task.
            let flips = flippable
                .iter()
                .copied()
                .filter(|i| round >= 4 && i % 2 == 0)
                .collect();
            let order = realize(
                &tasks,
                &TaskOrder {
                    seq,
                    lead: round % 4,
                    inline: round % 2 == 1,
                    flips,
                },
            );
            assert_legal(&m, &order);
            // Flipped tasks are exclusive once DLR's tightening has separated their lifetimes.
            let tightened = crate::dlr::Tightened::of(&m, &order);
            assert!(
                pressure(&m, tightened.order()).l0_max_live <= 1,
                "{}: L0 shared",
                m.name
            );
            if round < 4 {
                assert!(
                    pressure(&m, &order).l0_max_live <= 1,
                    "{}: L0 shared",
                    m.name
                );
            }
        }
    }
}

/// The main tasks each family member of `m` and each nested member (`super::nest`) lists, each task named by its ops' ids under
/// `rename` (old id → id in a copy), sorted; the members as sets, their order aside.
fn family_in_ids(m: &Module, rename: &[usize]) -> Vec<(String, Vec<Vec<usize>>)> {
    let tasks = Tasks::of(m).expect("tasks");
    let graph = Graph::build_with(m, false).expect("graph");
    let print = task_fingerprints(&fingerprints(&graph), &tasks);
    family(&tasks, &print)
        .into_iter()
        .chain(nested(&tasks, &print))
        .map(|(name, seq)| {
            let mut named: Vec<Vec<usize>> = seq
                .iter()
                .map(|&i| {
                    let mut ops: Vec<usize> = tasks.ops[tasks.main[i]]
                        .iter()
                        .map(|op| rename[op.index()])
                        .collect();
                    ops.sort_unstable();
                    ops
                })
                .collect();
            assert_eq!(named.len(), tasks.main.len(), "{}: {name}", m.name);
            named.sort();
            named.dedup();
            assert_eq!(
                named.len(),
                tasks.main.len(),
                "{}: {name} lists every main task once",
                m.name
            );
            (name, named)
        })
        .collect()
}

/// Fingerprints are the same op for op on a renumbered copy, and the family and the nested
/// members list every main task once, the same tasks on the copy. (Its members' values through the back end can still
/// differ between numberings — realization keeps τ, which follows the input's order, inside
/// each task — and do on gen-matmul-n200-s2; see docs/search.md.)
#[test]
fn the_family_and_fingerprints_do_not_depend_on_the_numbering() {
    let mut cases = modules();
    cases.push(case("FlashAttention_Case0"));
    for m in cases {
        let graph = Graph::build_with(&m, false).expect("graph");
        let prints = fingerprints(&graph);
        for seed in [7, 8] {
            let order = random_topological(&m, seed).expect("order");
            let copy = renumber(&m, &order).expect("renumbers");
            let mut rename = vec![0; m.ops.len()];
            for (i, op) in order.iter().enumerate() {
                rename[op.index()] = i;
            }
            let copy_prints = fingerprints(&Graph::build_with(&copy, false).expect("graph"));
            for (i, op) in order.iter().enumerate() {
                assert_eq!(prints[op.index()], copy_prints[i], "{}", m.name);
            }
            let identity: Vec<usize> = (0..copy.ops.len()).collect();
            assert_eq!(
                family_in_ids(&m, &rename),
                family_in_ids(&copy, &identity),
                "{}",
                m.name
            );
        }
    }
}

#[test]
fn a_matmul_step_flipped_loads_its_b_tile_first() {
    let m = case("Matmul_Case0");
    let tasks = Tasks::of(&m).expect("tasks");
    assert_eq!(
        tasks.flippable().len(),
        tasks.main.len(),
        "every output tile flips"
    );
    let task = tasks.main[0];
    let moves = |ops: &[OpId]| -> Vec<OpId> {
        let is_move = |op: &OpId| matches!(&m.op(*op).kind, lattice_lir::OpKind::Compute { opcode, .. } if opcode == "MOVE");
        ops.iter().copied().filter(is_move).collect()
    };
    let (plain, flipped) = (
        moves(tasks.ops_of(task, false)),
        moves(tasks.ops_of(task, true)),
    );
    assert_eq!(plain.len(), flipped.len());
    for (p, f) in plain.chunks(2).zip(flipped.chunks(2)) {
        assert_eq!(p, [f[1], f[0]], "each step's two MOVEs trade places");
    }
}

#[test]
fn the_matmul_cases_tile_grid_is_found_from_shared_inputs() {
    let m = case("Matmul_Case0");
    let tasks = Tasks::of(&m).expect("tasks");
    assert_eq!(tasks.main.len(), 64);
    let grid = detect(&m, &tasks).expect("an 8 x 8 grid");
    assert_eq!((grid.rows(), grid.cols()), (8, 8));
    let transposed = grid.transposed();
    assert_eq!(transposed.cells[2][5], grid.cells[5][2]);
    // A module whose main tasks share no inputs has no grid.
    let chain = generate(&GenSpec {
        shape: Shape::Random,
        nodes: 12,
        seed: 5,
    });
    let tasks = Tasks::of(&chain).expect("tasks");
    if tasks.main.len() < 4 {
        assert!(detect(&chain, &tasks).is_none());
    }
}

#[test]
fn budgets_parse_in_steps_or_work() {
    use super::options::{Budget, Objective};
    use lattice::OptionType;
    assert_eq!(Budget::parse_option("auto"), Ok(Budget::Auto));
    for bad in ["0", "work:0", "work:", "work:x", "steps:3", "-1"] {
        let err = Budget::parse_option(bad).unwrap_err();
        assert!(err.contains(&format!("found `{bad}`")), "{err}");
    }
    let five = Budget::parse_option("5").expect("parses");
    assert_eq!(five.print_option(), "5");
    let work = Budget::parse_option("work:70000").expect("parses");
    assert_eq!(work.print_option(), "work:70000");
    assert!(matches!(work, Budget::Work(n) if n.get() == 70_000));
    // The step cap shrinks with the module, and makespan's steps are dearer.
    let small = Budget::max_steps(Objective::Traffic, 1_000);
    let large = Budget::max_steps(Objective::Traffic, 100_000);
    assert!(small > large && large >= 3 * 256);
    assert!(Budget::max_steps(Objective::Makespan, 1_000) < small);
}

/// The contest core with its non-staging tiers cut to a quarter, so that plans spill.
fn quarter_tiers() -> lattice_lir::Target {
    let mut quarter = lattice_lir::Target::contest();
    for tier in &mut quarter.tiers {
        if !tier.staging {
            tier.capacity = (tier.capacity / 4).max(crate::generate::MIN_CAPACITY);
        }
    }
    quarter
}

/// The makespan objective's plan is never slower than the plans the peak and traffic objectives
/// find with the same options, on a module of every generated family, on the contest core and
/// with its non-staging tiers cut to a quarter (so that plans spill and the traffic search has
/// something to find). A step budget keeps the test short; the traffic lead mirrors the traffic
/// search at any budget.
#[test]
fn the_makespan_objective_is_never_slower_than_the_peak_and_traffic_plans() {
    use super::options::{Budget, Objective, SearchOptions};
    use super::{search, Silent};
    use crate::generate::generate_for;
    use std::num::NonZeroU64;
    let quarter = quarter_tiers();
    for shape in Shape::ALL {
        let spec = GenSpec {
            shape,
            nodes: 300,
            seed: 1,
        };
        let squeezed = generate_for(&spec, &quarter).expect("generates");
        for m in [generate(&spec), squeezed] {
            let makespan = |objective| {
                let options = SearchOptions {
                    objective,
                    budget: Budget::Steps(NonZeroU64::new(160).expect("positive")),
                    ..SearchOptions::default()
                };
                search(&m, &options, &Silent)
                    .expect("searches")
                    .measure
                    .makespan
            };
            let own = makespan(Objective::Makespan);
            for other in [Objective::Peak, Objective::Traffic] {
                let theirs = makespan(other);
                assert!(
                    own <= theirs,
                    "{}: makespan objective {own} cycles, the {other:?} objective's plan {theirs}",
                    m.name
                );
            }
        }
    }
}

/// The family floor: whatever the budget, the search's result is at or below the best order of
/// the reverse depth-first family through the same back end (`renumbered::family_best`), for
/// every objective, on a module of every generated family, normal and with the non-staging
/// tiers cut to a quarter. Twenty steps keep the chains too short to find those orders by
/// themselves: without the floor stage the makespan of `heads-kv` and `heads-q` at 150 nodes
/// (5,189 cycles against the family's 5,116) and the peak of squeezed `heads-q` at 300 nodes
/// (394 against 337) are above it.
#[test]
fn the_result_is_never_above_the_family_best_through_the_back_end() {
    use super::options::{Budget, Objective, SearchOptions};
    use super::renumbered::family_best;
    use super::score::value;
    use super::{search, Silent};
    use crate::generate::generate_for;
    use std::num::NonZeroU64;
    let quarter = quarter_tiers();
    for (shape, (nodes, seed)) in Shape::ALL
        .into_iter()
        .flat_map(|s| [(150, 5), (300, 2)].map(|n| (s, n)))
    {
        let spec = GenSpec { shape, nodes, seed };
        let squeezed = generate_for(&spec, &quarter).expect("generates");
        for m in [generate(&spec), squeezed] {
            for objective in [Objective::Peak, Objective::Traffic, Objective::Makespan] {
                let options = SearchOptions {
                    objective,
                    budget: Budget::Steps(NonZeroU64::new(20).expect("positive")),
                    ..SearchOptions::default()
                };
                let found = search(&m, &options, &Silent).expect("searches");
                let own_key = options.back_end.with_victim(options.back_end.dlr.victim);
                let Some(best) = family_best(&m, objective, &own_key).expect("plans") else {
                    continue;
                };
                let got = value(objective, &found.measure);
                assert!(
                    got <= best,
                    "{} {objective:?}: the search's {got} above the family's best {best} ({})",
                    m.name,
                    found.winner
                );
            }
        }
    }
}

/// The logical peak of `order` (the non-staging tiers' live bytes), with `order` checked to keep
/// every staging tier exclusive: at most one of its buffers live at a time.
fn exclusive_logical_peak(m: &Module, order: &[OpId]) -> u64 {
    let (mut live, mut peak) = (0u64, 0u64);
    let mut held: Vec<Option<BufferId>> = vec![None; m.target.tiers.len()];
    for &op in order {
        match m.op(op).kind {
            OpKind::Alloc { buffer, .. } => {
                let b = m.buffer(buffer);
                if m.target.tier(b.tier).staging {
                    let slot = &mut held[b.tier.index()];
                    assert!(
                        slot.is_none(),
                        "{}: two buffers of one staging tier",
                        m.name
                    );
                    *slot = Some(buffer);
                } else {
                    live += b.size;
                    peak = peak.max(live);
                }
            }
            OpKind::Free { buffer } => {
                let b = m.buffer(buffer);
                if m.target.tier(b.tier).staging {
                    held[b.tier.index()] = None;
                } else {
                    live -= b.size;
                }
            }
            _ => {}
        }
    }
    peak
}

/// The beam member's order is legal and L0-exclusive on every family, and on attention heads
/// (where no other member reaches its peak) its peak is the same on renumbered copies.
#[test]
fn the_beam_order_is_legal_exclusive_and_on_heads_the_same_whatever_the_numbering() {
    // (module, whether its peak must be the same on renumbered copies: the attention heads).
    let mut cases: Vec<(Module, bool)> = modules().into_iter().map(|m| (m, false)).collect();
    for (shape, heads) in [
        (Shape::HeadsKv, true),
        (Shape::HeadsQ, true),
        (Shape::Resnet, false),
    ] {
        let spec = GenSpec {
            shape,
            nodes: 300,
            seed: 2,
        };
        cases.push((generate(&spec), heads));
    }
    for (m, heads) in cases {
        for opening in [Opening::Alone, Opening::Guests] {
            let peak_of = |m: &Module| {
                let tasks = Tasks::of(m).expect("tasks");
                let graph = Graph::build_with(m, false).expect("graph");
                let print = fingerprints(&graph);
                beam(&graph, &print, &tasks, opening, &|| true).map(|order| {
                    assert_legal(m, &order);
                    exclusive_logical_peak(m, &order)
                })
            };
            let peak = peak_of(&m);
            if !heads {
                continue;
            }
            let peak = peak.expect("the beam orders attention heads");
            for seed in [7, 8] {
                let copy =
                    renumber(&m, &random_topological(&m, seed).expect("order")).expect("copy");
                let name = &m.name;
                assert_eq!(
                    peak_of(&copy),
                    Some(peak),
                    "{name} renumbered ({seed}), {opening:?}"
                );
            }
        }
    }
}

/// The main tasks (indices into [`Tasks::main`]) reached from main task `main` over
/// predecessors (`up`) or successors, walking on past a main task only when `through`: with
/// both, its cone (every main task it waits for, transitively); with neither, its nearest
/// consumers (reached through feeders and drains only).
fn reached(
    tasks: &Tasks,
    main: usize,
    up: bool,
    through: bool,
) -> std::collections::BTreeSet<usize> {
    let mut seen = vec![false; tasks.len()];
    let mut stack = vec![tasks.main[main]];
    let mut found = std::collections::BTreeSet::new();
    while let Some(k) = stack.pop() {
        for &n in if up { &tasks.pred[k] } else { &tasks.succ[k] } {
            if seen[n] {
                continue;
            }
            seen[n] = true;
            let index = tasks.main.iter().position(|&t| t == n);
            if let Some(i) = index {
                found.insert(i);
            }
            if index.is_none() || through {
                stack.push(n);
            }
        }
    }
    found
}

/// `v` sorted.
fn sorted(v: &[usize]) -> Vec<usize> {
    let mut v = v.to_vec();
    v.sort_unstable();
    v
}

/// A random permutation of `0..n` (Fisher–Yates).
fn permutation(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut seq: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        seq.swap(i, rng.range(0, i));
    }
    seq
}

/// Every large move gives a permutation of the main tasks; gathering puts a task's whole cone
/// right before it, cone-first puts it at the front, consumers follow their producer at once —
/// each with the moved tasks in their previous relative order.
#[test]
fn large_moves_rearrange_whole_cones_and_keep_a_permutation() {
    use super::large::{Around, Kind, Large};
    let mut rng = Rng::new(11);
    let mut cases = modules();
    cases.push(case("FlashAttention_Case0"));
    for m in cases {
        let tasks = Tasks::of(&m).expect("tasks");
        let n = tasks.main.len();
        if n < 2 {
            continue;
        }
        let mut large = Large::new(&tasks);
        // Adopt moves have their own test (`adopt_moves_resequence_a_window_in_place`).
        let none = super::adopt::References::none();
        let seq = permutation(n, &mut rng);
        let all: Vec<usize> = (0..n).collect();
        for kind in [Kind::Block, Kind::Gather, Kind::ConeFirst, Kind::Consumers] {
            for _ in 0..20 {
                if let Some(next) = large.apply(&tasks, &none, kind, &seq, &mut rng) {
                    assert_eq!(sorted(&next), all, "{}: {kind:?}", m.name);
                    assert_ne!(next, seq);
                }
            }
        }
        let pos = |v: &[usize], t: usize| v.iter().position(|&x| x == t).expect("listed");
        for task in (0..n).step_by((n / 8).max(1)) {
            let cone = reached(&tasks, task, true, true);
            let in_order: Vec<usize> = seq.iter().copied().filter(|i| cone.contains(i)).collect();
            let k = cone.len();
            let gathered = large.rearranged(&tasks, Around::Gather, &seq, task);
            let at = pos(&gathered, task);
            assert_eq!(gathered[at - k..at], in_order[..], "{}: gather", m.name);
            let first = large.rearranged(&tasks, Around::ConeFirst, &seq, task);
            assert_eq!(first[..k], in_order[..], "{}: cone first", m.name);
            assert_eq!(first[k], task, "{}: cone first", m.name);
            let near = reached(&tasks, task, false, false);
            let near_in_order: Vec<usize> =
                seq.iter().copied().filter(|i| near.contains(i)).collect();
            let consumers = large.rearranged(&tasks, Around::Consumers, &seq, task);
            let at = pos(&consumers, task);
            assert_eq!(
                consumers[at + 1..at + 1 + near.len()],
                near_in_order[..],
                "{}: consumers",
                m.name
            );
            for i in [&gathered, &first, &consumers] {
                assert_eq!(sorted(i), all, "{}", m.name);
            }
        }
    }
}

/// The adopt move's references are permutations of the main tasks or of a detected grid's
/// tasks, grid curves present where a grid is; adopting a window leaves every other task in its
/// place and puts the window's tasks in the window's order into the places they held; a drawn
/// move keeps a permutation.
#[test]
fn adopt_moves_resequence_a_window_in_place() {
    use super::adopt::adopted;
    use super::portfolio::portfolio;
    use crate::analysis::bottom_levels;
    use crate::order::{mpas_order, MpasOptions};
    let mut rng = Rng::new(5);
    let mut cases = modules();
    cases.push(case("Matmul_Case0"));
    for m in cases {
        let tasks = Tasks::of(&m).expect("tasks");
        let n = tasks.main.len();
        let levels = bottom_levels(&m);
        let mpas = mpas_order(&m, &levels, &MpasOptions::default()).expect("mpas");
        let references = portfolio(&m, &levels, &tasks, mpas, &|| true)
            .expect("portfolio")
            .references;
        if n < 2 {
            assert!(references.groups().is_empty(), "{}", m.name);
            continue;
        }
        let grid = detect(&m, &tasks);
        let all: Vec<usize> = (0..n).collect();
        let grid_tasks = grid.as_ref().map(|g| sorted(&g.cells.concat()));
        let mut curves_seen = false;
        for reference in references.groups().iter().flatten() {
            let set = sorted(reference);
            let is_curve = Some(&set) == grid_tasks.as_ref() && set != all;
            curves_seen |= is_curve;
            assert!(set == all || is_curve, "{}: a reference", m.name);
        }
        assert_eq!(
            curves_seen,
            grid_tasks.as_ref().is_some_and(|g| g.len() < n),
            "{}: grid curves",
            m.name
        );
        let seq = permutation(n, &mut rng);
        let window: Vec<usize> = seq.iter().rev().step_by(2).copied().collect();
        let next = adopted(&seq, &window);
        let mut taken = window.iter();
        for (&before, &after) in seq.iter().zip(&next) {
            if window.contains(&before) {
                assert_eq!(Some(&after), taken.next(), "{}: window order", m.name);
            } else {
                assert_eq!(after, before, "{}: others stay", m.name);
            }
        }
        for _ in 0..20 {
            if let Some(next) = references.adopt(&seq, &mut rng) {
                assert_eq!(sorted(&next), all, "{}", m.name);
                assert_ne!(next, seq);
            }
        }
    }
}
