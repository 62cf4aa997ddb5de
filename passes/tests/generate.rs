//! The workload generator against its guarantees, each checked here independently of the
//! generator's own bookkeeping: structure (DESIGN §1.1), print/parse round trip, determinism,
//! exact size, all five tiers, backed buffers, L0 exclusivity of σ, and the trivial plan (verifies,
//! and no two σ-overlapping lifetimes share a byte). Ends with a property test over shapes,
//! seeds and sizes up to a few thousand nodes.

use lattice_lir::{
    parse_module, print_module, verify_module, BufferId, DepKind, Module, OpId, OpKind, Phase,
    Target,
};
use lattice_passes::generate::{
    generate, generate_for, trivial_plan, GenError, GenSpec, PlanError, Shape,
};
use proptest::prelude::*;
use std::collections::HashSet;

/// The op count `generate` promises for a request of `nodes`.
fn promised(nodes: usize) -> usize {
    if nodes == 1 || nodes == 2 {
        3
    } else {
        nodes
    }
}

fn tier_name(m: &Module, b: BufferId) -> &str {
    &m.target.tier(m.buffer(b).tier).name
}

/// Every op's buffers, ALLOC and FREE per buffer, by op id.
fn lifecycle(m: &Module) -> (Vec<OpId>, Vec<OpId>) {
    let mut alloc = vec![OpId::new(0); m.buffers.len()];
    let mut free = vec![OpId::new(0); m.buffers.len()];
    for id in m.op_ids() {
        match m.op(id).kind {
            OpKind::Alloc { buffer, .. } => alloc[buffer.index()] = id,
            OpKind::Free { buffer } => free[buffer.index()] = id,
            _ => {}
        }
    }
    (alloc, free)
}

/// The DAG invariants of the public cases, plus the generator's naming and data path.
fn check_structure(m: &Module) {
    assert_eq!(m.phase, Phase::Parsed);
    if let Err(errors) = verify_module(m) {
        panic!("{}: {:?}", m.name, &errors[..errors.len().min(5)]);
    }
    let identity: Vec<OpId> = m.op_ids().collect();
    assert_eq!(m.schedule, identity, "σ is the generation order");
    for (i, op) in m.ops.iter().enumerate() {
        assert_eq!(op.name as usize, i);
    }
    for (i, b) in m.buffers.iter().enumerate() {
        assert_eq!(b.name as usize, i);
        assert!(b.size.is_power_of_two());
    }
    let (alloc, free) = lifecycle(m);
    let frees: HashSet<OpId> = free.iter().copied().collect();
    let mut backed = vec![false; m.buffers.len()];
    let mut writer: Vec<Option<OpId>> = vec![None; m.buffers.len()];
    for id in m.op_ids() {
        let op = m.op(id);
        assert!(op.deps.iter().all(|d| d.kind == DepKind::Precedence));
        assert!(
            op.deps.iter().all(|d| !frees.contains(&d.op)),
            "%{} depends on a FREE",
            op.name
        );
        let OpKind::Compute {
            opcode,
            pipe,
            operands,
            cycles,
        } = &op.kind
        else {
            if let OpKind::Alloc { .. } = op.kind {
                assert!(op.deps.is_empty(), "ALLOC %{} is not a root", op.name);
            }
            continue;
        };
        assert!(*cycles > 0);
        let deps: HashSet<OpId> = op.deps.iter().map(|d| d.op).collect();
        for &b in operands {
            assert!(
                deps.contains(&alloc[b.index()]),
                "%{} lacks its ALLOC",
                op.name
            );
            let f = m.op(free[b.index()]);
            assert!(
                f.deps.iter().any(|d| d.op == id),
                "FREE %{} lacks user %{}",
                f.name,
                op.name
            );
            if let Some(w) = writer[b.index()] {
                assert!(deps.contains(&w), "%{} lacks its writer", op.name);
            }
        }
        let tiers: Vec<&str> = operands.iter().map(|&b| tier_name(m, b)).collect();
        let pipe = m.target.pipe(*pipe);
        let ok = match (opcode.as_str(), tiers.as_slice()) {
            ("COPY_IN", ["L1" | "UB"]) => pipe == "MTE2",
            ("MOVE", ["L0A" | "L0B", "L1"]) | ("IMG2COL", ["L0A", "L1"]) => pipe == "MTE1",
            ("MATMUL" | "CONV", ["L0C", "L0B", "L0A"]) => pipe == "CUBE",
            ("CONV" | "CONV_ADD", ["L1", "L0B", inputs @ ..]) => {
                pipe == "CUBE" && !inputs.is_empty() && inputs.iter().all(|&t| t == "L1")
            }
            ("FIXPIPE", ["UB" | "L1", "L0C"]) => pipe == "FIXP",
            ("COPY", ["L1", "UB"]) | ("COPY_OUT", ["UB" | "L1"]) => pipe == "MTE3",
            (_, t) => pipe == "VECTOR" && t.iter().all(|&t| t == "UB"),
        };
        assert!(ok, "%{}: {opcode} on {pipe} over {tiers:?}", op.name);
        if opcode == "COPY_IN" {
            backed[operands[0].index()] = true;
        }
        if opcode != "COPY_OUT" {
            writer[operands[0].index()] = Some(id);
        }
    }
    let declared: Vec<bool> = m.buffers.iter().map(|b| b.backed).collect();
    assert_eq!(declared, backed, "backed iff named by a COPY_IN");
}

