//! Test fixtures shared by the bridge's unit tests: a planned generated module with a spill pair,
//! so every op kind the snapshot, the exporter and the rewriter handle appears. Test-only; it
//! imports none of the files whose tests use it.

use lattice::manager::Session;
use lattice::{parse_pipeline, PassManager};
use lattice_lir::{BufferId, Dep, DepKind, Module, Op, OpKind, PipeId};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::REGISTRY;

/// A generated module planned by `mpas,dlr` (offsets bound), with a spill of its first
/// buffer added at the end (generated workloads seldom spill; validity does not matter here).
pub(crate) fn planned(shape: Shape, seed: u64) -> Module {
    let mut module = generate(&GenSpec {
        shape,
        nodes: 60,
        seed,
    });
    let pipeline = parse_pipeline("mpas,dlr", &REGISTRY).expect("parses");
    let mut sink = Vec::new();
    PassManager::new(REGISTRY, pipeline)
        .run(&mut module, &mut Session::new(&mut sink))
        .expect("plans");
    let (buffer, pipe) = (BufferId::new(0), PipeId::new(0));
    let first = module.schedule[0];
    let out = module.push_op(Op {
        name: u32::MAX - 1,
        kind: OpKind::SpillOut {
            buffer,
            pipe,
            cycles: 3,
        },
        deps: vec![Dep {
            op: first,
            kind: DepKind::Precedence,
        }],
        loc: None,
    });
    module.push_op(Op {
        name: u32::MAX,
        kind: OpKind::SpillIn {
            buffer,
            offset: 64,
            pipe,
            cycles: 3,
        },
        deps: vec![Dep {
            op: out,
            kind: DepKind::Spill,
        }],
        loc: None,
    });
    module
}
