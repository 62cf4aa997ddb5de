//! LIR → MLIR: writes a [`Module`] as ops of the `lattice` dialect.
//!
//! Layout (a `builtin.module` named after the LIR module, body in this order):
//! `lattice.phase`, `lattice.target`, one `lattice.buffer` per buffer in declaration order, then
//! one op per LIR op in σ order (`lattice.alloc`, `.free`, `.command`, `.spill_out`, `.spill_in`).
//! That order is also written down, since MLIR gives body order no meaning: each buffer's `pos`
//! is its place among the buffers, and `lattice.phase`'s `order` lists the ops' `id`s in σ (see
//! [`crate::dialect`]).
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
use crate::strings::identifier_str;
use lattice_lir::diag::Loc;
use lattice_lir::{BufferId, Dep, DepKind, Module, OpId, OpKind, Phase, PipeId, Target};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute,
    DictionaryAttribute, IntegerAttribute, StringAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationMutLike;
use melior::ir::r#type::IntegerType;
use melior::ir::r#type::TypeLike;
use melior::ir::{
    Attribute, AttributeLike, BlockRef, Identifier, Location, Type, Value, ValueLike,
};
use melior::{Context, StringRef};
use mlir_sys::{
    MlirAttribute, MlirContext, MlirLocation, MlirNamedAttribute, MlirOperation, MlirStringRef,
    MlirType, MlirValue,
};
use rustc_hash::FxHashMap;
use std::ffi::c_void;

/// What the MLIR ops of a module hold that LIR has no place for, by op and buffer names (`%12` →
/// 12, `@b3` → 3), which passes keep, unlike arena indices.
#[derive(Clone, Debug, Default)]
pub struct Carried<'c> {
    /// Per op name.
    pub ops: FxHashMap<u32, Kept<'c>>,
    /// Per buffer name.
    pub buffers: FxHashMap<u32, Kept<'c>>,
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
    let w = Writer::new(context, &module.target)?;
    let unknown = Location::unknown(context);
    let header = |i: usize| Origin::of(carried.header.get(i), || unknown);
    block.append_operation(w.build(
        dialect::PHASE,
        header(0),
        &[w.phase(module.phase), w.order(module)],
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
        let n = &w.names;
        // In the dictionary's order (see `Scheduled`).
        let attributes = [
            (n.backed, w.boolean(b.backed)),
            (n.id, w.uint32(b.name)),
            (n.pos, w.pos(pos)?),
            (n.size, w.uint64(b.size)),
            (n.tier, w.string(&module.target.tier(b.tier).name)),
        ];
        let op = w.build(dialect::BUFFER, origin, &attributes, &[], Some(w.buf))?;
        buffers.push(result(block.append_operation(op))?);
    }

    let mut tokens: Vec<Option<Value<'c, '_>>> = vec![None; module.ops.len()];
    for &id in &module.schedule {
        let built = w.scheduled_op(module, id, carried, &buffers, &tokens)?;
        tokens[id.index()] = Some(result(block.append_operation(built))?);
    }
    Ok(())
}

/// What the exporter writes for one scheduled op: its MLIR name and its own attributes.
struct Scheduled<'c> {
    /// `lattice.alloc`, …
    pub name: &'static str,
    /// Its own attributes, as the exporter writes them, ordered by name as an attribute
    /// dictionary holds them: MLIR then takes the list as it is instead of sorting it (by string
    /// comparisons) for each of the tens of thousands of ops a pass writes.
    pub attributes: Vec<(Identifier<'c>, Attribute<'c>)>,
}

/// The operands of op `id` of `module`, as the C API's values (what the writer hands MLIR):
/// the values of the buffers it names, then its dependencies' tokens, from `buffers` and
/// `tokens` (by buffer and op index). Every dependency precedes its user in σ (the structural
/// verifier guarantees it), so its token exists already.
pub(crate) fn operands<'c, 'a>(
    module: &Module,
    id: OpId,
    buffers: &[Value<'c, 'a>],
    tokens: &[Option<Value<'c, 'a>>],
) -> Result<Vec<MlirValue>, BridgeError> {
    let op = module.op(id);
    let named: &[BufferId] = match &op.kind {
        OpKind::Alloc { buffer, .. }
        | OpKind::Free { buffer }
        | OpKind::SpillOut { buffer, .. }
        | OpKind::SpillIn { buffer, .. } => std::slice::from_ref(buffer),
        OpKind::Compute { operands, .. } => operands,
    };
    let mut values = Vec::with_capacity(named.len() + op.deps.len());
    values.extend(named.iter().map(|b| buffers[b.index()].to_raw()));
    for dep in &op.deps {
        let token = tokens.get(dep.op.index()).copied().flatten();
        let token = token.ok_or_else(|| {
            BridgeError::Export(format!(
                "op %{} depends on an op that does not precede it in the schedule",
                op.name
            ))
        })?;
        values.push(token.to_raw());
    }
    Ok(values)
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

/// The names of the attributes lattice ops define, uniqued once per [`Writer`] instead of once
/// per op written.
struct Names<'c> {
    phase: Identifier<'c>,
    order: Identifier<'c>,
    id: Identifier<'c>,
    pos: Identifier<'c>,
    tier: Identifier<'c>,
    size: Identifier<'c>,
    backed: Identifier<'c>,
    dep_kinds: Identifier<'c>,
    offset: Identifier<'c>,
    opcode: Identifier<'c>,
    pipe: Identifier<'c>,
    cycles: Identifier<'c>,
    segments: Identifier<'c>,
}

