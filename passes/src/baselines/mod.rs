//! The baselines of the paper's evaluation, command-level, as specified in
//! `shared/reference/baselines.md` (cited by section in every file; its \[SRC\] rules are taken from
//! the named sources, its \[ADAPT\] rules are this project's adaptation, and each file says which is
//! which). Passes: `hmcos`, `magis`, `eda` (placeholders) reorder σ and leave planning to `dlr`;
//! `cosma` orders and plans; `base` is `order{policy=stable},dlr{victim=lru l0=single}` in one flag.
//!
//! Layout, one concept per file: `projection` — A0, the op graph with lazy ALLOC and eager
//! FREE, expanded back to σ by the order module's Kahn engine; `model` — which bytes a command
//! allocates and frees; `cost` — the scalarisation of per-tier vectors (§1.3); `frontier_dp` — E2,
//! shared by HMCOS, MAGIS and COSMA; `window` — E3, shared by MAGIS and COSMA; `hierarchy` and
//! `hmcos`; `magis`; `cosma`, `cosma_plan` (placement), `cosma_ilp` (its exact MILP mode,
//! `ilp-window`) and `cosma_greedy` (its traffic-greedy order); `eda`; `base`; `pass` (the
//! wrappers); `table` (the per-case summary `lattice-bench baselines` prints).
//!
//! Every order is a topological order of the precedence graph with the L0 turns, so every result
//! keeps L0 exclusivity when the target asks for it, and is deterministic.

mod base;
mod cosma;
mod cosma_greedy;
mod cosma_ilp;
mod cosma_plan;
mod cost;
mod eda;
#[cfg(test)]
mod fixtures;
mod frontier_dp;
mod hierarchy;
mod hmcos;
mod magis;
mod model;
pub mod pass;
mod projection;
pub mod table;
mod window;

pub use base::{base, BaseError};
pub use cosma::{cosma, cosma_order, CosmaError, CosmaOptions, CosmaOrder, CosmaStats};
pub use cosma_ilp::{
    place_ilp, IlpError, IlpErrorKind, IlpStats, MAX_OPS, MAX_VARIABLES, NODE_LIMIT,
};
pub use cosma_plan::{place, PlaceError, PlaceErrorKind, PlaceStats};
pub use cost::{Cost, Scale};
pub use eda::{eda_order, EdaOptions, EdaTraversal};
pub use hierarchy::CellOut;
pub use hmcos::{hmcos_order, HmcosOptions, HmcosStats};
pub use magis::{magis_order, MagisOptions, MagisStats, RpoGraph};
pub use pass::{Base, Cosma, Eda, Hmcos, Magis};
pub use table::{baseline_table, run_baseline, Baseline, BaselineError};
pub use window::WindowStats;