/// σ keeps at most one live buffer per L0 tier, and no command names two of one L0 tier.
fn check_l0_exclusive(m: &Module) {
    let mut live = vec![0usize; m.target.tiers.len()];
    for &id in &m.schedule {
        match &m.op(id).kind {
            OpKind::Alloc { buffer, .. } => {
                let t = m.buffer(*buffer).tier;
                live[t.index()] += 1;
                if m.target.tier(t).staging {
                    assert!(
                        live[t.index()] <= 1,
                        "two live {} buffers",
                        tier_name(m, *buffer)
                    );
                }
            }
            OpKind::Free { buffer } => live[m.buffer(*buffer).tier.index()] -= 1,
            OpKind::Compute { operands, .. } => {
                let staging: Vec<_> = operands
                    .iter()
                    .map(|b| m.buffer(*b).tier)
                    .filter(|t| m.target.tier(*t).staging)
                    .collect();
                let distinct: HashSet<_> = staging.iter().collect();
                assert_eq!(distinct.len(), staging.len());
            }
            _ => {}
        }
    }
}

/// The trivial plan verifies, keeps σ and the input edges, spills nothing, and gives
/// σ-overlapping lifetimes of one tier disjoint bytes.
fn check_plan(m: &Module) {
    let p = trivial_plan(m).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    if let Err(errors) = verify_module(&p) {
        panic!("{}: {:?}", p.name, &errors[..errors.len().min(5)]);
    }
    assert_eq!(p.phase, Phase::Planned);
    assert_eq!(p.schedule, m.schedule);
    assert_eq!(p.ops.len(), m.ops.len());
    let pos = p.schedule_positions();
    for (a, b) in m.ops.iter().zip(&p.ops) {
        let kept: Vec<_> = b
            .deps
            .iter()
            .filter(|d| d.kind == DepKind::Precedence)
            .copied()
            .collect();
        assert_eq!(kept, a.deps);
        for d in b.deps.iter().filter(|d| d.kind != DepKind::Precedence) {
            assert_eq!(d.kind, DepKind::Reuse);
            assert!(matches!(p.op(d.op).kind, OpKind::Free { .. }));
            assert!(matches!(b.kind, OpKind::Alloc { .. }));
        }
    }
    let (alloc, free) = lifecycle(&p);
    // (alloc position, free position, first byte, end) per buffer, by tier.
    let mut by_tier: Vec<Vec<(usize, usize, u64, u64)>> = vec![Vec::new(); p.target.tiers.len()];
    for b in p.buffer_ids() {
        let OpKind::Alloc {
            offset: Some(at), ..
        } = p.op(alloc[b.index()]).kind
        else {
            panic!("@b{} has no offset", b.index());
        };
        let buf = p.buffer(b);
        assert!(at + buf.size <= p.target.tier(buf.tier).capacity);
        by_tier[buf.tier.index()].push((
            pos[alloc[b.index()].index()],
            pos[free[b.index()].index()],
            at,
            at + buf.size,
        ));
    }
    for mut spans in by_tier {
        spans.sort_unstable();
        let mut active: Vec<(usize, usize, u64, u64)> = Vec::new();
        for s in spans {
            active.retain(|a| a.1 > s.0);
            for a in &active {
                assert!(a.3 <= s.2 || s.3 <= a.2, "{a:?} and {s:?} share bytes");
            }
            active.push(s);
        }
    }
}

