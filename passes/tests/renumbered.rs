//! Renumbered workloads (`generate::renumber`): the same DAG under other ids and another input
//! order. Every ordering policy and MPAS must still find an L0-exclusive order — the turns the
//! input order gives can close a cycle there, and are then derived from the graph
//! (`order/exclusive.rs`, `order/backtrack.rs`). Checked on the shipped cases and on generated
//! modules of every shape, each under random topological renumberings (six orders per copy).
//! Then the search: 27 generated modules (three of each family, 200–400 nodes) × 4 renumberings,
//! `mpas,dlr,cpe` and every objective of `order-search` planned and checked by the replay, and
//! the per-objective spread over the numberings held to 1.02. About 50 s in a debug build on two
//! loaded cores (the search tests run in parallel).
//! And renumbering itself (`lattice_passes::renumber`, re-exported by the generator): it keeps
//! the DAG and verifies, and refuses an order that is not topological.

mod common;

use common::pipeline;
use lattice_lir::{Module, OpId, OpKind};
use lattice_passes::analysis::{bottom_levels, pressure};
use lattice_passes::generate::{
    generate, random_topological, renumber, GenSpec, RenumberError, Shape,
};
use lattice_passes::order::{mpas_order, order_by, MpasOptions, Policy};
use lattice_passes::search::renumbered::{family_best, renumberings};
use lattice_passes::search::{search, Budget, Measure, Objective, SearchOptions, Silent};
use std::num::NonZeroU64;

/// Every order of `m` is complete, L0-exclusive and a legal σ.
fn check_orders(m: &Module) {
    let levels = bottom_levels(m);
    let mut orders: Vec<_> = [
        Policy::Input,
        Policy::Stable,
        Policy::MemoryFirst,
        Policy::CriticalFirst,
    ]
    .iter()
    .map(|&p| (format!("{p:?}"), order_by(m, p, &levels)))
    .collect();
    orders.push((
        "mpas".into(),
        mpas_order(m, &levels, &MpasOptions::default()),
    ));
    for (name, order) in orders {
        let order = order.unwrap_or_else(|e| panic!("{}: {name}: {e}", m.name));
        assert_eq!(pressure(m, &order).l0_max_live, 1, "{}: {name}", m.name);
        let mut reordered = m.clone();
        reordered.schedule = order;
        lattice_lir::verify_module(&reordered)
            .unwrap_or_else(|e| panic!("{}: {name}: {e:?}", m.name));
    }
}

#[test]
fn every_order_is_l0_exclusive_on_renumbered_shipped_cases() {
    for m in common::cases() {
        for seed in 0..3 {
            let order = random_topological(&m, seed).unwrap();
            check_orders(&renumber(&m, &order).unwrap());
        }
    }
}

/// The structured shapes; `random` below.
#[test]
fn every_order_is_l0_exclusive_on_renumbered_generated_modules() {
    for shape in Shape::ALL.into_iter().filter(|&s| s != Shape::Random) {
        for (nodes, seed) in [(120, 1), (700, 2), (2500, 3)] {
            let m = generate(&GenSpec { shape, nodes, seed });
            for k in 0..3 {
                let order = random_topological(&m, 100 + k).unwrap();
                check_orders(&renumber(&m, &order).unwrap());
            }
        }
    }
}

/// Renumbered `random` modules chain buffers of several staging tiers through shared ops, where
/// the nested decomposition gets stuck and the greedy gated traversal (`order/gated.rs`) can
/// stall with every key it tries; the complete search (`order/backtrack.rs`) then finds the
/// order the generation order proves exists. Eight random topological numberings of each
/// module: the seven of docs/search.md's measurement (the greedy traversal alone failed on 13 of
/// their 56 copies, 7 of 8 of gen-random-n1000-s5) and the bench's 2,000- and 4,000-node ones.
#[test]
fn every_order_is_l0_exclusive_on_renumbered_random_modules() {
    let modules = [
        (120, 1),
        (300, 1),
        (300, 2),
        (300, 4),
        (700, 2),
        (1000, 5),
        (2000, 1),
        (2500, 3),
        (4000, 1),
    ];
    for (nodes, seed) in modules {
        let m = generate(&GenSpec {
            shape: Shape::Random,
            nodes,
            seed,
        });
        for k in 0..8 {
            let order = random_topological(&m, k).unwrap();
            check_orders(&renumber(&m, &order).unwrap());
        }
    }
}

fn value(objective: Objective, m: &Measure) -> u64 {
    match objective {
        Objective::Peak => m.peak,
        Objective::Traffic => m.traffic,
        Objective::Makespan => m.makespan,
    }
}

