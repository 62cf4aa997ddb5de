//! Writes a module as a contest solution trio: schedule, and for planned modules memory and spill.
//!
//! Original ops keep their names as ids (they must be exactly 0..N-1); spill ops are renumbered
//! in spill order, the σ order of SPILL_OUTs: the k-th SPILL_OUT becomes N+2k and the next
//! SPILL_IN of the same buffer N+2k+1, whatever their names in the module. The memory file lists
//! `BufId:Offset` (the ALLOC offset) in BufId order, the spill file `BufId:NewOffset` in spill order;
//! every line ends with `\n`. This is the inverse of [`super::import_solution`] on any module it
//! produces. It checks only what the format needs (names, spill pairing, offsets); structural
//! validity is [`crate::verify_module`]'s. Complexity: O(V + B log B).

use super::{originals_by_name, spill_out_id, ContestError};
use crate::module::{Module, OpKind};
use crate::verify::{VerifyError, VerifyErrorKind};
use std::fmt::Write;

/// The three contest files of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trio {
    /// `<name>_schedule.txt`: σ, one id per line.
    pub schedule: String,
    /// `<name>_memory.txt`, for planned modules.
    pub memory: Option<String>,
    /// `<name>_spill.txt`, for planned modules (empty when nothing is spilled).
    pub spill: Option<String>,
}

/// Exports `module` in the contest format.
pub fn export_trio(module: &Module) -> Result<Trio, ContestError> {
    let n = originals_by_name(module)?.len();
    // Contest id of every op, by op index; spill ops get theirs in σ order below.
    let mut ids: Vec<u64> = module.ops.iter().map(|op| u64::from(op.name)).collect();
    // The SPILL_OUT awaiting its SPILL_IN, per buffer index: (spill index, op name).
    let mut pending: Vec<Option<(usize, u32)>> = vec![None; module.buffers.len()];
    // Per spill: the buffer's BufId and, once seen, the SPILL_IN's offset.
    let mut spills: Vec<(u32, Option<u64>)> = Vec::new();
    let mut schedule = String::with_capacity(8 * module.schedule.len());
    for &id in &module.schedule {
        let (Some(op), Some(slot)) = (module.ops.get(id.index()), ids.get_mut(id.index())) else {
            return Err(dangling("the schedule", "op", id.index()));
        };
        let buffer = match op.kind {
            OpKind::SpillOut { buffer, .. } | OpKind::SpillIn { buffer, .. } => buffer,
            _ => {
                let _ = writeln!(schedule, "{slot}");
                continue;
            }
        };
        let what = || format!("op %{}", op.name);
        let (Some(waiting), Some(buf)) = (
            pending.get_mut(buffer.index()),
            module.buffers.get(buffer.index()),
        ) else {
            return Err(dangling(&what(), "buffer", buffer.index()));
        };
        match op.kind {
            OpKind::SpillIn { offset, .. } => {
                let Some((k, _)) = waiting.take() else {
                    return Err(ContestError::UnpairedSpill {
                        op: op.name,
                        problem: format!("SPILL_IN of @b{} has no SPILL_OUT before it", buf.name),
                    });
                };
                *slot = spill_out_id(n, k).saturating_add(1);
                if let Some(spill) = spills.get_mut(k) {
                    spill.1 = Some(offset);
                }
            }
            _ => {
                if let Some((_, previous)) = *waiting {
                    return Err(ContestError::UnpairedSpill {
                        op: op.name,
                        problem: format!(
                            "@b{} is spilled again before %{previous} is reloaded",
                            buf.name
                        ),
                    });
                }
                *waiting = Some((spills.len(), op.name));
                *slot = spill_out_id(n, spills.len());
                spills.push((buf.name, None));
            }
        }
        let _ = writeln!(schedule, "{slot}");
    }
    if let Some((_, op)) = pending.iter().flatten().next() {
        return Err(ContestError::UnpairedSpill {
            op: *op,
            problem: "SPILL_OUT is never followed by a SPILL_IN of its buffer".to_owned(),
        });
    }
    if !module.phase.has_plan() {
        return Ok(Trio {
            schedule,
            memory: None,
            spill: None,
        });
    }
    Ok(Trio {
        schedule,
        memory: Some(memory_file(module)?),
        spill: Some(
            spills
                .iter()
                .fold(String::new(), |mut out, (name, offset)| {
                    // Every spill was paired above, so each has its SPILL_IN's offset.
                    let _ = writeln!(out, "{name}:{}", offset.unwrap_or(0));
                    out
                }),
        ),
    })
}

/// `BufId:Offset` per buffer, in BufId order, from each buffer's one ALLOC.
fn memory_file(module: &Module) -> Result<String, ContestError> {
    let mut offsets: Vec<(Option<u64>, usize)> = vec![(None, 0); module.buffers.len()];
    for op in &module.ops {
        if let OpKind::Alloc { buffer, offset } = op.kind {
            let Some(slot) = offsets.get_mut(buffer.index()) else {
                return Err(dangling(
                    &format!("op %{}", op.name),
                    "buffer",
                    buffer.index(),
                ));
            };
            *slot = (offset, slot.1 + 1);
        }
    }
    let mut lines: Vec<(u32, u64)> = Vec::with_capacity(module.buffers.len());
    for (buf, &(offset, allocs)) in module.buffers.iter().zip(&offsets) {
        let problem = match (allocs, offset) {
            (1, Some(offset)) => {
                lines.push((buf.name, offset));
                continue;
            }
            (0, _) => "no ALLOC",
            (1, None) => "an ALLOC without an offset",
            _ => "more than one ALLOC",
        };
        return Err(ContestError::MissingOffset {
            buffer: buf.name,
            problem,
        });
    }
    lines.sort_unstable();
    let mut out = String::with_capacity(12 * lines.len());
    for (name, offset) in lines {
        let _ = writeln!(out, "{name}:{offset}");
    }
    Ok(out)
}