/// Builds attributes and ops of one module's target in one context; the names, types and
/// attributes every op repeats are made once.
pub(crate) struct Writer<'c> {
    context: &'c Context,
    /// `!lattice.buf`.
    buf: Type<'c>,
    /// `!lattice.token`.
    token: Type<'c>,
    ui32: Type<'c>,
    ui64: Type<'c>,
    /// Attribute names.
    names: Names<'c>,
    /// The word of each dependency kind, in [`KINDS`] order.
    kinds: [Attribute<'c>; 3],
    /// Each pipe's name, by pipe index.
    pipes: Vec<Attribute<'c>>,
    /// Each lattice op's name as looked up in the context, in [`dialect::OPS`] order (see
    /// `shim/create.cpp`).
    ops: [*const c_void; dialect::OPS.len()],
}

extern "C" {
    /// `shim/create.cpp`: op name `name` in `context`, as a handle valid while it lives.
    fn latticeMlirOperationName(context: MlirContext, name: MlirStringRef) -> *const c_void;
    /// `shim/create.cpp`: a detached op named `name` at `location` with the attributes of
    /// `dictionary` and the operands given and one result of type `result` unless that is null.
    fn latticeMlirCreateOperation(
        name: *const c_void,
        location: MlirLocation,
        dictionary: MlirAttribute,
        operand_count: isize,
        operands: *const MlirValue,
        result: MlirType,
    ) -> MlirOperation;
}

impl<'c> Writer<'c> {
    /// A writer for modules with `target`.
    pub(crate) fn new(context: &'c Context, target: &Target) -> Result<Self, BridgeError> {
        let parse = |text| {
            Type::parse(context, text)
                .ok_or_else(|| BridgeError::Dialect(format!("the type {text} is not defined")))
        };
        let name = |text| Identifier::new(context, text);
        let string = |text| -> Attribute<'c> { StringAttribute::new(context, text).into() };
        Ok(Writer {
            context,
            buf: parse(dialect::BUF_TYPE)?,
            token: parse(dialect::TOKEN_TYPE)?,
            ui32: IntegerType::unsigned(context, 32).into(),
            ui64: IntegerType::unsigned(context, 64).into(),
            names: Names {
                phase: name("phase"),
                order: name(dialect::ORDER),
                id: name("id"),
                pos: name(dialect::POS),
                tier: name("tier"),
                size: name("size"),
                backed: name("backed"),
                dep_kinds: name("dep_kinds"),
                offset: name("offset"),
                opcode: name("opcode"),
                pipe: name("pipe"),
                cycles: name("cycles"),
                segments: name(dialect::SEGMENT_SIZES),
            },
            kinds: KINDS.map(|kind| string(kind_word(kind))),
            pipes: target.pipes.iter().map(|p| string(p)).collect(),
            // SAFETY: the context is live and the shim keeps nothing of the name's bytes.
            ops: dialect::OPS.map(|op| unsafe {
                latticeMlirOperationName(context.to_raw(), StringRef::new(op).to_raw())
            }),
        })
    }

