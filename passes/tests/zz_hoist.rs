mod common;
use common::pipeline;
use lattice_lir::{Module, OpId, OpKind};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, order_by, MpasOptions, Policy};
use lattice_passes::search::renumbered::renumberings;
use lattice_passes::search::SearchOptions;

fn shape() -> Shape {
    match std::env::var("SHAPE").as_deref() {
        Ok("random") => Shape::Random,
        Ok("heads-kv") => Shape::HeadsKv,
        Ok("heads-q") => Shape::HeadsQ,
        Ok("attention") => Shape::Attention,
        Ok("conv") => Shape::Conv,
        Ok("matmul") => Shape::Matmul,
        _ => Shape::Resnet,
    }
}

/// Loads (ops waiting only for ALLOCs of non-staging tiers) hoisted `l` loads ahead.
fn hoist(m: &Module, order: &[OpId], l: usize) -> Vec<OpId> {
    let n = m.ops.len();
    let mut pos = vec![0usize; n];
    for (i, v) in order.iter().enumerate() {
        pos[v.index()] = i;
    }
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, op) in m.ops.iter().enumerate() {
        for d in &op.deps {
            succs[d.op.index()].push(i);
        }
    }
    let is_alloc = |v: usize| matches!(m.ops[v].kind, OpKind::Alloc { .. });
    let staging = |v: usize| {
        m.ops[v]
            .kind
            .buffers()
            .iter()
            .any(|&b| m.target.tier(m.buffer(b).tier).staging)
    };
    let mut loads: Vec<(usize, usize)> = Vec::new(); // (first consumer pos, v)
    for v in 0..n {
        let op = &m.ops[v];
        if is_alloc(v) || op.kind.pipe().is_none() || op.deps.is_empty() || staging(v) {
            continue;
        }
        if !op
            .deps
            .iter()
            .all(|d| is_alloc(d.op.index()) && m.ops[d.op.index()].deps.is_empty())
        {
            continue;
        }
        let first = succs[v].iter().map(|&s| pos[s]).min().unwrap_or(pos[v]);
        loads.push((first, v));
    }
    loads.sort();

    let mut moved = vec![false; n];
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, &(_, v)) in loads.iter().enumerate() {
        let anchor = if i >= l { loads[i - l].0 } else { 0 };
        let anchor = anchor.min(pos[v]);
        for d in &m.ops[v].deps {
            moved[d.op.index()] = true;
            before[anchor].push(d.op.index());
        }
        moved[v] = true;
        before[anchor].push(v);
    }
    let mut out = Vec::with_capacity(n);
    for (i, &v) in order.iter().enumerate() {
        for &u in &before[i] {
            out.push(OpId::new(u));
        }
        if !moved[v.index()] {
            out.push(v);
        }
    }
    assert_eq!(out.len(), n);
    out
}

/// σ re-sorted by the start times of its own (unplanned) Freeze timing.
fn retime(m: &Module, order: &[OpId]) -> Vec<OpId> {
    let n = m.ops.len();
    let s = Module {
        schedule: order.to_vec(),
        phase: lattice_lir::Phase::Scheduled,
        ..m.clone()
    };
    let t = lattice_passes::timing::timing(&s).unwrap();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, op) in m.ops.iter().enumerate() {
        for d in &op.deps {
            succs[d.op.index()].push(i);
        }
    }
    let mut raw = vec![0u64; n];
    for v in 0..n {
        raw[v] = match m.ops[v].kind {
            OpKind::Alloc { .. } => succs[v]
                .iter()
                .map(|&u| t.freeze.start[u])
                .min()
                .unwrap_or(t.freeze.start[v]),
            _ => t.freeze.start[v],
        };
    }
    let tiers = m.target.tiers.len();
    let mut chain = vec![0u64; tiers];
    let mut key = vec![0u64; n];
    for &v in order {
        let op = &m.ops[v.index()];
        let mut k = raw[v.index()];
        for d in &op.deps {
            k = k.max(key[d.op.index()]);
        }
        let l0 = match op.kind {
            OpKind::Alloc { buffer, .. } | OpKind::Free { buffer } => {
                let tier = m.buffer(buffer).tier;
                m.target.tier(tier).staging.then_some(tier.index())
            }
            _ => None,
        };
        if let Some(tr) = l0 {
            k = k.max(chain[tr]);
            chain[tr] = k;
        }
        key[v.index()] = k;
    }
    let mut pos = vec![0usize; n];
    for (i, v) in order.iter().enumerate() {
        pos[v.index()] = i;
    }
    let mut out = order.to_vec();
    out.sort_by_key(|v| (key[v.index()], pos[v.index()]));
    out
}

#[test]
#[ignore]
fn hoisting() {
    let nodes: usize = std::env::var("NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let m = generate(&GenSpec {
        shape: shape(),
        nodes,
        seed,
    });
    let copies = renumberings(&m, 4).unwrap();
    let mut hist = std::collections::BTreeMap::new();
    for op in &m.ops {
        let k = format!("{:?} deps {}", op.kind.pipe(), op.deps.len());
        *hist.entry(k).or_insert(0) += 1;
    }
    eprintln!("{hist:?}");
    let be = SearchOptions::default().back_end.before_default_passes();
    for (i, c) in std::iter::once(&m).chain(&copies).enumerate() {
        let lv = bottom_levels(c);
        let mut orders = vec![("input", c.schedule.clone())];
        orders.push(("mpas", mpas_order(c, &lv, &MpasOptions::default()).unwrap()));
        for (n, p) in [
            ("memfirst", Policy::MemoryFirst),
            ("critfirst", Policy::CriticalFirst),
        ] {
            if let Ok(o) = order_by(c, p, &lv) {
                orders.push((n, o));
            }
        }
        let mut line = format!("copy {i}:");
        for (n, o) in &orders {
            line += &format!(" {n}");
            for l in [0usize, 1, 2, 3, 4, 6, 8, 12, 100, 103, 106] {
                let h = if l >= 100 {
                    retime(c, &hoist(c, o, l - 100))
                } else {
                    hoist(c, o, l)
                };
                let s = lattice_lir::Module {
                    schedule: h.clone(),
                    phase: lattice_lir::Phase::Scheduled,
                    ..c.clone()
                };
                if lattice_lir::verify_module(&s).is_err() {
                    line += " X";
                    continue;
                }
                let r = pipeline(c, &h, &be);
                line += &format!(" {}/{}", r.makespan, r.peak);
            }
            line += " |";
        }
        eprintln!("{line}");
    }
}
