//! The relabelling CPE works in: op `i` is the `i`-th op of the module's σ (Freeze's). CPE breaks
//! every tie by op id (adjacency lists, queues, chains), and ids are arena positions, which
//! differ between a module fresh from DLR (spill ops appended to the arena) and the same module
//! printed and parsed back (arena in σ order). In Freeze positions, `--dlr --cpe` in one
//! pipeline and in two invocations make the same choices. Nothing is copied: the constraint
//! graph and the footprints are built straight in the new ids from the module itself
//! ([`Canonical::position`]), which at a million ops saves a copy of every op.
//!
//! Invariant: a `Canonical` exists only for a σ that lists every op exactly once, so both maps
//! are permutations. O(V).

use lattice_lir::{Module, OpId};

/// Both directions of the relabelling.
pub(crate) struct Canonical {
    /// The new id (Freeze position) of every op, indexed by its original id.
    pub position: Vec<usize>,
    /// The original id of every new id: Freeze's σ.
    pub original: Vec<OpId>,
}

impl Canonical {
    /// The relabelling of `module`, or `None` when its σ does not list every op exactly once
    /// (the verifier says how).
    pub fn of(module: &Module) -> Option<Self> {
        let position = module.schedule_positions();
        // σ as long as the arena and every op placed: each op exactly once.
        (module.schedule.len() == module.ops.len() && !position.contains(&usize::MAX)).then(|| {
            Canonical {
                position,
                original: module.schedule.clone(),
            }
        })
    }

    /// The new id of `v`.
    pub fn id(&self, v: OpId) -> OpId {
        OpId::new(self.position[v.index()])
    }

    /// Freeze's σ in new ids: 0, 1, 2, …
    pub fn freeze_sigma(&self) -> Vec<OpId> {
        (0..self.original.len()).map(OpId::new).collect()
    }

    /// A σ in new ids as a σ of the original.
    pub fn to_original(&self, sigma: &[OpId]) -> Vec<OpId> {
        sigma.iter().map(|v| self.original[v.index()]).collect()
    }

    /// A per-op vector of the original, indexed by new ids.
    pub fn per_op<T: Copy>(&self, values: &[T]) -> Vec<T> {
        self.original.iter().map(|v| values[v.index()]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpe::{refine, CpeError, CpeOptions};
    use crate::dlr::{plan, DlrOptions};
    use crate::generate::{generate, GenSpec, Shape};
    use lattice_lir::Phase;

    /// A σ that repeats an op or leaves one out has no relabelling, and CPE reports it as the
    /// verifier's finding instead of indexing out of range.
    #[test]
    fn a_sigma_that_is_not_a_permutation_is_refused() {
        let mut module = generate(&GenSpec {
            shape: Shape::Matmul,
            nodes: 300,
            seed: 1,
        });
        module.phase = Phase::Scheduled;
        let planned = plan(&module, &DlrOptions::default()).expect("plans").module;
        let canon = Canonical::of(&planned).expect("a planned σ is a permutation");
        assert_eq!(canon.to_original(&canon.freeze_sigma()), planned.schedule);
        for broken in [
            {
                let mut m = planned.clone();
                m.schedule.pop();
                m
            },
            {
                let mut m = planned.clone();
                m.schedule[1] = m.schedule[0];
                m
            },
        ] {
            assert!(Canonical::of(&broken).is_none());
            assert!(matches!(
                refine(&broken, &CpeOptions::default()),
                Err(CpeError::InvalidPlan { .. })
            ));
        }
    }
}