    fn named(&self, name: &str) -> Location<'c> {
        Location::name(self.context, name, Location::unknown(self.context))
    }

    /// The location of a scheduled op the module did not come with: its name, `%12`.
    fn op_location(&self, name: u32) -> Location<'c> {
        self.named(&format!("%{name}"))
    }

    fn string(&self, text: &str) -> Attribute<'c> {
        StringAttribute::new(self.context, text).into()
    }

    /// A `ui32`; the MLIR C API takes the bits as an `i64`.
    fn uint32(&self, value: u32) -> Attribute<'c> {
        IntegerAttribute::new(self.ui32, i64::from(value)).into()
    }

    /// A `ui64`; the MLIR C API takes the bits as an `i64` (a bit cast, which MLIR undoes).
    fn uint64(&self, value: u64) -> Attribute<'c> {
        IntegerAttribute::new(self.ui64, value as i64).into()
    }

    /// The phase op's attribute.
    pub(crate) fn phase(&self, phase: Phase) -> (Identifier<'c>, Attribute<'c>) {
        (self.names.phase, self.string(phase.keyword()))
    }

    /// The phase op's `order`: the ids of `module`'s scheduled ops in σ (`i64`, the widest
    /// element MLIR's dense arrays have, so every `ui32` id prints as itself).
    pub(crate) fn order(&self, module: &Module) -> (Identifier<'c>, Attribute<'c>) {
        let ids: Vec<i64> = sigma_names(module).map(i64::from).collect();
        let order = DenseI64ArrayAttribute::new(self.context, &ids).into();
        (self.names.order, order)
    }

    /// A buffer's `pos` attribute (`ui32`, like ids: a module has fewer than 2^32 buffers).
    fn pos(&self, pos: usize) -> Result<Attribute<'c>, BridgeError> {
        let pos = u32::try_from(pos)
            .map_err(|_| BridgeError::Export(format!("position {pos} overflows ui32")))?;
        Ok(self.uint32(pos))
    }

    fn boolean(&self, value: bool) -> Attribute<'c> {
        BoolAttribute::new(self.context, value).into()
    }

    fn dep_kinds(&self, deps: &[Dep]) -> Attribute<'c> {
        let kinds: Vec<Attribute<'c>> = deps
            .iter()
            .map(|d| self.kinds[kind_index(d.kind)])
            .collect();
        ArrayAttribute::new(self.context, &kinds).into()
    }

    fn segments(&self, buffers: usize, deps: usize) -> Result<Attribute<'c>, BridgeError> {
        let size = |n: usize| {
            i32::try_from(n).map_err(|_| BridgeError::Export(format!("{n} operands overflow i32")))
        };
        Ok(DenseI32ArrayAttribute::new(self.context, &[size(buffers)?, size(deps)?]).into())
    }

    /// The target op's attributes for `t`, the target this writer was made for.
    fn target(&self, t: &Target) -> Vec<(Identifier<'c>, Attribute<'c>)> {
        let name = |text| Identifier::new(self.context, text);
        let tiers: Vec<Attribute<'c>> = t
            .tiers
            .iter()
            .map(|tier| {
                let fields = [
                    (name("name"), self.string(&tier.name)),
                    (name("capacity"), self.uint64(tier.capacity)),
                    (name("staging"), self.boolean(tier.staging)),
                ];
                DictionaryAttribute::new(self.context, &fields).into()
            })
            .collect();
        vec![
            (
                name("tiers"),
                ArrayAttribute::new(self.context, &tiers).into(),
            ),
            (
                name("pipes"),
                // The writer's pipe names: it writes modules of this target.
                ArrayAttribute::new(self.context, &self.pipes).into(),
            ),
            (name("spill_out"), self.string(t.pipe(t.spill_out_pipe))),
            (name("spill_in"), self.string(t.pipe(t.spill_in_pipe))),
            (name("spill_cost_base"), self.uint64(t.spill_cost.base)),
            (
                name("spill_cost_per_byte"),
                self.uint64(t.spill_cost.per_byte),
            ),
            (name("l0_exclusive"), self.boolean(t.l0_exclusive)),
        ]
    }

    /// The op name and own attributes of op `id` of `module`.
    fn scheduled(&self, module: &Module, id: OpId) -> Result<Scheduled<'c>, BridgeError> {
        let op = module.op(id);
        let n = &self.names;
        let id_attr = (n.id, self.uint32(op.name));
        let kinds = (n.dep_kinds, self.dep_kinds(&op.deps));
        let pipe = |p: PipeId| (n.pipe, self.pipes[p.index()]);
        let cycles = |c: u64| (n.cycles, self.uint64(c));
        Ok(match &op.kind {
            OpKind::Alloc { offset, .. } => {
                let mut attributes = vec![kinds, id_attr];
                if let Some(offset) = offset {
                    attributes.push((n.offset, self.uint64(*offset)));
                }
                Scheduled {
                    name: dialect::ALLOC,
                    attributes,
                }
            }
            OpKind::Free { .. } => Scheduled {
                name: dialect::FREE,
                attributes: vec![kinds, id_attr],
            },
            OpKind::Compute {
                opcode,
                pipe: p,
                cycles: c,
                operands,
            } => Scheduled {
                name: dialect::COMMAND,
                attributes: vec![
                    cycles(*c),
                    kinds,
                    id_attr,
                    (n.opcode, self.string(opcode)),
                    (n.segments, self.segments(operands.len(), op.deps.len())?),
                    pipe(*p),
                ],
            },
            OpKind::SpillOut {
                pipe: p, cycles: c, ..
            } => Scheduled {
                name: dialect::SPILL_OUT,
                attributes: vec![cycles(*c), kinds, id_attr, pipe(*p)],
            },
            OpKind::SpillIn {
                offset,
                pipe: p,
                cycles: c,
                ..
            } => Scheduled {
                name: dialect::SPILL_IN,
                attributes: vec![
                    cycles(*c),
                    kinds,
                    id_attr,
                    (n.offset, self.uint64(*offset)),
                    pipe(*p),
                ],
            },
        })
    }

    /// Scheduled op `id` of `module` as the exporter writes it, at the location and with the
    /// foreign attributes `carried` keeps for it (else at its name, without any), its operands
    /// taken from `buffers` and `tokens` (see [`operands`]).
    pub(crate) fn scheduled_op<'a>(
        &self,
        module: &Module,
        id: OpId,
        carried: &Carried<'c>,
        buffers: &[Value<'c, 'a>],
        tokens: &[Option<Value<'c, 'a>>],
    ) -> Result<melior::ir::Operation<'c>, BridgeError> {
        let prepared = self.prepare_scheduled(module, id, carried)?;
        let operands = operands(module, id, buffers, tokens)?;
        Ok(self.create_scheduled(&prepared, &operands))
    }

    /// The scheduled op `prepared` describes (see [`Writer::prepare_scheduled`]), with
    /// `operands`, yielding its token.
    pub(crate) fn create_scheduled(
        &self,
        prepared: &Prepared<'c>,
        operands: &[MlirValue],
    ) -> melior::ir::Operation<'c> {
        self.create(prepared, operands, Some(self.token))
    }

    /// All of [`Writer::scheduled_op`] that needs no operand, which the ops before it in σ give:
    /// what can be made for many ops at once, across threads.
    pub(crate) fn prepare_scheduled(
        &self,
        module: &Module,
        id: OpId,
        carried: &Carried<'c>,
    ) -> Result<Prepared<'c>, BridgeError> {
        let name = module.op(id).name;
        let origin = Origin::of(carried.ops.get(&name), || self.op_location(name));
        let parts = self.scheduled(module, id)?;
        self.prepare(parts.name, origin, &parts.attributes)
    }

    /// Op `name`'s own `attributes`, then the `foreign` ones but those named like an attribute op
    /// `name` defines, written or not (a foreign attribute cannot change what the op means — a
    /// foreign `offset` on an alloc written without one would read back as its offset — and MLIR
    /// wants names unique); as the C API's named attributes, what the writer hands MLIR.
    fn with_foreign(
        name: &str,
        attributes: &[(Identifier<'c>, Attribute<'c>)],
        foreign: &[(Identifier<'c>, Attribute<'c>)],
    ) -> Vec<MlirNamedAttribute> {
        let raw = |(name, value): &(Identifier<'c>, Attribute<'c>)| MlirNamedAttribute {
            name: name.to_raw(),
            attribute: value.to_raw(),
        };
        let mut all = Vec::with_capacity(attributes.len() + foreign.len());
        all.extend(attributes.iter().map(raw));
        if !foreign.is_empty() {
            let defined = dialect::own_attributes(name);
            all.extend(
                foreign
                    .iter()
                    .filter(|(k, _)| {
                        !attributes.iter().any(|(own, _)| own == k)
                            && !identifier_str(*k).is_some_and(|k| defined.contains(&k))
                    })
                    .map(raw),
            );
        }
        all
    }

    /// The op `name` at `origin`, with `attributes` and the foreign attributes of `origin` (see
    /// [`Writer::with_foreign`]).
    fn build(
        &self,
        name: &str,
        origin: Origin<'_, 'c>,
        attributes: &[(Identifier<'c>, Attribute<'c>)],
        operands: &[MlirValue],
        result: Option<Type<'c>>,
    ) -> Result<melior::ir::Operation<'c>, BridgeError> {
        let prepared = self.prepare(name, origin, attributes)?;
        Ok(self.create(&prepared, operands, result))
    }

    /// The op name, location and attribute dictionary of the op `name` at `origin` with
    /// `attributes` (see [`Writer::build`]).
    fn prepare(
        &self,
        name: &str,
        origin: Origin<'_, 'c>,
        attributes: &[(Identifier<'c>, Attribute<'c>)],
    ) -> Result<Prepared<'c>, BridgeError> {
        let op_name = dialect::op_index(name)
            .map(|i| self.ops[i])
            .ok_or_else(|| BridgeError::Export(format!("{name} is not a lattice op")))?;
        let all = Self::with_foreign(name, attributes, origin.attributes);
        // The exporter writes its own attributes in dictionary order: unless foreign ones follow,
        // MLIR only checks the list, without sorting it.
        // SAFETY: the names and values belong to this writer's context, which is live, and are
        // distinct by name (`with_foreign`); the count is the list's length; MLIR copies the list.
        let dictionary = unsafe {
            Attribute::from_raw(mlir_sys::mlirDictionaryAttrGet(
                self.context.to_raw(),
                all.len() as isize,
                all.as_ptr(),
            ))
        };
        Ok(Prepared {
            op_name,
            location: origin.location,
            dictionary,
        })
    }

    /// The op `prepared` describes, with `operands` and one result of type `result`, if any.
    fn create(
        &self,
        prepared: &Prepared<'c>,
        operands: &[MlirValue],
        result: Option<Type<'c>>,
    ) -> melior::ir::Operation<'c> {
        let result = result.map_or(
            MlirType {
                ptr: std::ptr::null(),
            },
            |t| t.to_raw(),
        );
        // SAFETY: the name, location, dictionary, operands and type all belong to this writer's
        // context, which is live; the count is the list's length; the shim keeps nothing and
        // hands over a new detached op, owned from here by the `Operation`.
        unsafe {
            let op = latticeMlirCreateOperation(
                prepared.op_name,
                prepared.location.to_raw(),
                prepared.dictionary.to_raw(),
                operands.len() as isize,
                operands.as_ptr(),
                result,
            );
            melior::ir::Operation::from_raw(op)
        }
    }
}

