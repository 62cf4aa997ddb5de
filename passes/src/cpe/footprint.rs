//! What each op does to the bytes resident along σ (DESIGN §1.3's physical resident peak): an
//! ALLOC or SPILL_IN opens a residency of its buffer's size, a FREE or SPILL_OUT closes one,
//! commands leave it alone. Read backwards (σ reversed) closers open and openers close, which is
//! how a backward schedule sees memory; the resident bytes at any cut of σ are the same either
//! way, so one budget serves both directions. O(V).

use lattice_lir::{Module, OpKind};

/// Bytes opened and closed by every op, indexed by op id, in one direction of σ.
pub(crate) struct Footprint {
    /// Bytes an op makes resident.
    pub opens: Vec<u64>,
    /// Bytes an op releases.
    pub closes: Vec<u64>,
    /// The op opens a residency at no cost in time or pipe (an ALLOC; a FREE backwards), so it
    /// can be placed in σ anywhere before the first op that needs it.
    pub lazy: Vec<bool>,
}

impl Footprint {
    /// The footprint of every op of `module`, read forwards or backwards.
    pub fn of(module: &Module, backwards: bool) -> Self {
        let n = module.ops.len();
        let mut f = Footprint {
            opens: vec![0; n],
            closes: vec![0; n],
            lazy: vec![false; n],
        };
        for (i, op) in module.ops.iter().enumerate() {
            let Some(&b) = op.kind.buffers().first() else {
                continue;
            };
            let size = module.buffers.get(b.index()).map_or(0, |b| b.size);
            let (opens, lifecycle) = match op.kind {
                OpKind::Alloc { .. } => (true, true),
                OpKind::SpillIn { .. } => (true, false),
                OpKind::Free { .. } => (false, true),
                OpKind::SpillOut { .. } => (false, false),
                OpKind::Compute { .. } => continue,
            };
            if opens != backwards {
                f.opens[i] = size;
            } else {
                f.closes[i] = size;
            }
            f.lazy[i] = lifecycle && opens != backwards;
        }
        f
    }
}
