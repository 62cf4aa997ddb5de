//! A [`LatticeModuleDesc`] (flat arrays, as the C++ side reads them off MLIR ops) → a LIR
//! [`Module`], with every problem located at the buffer, op, phase or target it concerns.
//!
//! The checks are the MLIR importer's (`lattice_mlir::import`, same
//! [`ImportErrorKind`](lattice_mlir::error::ImportErrorKind)s): the name and every tier, pipe and
//! opcode are LIR names, tier and pipe names resolve against the target, buffer positions number
//! the buffers 0..n once each, op ids are unique and `order` lists every op once (σ). What the
//! C++ dialect's verifiers already guarantee (attribute kinds, one kind per dependency) is checked
//! again only as far as memory safety needs. The module is not structurally verified here (the
//! pass run does that).
//!
//! Invariants: the module's ops are the described ops in the described order (op `i` of the
//! description is `OpId(i)`), so diagnostics about an op map back to the MLIR op it came from;
//! buffers are in `pos` order. No input panics. Cost: O(V + E + B) with hash lookups by name
//! and id (FxHash: the keys are the module's own names and ids, read once per op).

use crate::abi::*;
use lattice_lir::{Buffer, BufferId, Dep, DepKind, Module, Op, OpId, OpKind, Phase, PipeId};
use lattice_lir::{SpillCost, Target, Tier, TierId};
use lattice_mlir::error::ImportErrorKind as K;
use lattice_mlir::names::{is_module_name, is_opcode, is_word};
use rustc_hash::FxHashMap;

/// A problem of a described module, at what it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// What it concerns.
    pub anchor: LatticeAnchor,
    /// Which buffer or op.
    pub index: u32,
    /// What is wrong.
    pub kind: K,
}

/// The arrays of a description, checked for length (the pointers are trusted: the caller's
/// contract).
struct Arrays<'a> {
    tiers: &'a [LatticeTier],
    pipes: &'a [LatticeStr],
    buffers: &'a [LatticeBuffer],
    ops: &'a [LatticeOp],
    buffer_refs: &'a [u32],
    dep_ops: &'a [u32],
    dep_kinds: &'a [LatticeDepKind],
    order: &'a [i64],
}

/// `count` items at `data` (empty for a zero count, whatever the pointer).
///
/// # Safety
/// When `count > 0`, `data` must point at `count` valid items that outlive `'a`.
unsafe fn slice<'a, T>(data: *const T, count: usize) -> &'a [T] {
    if count == 0 || data.is_null() {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(data, count) }
}

/// Text of a reference, lossily when it is not UTF-8 (the error then names what it read).
///
/// # Safety
/// As [`LatticeStr::bytes`].
unsafe fn text<'a>(s: LatticeStr) -> std::borrow::Cow<'a, str> {
    // SAFETY: per the contract.
    String::from_utf8_lossy(unsafe { s.bytes() })
}

/// The MLIR name of a scheduled op of this kind, for messages.
pub fn op_name(kind: LatticeOpKind) -> &'static str {
    match kind {
        LatticeOpKind::Alloc => "lattice.alloc",
        LatticeOpKind::Free => "lattice.free",
        LatticeOpKind::Command => "lattice.command",
        LatticeOpKind::SpillOut => "lattice.spill_out",
        LatticeOpKind::SpillIn => "lattice.spill_in",
    }
}

