//! Typed indices into the arenas of a [`Module`](crate::Module).
//!
//! Every entity is addressed by a dense `u32` index wrapped in its own type, so a buffer index can
//! never be used where an op index is expected. Indices are only meaningful for the module that
//! handed them out; the names users see (`%12`, `@b3`) are separate and kept on the entities.

use std::fmt;

macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            /// Wraps an arena index.
            pub fn new(index: usize) -> Self {
                Self(u32::try_from(index).expect(concat!(stringify!($name), " index overflows u32")))
            }

            /// The arena index this id stands for.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

define_id!(
    /// An operation of a module (index into `Module::ops`, not a position in the schedule).
    OpId,
    "op#"
);
define_id!(
    /// A buffer declared by a module.
    BufferId,
    "buf#"
);
define_id!(
    /// A memory tier of the target.
    TierId,
    "tier#"
);
define_id!(
    /// An execution pipe of the target.
    PipeId,
    "pipe#"
);
