//! LIR → MLIR: writes a [`Module`] as ops of the `lattice` dialect.
//!
//! Layout (a `builtin.module` named after the LIR module, body in this order):
//! `lattice.phase`, `lattice.target`, one `lattice.buffer` per buffer in declaration order, then
//! one op per LIR op in σ order (`lattice.alloc`, `.free`, `.command`, `.spill_out`, `.spill_in`).
//! That order is also written down, since MLIR gives body order no meaning: each buffer's `pos`
//! is its place among the buffers, each op's `pos` its place in σ (see [`crate::dialect`]).
//! Every op yields a `!lattice.token`; its dependencies are token operands in the order stored,
//! with `dep_kinds` naming each one's kind; buffers are `!lattice.buf` operands. Ids are `ui32`,
//! sizes, cycles, offsets and capacities `ui64`, flags `i1`.
//!
//! Invariants: the importer reads back exactly the module written (same printed LIR); ops keep
//! the MLIR locations the caller hands in (so diagnostics after a rewrite still point at the
//! user's `.mlir` lines), and ops without one get a name location (`"%12"`, `"@b3"`); ops also
//! get back the foreign attributes handed in (a toolchain's discardable `npu.tag`, …) beside
//! their own; one named like an attribute the op defines is left out, so it never changes what
//! the op means.
//! Complexity: O(V + E + B) ops and attributes built.

use crate::dialect;
use crate::error::BridgeError;
use crate::strings::identifier;
use lattice_lir::diag::Loc;
use lattice_lir::{BufferId, Dep, DepKind, Module, OpId, OpKind, Target};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DenseI32ArrayAttribute, DictionaryAttribute, IntegerAttribute,
    StringAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationMutLike};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, BlockRef, Identifier, Location, Type, Value};
use melior::Context;
use std::collections::HashMap;

/// What the MLIR ops of a module hold that LIR has no place for, by op and buffer names (`%12` →
/// 12, `@b3` → 3), which passes keep, unlike arena indices.
#[derive(Clone, Debug, Default)]
pub struct Carried<'c> {
    /// Per op name.
    pub ops: HashMap<u32, Kept<'c>>,
    /// Per buffer name.
    pub buffers: HashMap<u32, Kept<'c>>,
    /// Of the `lattice.phase` and `lattice.target` ops, in that order.
    pub header: Vec<Kept<'c>>,
}

/// What one MLIR op holds beyond its LIR meaning.
#[derive(Clone, Debug)]
pub struct Kept<'c> {
    /// Where the op came from.
    pub location: Location<'c>,
    /// Its attributes the lattice op does not define (see [`dialect::own_attributes`]), as they
    /// were: name and value, both uniqued in the context.
    pub attributes: Vec<(Identifier<'c>, Attribute<'c>)>,
}

/// `module` as a new MLIR module of the `lattice` dialect (loaded in `context`).
pub fn lir_to_mlir<'c>(
    context: &'c Context,
    module: &Module,
) -> Result<melior::ir::Module<'c>, BridgeError> {
    lir_to_mlir_carrying(context, module, &Carried::default())
}

/// Where the ops and buffers of `module` stand in the LIR text it was parsed from, as MLIR file
/// locations in the unnamed input (`-`, the name MLIR's C API parses text under), so that what
/// MLIR reports about them points at those LIR lines. Ops and buffers without a position are
/// left out (the exporter names them).
pub fn lir_locations<'c>(context: &'c Context, module: &Module) -> Carried<'c> {
    let at = |loc: Loc| Kept {
        location: Location::new(context, "-", loc.line as usize, loc.col as usize),
        attributes: Vec::new(),
    };
    Carried {
        ops: module
            .ops
            .iter()
            .filter_map(|op| Some((op.name, at(op.loc?))))
            .collect(),
        buffers: module
            .buffers
            .iter()
            .filter_map(|b| Some((b.name, at(b.loc?))))
            .collect(),
        header: Vec::new(),
    }
}

