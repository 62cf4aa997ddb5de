//! An independent check of a memory plan, written from DESIGN §1.3 without any DLR code: residency
//! segments from σ, every use inside one, no two σ-overlapping segments of a tier overlapping in
//! address, and the spill count and traffic recomputed.

use lattice_lir::{Module, OpKind};

/// What the replay recomputed.
#[derive(Debug)]
pub struct Replay {
    /// SPILL_OUT count.
    pub spills: u64,
    /// Extra DDR traffic.
    pub traffic: u64,
}

/// Panics with a message at the first violation.
pub fn check_plan(m: &Module) -> Replay {
    // Open segment per buffer: (offset, start position).
    let mut open: Vec<Option<(u64, usize)>> = vec![None; m.buffers.len()];
    // Closed segments: (tier, lo, hi, start, end).
    let mut segs: Vec<(usize, u64, u64, usize, usize)> = Vec::new();
    let (mut spills, mut traffic) = (0, 0);
    for (p, &id) in m.schedule.iter().enumerate() {
        let op = m.op(id);
        match &op.kind {
            OpKind::Alloc { buffer, offset } => {
                open[buffer.index()] = Some((offset.expect("planned alloc has an offset"), p))
            }
            OpKind::SpillIn { buffer, offset, .. } => {
                assert!(
                    open[buffer.index()].is_none(),
                    "%{}: reload of a resident",
                    op.name
                );
                open[buffer.index()] = Some((*offset, p));
            }
            OpKind::SpillOut { buffer, .. } | OpKind::Free { buffer } => {
                let b = m.buffer(*buffer);
                let (lo, start) = open[buffer.index()]
                    .take()
                    .unwrap_or_else(|| panic!("%{}: ends no residency", op.name));
                assert!(lo + b.size <= m.target.tier(b.tier).capacity);
                segs.push((b.tier.index(), lo, lo + b.size, start, p));
                if matches!(op.kind, OpKind::SpillOut { .. }) {
                    spills += 1;
                    traffic += if b.backed { b.size } else { 2 * b.size };
                }
            }
            OpKind::Compute { operands, .. } => {
                for b in operands {
                    assert!(
                        open[b.index()].is_some(),
                        "%{}: uses @b{} outside a residency",
                        op.name,
                        m.buffer(*b).name
                    );
                }
            }
        }
    }
    assert!(open.iter().all(Option::is_none), "a residency never ends");
    segs.sort_by_key(|s| (s.3, s.0, s.1));
    let mut active: Vec<(usize, u64, u64, usize, usize)> = Vec::new();
    for s in segs {
        active.retain(|a| a.4 > s.3);
        for a in &active {
            assert!(
                a.0 != s.0 || a.2 <= s.1 || s.2 <= a.1,
                "segments {a:?} and {s:?} overlap in σ and address"
            );
        }
        active.push(s);
    }
    Replay { spills, traffic }
}