/// `m` without source locations, to compare with a module built in memory.
fn without_locs(mut m: Module) -> Module {
    m.ops.iter_mut().for_each(|op| op.loc = None);
    m.buffers.iter_mut().for_each(|b| b.loc = None);
    m
}

fn check_round_trip(m: &Module) {
    let text = print_module(m);
    let parsed = parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    assert_eq!(print_module(&parsed), text);
    assert!(
        without_locs(parsed) == *m,
        "{}: parse(print(m)) != m",
        m.name
    );
}

fn check_all(spec: &GenSpec) -> Module {
    let m = generate(spec);
    assert_eq!(m.name, spec.module_name());
    assert_eq!(m.target, Target::contest());
    assert_eq!(m.ops.len(), promised(spec.nodes), "{}", m.name);
    check_structure(&m);
    check_l0_exclusive(&m);
    check_plan(&m);
    m
}

#[test]
fn every_shape_at_many_sizes() {
    let sizes = [
        0, 1, 2, 3, 4, 5, 6, 7, 10, 18, 19, 20, 22, 50, 51, 54, 57, 100, 333, 1000, 5000,
    ];
    for shape in Shape::ALL {
        for nodes in sizes {
            for seed in [0, 1, 42] {
                let spec = GenSpec { shape, nodes, seed };
                let m = check_all(&spec);
                if nodes >= 200 {
                    let tiers: HashSet<&str> = m.buffer_ids().map(|b| tier_name(&m, b)).collect();
                    assert_eq!(tiers.len(), 5, "{}: tiers {tiers:?}", m.name);
                    assert!(m.buffers.iter().any(|b| b.backed));
                    assert!(m.buffers.iter().any(|b| !b.backed));
                }
            }
        }
    }
}

#[test]
fn print_parse_round_trips() {
    for shape in Shape::ALL {
        for nodes in [0, 3, 60, 700] {
            check_round_trip(&generate(&GenSpec {
                shape,
                nodes,
                seed: 9,
            }));
        }
    }
}

#[test]
fn deterministic_by_seed() {
    for shape in Shape::ALL {
        let spec = GenSpec {
            shape,
            nodes: 800,
            seed: 5,
        };
        assert!(generate(&spec) == generate(&spec));
        assert_eq!(
            print_module(&generate(&spec)),
            print_module(&generate(&spec))
        );
        let other = GenSpec { seed: 6, ..spec };
        let (a, b) = (generate(&spec), generate(&other));
        assert!(
            a.ops != b.ops || a.buffers != b.buffers,
            "{shape}: seeds 5 and 6 agree"
        );
    }
    assert_eq!(
        GenSpec {
            shape: Shape::Attention,
            nodes: 10,
            seed: 3
        }
        .module_name(),
        "gen-attention-n10-s3"
    );
}

#[test]
fn shapes_look_like_their_kernels() {
    let count = |m: &Module, name: &str| {
        m.ops
            .iter()
            .filter(|op| matches!(&op.kind, OpKind::Compute { opcode, .. } if opcode == name))
            .count()
    };
    let spec = |shape| GenSpec {
        shape,
        nodes: 3000,
        seed: 2,
    };
    let matmul = generate(&spec(Shape::Matmul));
    assert!(count(&matmul, "MATMUL") > 150 && count(&matmul, "CONV") == 0);
    let attention = generate(&spec(Shape::Attention));
    assert!(count(&attention, "EXP") > 50 && count(&attention, "ROWMAX") > 50);
    assert!(count(&attention, "COPY") > 50);
    let conv = generate(&spec(Shape::Conv));
    assert!(count(&conv, "CONV") > 150 && count(&conv, "IMG2COL") > 150);
    let random = generate(&spec(Shape::Random));
    assert!(count(&random, "MATMUL") > 50 && count(&random, "FIXPIPE") > 20);
    let resnet = generate(&spec(Shape::Resnet));
    assert!(count(&resnet, "CONV") > 150 && count(&resnet, "CONV_ADD") > 20);
    assert!(count(&resnet, "IMG2COL") == 0 && count(&resnet, "MATMUL") >= 1);
}

