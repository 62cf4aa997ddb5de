//! Order-independent lower bound on the makespan (DESIGN §1.3, P3): no order, plan and timing
//! of the module finishes sooner.
//!
//! Argument. Every timing respects the precedence DAG of the original ops, so it lasts at least
//! the DAG's critical path (the heaviest chain of cycles). Each pipe is single-issue, so it
//! lasts at least the cycles of the original ops on any one pipe — plus, on the spill pipes,
//! the spill cycles that every plan of every order must put there ([`super::cover_bound`]:
//! SPILL_INs on the spill-in pipe, SPILL_OUTs of unbacked buffers on the spill-out pipe). Spill
//! and reuse dependencies only add edges, so they can only lengthen a timing. The bound is the
//! largest of these. O(V + E) given the cover bound.

use super::cover_bound::CoverBound;
use super::dag::Dag;
use lattice_lir::Module;

/// The parts of the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakespanBound {
    /// The largest of the parts below.
    pub cycles: u64,
    /// The DAG's critical path.
    pub critical_path: u64,
    /// The busiest pipe's cycles, original ops and forced spill cycles.
    pub busiest_pipe: u64,
}

/// The bound of `module`, given its DAG and its cover bound.
pub fn makespan_bound(module: &Module, dag: &Dag, cover: &CoverBound) -> MakespanBound {
    let mut finish = vec![0u64; module.ops.len()];
    let mut busy = vec![0u64; module.target.pipes.len()];
    for &v in &dag.topo {
        let kind = &module.op(v).kind;
        let start = dag
            .preds(v)
            .iter()
            .map(|p| finish[p.index()])
            .max()
            .unwrap_or(0);
        finish[v.index()] = start.saturating_add(kind.cycles());
        if let Some(pipe) = kind.pipe() {
            busy[pipe.index()] = busy[pipe.index()].saturating_add(kind.cycles());
        }
    }
    for &(pipe, cycles) in &cover.spill_cycles {
        busy[pipe.index()] = busy[pipe.index()].saturating_add(cycles);
    }
    let critical_path = finish.iter().copied().max().unwrap_or(0);
    let busiest_pipe = busy.iter().copied().max().unwrap_or(0);
    MakespanBound {
        cycles: critical_path.max(busiest_pipe),
        critical_path,
        busiest_pipe,
    }
}