/// [`lir_to_mlir`], the ops and buffers `carried` knows keeping its locations and foreign
/// attributes.
pub fn lir_to_mlir_carrying<'c>(
    context: &'c Context,
    module: &Module,
    carried: &Carried<'c>,
) -> Result<melior::ir::Module<'c>, BridgeError> {
    let location = Location::name(
        context,
        &format!("@{}", module.name),
        Location::unknown(context),
    );
    let mut mlir = melior::ir::Module::new(location);
    mlir.as_operation_mut().set_attribute(
        "sym_name",
        StringAttribute::new(context, &module.name).into(),
    );
    append_ops(context, &mlir.body(), module, carried)?;
    Ok(mlir)
}

/// Appends the ops of `module` to `block`, with the locations and foreign attributes `carried`
/// holds for them (ops it does not know get a name location and no foreign attribute).
pub fn append_ops<'c>(
    context: &'c Context,
    block: &BlockRef<'c, '_>,
    module: &Module,
    carried: &Carried<'c>,
) -> Result<(), BridgeError> {
    let w = Writer::new(context)?;
    let unknown = Location::unknown(context);
    let header = |i: usize| Origin::of(carried.header.get(i), || unknown);
    block.append_operation(w.build(
        dialect::PHASE,
        header(0),
        &[("phase", w.string(module.phase.keyword()))],
        &[],
        None,
    )?);
    block.append_operation(w.build(
        dialect::TARGET,
        header(1),
        &w.target(&module.target),
        &[],
        None,
    )?);

    let mut buffers: Vec<Value<'c, '_>> = Vec::with_capacity(module.buffers.len());
    for (pos, id) in module.buffer_ids().enumerate() {
        let b = module.buffer(id);
        let origin = Origin::of(carried.buffers.get(&b.name), || {
            w.named(&format!("@b{}", b.name))
        });
        let attributes = [
            ("id", w.uint(32, u64::from(b.name))),
            (dialect::POS, w.pos(pos)?),
            ("tier", w.string(&module.target.tier(b.tier).name)),
            ("size", w.uint(64, b.size)),
            ("backed", w.boolean(b.backed)),
        ];
        let op = w.build(dialect::BUFFER, origin, &attributes, &[], Some(w.buf))?;
        buffers.push(result(block.append_operation(op))?);
    }

    let mut tokens: Vec<Option<Value<'c, '_>>> = vec![None; module.ops.len()];
    for (pos, &id) in module.schedule.iter().enumerate() {
        let op = module.op(id);
        let origin = Origin::of(carried.ops.get(&op.name), || {
            w.named(&format!("%{}", op.name))
        });
        let deps = dep_values(module, id, &op.deps, &tokens)?;
        let kinds = w.dep_kinds(&op.deps);
        let pipe = |p| w.string(module.target.pipe(p));
        let buf = |b: BufferId| buffers[b.index()];
        let id_attr = ("id", w.uint(32, u64::from(op.name)));
        let pos_attr = (dialect::POS, w.pos(pos)?);
        let built = match &op.kind {
            OpKind::Alloc { buffer, offset } => {
                let mut attributes = vec![id_attr, pos_attr, ("dep_kinds", kinds)];
                if let Some(offset) = offset {
                    attributes.push(("offset", w.uint(64, *offset)));
                }
                let operands = [&[buf(*buffer)][..], &deps].concat();
                w.build(
                    dialect::ALLOC,
                    origin,
                    &attributes,
                    &operands,
                    Some(w.token),
                )
            }
            OpKind::Free { buffer } => {
                let operands = [&[buf(*buffer)][..], &deps].concat();
                let attributes = [id_attr, pos_attr, ("dep_kinds", kinds)];
                w.build(dialect::FREE, origin, &attributes, &operands, Some(w.token))
            }
            OpKind::Compute {
                opcode,
                pipe: p,
                cycles,
                operands,
            } => {
                let buffer_values: Vec<Value<'c, '_>> = operands.iter().map(|&b| buf(b)).collect();
                let segments = w.segments(buffer_values.len(), deps.len())?;
                let attributes = [
                    id_attr,
                    pos_attr,
                    ("opcode", w.string(opcode)),
                    ("pipe", pipe(*p)),
                    ("cycles", w.uint(64, *cycles)),
                    ("dep_kinds", kinds),
                    (dialect::SEGMENT_SIZES, segments),
                ];
                let operands = [&buffer_values[..], &deps].concat();
                w.build(
                    dialect::COMMAND,
                    origin,
                    &attributes,
                    &operands,
                    Some(w.token),
                )
            }
            OpKind::SpillOut {
                buffer,
                pipe: p,
                cycles,
            } => {
                let attributes = [
                    id_attr,
                    pos_attr,
                    ("pipe", pipe(*p)),
                    ("cycles", w.uint(64, *cycles)),
                    ("dep_kinds", kinds),
                ];
                let operands = [&[buf(*buffer)][..], &deps].concat();
                w.build(
                    dialect::SPILL_OUT,
                    origin,
                    &attributes,
                    &operands,
                    Some(w.token),
                )
            }
            OpKind::SpillIn {
                buffer,
                offset,
                pipe: p,
                cycles,
            } => {
                let attributes = [
                    id_attr,
                    pos_attr,
                    ("offset", w.uint(64, *offset)),
                    ("pipe", pipe(*p)),
                    ("cycles", w.uint(64, *cycles)),
                    ("dep_kinds", kinds),
                ];
                let operands = [&[buf(*buffer)][..], &deps].concat();
                w.build(
                    dialect::SPILL_IN,
                    origin,
                    &attributes,
                    &operands,
                    Some(w.token),
                )
            }
        }?;
        tokens[id.index()] = Some(result(block.append_operation(built))?);
    }
    Ok(())
}

