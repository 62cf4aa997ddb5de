//! The tiers and pipes of a target that the generator names, resolved once by name.
//!
//! The generator speaks the contest core's vocabulary (tiers L1, UB, L0A, L0B, L0C; pipes MTE1,
//! MTE2, MTE3, FIXP, CUBE, VECTOR) but reads every capacity from the target, so a target with
//! other capacities gets workloads scaled to it. Invariant: every buffer size the shapes ask for
//! is a power of two no larger than the tier's *span*, the largest power of two within its
//! capacity, which is what makes the allocation guarantee of [`super::space`] apply. O(tiers +
//! pipes) to resolve.

use lattice_lir::{PipeId, Target, TierId};
use std::fmt;

/// The smallest capacity the generator accepts for each tier it uses: enough that every size
/// fraction the shapes take (down to 1/512 of the span, at least one byte) is still a size.
pub const MIN_CAPACITY: u64 = 16;

/// Why a target cannot host generated workloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The target has no tier of this name.
    MissingTier(&'static str),
    /// The target has no pipe of this name.
    MissingPipe(&'static str),
    /// A tier is smaller than [`MIN_CAPACITY`].
    TooSmall {
        /// The tier.
        tier: &'static str,
        /// Its capacity.
        capacity: u64,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::MissingTier(name) => {
                write!(f, "the target has no tier {name}; the generator needs L1, UB, L0A, L0B and L0C")
            }
            GenError::MissingPipe(name) => write!(
                f,
                "the target has no pipe {name}; the generator needs MTE1, MTE2, MTE3, FIXP, CUBE and VECTOR"
            ),
            GenError::TooSmall { tier, capacity } => write!(
                f,
                "tier {tier} holds {capacity} bytes; the generator needs at least {MIN_CAPACITY}"
            ),
        }
    }
}

impl std::error::Error for GenError {}

/// One tier the generator allocates in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Space {
    /// The tier.
    pub(crate) id: TierId,
    /// The largest power of two not above the capacity.
    pub(crate) span: u64,
}

impl Space {
    /// `span / 2^shift`, at least one byte: a power-of-two size that fits the tier.
    pub(crate) fn frac(self, shift: usize) -> u64 {
        self.span.checked_shr(shift as u32).unwrap_or(0).max(1)
    }
}

/// The resolved tiers and pipes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Machine {
    pub(crate) l1: Space,
    pub(crate) ub: Space,
    pub(crate) l0a: Space,
    pub(crate) l0b: Space,
    pub(crate) l0c: Space,
    pub(crate) mte1: PipeId,
    pub(crate) mte2: PipeId,
    pub(crate) mte3: PipeId,
    pub(crate) fixp: PipeId,
    pub(crate) cube: PipeId,
    pub(crate) vector: PipeId,
}

impl Machine {
    /// Looks every tier and pipe up in `target`.
    pub(crate) fn resolve(target: &Target) -> Result<Self, GenError> {
        let space = |name: &'static str| {
            let id = target.tier_named(name).ok_or(GenError::MissingTier(name))?;
            let capacity = target.tier(id).capacity;
            if capacity < MIN_CAPACITY {
                return Err(GenError::TooSmall {
                    tier: name,
                    capacity,
                });
            }
            let span = 1u64 << (63 - capacity.leading_zeros());
            Ok(Space { id, span })
        };
        let pipe = |name: &'static str| target.pipe_named(name).ok_or(GenError::MissingPipe(name));
        Ok(Machine {
            l1: space("L1")?,
            ub: space("UB")?,
            l0a: space("L0A")?,
            l0b: space("L0B")?,
            l0c: space("L0C")?,
            mte1: pipe("MTE1")?,
            mte2: pipe("MTE2")?,
            mte3: pipe("MTE3")?,
            fixp: pipe("FIXP")?,
            cube: pipe("CUBE")?,
            vector: pipe("VECTOR")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_contest_core() {
        let m = Machine::resolve(&Target::contest()).unwrap();
        assert_eq!((m.l1.span, m.ub.span, m.l0c.span), (4096, 1024, 512));
        assert_eq!(m.ub.frac(3), 128);
        assert_eq!(m.ub.frac(70), 1);
    }

    #[test]
    fn reports_what_is_missing() {
        let mut t = Target::contest();
        t.tiers[1].capacity = 1000;
        assert_eq!(Machine::resolve(&t).unwrap().ub.span, 512);
        t.tiers[1].capacity = 8;
        let e = Machine::resolve(&t).unwrap_err();
        assert_eq!(
            e,
            GenError::TooSmall {
                tier: "UB",
                capacity: 8
            }
        );
        assert!(e.to_string().contains("at least 16"));
        t.tiers[1].name = "UBX".into();
        assert_eq!(
            Machine::resolve(&t).unwrap_err(),
            GenError::MissingTier("UB")
        );
        let mut t = Target::contest();
        t.pipes[5] = "SIMD".into();
        assert_eq!(
            Machine::resolve(&t).unwrap_err(),
            GenError::MissingPipe("VECTOR")
        );
    }
}
