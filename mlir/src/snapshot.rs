//! What the in-place writer keeps of a module before a pass runs on it: enough to tell what the
//! pass changed, without a copy of the module.
//!
//! A lattice pass in an MLIR `PassManager` runs on the module the bridge holds, and the writer
//! then compares the result with what the module was (`crate::rewrite`). A clone of the module
//! for that comparison costs an allocation per op and per list an op holds, and as much again to
//! free it, on every pass. A snapshot holds the same facts in a few flat arrays: the frame (name,
//! target, buffers), the phase, σ, and per op its name, location, its kind's fields as words (an
//! opcode as its index in a table of the module's opcodes) and its dependencies.
//!
//! Invariants: [`Snapshot::describes`] is true exactly when the module equals, field for field,
//! the one the snapshot was taken of (what `Module`'s `==` says); [`Snapshot::same_kind`] is
//! true exactly when the op's kind equals that op's kind then.
//! Complexity: O(V + E + B) to take and to compare, one hash lookup per command's opcode.

use lattice_lir::diag::Loc;
use lattice_lir::{Buffer, Dep, Module, OpId, OpKind, Phase, Target};
use rustc_hash::FxHashMap;
use std::ops::Range;

/// A module as it was before a pass.
pub struct Snapshot {
    name: String,
    phase: Phase,
    target: Target,
    buffers: Vec<Buffer>,
    /// σ.
    schedule: Vec<OpId>,
    /// Per op, by index.
    ops: Vec<Shot>,
    /// The ops' kinds, each a run of words (see [`encode`]).
    words: Vec<u64>,
    /// The ops' dependencies, each op's a run.
    deps: Vec<Dep>,
    /// Each opcode's index in the words.
    opcodes: FxHashMap<String, u64>,
}

/// One op as it was.
struct Shot {
    name: u32,
    loc: Option<Loc>,
    kind: Range<usize>,
    deps: Range<usize>,
}

impl Snapshot {
    /// The snapshot of `module`.
    pub fn of(module: &Module) -> Self {
        let deps_total = module.ops.iter().map(|op| op.deps.len()).sum();
        let mut snapshot = Snapshot {
            name: module.name.clone(),
            phase: module.phase,
            target: module.target.clone(),
            buffers: module.buffers.clone(),
            schedule: module.schedule.clone(),
            ops: Vec::with_capacity(module.ops.len()),
            words: Vec::with_capacity(5 * module.ops.len()),
            deps: Vec::with_capacity(deps_total),
            opcodes: FxHashMap::default(),
        };
        for op in &module.ops {
            let start = snapshot.words.len();
            let opcodes = &mut snapshot.opcodes;
            encode(&op.kind, &mut snapshot.words, |opcode| {
                // Looked up before inserting: a module has few opcodes and many commands.
                if let Some(&index) = opcodes.get(opcode) {
                    return index;
                }
                let index = opcodes.len() as u64;
                opcodes.insert(opcode.to_owned(), index);
                index
            });
            let first_dep = snapshot.deps.len();
            snapshot.deps.extend_from_slice(&op.deps);
            snapshot.ops.push(Shot {
                name: op.name,
                loc: op.loc,
                kind: start..snapshot.words.len(),
                deps: first_dep..snapshot.deps.len(),
            });
        }
        snapshot
    }

    /// Whether `module` has the name, target and buffers the module had.
    pub(crate) fn same_frame(&self, module: &Module) -> bool {
        self.name == module.name && self.target == module.target && self.buffers == module.buffers
    }

