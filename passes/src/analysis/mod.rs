//! Analyses shared by passes, computed and cached by the pass manager's analysis manager.
//! Each is a plain function over a module plus an [`Analysis`](lattice::Analysis) impl.

pub mod bottom_level;
pub mod buffer_uses;
pub mod pressure;
pub mod traffic_bound;

pub use bottom_level::{bottom_levels, BottomLevels};
pub use buffer_uses::{buffer_uses, BufferUses, Lifetime};
pub use pressure::{pressure, Pressure};
pub use traffic_bound::{traffic_lower_bound, TrafficBound, TrafficBoundError};