/// The token values of `deps`. Every dependency precedes its user in σ (the structural verifier
/// guarantees it), so its token exists already.
fn dep_values<'c, 'a>(
    module: &Module,
    user: OpId,
    deps: &[Dep],
    tokens: &[Option<Value<'c, 'a>>],
) -> Result<Vec<Value<'c, 'a>>, BridgeError> {
    deps.iter()
        .map(|dep| {
            tokens
                .get(dep.op.index())
                .copied()
                .flatten()
                .ok_or_else(|| {
                    BridgeError::Export(format!(
                        "op %{} depends on an op that does not precede it in the schedule",
                        module.op(user).name
                    ))
                })
        })
        .collect()
}

fn result<'c, 'a>(op: melior::ir::OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, BridgeError> {
    op.result(0)
        .map(Into::into)
        .map_err(|e| BridgeError::Export(e.to_string()))
}

/// Where a written op comes from: its location and the foreign attributes to put back on it.
#[derive(Clone, Copy)]
struct Origin<'k, 'c> {
    location: Location<'c>,
    attributes: &'k [(Identifier<'c>, Attribute<'c>)],
}

impl<'k, 'c> Origin<'k, 'c> {
    /// What `kept` holds, or a fresh op at `fallback` without foreign attributes.
    fn of(kept: Option<&'k Kept<'c>>, fallback: impl FnOnce() -> Location<'c>) -> Self {
        match kept {
            Some(kept) => Origin {
                location: kept.location,
                attributes: &kept.attributes,
            },
            None => Origin {
                location: fallback(),
                attributes: &[],
            },
        }
    }
}

/// Builds attributes and ops in one context.
struct Writer<'c> {
    context: &'c Context,
    buf: Type<'c>,
    token: Type<'c>,
}

impl<'c> Writer<'c> {
    fn new(context: &'c Context) -> Result<Self, BridgeError> {
        let parse = |text| {
            Type::parse(context, text)
                .ok_or_else(|| BridgeError::Dialect(format!("the type {text} is not defined")))
        };
        Ok(Writer {
            context,
            buf: parse(dialect::BUF_TYPE)?,
            token: parse(dialect::TOKEN_TYPE)?,
        })
    }

