//! Every baseline on generated workloads (property test): for any shape, size and seed, each
//! baseline's planned module passes the independent replay without a violation and a second run
//! gives the same module; so do the non-default knobs (MAGIS's raw RPO graph planned by `dlr`,
//! COSMA's traffic-greedy order). Linear-ish in the module per case (HMCOS's beam and the windows' DPs
//! are bounded by their options).

mod common;

use common::check_plan;
use lattice_lir::Phase;
use lattice_passes::baselines::{
    cosma, magis_order, run_baseline, Baseline, CosmaOptions, CosmaOrder, EdaTraversal,
    MagisOptions, RpoGraph,
};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::generate::{generate, GenSpec, Shape};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_baseline_plan_of_a_generated_workload_verifies(
        shape in prop::sample::select(Shape::ALL.to_vec()),
        nodes in 30usize..400,
        seed in any::<u64>(),
        eda in prop::sample::select(vec![
            EdaTraversal::DfsConsumer,
            EdaTraversal::BfsLevel,
            EdaTraversal::InductorBfs,
            EdaTraversal::InductorDfs,
        ]),
    ) {
        let module = generate(&GenSpec { shape, nodes, seed });
        for baseline in [
            Baseline::Base,
            Baseline::Hmcos,
            Baseline::Magis,
            Baseline::Cosma,
            Baseline::EdaPlaceholder(eda),
        ] {
            let planned = run_baseline(&module, baseline)
                .unwrap_or_else(|e| panic!("{}: {e}", module.name));
            check_plan(&planned);
            prop_assert_eq!(&run_baseline(&module, baseline).unwrap(), &planned);
        }
    }

    #[test]
    fn the_baseline_knobs_verify_on_generated_workloads(
        shape in prop::sample::select(Shape::ALL.to_vec()),
        nodes in 30usize..400,
        seed in any::<u64>(),
    ) {
        let module = generate(&GenSpec { shape, nodes, seed });
        let raw = MagisOptions { rpo_graph: RpoGraph::Raw, ..MagisOptions::default() };
        let (order, _) = magis_order(&module, &raw).unwrap();
        prop_assert_eq!(&magis_order(&module, &raw).unwrap().0, &order);
        let mut scheduled = module.clone();
        scheduled.schedule = order;
        scheduled.phase = Phase::Scheduled;
        let planned = plan(&scheduled, &DlrOptions::default())
            .unwrap_or_else(|e| panic!("{}: raw: {e}", module.name));
        check_plan(&planned.module);

        let greedy = CosmaOptions { order: CosmaOrder::TrafficGreedy, ..CosmaOptions::default() };
        let (planned, _) = cosma(&module, &greedy)
            .unwrap_or_else(|e| panic!("{}: traffic-greedy: {e}", module.name));
        check_plan(&planned);
        prop_assert_eq!(&cosma(&module, &greedy).unwrap().0, &planned);
    }
}

/// Found by the property test above: the two resident operands of a command split the UB so that
/// no window for its third operand avoids them; COSMA's placement compacts them.
#[test]
fn cosma_compacts_operands_that_split_a_tier() {
    let module = generate(&GenSpec {
        shape: Shape::Random,
        nodes: 276,
        seed: 14337301269882258280,
    });
    let (planned, stats) =
        cosma(&module, &CosmaOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", module.name));
    assert!(stats.place.compactions > 0);
    check_plan(&planned);
}
