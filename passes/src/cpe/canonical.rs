//! Relabels a module so that op ids follow σ: op `i` of the copy is the `i`-th op of the
//! original's σ. CPE breaks every tie by op id (adjacency lists, queues, chains), and ids are
//! arena positions, which differ between a module fresh from DLR (spill ops appended to the
//! arena) and the same module printed and parsed back (arena in σ order). On the relabeled
//! copy, ids mean Freeze positions, so `--dlr --cpe` in one pipeline and in two invocations
//! make the same choices. Names, buffers and the target are kept; dependencies are remapped.
//!
//! Needs σ to list every op once (a verified module's does). O(V + E).

use lattice_lir::{Dep, Module, Op, OpId};

/// The relabeled copy and, for each of its ids, the original op id.
pub(crate) struct Canonical {
    /// The copy, σ = 0, 1, 2, …
    pub module: Module,
    /// Original id of every op of the copy.
    pub original: Vec<OpId>,
}

impl Canonical {
    /// The copy of `module`.
    pub fn of(module: &Module) -> Self {
        let position = module.schedule_positions();
        let original = module.schedule.clone();
        // Field by field: `..op.clone()` or `..module.clone()` would copy every op's vectors
        // once more only to drop them, which is most of this function's time at a million ops.
        let ops: Vec<Op> = original
            .iter()
            .map(|&id| {
                let op = module.op(id);
                Op {
                    name: op.name,
                    kind: op.kind.clone(),
                    deps: op
                        .deps
                        .iter()
                        .map(|d| Dep {
                            op: OpId::new(position[d.op.index()]),
                            kind: d.kind,
                        })
                        .collect(),
                    loc: op.loc,
                }
            })
            .collect();
        let schedule = (0..ops.len()).map(OpId::new).collect();
        Canonical {
            module: Module {
                name: module.name.clone(),
                phase: module.phase,
                target: module.target.clone(),
                buffers: module.buffers.clone(),
                ops,
                schedule,
            },
            original,
        }
    }

    /// A σ of the copy as a σ of the original.
    pub fn to_original(&self, sigma: &[OpId]) -> Vec<OpId> {
        sigma.iter().map(|v| self.original[v.index()]).collect()
    }

    /// A per-op vector of the original, indexed by the copy's ids.
    pub fn per_op<T: Copy>(&self, values: &[T]) -> Vec<T> {
        self.original.iter().map(|v| values[v.index()]).collect()
    }
}
