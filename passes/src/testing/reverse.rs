//! `test-reverse`: reorders σ so that independent ops run in reverse order: a Kahn traversal that
//! always takes the ready op latest in the old σ. Dependencies and buffer lifetimes (ALLOC before
//! every use, every use before FREE) are respected, so a valid unplanned module stays valid while
//! its text changes (what `--print-ir-after-change` and `--print-ir-diff` need to show).
//! Planned modules are refused: their offsets are tied to the old order.
//! O((V + E) log V).

use lattice::{NoOptions, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Module, OpId, OpKind};
use std::collections::BinaryHeap;

/// The reordering pass.
pub struct TestReverse;

impl RegisteredPass for TestReverse {
    const NAME: &'static str = "test-reverse";
    const SUMMARY: &'static str = "Reverse the order of independent ops (unplanned modules only)";
    type Options = NoOptions;
    fn new(_: NoOptions) -> Self {
        TestReverse
    }
}

impl Pass for TestReverse {
    fn run(&mut self, module: &mut Module, _: &mut PassContext<'_>) -> Result<(), PassError> {
        if module.phase.has_plan() {
            return Err(PassError::new(format!(
                "test-reverse cannot reorder a `{}` module: its plan depends on the order",
                module.phase.keyword()
            )));
        }
        module.schedule = reverse_independent(module);
        Ok(())
    }
}

/// The latest-first topological order of `module`'s ops.
pub fn reverse_independent(module: &Module) -> Vec<OpId> {
    let n = module.ops.len();
    let position = module.schedule_positions();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    let mut edge = |from: usize, to: usize| {
        succs[from].push(to);
        indegree[to] += 1;
    };
    let mut alloc = vec![None; module.buffers.len()];
    let mut free = vec![None; module.buffers.len()];
    for id in module.op_ids() {
        match module.op(id).kind {
            OpKind::Alloc { buffer, .. } => alloc[buffer.index()] = Some(id.index()),
            OpKind::Free { buffer } => free[buffer.index()] = Some(id.index()),
            _ => {}
        }
    }
    for id in module.op_ids() {
        let op = module.op(id);
        for dep in &op.deps {
            edge(dep.op.index(), id.index());
        }
        if matches!(op.kind, OpKind::Alloc { .. } | OpKind::Free { .. }) {
            continue;
        }
        for buffer in op.kind.buffers() {
            if let Some(a) = alloc[buffer.index()] {
                edge(a, id.index());
            }
            if let Some(f) = free[buffer.index()] {
                edge(id.index(), f);
            }
        }
    }
    let mut ready: BinaryHeap<(usize, usize)> = (0..n)
        .filter(|&v| indegree[v] == 0)
        .map(|v| (position[v], v))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some((_, v)) = ready.pop() {
        order.push(OpId::new(v));
        for &w in &succs[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push((position[w], w));
            }
        }
    }
    order
}
