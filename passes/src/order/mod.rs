//! Command orders: MPAS (paper §IV-B) and the orders the paper compares it with (input, stable,
//! memory-first, critical-first), all one Kahn engine over one precedence graph with the L0 gate.
//!
//! Layout: `graph.rs` builds the precedence graph (dependencies, buffer lifetimes, L0 turns from
//! `gate.rs`, or from `exclusive.rs` — with `gated.rs`, `backtrack.rs` and `components.rs` — when
//! the input's own turns close a cycle); `engine.rs` is the Kahn traversal with a pluggable selector; one file per policy;
//! [`pass`] holds the `mpas` and `order` passes; [`table`] the order-sensitivity table. Every
//! policy returns an order listing every op once, respecting every edge, L0-exclusive when the
//! target asks — or an [`OrderError`], never a partial order.

mod backtrack;
pub(crate) mod components;
pub(crate) mod engine;
mod error;
pub(crate) mod exclusive;
mod gate;
mod gated;
pub(crate) mod graph;
mod pull;
mod turns;
mod window;

pub mod critical_first;
pub mod input;
pub mod memory_first;
pub mod mpas;
pub mod pass;
pub mod stable;
pub mod table;

pub use critical_first::critical_first_order;
pub use error::{Link, OrderError, Step, TurnSearch};
pub use input::input_order;
pub use memory_first::memory_first_order;
pub use mpas::{mpas_key, mpas_order, MpasKey, MpasOptions};
pub use pass::{order_by, Mpas, Order, OrderOptions, Policy};
pub use stable::stable_order;
pub use table::{order_table, policy_pressures, TableError};
