//! Emits a generated module op by op: σ is the emission order, and the dependencies are derived
//! from how each command accesses its buffers.
//!
//! Invariants it keeps for every shape (DESIGN §1.1): op and buffer names are dense from 0 in
//! emission order, and op `%i` is arena index `i` and position `i` of σ; an ALLOC has no
//! dependency and no op ever depends on a FREE; every user of a buffer depends on its ALLOC and
//! its FREE depends on the ALLOC and every user; a command depends on the last writer of each
//! buffer it names (read after write, write after write) and a writer on every reader since that
//! write (write after read). All dependencies point back in σ, so σ is a topological order and the
//! graph is acyclic by construction. A buffer named by a `COPY_IN` is `backed`.
//!
//! While emitting, the builder places every ALLOC with the trivial plan's allocator
//! ([`TierSpace`]), so a shape can ask whether a buffer fits before allocating it. Complexity:
//! O(deps) per command, O(users) per FREE, O(live buffers of the tier) per ALLOC and FREE.

use super::machine::Machine;
use super::space::TierSpace;
use lattice_lir::{
    Buffer, BufferId, Dep, DepKind, Module, Op, OpId, OpKind, PipeId, Target, TierId,
};

/// How a command touches its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// `operands[0]` is written (and may be read), the rest are read.
    Write,
    /// Every operand is only read.
    Read,
}

/// What the builder remembers about a buffer.
#[derive(Clone, Debug)]
struct BufState {
    alloc: OpId,
    writer: Option<OpId>,
    /// Readers since the last write.
    readers: Vec<OpId>,
    /// Every user so far, in σ order.
    users: Vec<OpId>,
    live: bool,
}

/// A module under construction.
pub(crate) struct Builder {
    module: Module,
    /// The tiers and pipes commands are emitted on.
    pub(crate) machine: Machine,
    state: Vec<BufState>,
    spaces: Vec<TierSpace>,
    live: usize,
}

impl Builder {
    /// An empty `parsed` module called `name` on `target`, whose tiers and pipes `machine` names.
    pub(crate) fn new(name: String, target: Target, machine: Machine) -> Self {
        let module = Module::new(name, target);
        let spaces = module
            .target
            .tiers
            .iter()
            .map(|t| TierSpace::new(t.capacity))
            .collect();
        Builder {
            module,
            machine,
            state: Vec::new(),
            spaces,
            live: 0,
        }
    }

    /// Ops emitted so far.
    pub(crate) fn len(&self) -> usize {
        self.module.ops.len()
    }

    /// Buffers allocated and not yet freed: each still owes one FREE.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Whether a buffer of `size` bytes in `tier` would be placed now.
    pub(crate) fn fits(&self, tier: TierId, size: u64) -> bool {
        self.spaces
            .get(tier.index())
            .is_some_and(|s| s.find(size).is_some())
    }

    /// The tier of `buffer`.
    pub(crate) fn tier_of(&self, buffer: BufferId) -> TierId {
        self.module.buffer(buffer).tier
    }

    /// The size of `buffer`.
    pub(crate) fn size(&self, buffer: BufferId) -> u64 {
        self.module.buffer(buffer).size
    }

    fn push(&mut self, kind: OpKind, mut deps: Vec<OpId>) -> OpId {
        deps.sort_unstable();
        deps.dedup();
        let name = u32::try_from(self.module.ops.len()).unwrap_or(u32::MAX);
        let deps = deps
            .into_iter()
            .map(|op| Dep {
                op,
                kind: DepKind::Precedence,
            })
            .collect();
        self.module.push_op(Op {
            name,
            kind,
            deps,
            loc: None,
        })
    }

    /// Declares a buffer and emits its ALLOC. A buffer that does not fit is still emitted (the
    /// module stays well formed) but left unplaced; the shapes' size bounds rule that out, and
    /// [`super::trivial_plan`] would report it.
    pub(crate) fn alloc(&mut self, tier: TierId, size: u64) -> BufferId {
        let name = u32::try_from(self.module.buffers.len()).unwrap_or(u32::MAX);
        let buffer = self.module.add_buffer(Buffer {
            name,
            tier,
            size,
            backed: false,
            loc: None,
        });
        if let Some(space) = self.spaces.get_mut(tier.index()) {
            if let Some(at) = space.find(size) {
                space.take(buffer, at, size);
            }
        }
        let alloc = self.push(
            OpKind::Alloc {
                buffer,
                offset: None,
            },
            Vec::new(),
        );
        self.state.push(BufState {
            alloc,
            writer: None,
            readers: Vec::new(),
            users: Vec::new(),
            live: true,
        });
        self.live += 1;
        buffer
    }

    /// Emits a command on `pipe` naming `operands` (all live), accessed as `access` says.
    pub(crate) fn command(
        &mut self,
        opcode: &str,
        pipe: PipeId,
        cycles: u64,
        operands: &[BufferId],
        access: Access,
    ) {
        let mut deps = Vec::with_capacity(2 * operands.len() + 2);
        for (i, b) in operands.iter().enumerate() {
            let st = &self.state[b.index()];
            deps.push(st.alloc);
            deps.extend(st.writer);
            if i == 0 && access == Access::Write {
                deps.extend_from_slice(&st.readers);
            }
        }
        if opcode == "COPY_IN" {
            for b in operands {
                self.module.buffers[b.index()].backed = true;
            }
        }
        let kind = OpKind::Compute {
            opcode: opcode.to_owned(),
            pipe,
            cycles,
            operands: operands.to_vec(),
        };
        let id = self.push(kind, deps);
        for (i, b) in operands.iter().enumerate() {
            let st = &mut self.state[b.index()];
            if st.users.last() != Some(&id) {
                st.users.push(id);
            }
            if i == 0 && access == Access::Write {
                st.writer = Some(id);
                st.readers.clear();
            } else if st.readers.last() != Some(&id) {
                st.readers.push(id);
            }
        }
    }

    /// Emits the FREE of `buffer`; a buffer already freed is left alone.
    pub(crate) fn free(&mut self, buffer: BufferId) {
        let Some(st) = self.state.get_mut(buffer.index()).filter(|s| s.live) else {
            return;
        };
        st.live = false;
        st.readers = Vec::new();
        let mut deps = std::mem::take(&mut st.users);
        deps.push(st.alloc);
        let tier = self.module.buffer(buffer).tier;
        if let Some(space) = self.spaces.get_mut(tier.index()) {
            space.release(buffer);
        }
        self.live -= 1;
        self.push(OpKind::Free { buffer }, deps);
    }

    /// Frees every live buffer, in allocation order.
    pub(crate) fn free_all(&mut self) {
        for b in 0..self.state.len() {
            self.free(BufferId::new(b));
        }
    }

    /// The finished module.
    pub(crate) fn finish(self) -> Module {
        self.module
    }
}
