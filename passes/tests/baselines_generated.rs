//! Every baseline on generated workloads (property test): for any shape, size and seed, each
//! baseline's planned module passes the independent replay without a violation and a second run
//! gives the same module. Linear-ish in the module per case (HMCOS's beam and the windows' DPs
//! are bounded by their options).

mod common;

use common::check_plan;
use lattice_passes::baselines::{run_baseline, Baseline, EdaTraversal};
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
}
