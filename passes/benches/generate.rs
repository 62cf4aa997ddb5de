//! Speed of the workload generator and of the trivial plan at one million nodes per shape (target:
//! a few seconds each in release; generation is O(nodes)). Run with
//! `cargo bench -p lattice-passes --bench generate`.

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_passes::generate::{generate, trivial_plan, GenSpec, Shape};

const NODES: usize = 1_000_000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate-1M");
    group.sample_size(10);
    for shape in Shape::ALL {
        let spec = GenSpec {
            shape,
            nodes: NODES,
            seed: 1,
        };
        group.bench_function(format!("{shape}/generate"), |b| b.iter(|| generate(&spec)));
        let module = generate(&spec);
        group.bench_function(format!("{shape}/trivial-plan"), |b| {
            b.iter(|| trivial_plan(&module))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