    // The in-place writer's questions (`crate::rewrite`, feature `mlir`).
    #[cfg(feature = "mlir")]
    /// The phase the module was in.
    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }

    // The in-place writer's questions (`crate::rewrite`, feature `mlir`).
    #[cfg(feature = "mlir")]
    /// How many ops the module had.
    pub(crate) fn op_count(&self) -> usize {
        self.ops.len()
    }

    // The in-place writer's questions (`crate::rewrite`, feature `mlir`).
    #[cfg(feature = "mlir")]
    /// The name of op `id` (an index below [`Self::op_count`]).
    pub(crate) fn op_name(&self, id: OpId) -> u32 {
        self.ops[id.index()].name
    }

    /// The dependencies of op `id`.
    pub(crate) fn deps(&self, id: OpId) -> &[Dep] {
        &self.deps[self.ops[id.index()].deps.clone()]
    }

    // The in-place writer's questions (`crate::rewrite`, feature `mlir`).
    #[cfg(feature = "mlir")]
    /// The names of the ops in σ.
    pub(crate) fn sigma_names(&self) -> impl Iterator<Item = u32> + '_ {
        self.schedule.iter().map(|&id| self.op_name(id))
    }

    // The in-place writer's questions (`crate::rewrite`, feature `mlir`).
    #[cfg(feature = "mlir")]
    /// Whether op `id` had a kind of the same variant as `kind` (alloc, free, …).
    pub(crate) fn same_variant(&self, id: OpId, kind: &OpKind) -> bool {
        self.kind_words(id).first() == Some(&variant(kind))
    }

    /// Whether op `id` had exactly `kind`.
    pub(crate) fn same_kind(&self, id: OpId, kind: &OpKind, scratch: &mut Vec<u64>) -> bool {
        scratch.clear();
        // An opcode the module never had cannot match: no index is `u64::MAX`.
        encode(kind, scratch, |opcode| {
            self.opcodes.get(opcode).copied().unwrap_or(u64::MAX)
        });
        self.kind_words(id) == scratch.as_slice()
    }

    /// Whether `module` equals the module this is the snapshot of.
    pub fn describes(&self, module: &Module) -> bool {
        let frame = self.same_frame(module)
            && self.phase == module.phase
            && self.schedule == module.schedule
            && self.ops.len() == module.ops.len();
        let mut scratch = Vec::new();
        frame
            && module.ops.iter().enumerate().all(|(i, op)| {
                let id = OpId::new(i);
                let shot = &self.ops[i];
                shot.name == op.name
                    && shot.loc == op.loc
                    && self.deps(id) == op.deps.as_slice()
                    && self.same_kind(id, &op.kind, &mut scratch)
            })
    }

    fn kind_words(&self, id: OpId) -> &[u64] {
        &self.words[self.ops[id.index()].kind.clone()]
    }
}

/// The variant of `kind`, the first word of its encoding.
fn variant(kind: &OpKind) -> u64 {
    match kind {
        OpKind::Alloc { .. } => 0,
        OpKind::Free { .. } => 1,
        OpKind::Compute { .. } => 2,
        OpKind::SpillOut { .. } => 3,
        OpKind::SpillIn { .. } => 4,
    }
}

/// Appends `kind` to `words`: its variant, then every field, an opcode as `opcode` numbers it
/// and a list as its length and elements; two kinds are equal exactly when their words are.
fn encode(kind: &OpKind, words: &mut Vec<u64>, opcode: impl FnOnce(&str) -> u64) {
    words.push(variant(kind));
    match kind {
        OpKind::Alloc { buffer, offset } => {
            words.extend([
                buffer.index() as u64,
                u64::from(offset.is_some()),
                offset.unwrap_or(0),
            ]);
        }
        OpKind::Free { buffer } => words.push(buffer.index() as u64),
        OpKind::Compute {
            opcode: name,
            pipe,
            cycles,
            operands,
        } => {
            words.extend([
                opcode(name),
                pipe.index() as u64,
                *cycles,
                operands.len() as u64,
            ]);
            words.extend(operands.iter().map(|b| b.index() as u64));
        }
        OpKind::SpillOut {
            buffer,
            pipe,
            cycles,
        } => words.extend([buffer.index() as u64, pipe.index() as u64, *cycles]),
        OpKind::SpillIn {
            buffer,
            offset,
            pipe,
            cycles,
        } => words.extend([buffer.index() as u64, *offset, pipe.index() as u64, *cycles]),
    }
}

// The tests check the writer's questions too, and the exporter's σ, so they need the bridge.
#[cfg(all(test, feature = "mlir"))]
mod tests {
    //! The snapshot must say "equal" exactly when `==` does: checked on planned generated
    //! modules (every op kind, spills included) against one edit at a time of every field.

    use super::*;
    use crate::export::sigma_names;
    use crate::fixtures::planned;
    use lattice_lir::{BufferId, DepKind, PipeId};
    use lattice_passes::generate::Shape;