/// The numbers of one module and its copies: per objective (peak, traffic, makespan), the
/// search's value and the makespan of its plan on each copy.
struct Runs {
    name: String,
    search: [Vec<u64>; 3],
    makespans: [Vec<u64>; 3],
    /// Per objective: the best of the reverse depth-first family through the same back end.
    family: [Option<u64>; 3],
}

const OBJECTIVES: [Objective; 3] = [Objective::Peak, Objective::Traffic, Objective::Makespan];

/// `mpas,dlr,cpe` and the search (a step budget, the back end the pipeline
/// `order-search{…},dlr,cpe` builds) on `m` and its four renumberings (MPAS's order, three random
/// topological orders): every one succeeds, and every plan passes the replay.
fn runs(m: &Module) -> Runs {
    let copies = renumberings(m, 4).unwrap();
    assert_eq!(copies.len(), 4, "{}", m.name);
    let all: Vec<&Module> = std::iter::once(m).chain(&copies).collect();
    let back_end = SearchOptions::default().back_end.before_default_passes();
    for c in &all {
        let order = mpas_order(c, &bottom_levels(c), &MpasOptions::default())
            .unwrap_or_else(|e| panic!("{}: mpas: {e}", m.name));
        pipeline(c, &order, &back_end);
    }
    let found = OBJECTIVES.map(|objective| {
        let options = SearchOptions {
            objective,
            budget: Budget::Steps(NonZeroU64::new(120).unwrap()),
            back_end: back_end.clone(),
            ..SearchOptions::default()
        };
        all.iter()
            .enumerate()
            .map(|(i, c)| {
                let found = search(c, &options, &Silent)
                    .unwrap_or_else(|e| panic!("{} copy {i}: {objective:?}: {e}", m.name));
                let checked = pipeline(c, &found.order, &back_end.with_victim(found.victim));
                let key = |m: &Measure| (m.peak, m.traffic, m.makespan);
                assert_eq!(key(&checked), key(&found.measure), "{} copy {i}", m.name);
                checked
            })
            .collect::<Vec<Measure>>()
    });
    let family = OBJECTIVES.map(|objective| {
        let own_key = back_end.with_victim(back_end.dlr.victim);
        family_best(m, objective, &own_key).unwrap()
    });
    Runs {
        name: m.name.clone(),
        search: [0, 1, 2].map(|o| found[o].iter().map(|f| value(OBJECTIVES[o], f)).collect()),
        makespans: [0, 1, 2].map(|o| found[o].iter().map(|f| f.makespan).collect()),
        family,
    }
}

/// worst / best of `values` (1 when both are 0).
fn spread(values: &[u64]) -> f64 {
    let (best, worst) = (values.iter().min().unwrap(), values.iter().max().unwrap());
    if *worst == 0 {
        1.0
    } else {
        *worst as f64 / (*best).max(1) as f64
    }
}

/// The modules of one family the numbering test runs.
fn family(shape: Shape) -> Vec<Module> {
    [(200, 1), (300, 2), (400, 3)]
        .into_iter()
        .map(|(nodes, seed)| generate(&GenSpec { shape, nodes, seed }))
        .collect()
}

/// Where `runs` miss a goal, keyed `<module> <objective>` (worst above 1.02 × best),
/// `<module> <objective> family` (worst above the reverse depth-first family's best) or
/// `<module> makespan-copy-<i>` (the makespan objective's plan slower than the peak or traffic
/// objective's), each with its numbers.
fn misses(runs: &[Runs]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for r in runs {
        for (o, objective) in OBJECTIVES.iter().enumerate() {
            let values = &r.search[o];
            let ratio = spread(values);
            if ratio > 1.02 {
                let key = format!("{} {objective:?}", r.name);
                out.push((key, format!("{values:?}: {ratio:.3}")));
            }
            let worst = values.iter().max().unwrap();
            if let Some(family) = r.family[o].filter(|f| worst > f) {
                let key = format!("{} {objective:?} family", r.name);
                out.push((key, format!("{values:?} above {family}")));
            }
        }
        for i in 0..r.makespans[2].len() {
            let spans = [0, 1, 2].map(|o| r.makespans[o][i]);
            if spans[2] > spans[0].min(spans[1]) {
                let key = format!("{} makespan-copy-{i}", r.name);
                out.push((key, format!("peak, traffic, makespan plans: {spans:?}")));
            }
        }
    }
    out
}

/// Asserts every goal of [`misses`] on `runs`. Until the search ran on a canonical copy of the
/// module (`search/canonical.rs`) five makespan goals were listed here as known misses at this
/// budget (120 steps): `heads-*` n400 1.041 (three keys), `random` n300 1.152 and n400 1.288;
/// on the canonical copy every copy of those modules gets one value or within 1.02 of it.
fn check(runs: &[Runs]) {
    let missed = misses(runs);
    assert!(missed.is_empty(), "{missed:#?}");
}

