//! `order-search` on generated workloads (every shape, several sizes and seeds, the contest core
//! and shrunk capacities that force spills) and on the shipped cases: every result is a legal,
//! L0-exclusive order whose plan the independent verifier accepts; the back end run on it gives
//! exactly the numbers the search reports; the result is the same at 1 and 2 threads, with a
//! budget in steps (spent exactly) or in work units (spent to within one step per chain), unless
//! the search ended early (a plan met the floor, or the chains kept returning to known orders); and it
//! is never worse than MPAS's order on the objective, under the same back end.

mod common;

use common::pipeline;
use lattice_lir::Module;
use lattice_passes::analysis::bottom_levels;
use lattice_passes::generate::{generate_for, GenSpec, Shape};
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::search::{
    search, BackEnd, Budget, Ended, Measure, Objective, Progress, SearchOptions, Silent,
};
use proptest::prelude::*;
use std::num::{NonZeroU32, NonZeroU64};
use std::sync::atomic::{AtomicU64, Ordering};

fn objective_value(objective: Objective, m: &Measure) -> u64 {
    match objective {
        Objective::Peak => m.peak,
        Objective::Traffic => m.traffic,
        Objective::Makespan => m.makespan,
    }
}

/// What the search told its progress: the budget, and the steps spent (from any thread).
#[derive(Default)]
struct Counted {
    budget: AtomicU64,
    spent: AtomicU64,
}

impl Progress for Counted {
    fn budget(&self, total: u64, unit: &'static str) {
        assert_eq!(unit, "steps");
        assert_eq!(
            self.budget.swap(total, Ordering::Relaxed),
            0,
            "the budget is told once"
        );
    }
    fn advance(&self, amount: u64) {
        self.spent.fetch_add(amount, Ordering::Relaxed);
    }
}

/// Runs the search with `threads` 1 and 2 and checks everything the file header promises.
fn check(m: &Module, objective: Objective, budget: u64, back_end: BackEnd) {
    let options = |threads: u32| SearchOptions {
        objective,
        budget: Budget::Steps(NonZeroU64::new(budget).expect("positive budget")),
        seed: 7,
        threads: NonZeroU32::new(threads).expect("positive threads"),
        time_limit: 0,
        back_end: back_end.clone(),
    };
    let one = search(m, &options(1), &Silent).expect("search succeeds");
    let progress = Counted::default();
    let two = search(m, &options(2), &progress).expect("search succeeds");
    assert_eq!(
        (
            progress.budget.load(Ordering::Relaxed),
            progress.spent.load(Ordering::Relaxed)
        ),
        (budget, two.evaluations - two.lead_evaluations),
        "{}: the progress told is not the budget and the steps spent (the leads' left out)",
        m.name
    );
    assert_eq!(
        one.order, two.order,
        "{}: thread count changed the result",
        m.name
    );
    // The budget is spent exactly unless the search ended early (a plan met the floor, or
    // every chain kept returning to known orders), and then never overspent.
    let own = one.evaluations - one.lead_evaluations;
    assert!(
        own == budget || (one.ended != Ended::Budget && own < budget),
        "{}: budget not spent exactly ({own} of {budget}, {:?})",
        m.name,
        one.ended
    );
    let mut sorted: Vec<usize> = one.order.iter().map(|op| op.index()).collect();
    sorted.sort_unstable();
    assert!(
        sorted.iter().copied().eq(0..m.ops.len()),
        "{}: not a permutation",
        m.name
    );
    // The back end with the victim key the search chose (its own unless it searches the key).
    let measured = pipeline(m, &one.order, &back_end.with_victim(one.victim));
    assert_eq!(
        measured, one.measure,
        "{}: reported numbers differ from the pipeline's",
        m.name
    );
    let mpas = mpas_order(m, &bottom_levels(m), &MpasOptions::default()).expect("mpas orders");
    let baseline = pipeline(m, &mpas, &back_end);
    assert_eq!(baseline, one.mpas, "{}: MPAS's numbers differ", m.name);
    assert!(
        objective_value(objective, &measured) <= objective_value(objective, &baseline),
        "{}: {objective:?} {measured:?} worse than MPAS {baseline:?}",
        m.name
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn search_results_verify_and_never_lose_to_mpas(
        shape in prop::sample::select(Shape::ALL.to_vec()),
        nodes in 20usize..400,
        seed in 0u64..1000,
        objective in prop_oneof![Just(Objective::Peak), Just(Objective::Traffic), Just(Objective::Makespan)],
        percent in prop_oneof![Just(100u64), Just(25), Just(8)],
        cpe in any::<bool>(),
        victim_search in any::<bool>(),
    ) {
        let Ok(m) = generate_for(&GenSpec { shape, nodes, seed }, &common::shrunk(percent)) else {
            return Ok(());
        };
        let back_end = BackEnd {
            cpe: cpe.then(Default::default),
            victim_search,
            ..BackEnd::default()
        };
        check(&m, objective, 30, back_end);
    }
}

#[test]
fn search_on_the_shipped_cases_verifies_and_never_loses_to_mpas() {
    for (objective, budget) in [
        (Objective::Peak, 40),
        (Objective::Traffic, 40),
        (Objective::Makespan, 12),
    ] {
        for m in common::cases() {
            check(&m, objective, budget, BackEnd::default());
        }
    }
}

/// A budget in work units: the same order, steps and work at 1 and 2 threads, every unit of the
/// budget spent but for the last step of each chain and of the portfolio, and the result no
/// worse than MPAS's.
#[test]
fn a_work_budget_is_deterministic_and_spent() {
    const UNITS: u64 = 4_000_000;
    for shape in [Shape::Resnet, Shape::Attention, Shape::Matmul] {
        let m = generate_for(
            &GenSpec {
                shape,
                nodes: 1200,
                seed: 3,
            },
            &common::shrunk(25),
        )
        .expect("generates");
        for objective in [Objective::Traffic, Objective::Makespan] {
            let options = |threads: u32| SearchOptions {
                objective,
                budget: Budget::Work(NonZeroU64::new(UNITS).expect("positive")),
                threads: NonZeroU32::new(threads).expect("positive threads"),
                ..SearchOptions::default()
            };
            let one = search(&m, &options(1), &Silent).expect("search succeeds");
            let two = search(&m, &options(2), &Silent).expect("search succeeds");
            assert_eq!(
                one.order, two.order,
                "{}: threads changed the order",
                m.name
            );
            assert_eq!((one.evaluations, one.work), (two.evaluations, two.work));
            // A step here costs far less than 200,000 units (a few times V + E). The makespan
            // objective's leads come on top of the budget.
            let own = one.work - one.lead_work;
            assert!(
                (own >= UNITS || one.ended != Ended::Budget) && own < UNITS + 5 * 200_000,
                "{} {objective:?}: {own} units of {UNITS}",
                m.name,
            );
            let measured = pipeline(&m, &one.order, &BackEnd::default());
            assert_eq!(measured, one.measure, "{}", m.name);
            assert!(
                objective_value(objective, &one.measure) <= objective_value(objective, &one.mpas)
            );
        }
    }
}
