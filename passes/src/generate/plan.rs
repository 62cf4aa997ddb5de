//! The trivial memory plan: σ unchanged, no spills, every buffer placed by aligned first fit
//! ([`TierSpace`]) as σ allocates and frees it, and the reuse dependencies that placement implies
//! written by [`derive_plan_deps`].
//!
//! Guarantee: for a module the generator emitted, placement always succeeds, because the
//! generator ran the same allocator over the same σ while emitting and kept every allocation
//! within the bound of [`super::space`]. Any other module is planned when it happens to fit and
//! refused otherwise, naming the first buffer with no room. Buffers whose lifetimes overlap in σ
//! get disjoint bytes by construction. Complexity: O(V · L + E) for L the most buffers live in
//! one tier, plus [`derive_plan_deps`].

use super::space::TierSpace;
use lattice_lir::plan_deps::derive_plan_deps;
use lattice_lir::{verify_module, Module, OpKind, Phase, VerifyError};
use std::fmt;

/// Why a module could not be given the trivial plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The module is not structurally valid.
    Invalid(Vec<VerifyError>),
    /// The module already has spill ops; the trivial plan spills nothing.
    HasSpills {
        /// The first spill op in σ.
        op: u32,
    },
    /// A buffer found no free bytes in its tier at its ALLOC.
    NoRoom {
        /// The ALLOC.
        op: u32,
        /// The buffer.
        buffer: u32,
        /// Its size.
        size: u64,
        /// Its tier.
        tier: String,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Invalid(errors) => {
                write!(f, "the module is not valid ({} errors", errors.len())?;
                if let Some(first) = errors.first() {
                    write!(f, "; first: {first}")?;
                }
                f.write_str(")")
            }
            PlanError::HasSpills { op } => write!(
                f,
                "op %{op} is a spill; the trivial plan applies to modules without spills"
            ),
            PlanError::NoRoom {
                op,
                buffer,
                size,
                tier,
            } => write!(
                f,
                "op %{op}: no {size} free bytes in {tier} for @b{buffer} at this point of the schedule"
            ),
        }
    }
}

impl std::error::Error for PlanError {}

/// `module` in phase `planned` (or later, if it was already) with the trivial plan.
pub fn trivial_plan(module: &Module) -> Result<Module, PlanError> {
    verify_module(module).map_err(PlanError::Invalid)?;
    let mut planned = module.clone();
    let mut spaces: Vec<TierSpace> = module
        .target
        .tiers
        .iter()
        .map(|t| TierSpace::new(t.capacity))
        .collect();
    for &id in &module.schedule {
        let op = planned.op_mut(id);
        match &mut op.kind {
            OpKind::Alloc { buffer, offset } => {
                let buf = module.buffer(*buffer);
                let space = &mut spaces[buf.tier.index()];
                let Some(at) = space.find(buf.size) else {
                    return Err(PlanError::NoRoom {
                        op: op.name,
                        buffer: buf.name,
                        size: buf.size,
                        tier: module.target.tier(buf.tier).name.clone(),
                    });
                };
                space.take(*buffer, at, buf.size);
                *offset = Some(at);
            }
            OpKind::Free { buffer } => {
                spaces[module.buffer(*buffer).tier.index()].release(*buffer);
            }
            OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => {
                return Err(PlanError::HasSpills { op: op.name });
            }
            OpKind::Compute { .. } => {}
        }
    }
    planned.phase = planned.phase.max(Phase::Planned);
    derive_plan_deps(&mut planned);
    Ok(planned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    const HEAD: &str = "module @t phase(parsed) {
  target {
    tiers L1 = 4096, UB = 8, L0A = 256 l0, L0B = 256 l0, L0C = 512 l0
    pipes MTE1, MTE2, MTE3, FIXP, CUBE, VECTOR
    spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size
    l0_exclusive = true
  }
";

    fn module(body: &str) -> Module {
        parse_module(&format!("{HEAD}{body}}}\n")).unwrap()
    }

    #[test]
    fn places_and_hands_off() {
        let m = module(
            "  buffer @b0 : UB[4]
  buffer @b1 : UB[4]
  buffer @b2 : UB[8]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = free @b0 after(%0)
  %3 = free @b1 after(%1)
  %4 = alloc @b2
  %5 = free @b2 after(%4)
",
        );
        let p = trivial_plan(&m).unwrap();
        assert_eq!(p.phase, Phase::Planned);
        assert_eq!(p.schedule, m.schedule);
        let offsets: Vec<Option<u64>> = p
            .ops
            .iter()
            .filter_map(|op| match op.kind {
                OpKind::Alloc { offset, .. } => Some(offset),
                _ => None,
            })
            .collect();
        assert_eq!(offsets, [Some(0), Some(4), Some(0)]);
        let reuse: Vec<u32> = p.ops[4].deps.iter().map(|d| p.op(d.op).name).collect();
        assert_eq!(reuse, [2, 3]);
        assert!(verify_module(&p).is_ok());
    }

    #[test]
    fn refuses_what_it_cannot_plan() {
        let m = module(
            "  buffer @b0 : UB[8]
  buffer @b1 : UB[1]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = free @b0 after(%0)
  %3 = free @b1 after(%1)
",
        );
        let e = trivial_plan(&m).unwrap_err();
        assert!(matches!(
            e,
            PlanError::NoRoom {
                op: 1,
                buffer: 1,
                size: 1,
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "op %1: no 1 free bytes in UB for @b1 at this point of the schedule"
        );
        let spilled = parse_module(&format!(
            "{}  buffer @b0 : UB[8]
  %0 = alloc @b0 at 0
  %1 = spill_out @b0 MTE3 166 after(%0 spill)
  %2 = spill_in @b0 at 0 MTE2 166 after(%1 spill)
  %3 = free @b0 after(%2 spill)
}}
",
            HEAD.replace("parsed", "planned")
        ))
        .unwrap();
        let e = trivial_plan(&spilled).unwrap_err();
        assert_eq!(e, PlanError::HasSpills { op: 1 });
        let mut broken = m.clone();
        broken.schedule.pop();
        let e = trivial_plan(&broken).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("the module is not valid (1 errors; first: "));
    }
}