/// The deep residual conv network at the size of the real one it stands for: tens of thousands
/// of nodes, thousands of small L1 tiles read by several CONVs each, and every body task a MOVE
/// into the one L0B tier and the CONV reading it.
#[test]
fn resnet_is_deep_with_small_shared_tiles_and_one_l0_tier() {
    let m = generate(&GenSpec {
        shape: Shape::Resnet,
        nodes: 36_000,
        seed: 1,
    });
    check_structure(&m);
    check_l0_exclusive(&m);
    check_plan(&m);
    // The body's L1 tiles: what the CONVs and the MOVEs to L0 name (padding aside).
    let mut l1 = HashSet::new();
    let mut readers = vec![0usize; m.buffers.len()];
    let mut convs = 0;
    for op in &m.ops {
        if let OpKind::Compute {
            opcode, operands, ..
        } = &op.kind
        {
            if opcode.starts_with("CONV") {
                convs += 1;
                assert_eq!(tier_name(&m, operands[1]), "L0B");
                for &b in &operands[2..] {
                    readers[b.index()] += 1;
                }
            }
            if opcode.starts_with("CONV") || opcode == "MOVE" {
                l1.extend(operands.iter().filter(|&&b| tier_name(&m, b) == "L1"));
            }
        }
    }
    assert!(l1.len() > 3000, "{} L1 tiles", l1.len());
    assert!(l1.iter().all(|&b| m.buffer(b).size <= 64));
    let sizes: HashSet<u64> = l1.iter().map(|&b| m.buffer(b).size).collect();
    assert!(sizes.len() >= 4, "tile sizes {sizes:?}");
    let staging = |name: &str| m.buffer_ids().filter(|&b| tier_name(&m, b) == name).count();
    // One L0B tile per CONV, and the head's one MATMUL per tile of the last map besides.
    assert!(convs > 3000);
    assert!(staging("L0B") >= convs && staging("L0B") - convs <= 64);
    assert!(staging("L0A") <= 64 && staging("L0C") == 1);
    let max_readers = readers.iter().max().copied().unwrap_or(0);
    let shared = readers.iter().filter(|&&r| r >= 2).count();
    assert!(
        max_readers >= 9 && shared > 2000,
        "max {max_readers}, shared {shared}"
    );
}

#[test]
fn other_targets_scale_the_sizes() {
    let mut big = Target::contest();
    big.tiers.iter_mut().for_each(|t| t.capacity *= 4);
    big.l0_exclusive = false;
    let mut odd = Target::contest();
    odd.tiers
        .iter_mut()
        .for_each(|t| t.capacity = t.capacity / 3 + 5);
    let tiny = {
        let mut t = Target::contest();
        t.tiers.iter_mut().for_each(|t| t.capacity = 16);
        t
    };
    for target in [big, odd, tiny] {
        for shape in Shape::ALL {
            let spec = GenSpec {
                shape,
                nodes: 600,
                seed: 4,
            };
            let m = generate_for(&spec, &target).unwrap();
            assert_eq!(m.target, target);
            assert_eq!(m.ops.len(), 600);
            check_structure(&m);
            check_l0_exclusive(&m);
            check_plan(&m);
        }
    }
    let mut small = Target::contest();
    small.tiers[4].capacity = 15;
    let spec = GenSpec {
        shape: Shape::Random,
        nodes: 10,
        seed: 0,
    };
    let e = generate_for(&spec, &small).unwrap_err();
    assert_eq!(
        e,
        GenError::TooSmall {
            tier: "L0C",
            capacity: 15
        }
    );
}

