//! The search's floor: a value of its objective that no order and plan of the module beats, so
//! a search that reaches it can stop — what it holds is optimal.
//!
//! The floor is the order-independent lower bound of the objective
//! ([`crate::analysis::any_order_bounds`]: each bound holds for every order and every plan, the
//! search-stage timing's too) on modules of at most [`FLOOR_OPS`] ops, where computing it costs
//! milliseconds against the seconds of a default search; on larger modules, and when no bound
//! can be computed, it is 0 — still a floor of every objective (no plan has negative traffic),
//! and for traffic the one that stops a search whose plans spill nothing. Not charged to the
//! budget: it is a pure function of the module, so it changes no result's determinism.
//!
//! Cost: the bounds' (`any_order_bounds`) on modules of at most [`FLOOR_OPS`] ops, O(1) above.

use super::options::Objective;
use crate::analysis::any_order_bounds;
use crate::exact::bound_of;
use lattice_lir::Module;

/// The largest module whose bounds the search computes for its floor.
pub const FLOOR_OPS: usize = 4096;

/// The floor of `objective` on `module` (see the module docs).
pub(crate) fn floor(module: &Module, objective: Objective) -> u64 {
    if module.ops.len() > FLOOR_OPS {
        return 0;
    }
    any_order_bounds(module).map_or(0, |b| bound_of(&b, objective))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::report::oracle_module;
    use crate::generate::{generate, GenSpec, Shape};
    use crate::search::options::AUTO_WORK;
    use crate::search::score::value;
    use crate::search::{search, SearchOptions, Silent};

    #[test]
    fn a_search_whose_mpas_plan_meets_the_floor_returns_it_at_once() {
        // The contest core's capacities: MPAS's order of a small matmul spills nothing.
        let m = generate(&GenSpec {
            shape: Shape::Matmul,
            nodes: 40,
            seed: 3,
        });
        let options = SearchOptions {
            objective: Objective::Traffic,
            ..SearchOptions::default()
        };
        let found = search(&m, &options, &Silent).expect("searches");
        assert_eq!(found.mpas.traffic, 0);
        assert_eq!((found.winner.as_str(), found.members), ("mpas", 0));
    }

    #[test]
    fn searches_stay_above_the_floor_and_stop_early_where_they_meet_it() {
        let mut met = 0;
        for i in 0..8 {
            let m = oracle_module(i);
            for objective in [Objective::Peak, Objective::Traffic, Objective::Makespan] {
                let options = SearchOptions {
                    objective,
                    ..SearchOptions::default()
                };
                let found = search(&m, &options, &Silent).expect("searches");
                let (got, low) = (value(objective, &found.measure), floor(&m, objective));
                assert!(got >= low, "{} {objective:?}: {got} < {low}", m.name);
                if got == low {
                    met += 1;
                    assert!(found.work < AUTO_WORK, "{}: {}", m.name, found.work);
                }
            }
        }
        assert!(met >= 8, "{met}");
    }
}