/// The LIR module `desc` describes, or every problem found.
///
/// # Safety
/// Every pointer/count pair of `desc` must be a valid array (see [`LatticeModuleDesc`]) for the
/// duration of the call.
pub unsafe fn assemble(desc: &LatticeModuleDesc) -> Result<Module, Vec<Located>> {
    // SAFETY: per the contract.
    let a = unsafe {
        Arrays {
            tiers: slice(desc.target.tiers, desc.target.tier_count),
            pipes: slice(desc.target.pipes, desc.target.pipe_count),
            buffers: slice(desc.buffers, desc.buffer_count),
            ops: slice(desc.ops, desc.op_count),
            buffer_refs: slice(desc.buffer_refs, desc.buffer_ref_count),
            dep_ops: slice(desc.dep_ops, desc.dep_count),
            dep_kinds: slice(desc.dep_kinds, desc.dep_count),
            order: slice(desc.order, desc.order_count),
        }
    };
    let mut errors = Vec::new();
    let mut at = |anchor, index: usize, kind| {
        errors.push(Located {
            anchor,
            index: u32::try_from(index).unwrap_or(LATTICE_NONE),
            kind,
        })
    };
    // SAFETY (every `text` below): the strings are part of `desc`, valid per the contract.
    let name = unsafe { text(desc.name) };
    if name.is_empty() {
        at(LatticeAnchor::Module, 0, K::Unnamed);
    } else if !is_module_name(&name) {
        at(LatticeAnchor::Module, 0, K::BadName(name.to_string()));
    }
    let phase_text = unsafe { text(desc.phase) };
    let phase = Phase::from_keyword(&phase_text).unwrap_or_else(|| {
        at(
            LatticeAnchor::Phase,
            0,
            K::UnknownPhase(phase_text.to_string()),
        );
        Phase::Parsed
    });
    let target = read_target(&desc.target, &a, &mut at);
    let tiers: FxHashMap<&str, TierId> = target
        .tiers
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.as_str(), TierId::new(i)))
        .collect();
    let pipes: FxHashMap<&str, PipeId> = target
        .pipes
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), PipeId::new(i)))
        .collect();
    let tier_list = || {
        let names: Vec<&str> = target.tiers.iter().map(|t| t.name.as_str()).collect();
        names.join(", ")
    };

    // Buffers, placed by `pos`.
    let mut slots: Vec<Option<Buffer>> = vec![None; a.buffers.len()];
    for (i, b) in a.buffers.iter().enumerate() {
        let pos = b.pos as usize;
        if pos >= slots.len() {
            let kind = K::PositionRange {
                pos: u64::from(b.pos),
                count: slots.len(),
            };
            at(LatticeAnchor::Buffer, i, kind);
            continue;
        }
        if slots[pos].is_some() {
            let kind = K::DuplicatePosition {
                pos: u64::from(b.pos),
                first: None,
            };
            at(LatticeAnchor::Buffer, i, kind);
            continue;
        }
        let tier_name = unsafe { text(b.tier) };
        let Some(&tier) = tiers.get(tier_name.as_ref()) else {
            let valid = tier_list();
            let kind = K::UnknownTier {
                name: tier_name.to_string(),
                valid,
            };
            at(LatticeAnchor::Buffer, i, kind);
            continue;
        };
        slots[pos] = Some(Buffer {
            name: b.id,
            tier,
            size: b.size,
            backed: b.backed,
            loc: None,
        });
    }

    // Ops, in the described order.
    let mut ops = Vec::with_capacity(a.ops.len());
    let mut by_id: FxHashMap<u32, usize> =
        FxHashMap::with_capacity_and_hasher(a.ops.len(), Default::default());
    for (i, op) in a.ops.iter().enumerate() {
        if by_id.insert(op.id, i).is_some() {
            at(
                LatticeAnchor::Op,
                i,
                K::DuplicateId {
                    id: op.id,
                    first: None,
                },
            );
        }
        let mut bad = |kind| at(LatticeAnchor::Op, i, kind);
        let name = op_name(op.kind);
        let refs = range(a.buffer_refs, op.buffers_begin, op.buffer_count);
        let deps = range(a.dep_ops, op.deps_begin, op.dep_count);
        let kinds = range(a.dep_kinds, op.deps_begin, op.dep_count);
        let (Some(refs), Some(deps), Some(kinds)) = (refs, deps, kinds) else {
            bad(K::OperandCount {
                op: name,
                found: (op.buffer_count as usize).saturating_add(op.dep_count as usize),
                expected: "operands outside the description's arrays".to_owned(),
            });
            continue;
        };
        let mut buffers = Vec::with_capacity(refs.len());
        for (k, &r) in refs.iter().enumerate() {
            match a.buffers.get(r as usize) {
                Some(b) if (b.pos as usize) < slots.len() => {
                    buffers.push(BufferId::new(b.pos as usize))
                }
                _ => bad(K::NotABuffer { op: name, index: k }),
            }
        }
        let mut op_deps = Vec::with_capacity(deps.len());
        for (k, (&d, &kind)) in deps.iter().zip(kinds).enumerate() {
            let kind = match kind {
                LATTICE_DEP_PRECEDENCE => DepKind::Precedence,
                LATTICE_DEP_SPILL => DepKind::Spill,
                LATTICE_DEP_REUSE => DepKind::Reuse,
                other => {
                    bad(K::UnknownDepKind(other.to_string()));
                    continue;
                }
            };
            if (d as usize) < a.ops.len() {
                op_deps.push(Dep {
                    op: OpId::new(d as usize),
                    kind,
                });
            } else {
                bad(K::NotAToken {
                    op: name,
                    index: refs.len() + k,
                });
            }
        }
        let one = |bad: &mut dyn FnMut(K)| match buffers.as_slice() {
            [b] => Some(*b),
            _ => {
                if refs.len() != 1 {
                    bad(K::OperandCount {
                        op: name,
                        found: refs.len() + deps.len(),
                        expected: "one buffer, then the dependency tokens".to_owned(),
                    });
                }
                None
            }
        };
        let pipe = |bad: &mut dyn FnMut(K)| {
            let text = unsafe { text(op.pipe) };
            let found = pipes.get(text.as_ref()).copied();
            if found.is_none() {
                let valid = target.pipes.join(", ");
                bad(K::UnknownPipe {
                    name: text.to_string(),
                    valid,
                });
            }
            found
        };
        let kind = match op.kind {
            LatticeOpKind::Alloc => one(&mut bad).map(|buffer| OpKind::Alloc {
                buffer,
                offset: op.has_offset.then_some(op.offset),
            }),
            LatticeOpKind::Free => one(&mut bad).map(|buffer| OpKind::Free { buffer }),
            LatticeOpKind::Command => {
                let opcode = unsafe { text(op.opcode) }.to_string();
                let ok = is_opcode(&opcode);
                if !ok {
                    bad(K::BadWord {
                        name: opcode.clone(),
                        what: "opcode",
                    });
                }
                let pipe = pipe(&mut bad);
                match (ok, pipe, buffers.len() == refs.len()) {
                    (true, Some(pipe), true) => Some(OpKind::Compute {
                        opcode,
                        pipe,
                        cycles: op.cycles,
                        operands: buffers,
                    }),
                    _ => None,
                }
            }
            LatticeOpKind::SpillOut => match (one(&mut bad), pipe(&mut bad)) {
                (Some(buffer), Some(pipe)) => Some(OpKind::SpillOut {
                    buffer,
                    pipe,
                    cycles: op.cycles,
                }),
                _ => None,
            },
            LatticeOpKind::SpillIn => match (one(&mut bad), pipe(&mut bad)) {
                (Some(buffer), Some(pipe)) if op.has_offset => Some(OpKind::SpillIn {
                    buffer,
                    offset: op.offset,
                    pipe,
                    cycles: op.cycles,
                }),
                (Some(_), Some(_)) => {
                    bad(K::MissingAttribute {
                        op: name,
                        attr: "offset",
                        expected: "an unsigned integer",
                    });
                    None
                }
                _ => None,
            },
        };
        if let Some(kind) = kind {
            ops.push(Op {
                name: op.id,
                kind,
                deps: op_deps,
                loc: None,
            });
        }
    }

    let schedule = read_order(&a, &by_id, &mut at);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Module {
        name: name.into_owned(),
        phase,
        target,
        buffers: slots.into_iter().flatten().collect(),
        ops,
        schedule,
    })
}

