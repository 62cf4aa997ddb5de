//! Speed of the Chrome trace export (issue target: the 1M-node generated plan in ≤ 3 s, streamed):
//! the replay's timeline plus the trace written to a sink that counts its bytes (and, for the
//! generated plans, each half alone), on the `mpas,dlr,cpe` plans of Matmul_Case1 and of
//! generated attention-like DAGs of 100K and 1M nodes (the `lattice-bench scale` workload). The
//! 1M plan is also written as LIR to `target/trace-bench/attention-1m.lir`, so that the whole
//! `lattice-translate --export-trace` process can be timed and its peak memory read on it
//! (docs/benchmarks.md gives the commands).
//! Run with `cargo bench -p lattice-passes --bench trace`; needs `../shared` beside the checkout.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use lattice_lir::contest::ImportOptions;
use lattice_lir::{print_module, Module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::cpe::{refine, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, MpasOptions};
use lattice_passes::trace::{traceable, write_trace};
use std::io::{self, Write};
use std::path::Path;

/// `graph` through MPAS, DLR and CPE.
fn refined(graph: &Module) -> Module {
    let mut scheduled = graph.clone();
    scheduled.schedule =
        mpas_order(graph, &bottom_levels(graph), &MpasOptions::default()).expect("mpas orders");
    scheduled.phase = Phase::Scheduled;
    let planned = plan(&scheduled, &DlrOptions::default())
        .expect("dlr plans")
        .module;
    refine(&planned, &CpeOptions::default())
        .expect("cpe refines")
        .module
}

/// Discards what it is given, counting the bytes.
struct Counting(u64);

impl Write for Counting {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len() as u64;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The export as the tools run it, to a counting sink; returns the trace's size.
fn export(m: &Module) -> u64 {
    let timeline = traceable(m).expect("a valid plan");
    let mut sink = Counting(0);
    write_trace(&[(m, &timeline)], &mut sink).expect("writes");
    sink.0
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("trace");
    group.sample_size(10);
    let matmul = refined(&common::case("Matmul_Case1", &ImportOptions::default()));
    group.bench_function("Matmul_Case1", |b| b.iter(|| export(&matmul)));
    for nodes in [100_000, 1_000_000] {
        let spec = GenSpec {
            shape: Shape::Attention,
            nodes,
            seed: 1,
        };
        let m = refined(&generate(&spec));
        if nodes == 1_000_000 {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/trace-bench");
            std::fs::create_dir_all(&dir).expect("creates target/trace-bench");
            std::fs::write(dir.join("attention-1m.lir"), print_module(&m))
                .expect("writes the plan");
        }
        eprintln!("trace of the {nodes}-node plan: {} bytes", export(&m));
        group.bench_function(format!("generated-attention/{nodes}"), |b| {
            b.iter(|| export(&m))
        });
        // The two halves: the replay, and the streaming of the events it timed.
        group.bench_function(format!("generated-attention/{nodes}/replay"), |b| {
            b.iter(|| traceable(&m).expect("a valid plan"))
        });
        let timeline = traceable(&m).expect("a valid plan");
        group.bench_function(format!("generated-attention/{nodes}/write"), |b| {
            b.iter(|| write_trace(&[(&m, &timeline)], &mut Counting(0)).expect("writes"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
