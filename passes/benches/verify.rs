//! Speed of the independent replay (issue target: well under 100 ms in release on the largest
//! case): Matmul_Case1 as imported (order level and timing), the same graph with every buffer at
//! its own offset in tiers widened to fit (all plan and timing checks, no spills), and the peer
//! plan of Matmul_Case0 (spills and reuse edges), also stripped of its reuse dependencies so that
//! every hand-off takes the reachability sweep. Run with `cargo bench -p lattice-passes`; needs
//! `../shared` beside the checkout.

mod common;

use common::{case, shared};
use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::{import_solution, ImportOptions, SolutionFile};
use lattice_lir::{DepKind, Module, OpKind, Phase};
use lattice_passes::verify::{replay, ReplayOptions};

/// `m` planned without reuse: each buffer at its own offset, each tier as large as it needs.
fn disjoint_plan(mut m: Module) -> Module {
    let mut next = vec![0u64; m.target.tiers.len()];
    let sizes: Vec<(usize, u64)> = m.buffers.iter().map(|b| (b.tier.index(), b.size)).collect();
    for op in &mut m.ops {
        if let OpKind::Alloc { buffer, offset } = &mut op.kind {
            let (tier, size) = sizes[buffer.index()];
            *offset = Some(next[tier]);
            next[tier] += size;
        }
    }
    for (tier, end) in m.target.tiers.iter_mut().zip(next) {
        tier.capacity = tier.capacity.max(end);
    }
    m.target.l0_exclusive = false;
    m.phase = Phase::Planned;
    m
}

fn peer(problem: &str, name: &str) -> Module {
    let file = |kind: &str| {
        let (name, text) = shared(&["peer-solutions", problem, &format!("{name}_{kind}.txt")]);
        SolutionFile { name, text }
    };
    import_solution(
        case(name, &ImportOptions::default()),
        &file("schedule"),
        &file("memory"),
        Some(&file("spill")),
    )
    .expect("peer solution imports")
}

fn bench(c: &mut Criterion) {
    let raw = case("Matmul_Case1", &ImportOptions::default());
    let planned = disjoint_plan(raw.clone());
    let peer = peer("problem2", "Matmul_Case0");
    assert!(replay(&planned, &ReplayOptions::default()).metrics.valid);
    let mut group = c.benchmark_group("replay");
    group.sample_size(20);
    for (name, module) in [
        ("Matmul_Case1 imported", &raw),
        ("Matmul_Case1 disjoint plan", &planned),
        ("Matmul_Case0 peer plan", &peer),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| replay(module, &ReplayOptions::default()))
        });
    }
    // Every hand-off then needs a reachability sweep instead of a direct edge: the slow path.
    let mut stripped = peer.clone();
    for op in &mut stripped.ops {
        op.deps.retain(|d| d.kind != DepKind::Reuse);
    }
    group.bench_function("Matmul_Case0 peer plan without reuse deps", |b| {
        b.iter(|| replay(&stripped, &ReplayOptions::default()))
    });
    group.bench_function("Matmul_Case0 peer plan, ignore reuse", |b| {
        b.iter(|| replay(&peer, &ReplayOptions { ignore_reuse: true }))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
