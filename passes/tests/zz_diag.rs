mod common;
use common::pipeline;
use lattice_lir::{Module, OpId, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, order_by, MpasOptions, Policy};
use lattice_passes::search::renumbered::renumberings;
use lattice_passes::search::SearchOptions;
use lattice_passes::timing::timing;

fn shape() -> Shape {
    match std::env::var("SHAPE").as_deref() {
        Ok("random") => Shape::Random,
        Ok("heads-kv") => Shape::HeadsKv,
        Ok("attention") => Shape::Attention,
        _ => Shape::Resnet,
    }
}

fn raw(m: &Module, order: &[OpId]) -> (u64, u64) {
    let s = Module {
        schedule: order.to_vec(),
        phase: Phase::Scheduled,
        ..m.clone()
    };
    let t = timing(&s).unwrap();
    (t.freeze.makespan, t.fixed.makespan)
}

#[test]
#[ignore]
fn diag() {
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
    let be = SearchOptions::default().back_end.before_default_passes();
    for (i, c) in std::iter::once(&m).chain(&copies).enumerate() {
        let lv = bottom_levels(c);
        let mut orders = vec![("input", c.schedule.clone())];
        orders.push(("mpas", mpas_order(c, &lv, &MpasOptions::default()).unwrap()));
        for (n, p) in [
            ("stable", Policy::Stable),
            ("memfirst", Policy::MemoryFirst),
            ("critfirst", Policy::CriticalFirst),
        ] {
            if let Ok(o) = order_by(c, p, &lv) {
                orders.push((n, o));
            }
        }
        for (n, o) in orders {
            let r = pipeline(c, &o, &be);
            let s = Module {
                schedule: o.clone(),
                phase: Phase::Scheduled,
                ..c.clone()
            };
            let planned = lattice_passes::dlr::plan(&s, &be.dlr).unwrap().module;
            let tp = timing(&planned).unwrap();
            let mut noreuse = planned.clone();
            for op in &mut noreuse.ops {
                op.deps.retain(|d| d.kind != lattice_lir::DepKind::Reuse);
            }
            let tn = timing(&noreuse).unwrap();
            let nre: usize = planned
                .ops
                .iter()
                .map(|op| {
                    op.deps
                        .iter()
                        .filter(|d| d.kind == lattice_lir::DepKind::Reuse)
                        .count()
                })
                .sum();
            let mut busy = std::collections::BTreeMap::new();
            for op in &planned.ops {
                if let Some(p) = op.kind.pipe() {
                    *busy.entry(format!("{p:?}")).or_insert(0u64) += op.kind.cycles();
                }
            }
            eprintln!(
                "   planned freeze {} no-reuse freeze {} reuse edges {nre} busy {busy:?}",
                tp.freeze.makespan, tn.freeze.makespan
            );
            let (fz, fx) = raw(c, &o);
            eprintln!("copy {i} {n:10} makespan {:6} peak {:5} traffic {:5} | unplanned sigma {fz} fixed {fx}", r.makespan, r.peak, r.traffic);
        }
    }
}