    /// `kind` edited one field at a time — each edit changes that field in whichever variants
    /// have it and leaves the others as they are — then turned into another variant.
    fn kind_edits(kind: &OpKind) -> Vec<OpKind> {
        use OpKind::{Alloc, Compute, Free, SpillIn, SpillOut};
        let edits: [&dyn Fn(&mut OpKind); 8] = [
            &|k| match k {
                Alloc { buffer, .. }
                | Free { buffer }
                | SpillOut { buffer, .. }
                | SpillIn { buffer, .. } => *buffer = BufferId::new(buffer.index() + 1),
                Compute { operands, .. } => operands.push(BufferId::new(0)),
            },
            &|k| match k {
                Alloc { offset, .. } => *offset = offset.map_or(Some(0), |o| Some(o + 1)),
                SpillIn { offset, .. } => *offset += 1,
                _ => {}
            },
            &|k| {
                if let Alloc { offset, .. } = k {
                    *offset = offset.xor(Some(0));
                }
            },
            &|k| match k {
                Compute { pipe, .. } | SpillOut { pipe, .. } | SpillIn { pipe, .. } => {
                    *pipe = PipeId::new(pipe.index() + 1)
                }
                _ => {}
            },
            &|k| match k {
                Compute { cycles, .. } | SpillOut { cycles, .. } | SpillIn { cycles, .. } => {
                    *cycles += 1
                }
                _ => {}
            },
            &|k| {
                if let Compute { opcode, .. } = k {
                    opcode.push('X');
                }
            },
            &|k| {
                if let Compute { operands, .. } = k {
                    operands.reverse();
                }
            },
            // Another variant with the same buffer.
            &|k| {
                *k = match k {
                    Free { buffer } => Alloc {
                        buffer: *buffer,
                        offset: None,
                    },
                    Alloc { buffer, .. } | SpillOut { buffer, .. } | SpillIn { buffer, .. } => {
                        Free { buffer: *buffer }
                    }
                    Compute { operands, .. } => Free {
                        buffer: operands.first().copied().unwrap_or(BufferId::new(0)),
                    },
                }
            },
        ];
        edits
            .iter()
            .map(|edit| {
                let mut k = kind.clone();
                edit(&mut k);
                k
            })
            .collect()
    }

    /// `edited`'s verdict from the snapshot of `module` agrees with `==`.
    fn agrees(snapshot: &Snapshot, module: &Module, edited: &Module) {
        assert_eq!(
            snapshot.describes(edited),
            edited == module,
            "describes disagrees with =="
        );
    }

    #[test]
    fn a_snapshot_tells_every_change_apart_from_none() {
        for (shape, seed) in Shape::ALL.iter().zip(1..) {
            let module = planned(*shape, seed);
            let snapshot = Snapshot::of(&module);
            assert!(snapshot.describes(&module));
            assert_eq!(snapshot.op_count(), module.ops.len());
            assert!(snapshot.sigma_names().eq(sigma_names(&module)));
            let mut scratch = Vec::new();
            for (i, op) in module.ops.iter().enumerate() {
                let id = OpId::new(i);
                assert!(snapshot.same_kind(id, &op.kind, &mut scratch));
                assert_eq!(snapshot.deps(id), op.deps.as_slice());
                for kind in kind_edits(&op.kind) {
                    let same_variant =
                        std::mem::discriminant(&kind) == std::mem::discriminant(&op.kind);
                    assert_eq!(snapshot.same_variant(id, &kind), same_variant);
                    assert_eq!(snapshot.same_kind(id, &kind, &mut scratch), kind == op.kind);
                    let mut edited = module.clone();
                    edited.ops[i].kind = kind;
                    agrees(&snapshot, &module, &edited);
                }
                let mut edited = module.clone();
                edited.ops[i].name ^= 1;
                agrees(&snapshot, &module, &edited);
                let mut edited = module.clone();
                edited.ops[i].loc = Some(Loc::new(7, 7));
                agrees(&snapshot, &module, &edited);
                if let Some(dep) = op.deps.first() {
                    let mut edited = module.clone();
                    edited.ops[i].deps[0].kind = match dep.kind {
                        DepKind::Precedence => DepKind::Reuse,
                        _ => DepKind::Precedence,
                    };
                    agrees(&snapshot, &module, &edited);
                    let mut edited = module.clone();
                    edited.ops[i].deps.pop();
                    agrees(&snapshot, &module, &edited);
                }
            }
            let frame_edits: [&dyn Fn(&mut Module); 6] = [
                &|m| m.name.push('x'),
                &|m| m.phase = Phase::Parsed,
                &|m| m.target.spill_cost.base += 1,
                &|m| m.buffers[0].size += 1,
                &|m| m.schedule.swap(0, 1),
                &|m| {
                    let last = m.ops.len() - 1;
                    m.ops[last].deps.push(Dep {
                        op: OpId::new(0),
                        kind: DepKind::Precedence,
                    });
                },
            ];
            for edit in frame_edits {
                let mut edited = module.clone();
                edit(&mut edited);
                assert!(edited != module);
                agrees(&snapshot, &module, &edited);
            }
        }
    }
}
