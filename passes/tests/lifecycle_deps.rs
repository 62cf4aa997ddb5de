//! The structural verifier's lifecycle-dependency rule against a brute-force reachability: on
//! generated workloads, parsed or planned by MPAS and DLR, with random dependencies removed, it reports a missing ALLOC → use or
//! use → FREE path exactly when a full transitive closure says the path is missing, and a module
//! it accepts plans into a plan the independent replay accepts. O(V² / 64) per case for the
//! closure, on modules of a few hundred ops.

mod common;

use lattice_lir::verify::VerifyErrorKind;
use lattice_lir::{verify_module, Module, OpId, OpKind};
use lattice_passes::cpe::{refine, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::verify::{replay, ReplayOptions};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// `reach[v]` holds every op `v` depends on, directly or not (bit sets over op ids).
fn closure(m: &Module) -> Vec<Vec<u64>> {
    let words = m.ops.len().div_ceil(64);
    let mut reach = vec![vec![0u64; words]; m.ops.len()];
    for &id in &m.schedule {
        let mut row = vec![0u64; words];
        for d in &m.op(id).deps {
            let i = d.op.index();
            row[i / 64] |= 1 << (i % 64);
            for (w, bits) in row.iter_mut().zip(&reach[i]) {
                *w |= bits;
            }
        }
        reach[id.index()] = row;
    }
    reach
}

/// The (op, buffer) pairs a brute force finds unordered, named as the verifier names them:
/// ("use", op, buffer) for a use without a path from its ALLOC, ("free", op, buffer) for a FREE
/// without a path from an op naming the buffer or from its ALLOC.
fn brute_force(m: &Module) -> BTreeSet<(&'static str, u32, u32)> {
    let reach = closure(m);
    let depends =
        |to: OpId, from: OpId| reach[to.index()][from.index() / 64] >> (from.index() % 64) & 1 == 1;
    let mut alloc = vec![None; m.buffers.len()];
    let mut free = vec![None; m.buffers.len()];
    for id in m.op_ids() {
        match m.op(id).kind {
            OpKind::Alloc { buffer, .. } => alloc[buffer.index()] = Some(id),
            OpKind::Free { buffer } => free[buffer.index()] = Some(id),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for id in m.op_ids() {
        let kind = &m.op(id).kind;
        if matches!(kind, OpKind::Alloc { .. } | OpKind::Free { .. }) {
            continue;
        }
        for &b in kind.buffers() {
            let (a, f) = (alloc[b.index()].unwrap(), free[b.index()].unwrap());
            let name = m.buffer(b).name;
            if !depends(id, a) {
                out.insert(("use", m.op(id).name, name));
            }
            if !depends(f, id) {
                out.insert(("free", m.op(id).name, name));
            }
        }
    }
    for b in m.buffer_ids() {
        let (a, f) = (alloc[b.index()].unwrap(), free[b.index()].unwrap());
        if !depends(f, a) {
            out.insert(("free", m.op(a).name, m.buffer(b).name));
        }
    }
    out
}

/// What the verifier reports of the lifecycle rule, in the brute force's terms; panics on any
/// other structural error, which removing dependencies must not cause.
fn reported(m: &Module) -> BTreeSet<(&'static str, u32, u32)> {
    let Err(errors) = verify_module(m) else {
        return BTreeSet::new();
    };
    errors
        .iter()
        .map(|e| match e.kind {
            VerifyErrorKind::UseNotAfterAlloc { op, buffer, .. } => ("use", op, buffer),
            VerifyErrorKind::FreeNotAfterUse { op, buffer, .. } => ("free", op, buffer),
            VerifyErrorKind::FreeNotAfterAlloc { alloc, buffer, .. } => ("free", alloc, buffer),
            ref other => panic!("unexpected structural error: {other}"),
        })
        .collect()
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Matmul),
        Just(Shape::Attention),
        Just(Shape::Conv),
        Just(Shape::Random)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn verifier_agrees_with_the_closure(
        shape in shape(),
        seed in 0u64..1000,
        nodes in 20usize..400,
        drops in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        planned in any::<bool>(),
    ) {
        let mut m = generate(&GenSpec { shape, nodes, seed });
        if planned {
            // A planned module adds spill ops, spill and reuse dependencies, and tightened σ.
            m = plan(&common::scheduled(&m), &DlrOptions::default()).expect("dlr plans").module;
        }
        prop_assert!(verify_module(&m).is_ok());
        let with_deps: Vec<usize> = m.op_ids().filter(|&id| !m.op(id).deps.is_empty()).map(|id| id.index()).collect();
        for pick in drops {
            let op = &mut m.ops[with_deps[pick.index(with_deps.len())]];
            if !op.deps.is_empty() {
                let at = pick.index(op.deps.len());
                op.deps.remove(at);
            }
        }
        let expected = brute_force(&m);
        prop_assert_eq!(reported(&m), expected.clone());
        if expected.is_empty() && !planned {
            // Accepted: the paper's pipeline must plan it validly.
            let planned = plan(&common::scheduled(&m), &DlrOptions::default()).expect("dlr plans");
            let refined = refine(&planned.module, &CpeOptions::default()).expect("cpe refines");
            let violations = replay(&refined.module, &ReplayOptions::default()).violations;
            prop_assert!(violations.is_empty(), "{:?}", &violations[..violations.len().min(3)]);
        }
    }
}