/// The search on renumbered modules: for three modules of `shape` (200–400 nodes) and four
/// renumberings of each, `mpas,dlr,cpe` and every objective of the search succeed and verify;
/// each objective's worst result is within 1.02 of its best and not above the best member of the
/// reverse depth-first family under DLR's own key, and the makespan objective's plan is never
/// slower than the peak and traffic objectives'.
fn numbering_does_not_matter(shape: Shape) -> Vec<Runs> {
    let runs: Vec<Runs> = family(shape).iter().map(runs).collect();
    check(&runs);
    runs
}

#[test]
fn numbering_does_not_matter_on_matmul() {
    numbering_does_not_matter(Shape::Matmul);
}

#[test]
fn numbering_does_not_matter_on_attention() {
    numbering_does_not_matter(Shape::Attention);
}

#[test]
fn numbering_does_not_matter_on_conv() {
    numbering_does_not_matter(Shape::Conv);
}

#[test]
fn numbering_does_not_matter_on_resnet() {
    numbering_does_not_matter(Shape::Resnet);
}

#[test]
fn numbering_does_not_matter_on_random() {
    numbering_does_not_matter(Shape::Random);
}

/// Two families that are one DAG per seed numbered with either loop outside: each within 1.02
/// over its renumberings, and the two nestings' ten results together too.
fn nestings_do_not_matter(one: Shape, other: Shape) {
    let a = family(one).iter().map(runs).collect::<Vec<_>>();
    let b = family(other).iter().map(runs).collect::<Vec<_>>();
    let joined: Vec<Runs> = a
        .iter()
        .zip(&b)
        .map(|(a, b)| Runs {
            name: format!("{}+{other}", a.name),
            search: [0, 1, 2].map(|o| [a.search[o].clone(), b.search[o].clone()].concat()),
            makespans: [0, 1, 2].map(|o| [a.makespans[o].clone(), b.makespans[o].clone()].concat()),
            family: a.family,
        })
        .collect();
    check(&a.into_iter().chain(b).chain(joined).collect::<Vec<_>>());
}

/// `heads-kv` and `heads-q`: the FlashAttention example, key/value or query loop outside.
#[test]
fn numbering_does_not_matter_on_attention_heads() {
    nestings_do_not_matter(Shape::HeadsKv, Shape::HeadsQ);
}

/// `matmul-rows` and `matmul-cols`: row or column loop outside.
#[test]
fn numbering_does_not_matter_on_matmul_tiles() {
    nestings_do_not_matter(Shape::MatmulRows, Shape::MatmulCols);
}

#[test]
fn renumbering_keeps_the_dag_and_verifies() {
    for shape in Shape::ALL {
        let m = generate(&GenSpec {
            shape,
            nodes: 300,
            seed: 4,
        });
        let order = random_topological(&m, 9).unwrap();
        let r = renumber(&m, &order).unwrap();
        lattice_lir::verify_module(&r).unwrap();
        assert_eq!(r.ops.len(), m.ops.len());
        assert_eq!(r.dep_count(), m.dep_count());
        // Op i of the result is op order[i] of the input, under new names.
        for (i, &old) in order.iter().enumerate() {
            let (a, b) = (m.op(old), r.op(OpId::new(i)));
            assert_eq!(a.kind.cycles(), b.kind.cycles());
            assert_eq!(a.deps.len(), b.deps.len());
            let sizes = |m: &Module, k: &OpKind| {
                k.buffers()
                    .iter()
                    .map(|&x| m.buffer(x).size)
                    .collect::<Vec<_>>()
            };
            assert_eq!(sizes(&m, &a.kind), sizes(&r, &b.kind));
        }
        // Renumbering back by the inverse order gives the input again.
        let mut back = vec![OpId::new(0); order.len()];
        for (i, &old) in order.iter().enumerate() {
            back[old.index()] = OpId::new(i);
        }
        let again = renumber(&r, &back).unwrap();
        assert_eq!(again.ops.len(), m.ops.len());
        assert_eq!(
            lattice_lir::print_module(&again),
            lattice_lir::print_module(&renumber(&m, &m.schedule).unwrap())
        );
    }
}

#[test]
fn orders_that_are_not_topological_are_refused() {
    let m = generate(&GenSpec {
        shape: Shape::Matmul,
        nodes: 60,
        seed: 1,
    });
    let mut reversed = m.schedule.clone();
    reversed.reverse();
    assert!(matches!(
        renumber(&m, &reversed),
        Err(RenumberError::NotTopological { .. })
    ));
    assert!(matches!(
        renumber(&m, &m.schedule[1..]),
        Err(RenumberError::NotAPermutation { .. })
    ));
}
