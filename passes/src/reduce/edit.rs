//! The reductions a candidate is made of: remove ops, remove buffers, remove dependency edges —
//! each building a new module that keeps the structural invariants of the old one.
//!
//! How each removal keeps the module well formed (the rules of `lattice_lir::verify`):
//! - a removed op's users inherit its dependencies (bypass), so every ordering the input stated
//!   between the ops that stay still holds by a path — including ALLOC → use → FREE — and every
//!   inherited dependency still precedes its user in σ, because it preceded the removed op;
//! - a removed buffer takes its ALLOC, FREE and spill ops with it (bypassed like any removed op)
//!   and leaves every command that named it, which keeps its other operands;
//! - a removed edge is only dropped: σ still lists every dependency before its user;
//! - before planning, `backed` is derived again from the COPY_INs that stay;
//! - σ keeps the order of the ops that stay, names (`%N`, `@bN`) never change, and ids are
//!   renumbered densely in arena order.
//!
//! What a removal cannot promise — a dropped edge that was a use's only path from its ALLOC or to
//! its FREE, half of a spill pair removed, a planned module's backed buffer without its COPY_IN —
//! the reducer's structural check of every candidate catches. Complexity: O(V + B + E') per candidate, E' the edges after bypassing
//! (at most the transitive edges over the removed ops, each deduplicated per user).

use lattice_lir::{BufferId, Dep, Module, OpId, OpKind};
use std::collections::HashSet;

/// What one candidate removes, by the names users read (stable across candidates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removal {
    /// Ops to remove, by `%N`.
    pub ops: HashSet<u32>,
    /// Buffers to remove, by `@bN`.
    pub buffers: HashSet<u32>,
    /// Dependency edges to remove, as (user `%N`, dependency `%M`).
    pub edges: HashSet<(u32, u32)>,
}

/// `module` without what `removal` names (see the module header).
pub fn apply(module: &Module, removal: &Removal) -> Module {
    let m = module;
    let buffer_gone: Vec<bool> = m
        .buffers
        .iter()
        .map(|b| removal.buffers.contains(&b.name))
        .collect();
    let op_gone: Vec<bool> = m
        .ops
        .iter()
        .map(|op| {
            removal.ops.contains(&op.name)
                || (!matches!(op.kind, OpKind::Compute { .. })
                    && op
                        .kind
                        .buffers()
                        .iter()
                        .any(|b| buffer_gone.get(b.index()) == Some(&true)))
        })
        .collect();

    // The dependencies each op keeps, with removed ones replaced by what they depended on.
    // σ order guarantees a removed dependency's own list is final before any user reads it.
    let mut deps: Vec<Vec<Dep>> = vec![Vec::new(); m.ops.len()];
    for &id in &m.schedule {
        let op = m.op(id);
        let mut kept: Vec<Dep> = Vec::new();
        let mut seen: HashSet<OpId> = HashSet::new();
        for d in &op.deps {
            let Some(dep) = m.ops.get(d.op.index()) else {
                continue;
            };
            if removal.edges.contains(&(op.name, dep.name)) {
                continue;
            }
            let inherited = if op_gone[d.op.index()] {
                deps[d.op.index()].clone()
            } else {
                vec![*d]
            };
            for d in inherited {
                if seen.insert(d.op) {
                    kept.push(d);
                }
            }
        }
        deps[id.index()] = kept;
    }

    let mut new_op = vec![None; m.ops.len()];
    let mut next = 0;
    for (i, gone) in op_gone.iter().enumerate() {
        if !gone {
            new_op[i] = Some(OpId::new(next));
            next += 1;
        }
    }
    let mut new_buffer = vec![None; m.buffers.len()];
    let mut out = Module::new(m.name.clone(), m.target.clone());
    out.phase = m.phase;
    for (i, buffer) in m.buffers.iter().enumerate() {
        if !buffer_gone[i] {
            new_buffer[i] = Some(out.add_buffer(buffer.clone()));
        }
    }
    let buffer = |b: BufferId| new_buffer.get(b.index()).copied().flatten();
    for (i, op) in m.ops.iter().enumerate() {
        if op_gone[i] {
            continue;
        }
        let mut op = op.clone();
        op.deps = deps[i]
            .iter()
            .filter_map(|d| {
                Some(Dep {
                    op: new_op[d.op.index()]?,
                    kind: d.kind,
                })
            })
            .collect();
        // Only commands can name a removed buffer here: lifecycle and spill ops of removed
        // buffers are removed above. Ids of an op's own buffer stay valid: it was kept.
        match &mut op.kind {
            OpKind::Compute { operands, .. } => {
                *operands = operands.iter().filter_map(|&b| buffer(b)).collect();
            }
            OpKind::Alloc { buffer: b, .. }
            | OpKind::Free { buffer: b }
            | OpKind::SpillOut { buffer: b, .. }
            | OpKind::SpillIn { buffer: b, .. } => {
                if let Some(new) = buffer(*b) {
                    *b = new;
                }
            }
        }
        out.add_op(op);
    }
    out.schedule = m
        .schedule
        .iter()
        .filter_map(|id| new_op.get(id.index()).copied().flatten())
        .collect();
    if !out.phase.has_plan() {
        rederive_backing(&mut out);
    }
    out
}