    fn named(&self, name: &str) -> Location<'c> {
        Location::name(self.context, name, Location::unknown(self.context))
    }

    fn string(&self, text: &str) -> Attribute<'c> {
        StringAttribute::new(self.context, text).into()
    }

    /// An unsigned integer of `bits` bits; the MLIR C API takes the bits as an `i64`.
    fn uint(&self, bits: u32, value: u64) -> Attribute<'c> {
        let ty = IntegerType::unsigned(self.context, bits).into();
        IntegerAttribute::new(ty, value as i64).into()
    }

    /// A `pos` attribute (`ui32`, like ids: a module has fewer than 2^32 ops).
    fn pos(&self, pos: usize) -> Result<Attribute<'c>, BridgeError> {
        let pos = u32::try_from(pos)
            .map_err(|_| BridgeError::Export(format!("position {pos} overflows ui32")))?;
        Ok(self.uint(32, u64::from(pos)))
    }

    fn boolean(&self, value: bool) -> Attribute<'c> {
        BoolAttribute::new(self.context, value).into()
    }

    fn dep_kinds(&self, deps: &[Dep]) -> Attribute<'c> {
        let kinds: Vec<Attribute<'c>> = deps
            .iter()
            .map(|d| self.string(kind_word(d.kind)))
            .collect();
        ArrayAttribute::new(self.context, &kinds).into()
    }

    fn segments(&self, buffers: usize, deps: usize) -> Result<Attribute<'c>, BridgeError> {
        let size = |n: usize| {
            i32::try_from(n).map_err(|_| BridgeError::Export(format!("{n} operands overflow i32")))
        };
        Ok(DenseI32ArrayAttribute::new(self.context, &[size(buffers)?, size(deps)?]).into())
    }

    fn target(&self, t: &Target) -> Vec<(&'static str, Attribute<'c>)> {
        let tiers: Vec<Attribute<'c>> = t
            .tiers
            .iter()
            .map(|tier| {
                let fields = [
                    ("name", self.string(&tier.name)),
                    ("capacity", self.uint(64, tier.capacity)),
                    ("staging", self.boolean(tier.staging)),
                ];
                let fields: Vec<(Identifier<'c>, Attribute<'c>)> = fields
                    .into_iter()
                    .map(|(k, v)| (Identifier::new(self.context, k), v))
                    .collect();
                DictionaryAttribute::new(self.context, &fields).into()
            })
            .collect();
        let pipes: Vec<Attribute<'c>> = t.pipes.iter().map(|p| self.string(p)).collect();
        vec![
            ("tiers", ArrayAttribute::new(self.context, &tiers).into()),
            ("pipes", ArrayAttribute::new(self.context, &pipes).into()),
            ("spill_out", self.string(t.pipe(t.spill_out_pipe))),
            ("spill_in", self.string(t.pipe(t.spill_in_pipe))),
            ("spill_cost_base", self.uint(64, t.spill_cost.base)),
            ("spill_cost_per_byte", self.uint(64, t.spill_cost.per_byte)),
            ("l0_exclusive", self.boolean(t.l0_exclusive)),
        ]
    }

    /// The op `name` at `origin`, with `attributes` and the foreign attributes of `origin` but
    /// those named like one of `attributes` (a foreign attribute cannot change what the op means,
    /// and MLIR wants names unique).
    fn build(
        &self,
        name: &str,
        origin: Origin<'_, 'c>,
        attributes: &[(&str, Attribute<'c>)],
        operands: &[Value<'c, '_>],
        result: Option<Type<'c>>,
    ) -> Result<melior::ir::Operation<'c>, BridgeError> {
        let own = attributes
            .iter()
            .map(|&(k, v)| (Identifier::new(self.context, k), v));
        let foreign = origin
            .attributes
            .iter()
            .filter(|(k, _)| !attributes.iter().any(|(own, _)| identifier(*k) == *own));
        let attributes: Vec<(Identifier<'c>, Attribute<'c>)> =
            own.chain(foreign.copied()).collect();
        OperationBuilder::new(name, origin.location)
            .add_attributes(&attributes)
            .add_operands(operands)
            .add_results(result.as_slice())
            .build()
            .map_err(|e| BridgeError::Export(format!("{name}: {e}")))
    }
}

/// The word of a dependency kind in `dep_kinds`.
pub fn kind_word(kind: DepKind) -> &'static str {
    match kind {
        DepKind::Precedence => "precedence",
        DepKind::Spill => "spill",
        DepKind::Reuse => "reuse",
    }
}