/// A reference past an arena, reported the way the verifier reports it.
fn dangling(what: &str, entity: &'static str, index: usize) -> ContestError {
    ContestError::Invalid {
        file: None,
        errors: vec![VerifyError {
            loc: None,
            kind: VerifyErrorKind::DanglingId {
                what: what.to_owned(),
                entity,
                index,
            },
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{BufferId, OpId, PipeId};
    use crate::module::{Buffer, Op, Phase};
    use crate::target::Target;

    fn op(name: u32, kind: OpKind) -> Op {
        Op {
            name,
            kind,
            deps: Vec::new(),
            loc: None,
        }
    }

    /// Buffers @b1 (UB, declared first) and @b0 (L1, backed); each spilled once, the spill of
    /// @b1 first in σ; spill ops carry arbitrary names that export must renumber.
    fn planned() -> Module {
        let mut m = Module::new("two_spills", Target::contest());
        let t = m.target.clone();
        let b1 = m.add_buffer(Buffer {
            name: 1,
            tier: t.tier_named("UB").unwrap(),
            size: 64,
            backed: false,
            loc: None,
        });
        let b0 = m.add_buffer(Buffer {
            name: 0,
            tier: t.tier_named("L1").unwrap(),
            size: 256,
            backed: true,
            loc: None,
        });
        let compute = |operands: Vec<BufferId>| OpKind::Compute {
            opcode: "OP".into(),
            pipe: PipeId::new(5),
            cycles: 1,
            operands,
        };
        let spill_out = |buffer| OpKind::SpillOut {
            buffer,
            pipe: t.spill_out_pipe,
            cycles: 0,
        };
        let spill_in = |buffer, offset| OpKind::SpillIn {
            buffer,
            offset,
            pipe: t.spill_in_pipe,
            cycles: 0,
        };
        let ops = [
            op(
                0,
                OpKind::Alloc {
                    buffer: b0,
                    offset: Some(0),
                },
            ),
            op(
                1,
                OpKind::Alloc {
                    buffer: b1,
                    offset: Some(128),
                },
            ),
            op(2, compute(vec![b0])),
            op(90, spill_out(b1)),
            op(80, spill_out(b0)),
            op(81, spill_in(b0, 1024)),
            op(91, spill_in(b1, 512)),
            op(3, compute(vec![b1, b0])),
            op(4, OpKind::Free { buffer: b0 }),
            op(5, OpKind::Free { buffer: b1 }),
        ];
        for o in ops {
            m.push_op(o);
        }
        m.phase = Phase::Planned;
        m
    }

    #[test]
    fn exports_two_spills_in_spill_order() {
        let trio = export_trio(&planned()).unwrap();
        assert_eq!(trio.schedule, "0\n1\n2\n6\n8\n9\n7\n3\n4\n5\n");
        assert_eq!(trio.memory.as_deref(), Some("0:0\n1:128\n"));
        assert_eq!(trio.spill.as_deref(), Some("1:512\n0:1024\n"));
    }

    #[test]
    fn unplanned_modules_export_only_a_schedule() {
        let mut m = Module::new("m", Target::contest());
        let b = m.add_buffer(Buffer {
            name: 0,
            tier: crate::ids::TierId::new(0),
            size: 1,
            backed: false,
            loc: None,
        });
        m.push_op(op(1, OpKind::Free { buffer: b }));
        m.add_op(op(
            0,
            OpKind::Alloc {
                buffer: b,
                offset: None,
            },
        ));
        m.schedule.insert(0, OpId::new(1));
        let trio = export_trio(&m).unwrap();
        assert_eq!(
            trio,
            Trio {
                schedule: "0\n1\n".into(),
                memory: None,
                spill: None
            }
        );
    }

    #[test]
    fn export_errors() {
        let mut m = planned();
        m.ops[2].name = 7;
        let e = export_trio(&m).unwrap_err();
        assert!(matches!(e, ContestError::OpNames { count: 6, .. }));
        assert!(
            e.to_string()
                .contains("op %7 is named beyond the last contest id"),
            "{e}"
        );
        m.ops[2].name = 1;
        assert!(export_trio(&m)
            .unwrap_err()
            .to_string()
            .contains("two ops are named %1"));

        let mut m = planned();
        m.ops[1].kind = OpKind::Alloc {
            buffer: BufferId::new(0),
            offset: None,
        };
        let e = export_trio(&m).unwrap_err();
        assert!(
            matches!(e, ContestError::MissingOffset { buffer: 1, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("an ALLOC without an offset"), "{e}");

        let mut m = planned();
        m.schedule.swap(3, 6);
        let e = export_trio(&m).unwrap_err();
        assert!(
            matches!(e, ContestError::UnpairedSpill { op: 91, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("has no SPILL_OUT before it"), "{e}");
        let mut m = planned();
        m.schedule.remove(6);
        let e = export_trio(&m).unwrap_err();
        assert!(
            e.to_string().contains("never followed by a SPILL_IN"),
            "{e}"
        );

        let mut m = planned();
        m.schedule.push(OpId::new(99));
        let e = export_trio(&m).unwrap_err();
        assert!(matches!(e, ContestError::Invalid { .. }), "{e}");
    }
}