/// `backed` means "some COPY_IN names the buffer" (DESIGN §1.3), which removing a COPY_IN can
/// make false. Before planning nothing else depends on the flag, so it is derived again; a
/// planned module's spill costs do depend on it, so there it is left for the verifier to judge.
fn rederive_backing(m: &mut Module) {
    let copied_in = m.copied_in();
    for (buffer, backed) in m.buffers.iter_mut().zip(copied_in) {
        buffer.backed = backed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::{parse_module, print_module, verify_module};

    const TILE: &str = include_str!("../../../examples/matmul_tile.lir");

    fn body(m: &Module) -> Vec<String> {
        let text = print_module(m);
        text.lines()
            .filter(|l| l.trim_start().starts_with('%'))
            .map(|l| l.trim().to_owned())
            .collect()
    }

    #[test]
    fn a_removed_op_passes_its_dependencies_to_its_users() {
        let m = parse_module(TILE).unwrap();
        let removal = Removal {
            ops: [5, 7].into(),
            ..Removal::default()
        };
        let out = apply(&m, &removal);
        verify_module(&out).unwrap();
        assert_eq!(out.ops.len(), m.ops.len() - 2);
        let lines = body(&out);
        // %9 depended on %5 and %7, which depended on (%1, %4) and (%3, %6).
        assert!(
            lines
                .contains(&"%9 = MATMUL CUBE 256 (@b4, @b2, @b3) after(%1, %4, %3, %6, %8)".into()),
            "{lines:#?}"
        );
        assert!(
            lines.contains(&"%10 = free @b0 after(%1, %4)".into()),
            "{lines:#?}"
        );
    }

    #[test]
    fn a_removed_buffer_takes_its_lifecycle_and_leaves_its_users() {
        let m = parse_module(TILE).unwrap();
        let removal = Removal {
            buffers: [2].into(),
            ..Removal::default()
        };
        let out = apply(&m, &removal);
        verify_module(&out).unwrap();
        assert_eq!(out.buffers.len(), 5);
        assert_eq!(out.ops.len(), m.ops.len() - 2);
        let lines = body(&out);
        assert!(
            lines.contains(&"%5 = MOVE MTE1 64 (@b0) after(%1)".into()),
            "{lines:#?}"
        );
        assert_eq!(apply(&m, &Removal::default()), m);
    }

    #[test]
    fn a_removed_edge_is_gone_and_the_verifier_judges_the_rest() {
        let m = parse_module(TILE).unwrap();
        let removal = Removal {
            edges: [(17, 15)].into(),
            ..Removal::default()
        };
        let out = apply(&m, &removal);
        let lines = body(&out);
        assert!(
            lines.contains(&"%17 = COPY_OUT MTE3 1174 (@b5)".into()),
            "{lines:#?}"
        );
        // %17 now reaches @b5's ALLOC by no path: a candidate the reducer must not keep.
        let errors = verify_module(&out).unwrap_err();
        assert!(
            errors.iter().any(|e| matches!(
                e.kind,
                lattice_lir::verify::VerifyErrorKind::UseNotAfterAlloc { op: 17, .. }
            )),
            "{errors:?}"
        );
    }
}
