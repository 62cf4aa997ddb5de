//! The options of `order-exact`: the objective, the state limit, and the back end the orders are
//! planned with — `order-search`'s own [`Objective`] and [`BackEnd`] types, so both passes take
//! the same spellings and score the same way.

use crate::search::{BackEnd, Objective};
use lattice::pass_options;
use std::num::NonZeroU64;

pass_options! {
    /// Options of `order-exact`.
    pub struct ExactOptions {
        /// What to minimize: peak (exact over all orders), traffic or makespan (exact over all orders as the back end plans them).
        objective: Objective = Objective::Peak,
        /// Most states (peak: sets of ops run; traffic and makespan: prefixes and orders visited) before the pass refuses.
        #[range(1..=1000000000)]
        max_states: NonZeroU64 = NonZeroU64::new(2_000_000).expect("nonzero"),
        /// The passes that plan the orders: `pipeline` (those that follow) or `dlr{…}` or `dlr{…},cpe{…}`; DLR's own victim key either way.
        back_end: BackEnd = BackEnd::default(),
    }
}