/// `items[begin .. begin + count]`, if inside.
fn range<T>(items: &[T], begin: u32, count: u32) -> Option<&[T]> {
    let begin = begin as usize;
    items.get(begin..begin.checked_add(count as usize)?)
}

/// The target, with its problems reported at it.
fn read_target(
    t: &LatticeTarget,
    a: &Arrays<'_>,
    at: &mut impl FnMut(LatticeAnchor, usize, K),
) -> Target {
    let mut bad = |kind| at(LatticeAnchor::Target, 0, kind);
    let mut words = |what: &'static str, kind_name: &'static str, all: Vec<String>| {
        if all.is_empty() {
            bad(K::EmptyTarget(what));
        }
        for (i, name) in all.iter().enumerate() {
            if !is_word(name) {
                bad(K::BadWord {
                    name: name.clone(),
                    what: kind_name,
                });
            } else if all[..i].contains(name) {
                bad(K::DuplicateName {
                    what,
                    name: name.clone(),
                });
            }
        }
        all
    };
    // SAFETY: the strings are part of the description (the caller's contract).
    let tier_names = a.tiers.iter().map(|t| unsafe { text(t.name) }.to_string());
    let tier_names = words("tier", "tier name", tier_names.collect());
    let pipes = a.pipes.iter().map(|p| unsafe { text(*p) }.to_string());
    let pipes = words("pipe", "pipe name", pipes.collect());
    let mut spill = |s: LatticeStr| {
        let name = unsafe { text(s) };
        pipes.iter().position(|p| *p == name).map_or_else(
            || {
                bad(K::UnknownPipe {
                    name: name.to_string(),
                    valid: pipes.join(", "),
                });
                PipeId::new(0)
            },
            PipeId::new,
        )
    };
    let (spill_out_pipe, spill_in_pipe) = (spill(t.spill_out), spill(t.spill_in));
    Target {
        tiers: a
            .tiers
            .iter()
            .zip(tier_names)
            .map(|(t, name)| Tier {
                name,
                capacity: t.capacity,
                staging: t.staging,
            })
            .collect(),
        pipes,
        spill_out_pipe,
        spill_in_pipe,
        spill_cost: SpillCost {
            base: t.spill_cost_base,
            per_byte: t.spill_cost_per_byte,
        },
        l0_exclusive: t.l0_exclusive,
    }
}

/// σ from `order` (ids) and the ops' ids, with its problems reported at the phase op or at the
/// op `order` leaves out.
fn read_order(
    a: &Arrays<'_>,
    by_id: &FxHashMap<u32, usize>,
    at: &mut impl FnMut(LatticeAnchor, usize, K),
) -> Vec<OpId> {
    let mut schedule = Vec::with_capacity(a.order.len());
    let mut seen = vec![false; a.ops.len()];
    for &id in a.order {
        let Some(&i) = u32::try_from(id).ok().and_then(|id| by_id.get(&id)) else {
            at(LatticeAnchor::Phase, 0, K::OrderUnknown(id));
            continue;
        };
        if std::mem::replace(&mut seen[i], true) {
            at(LatticeAnchor::Phase, 0, K::OrderTwice(a.ops[i].id));
            continue;
        }
        schedule.push(OpId::new(i));
    }
    if schedule.is_empty() && !a.ops.is_empty() {
        at(LatticeAnchor::Phase, 0, K::OrderListsNone(a.ops.len()));
    } else {
        for (i, op) in a.ops.iter().enumerate() {
            if !seen[i] {
                at(LatticeAnchor::Op, i, K::NotInOrder(op.id));
            }
        }
    }
    schedule
}
