//! Analyses shared by passes, computed and cached by the pass manager's analysis manager.
//! Each is a plain function over a module plus an [`Analysis`](lattice::Analysis) impl.

pub mod any_order;
pub mod bottom_level;
pub mod buffer_uses;
pub mod cover_bound;
pub mod dag;
pub mod excess;
pub mod first_free;
pub mod makespan_bound;
pub mod must_live;
pub mod peak_bound;
pub mod pressure;
pub mod reach;
pub mod traffic_bound;

pub use any_order::{any_order_bounds, AnyOrderBounds, BoundError};
pub use bottom_level::{bottom_levels, BottomLevels};
pub use buffer_uses::{buffer_uses, BufferUses, Lifetime};
pub use cover_bound::{cover_bound, CoverBound, CoverError};
pub use dag::{CycleError, Dag};
pub use makespan_bound::{makespan_bound, MakespanBound};
pub use peak_bound::{peak_lower_bound, PeakBound};
pub use pressure::{pressure, Pressure};
pub use traffic_bound::{traffic_lower_bound, TrafficBound, TrafficBoundError};
