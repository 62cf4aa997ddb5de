//! The delta-debugging reducer behind `lattice-reduce` (like `mlir-reduce`, `llvm-reduce` and
//! bugpoint): shrinks a module while an interestingness test ([`Oracle`]) keeps holding.
//!
//! It lives here, beside the passes, because its built-in tests run the registry's pipelines
//! in-process (`crate::outcome`); the tool is a thin command line over [`reduce`].
//!
//! Algorithm: rounds of three ddmin passes (`ddmin.rs`, chunked removal down to single items)
//! over (1) the ops that are not ALLOC or FREE, (2) the buffers (with their ALLOC, FREE and spill
//! ops, see `edit.rs`), (3) the remaining dependency edges — repeated until a round removes
//! nothing, since removing edges can free ops and removing ops can free buffers.
//!
//! Invariants: every candidate is built to be well formed (`edit.rs`) and is then checked by the
//! structural verifier; only candidates it accepts are given to the test, so the result is always
//! a module `lattice-opt` reads. Op and buffer names never change (a test may name `%N`). The
//! result is interesting and 1-minimal per round kind: no single op, buffer or edge left can be
//! removed. Deterministic whenever the test is. Complexity: O(n²) tests in the worst case for n
//! ops + buffers + edges, typically O(k log n) when k items must stay; each test costs the oracle
//! plus O(V + B + E') to build and verify the candidate.

mod ddmin;
mod edit;
mod oracle;

pub use edit::{apply, Removal};
pub use oracle::{Expect, Oracle, OracleError};

use ddmin::ddmin;
use lattice_lir::{verify_module, Module, OpKind};

/// Why a reduction could not be done.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The input itself does not pass the test, so there is nothing to preserve.
    #[error("the input is not interesting: the test does not hold for it, so there is nothing to reduce")]
    NotInteresting,
    /// A test could not be run.
    #[error(transparent)]
    Oracle(#[from] OracleError),
}

/// A reduced module and what it took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduction {
    /// The smallest interesting module found.
    pub module: Module,
    /// How many candidates the test judged.
    pub tests: usize,
    /// How many candidates the structural verifier refused before any test.
    pub malformed: usize,
    /// How many rounds ran (the last one removed nothing).
    pub rounds: usize,
}

/// Shrinks `module` while `oracle` holds (see the module header).
pub fn reduce(module: &Module, oracle: &Oracle) -> Result<Reduction, ReduceError> {
    if !oracle.interesting(module)? {
        return Err(ReduceError::NotInteresting);
    }
    let mut state = State {
        current: module.clone(),
        oracle,
        tests: 1,
        malformed: 0,
    };
    let mut rounds = 0;
    loop {
        rounds += 1;
        let before = size(&state.current);
        let ops: Vec<u32> = state
            .current
            .ops
            .iter()
            .filter(|op| !matches!(op.kind, OpKind::Alloc { .. } | OpKind::Free { .. }))
            .map(|op| op.name)
            .collect();
        ddmin(ops, |chunk| {
            state.try_removal(Removal {
                ops: chunk.iter().copied().collect(),
                ..Removal::default()
            })
        })?;
        let buffers: Vec<u32> = state.current.buffers.iter().map(|b| b.name).collect();
        ddmin(buffers, |chunk| {
            state.try_removal(Removal {
                buffers: chunk.iter().copied().collect(),
                ..Removal::default()
            })
        })?;
        let m = &state.current;
        let edges: Vec<(u32, u32)> = m
            .ops
            .iter()
            .flat_map(|op| op.deps.iter().map(|d| (op.name, m.op(d.op).name)))
            .collect();
        ddmin(edges, |chunk| {
            state.try_removal(Removal {
                edges: chunk.iter().copied().collect(),
                ..Removal::default()
            })
        })?;
        if size(&state.current) == before {
            break;
        }
    }
    Ok(Reduction {
        module: state.current,
        tests: state.tests,
        malformed: state.malformed,
        rounds,
    })
}

/// What a round shrinks: ops, buffers and edges together.
fn size(m: &Module) -> usize {
    m.ops.len() + m.buffers.len() + m.dep_count()
}

/// The reduction in progress: the current module and the counters.
struct State<'o> {
    current: Module,
    oracle: &'o Oracle,
    tests: usize,
    malformed: usize,
}

impl State<'_> {
    /// Tries one candidate; keeps it (and says so) when it is well formed and interesting.
    fn try_removal(&mut self, removal: Removal) -> Result<bool, OracleError> {
        let candidate = apply(&self.current, &removal);
        if verify_module(&candidate).is_err() {
            self.malformed += 1;
            return Ok(false);
        }
        self.tests += 1;
        if !self.oracle.interesting(&candidate)? {
            return Ok(false);
        }
        self.current = candidate;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::REGISTRY;
    use lattice::parse_pipeline;
    use lattice_lir::parse_module;

    const TILE: &str = include_str!("../../../examples/matmul_tile.lir");

    fn fails(pipeline: &str, contains: Option<&str>) -> Oracle {
        Oracle::Pipeline {
            pipeline: parse_pipeline(pipeline, &REGISTRY).unwrap(),
            expect: Expect::Fails,
            contains: contains.map(str::to_owned),
        }
    }

    #[test]
    fn a_failure_at_one_op_reduces_to_that_op() {
        let m = parse_module(TILE).unwrap();
        let oracle = fails("mpas,dlr,test-fail{op=%9}", Some("requested failure"));
        let reduced = reduce(&m, &oracle).unwrap();
        let names: Vec<u32> = reduced.module.ops.iter().map(|op| op.name).collect();
        assert_eq!(names, [9]);
        assert!(reduced.module.buffers.is_empty());
        assert!(oracle.interesting(&reduced.module).unwrap());
        assert_eq!(reduce(&m, &oracle).unwrap(), reduced, "not deterministic");
    }

    #[test]
    fn an_input_that_does_not_fail_is_refused() {
        let m = parse_module(TILE).unwrap();
        let oracle = fails("mpas,dlr", None);
        assert!(matches!(
            reduce(&m, &oracle),
            Err(ReduceError::NotInteresting)
        ));
    }
}