/// An op made ready to be built, or its attributes to be replaced: everything but its operands.
pub(crate) struct Prepared<'c> {
    /// Its op name in the context (see `shim/create.cpp`).
    op_name: *const c_void,
    /// Where it comes from.
    location: Location<'c>,
    /// Its attributes, own and foreign, as one dictionary.
    pub dictionary: Attribute<'c>,
}

/// The names of `module`'s ops in σ: what the phase op's `order` lists.
pub(crate) fn sigma_names(module: &Module) -> impl Iterator<Item = u32> + '_ {
    module.schedule.iter().map(|&id| module.op(id).name)
}

/// Every dependency kind.
const KINDS: [DepKind; 3] = [DepKind::Precedence, DepKind::Spill, DepKind::Reuse];

/// The place of `kind` in [`KINDS`].
fn kind_index(kind: DepKind) -> usize {
    match kind {
        DepKind::Precedence => 0,
        DepKind::Spill => 1,
        DepKind::Reuse => 2,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::planned;
    use lattice_passes::generate::Shape;
    use std::collections::BTreeSet;

    /// `Scheduled` promises its attributes in the order MLIR keeps a dictionary in (names
    /// compared as bytes), for every op kind, with and without an offset on an alloc.
    #[test]
    fn scheduled_attributes_come_in_dictionary_order() {
        let context = crate::dialect::context().expect("loads the dialect");
        let mut module = planned(Shape::Matmul, 3);
        // One alloc loses its offset, so both forms of an alloc are written.
        let bound = module.op_ids().find(|&id| {
            matches!(
                module.op(id).kind,
                OpKind::Alloc {
                    offset: Some(_),
                    ..
                }
            )
        });
        if let Some(OpKind::Alloc { offset, .. }) = bound.map(|id| &mut module.op_mut(id).kind) {
            *offset = None;
        }
        let w = Writer::new(&context, &module.target).expect("writes the target");
        let mut kinds = BTreeSet::new();
        for id in module.op_ids() {
            let s = w.scheduled(&module, id).expect("writes the op");
            let names: Vec<&str> = s
                .attributes
                .iter()
                .map(|(name, _)| identifier_str(*name).expect("UTF-8"))
                .collect();
            assert!(
                names.windows(2).all(|p| p[0].as_bytes() < p[1].as_bytes()),
                "{}: {names:?}",
                s.name
            );
            let offset = names.contains(&"offset");
            kinds.insert((s.name, offset));
        }
        assert!(
            kinds.contains(&(dialect::ALLOC, false)) && kinds.contains(&(dialect::ALLOC, true))
        );
        for name in [
            dialect::FREE,
            dialect::COMMAND,
            dialect::SPILL_OUT,
            dialect::SPILL_IN,
        ] {
            assert!(
                kinds.iter().any(|(k, _)| *k == name),
                "no {name} in {kinds:?}"
            );
        }
    }
}