#[test]
fn the_plan_reports_modules_that_do_not_fit() {
    let spec = GenSpec {
        shape: Shape::Matmul,
        nodes: 400,
        seed: 1,
    };
    let mut m = generate(&spec);
    // Halving L1 leaves the A panels and B tiles without room at some point of σ.
    m.target.tiers[0].capacity = 256;
    match trivial_plan(&m) {
        Err(PlanError::NoRoom { tier, .. }) => assert_eq!(tier, "L1"),
        other => panic!("expected NoRoom, got {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn generated_workloads_keep_their_guarantees(
        shape in prop::sample::select(Shape::ALL.to_vec()),
        nodes in 0usize..3000,
        seed in any::<u64>(),
    ) {
        let spec = GenSpec { shape, nodes, seed };
        let m = check_all(&spec);
        prop_assert!(generate(&spec) == m);
    }
}

/// Weisfeiler–Lehman labels of every op after `rounds` rounds, sorted: equal for isomorphic
/// command DAGs whatever their numbering. An op starts from its kind and the tiers it names.
fn wl_labels(m: &Module, rounds: usize) -> Vec<u64> {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};
    let hash = |value: &dyn Fn(&mut DefaultHasher)| {
        let mut h = DefaultHasher::new();
        value(&mut h);
        h.finish()
    };
    let mut label: Vec<u64> = m
        .ops
        .iter()
        .map(|op| {
            let tiers: Vec<&str> = op.kind.buffers().iter().map(|&b| tier_name(m, b)).collect();
            let kind = match &op.kind {
                OpKind::Alloc { .. } => "ALLOC".to_owned(),
                OpKind::Free { .. } => "FREE".to_owned(),
                OpKind::Compute { opcode, .. } => opcode.clone(),
                other => format!("{other:?}"),
            };
            hash(&|h| (&kind, &tiers).hash(h))
        })
        .collect();
    let mut succs = vec![Vec::new(); m.ops.len()];
    for id in m.op_ids() {
        for d in &m.op(id).deps {
            succs[d.op.index()].push(id.index());
        }
    }
    for _ in 0..rounds {
        label = m
            .op_ids()
            .map(|id| {
                let mut before: Vec<u64> =
                    m.op(id).deps.iter().map(|d| label[d.op.index()]).collect();
                let mut after: Vec<u64> = succs[id.index()].iter().map(|&s| label[s]).collect();
                before.sort_unstable();
                after.sort_unstable();
                hash(&|h| (label[id.index()], &before, &after).hash(h))
            })
            .collect();
    }
    label.sort_unstable();
    label
}

/// `heads-kv` and `heads-q`, and `matmul-rows` and `matmul-cols`, are one DAG in two
/// numberings: for each seed the same labels after six rounds of Weisfeiler–Lehman refinement,
/// but a different σ.
#[test]
fn loop_nestings_are_one_dag_numbered_two_ways() {
    let pairs = [
        (Shape::HeadsKv, Shape::HeadsQ),
        (Shape::MatmulRows, Shape::MatmulCols),
    ];
    for ((one, other), (nodes, seed)) in pairs
        .into_iter()
        .flat_map(|pair| [(60, 1), (700, 2), (3000, 3)].map(|size| (pair, size)))
    {
        let kv = generate(&GenSpec {
            shape: one,
            nodes,
            seed,
        });
        let q = generate(&GenSpec {
            shape: other,
            nodes,
            seed,
        });
        assert_eq!(kv.ops.len(), q.ops.len());
        assert_eq!(wl_labels(&kv, 6), wl_labels(&q, 6), "{}", kv.name);
        if nodes > 100 {
            let opcodes = |m: &Module| -> Vec<String> {
                m.ops
                    .iter()
                    .filter_map(|op| match &op.kind {
                        OpKind::Compute { opcode, .. } => Some(opcode.clone()),
                        _ => None,
                    })
                    .collect()
            };
            assert_ne!(opcodes(&kv), opcodes(&q), "{}: same σ", kv.name);
        }
    }
    // Different seeds are different DAGs (the check can fail).
    let labels = |shape, seed| {
        wl_labels(
            &generate(&GenSpec {
                shape,
                nodes: 700,
                seed,
            }),
            6,
        )
    };
    assert_ne!(labels(Shape::HeadsKv, 2), labels(Shape::HeadsKv, 5));
    assert_ne!(labels(Shape::MatmulRows, 2), labels(Shape::MatmulRows, 5));
}
