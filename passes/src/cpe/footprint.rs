//! What each op does to the two memory peaks DESIGN §1.3 measures along σ: the **physical**
//! resident bytes (every tier; an ALLOC or SPILL_IN opens a residency of its buffer's size, a
//! FREE or SPILL_OUT closes one) and the **logical** bytes (the non-staging tiers, L1+UB on the
//! contest core; an ALLOC adds its buffer's size until its FREE, spills aside). Commands change
//! neither. Read backwards (σ reversed) closers open and openers close, which is how a backward
//! schedule sees memory; the bytes held at any cut of σ are the same either way, so one budget
//! per meter serves both directions. O(V) to build, O(V) per walk along a σ.

use lattice_lir::{Module, OpId, OpKind};

/// The meters, in the order budgets and peaks are given: physical, logical.
pub(crate) const METERS: usize = 2;

/// Bytes one meter gains and loses at every op, indexed by op id.
pub(crate) struct Meter {
    /// Bytes an op adds.
    pub opens: Vec<u64>,
    /// Bytes an op removes.
    pub closes: Vec<u64>,
}

/// Both meters of every op, in one direction of σ.
pub(crate) struct Footprint {
    /// Physical, then logical.
    pub meters: [Meter; METERS],
    /// The op opens at no cost in time or pipe (an ALLOC; a FREE backwards), so it can be placed
    /// in σ anywhere before the first op that needs it.
    pub lazy: Vec<bool>,
}

impl Footprint {
    /// The footprint of every op of `module`, read forwards or backwards, with op `v` at index
    /// `position[v]` (the relabelling CPE works in, a permutation).
    pub fn of(module: &Module, position: &[usize], backwards: bool) -> Self {
        let n = module.ops.len();
        let meter = || Meter {
            opens: vec![0; n],
            closes: vec![0; n],
        };
        let mut f = Footprint {
            meters: [meter(), meter()],
            lazy: vec![false; n],
        };
        for (v, op) in module.ops.iter().enumerate() {
            let i = position[v];
            let Some(buffer) = op
                .kind
                .buffers()
                .first()
                .and_then(|b| module.buffers.get(b.index()))
            else {
                continue;
            };
            let (opens, lifecycle) = match op.kind {
                OpKind::Alloc { .. } => (true, true),
                OpKind::SpillIn { .. } => (true, false),
                OpKind::Free { .. } => (false, true),
                OpKind::SpillOut { .. } => (false, false),
                OpKind::Compute { .. } => continue,
            };
            let logical = lifecycle
                && module
                    .target
                    .tiers
                    .get(buffer.tier.index())
                    .is_some_and(|t| !t.staging);
            for (m, counts) in f.meters.iter_mut().zip([true, logical]) {
                if !counts {
                    continue;
                }
                if opens != backwards {
                    m.opens[i] = buffer.size;
                } else {
                    m.closes[i] = buffer.size;
                }
            }
            f.lazy[i] = lifecycle && opens != backwards;
        }
        f
    }

    /// The most bytes each meter holds at once along `sigma` (Freeze's peaks when `sigma` is the
    /// module's own σ read forwards: the replay's physical and logical peaks).
    pub fn peaks(&self, sigma: &[OpId]) -> [u64; METERS] {
        self.meters.each_ref().map(|m| {
            let (mut held, mut peak) = (0u64, 0u64);
            for v in sigma {
                held = held
                    .saturating_sub(m.closes[v.index()])
                    .saturating_add(m.opens[v.index()]);
                peak = peak.max(held);
            }
            peak
        })
    }

    /// Whether `v` adds bytes to some meter.
    pub fn opens(&self, v: OpId) -> bool {
        self.meters.iter().any(|m| m.opens[v.index()] > 0)
    }
}
