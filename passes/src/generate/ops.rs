//! The command vocabulary of generated workloads: which opcode runs on which pipe, between which
//! tiers, for how many cycles.
//!
//! Pipes follow the Da Vinci data path of the public cases: COPY_IN on MTE2 (DDR → L1/UB, which
//! makes the buffer `backed`), MOVE and IMG2COL on MTE1 (L1 → L0A/L0B), MATMUL and CONV on CUBE
//! (L0A × L0B → L0C; or, as in Conv_Case0, CONV and CONV_ADD from an L0B weight and L1 tiles into
//! an L1 tile), FIXPIPE on FIXP (L0C → UB/L1), vector ops on VECTOR (UB → UB), COPY (UB →
//! L1) and COPY_OUT (UB/L1 → DDR) on MTE3. Cycle counts are linear fits of the public cases by
//! opcode and size (for example COPY_IN is 69 + 2·size: 128 → 325, 256 → 581, 768 → 1605), so
//! generated workloads have the cases' balance between pipes. Every function emits one command
//! in O(operands).

use super::builder::{Access, Builder};
use lattice_lir::BufferId;

/// A CUBE command: both multiply an L0A and an L0B tile into an L0C accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cube {
    /// A matrix multiply (`MATMUL`).
    Matmul,
    /// A convolution over an img2col'd patch (`CONV`).
    Conv,
}

/// A VECTOR command on UB buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vector {
    Add,
    Sub,
    Mul,
    Max,
    Exp,
    RowMax,
    RowSum,
    Rec,
    Relu,
    Cast,
}

impl Vector {
    /// The elementwise ops, for workloads that want "some vector op".
    pub(crate) const ELEMENTWISE: [Vector; 6] = [
        Vector::Add,
        Vector::Sub,
        Vector::Mul,
        Vector::Max,
        Vector::Relu,
        Vector::Cast,
    ];

    fn opcode(self) -> &'static str {
        match self {
            Vector::Add => "ADD",
            Vector::Sub => "SUB",
            Vector::Mul => "MUL",
            Vector::Max => "MAX",
            Vector::Exp => "EXP",
            Vector::RowMax => "ROWMAX",
            Vector::RowSum => "ROWSUM",
            Vector::Rec => "REC",
            Vector::Relu => "RELU",
            Vector::Cast => "CAST",
        }
    }

    /// Cycles on `size` bytes (the largest operand): base + size · num / den.
    fn cycles(self, size: u64) -> u64 {
        let (base, num, den) = match self {
            Vector::Add | Vector::Mul | Vector::Max | Vector::Relu => (22, 1, 8),
            Vector::Cast => (24, 1, 4),
            Vector::Sub => (22, 1, 1),
            Vector::Exp => (30, 3, 2),
            Vector::RowMax => (22, 9, 4),
            Vector::RowSum => (22, 5, 2),
            Vector::Rec => (35, 1, 1),
        };
        linear(base, num, den, size)
    }
}

/// `base + size · num / den`, saturating.
fn linear(base: u64, num: u64, den: u64, size: u64) -> u64 {
    base.saturating_add(size.saturating_mul(num) / den.max(1))
}

impl Builder {
    /// DDR → `dst` (L1 or UB) on MTE2.
    pub(crate) fn copy_in(&mut self, dst: BufferId) {
        let cycles = linear(69, 2, 1, self.size(dst));
        let pipe = self.machine.mte2;
        self.command("COPY_IN", pipe, cycles, &[dst], Access::Write);
    }

    /// `src` (UB or L1) → DDR on MTE3.
    pub(crate) fn copy_out(&mut self, src: BufferId) {
        let size = self.size(src);
        let cycles = if self.tier_of(src) == self.machine.ub.id {
            linear(149, 1, 3, size)
        } else {
            linear(172, 2, 1, size)
        };
        let pipe = self.machine.mte3;
        self.command("COPY_OUT", pipe, cycles, &[src], Access::Read);
    }

    /// An L1 tile `src` → `dst` (L0A or L0B) on MTE1.
    pub(crate) fn move_l0(&mut self, dst: BufferId, src: BufferId) {
        let cycles = linear(26, 1, 4, self.size(dst));
        let pipe = self.machine.mte1;
        self.command("MOVE", pipe, cycles, &[dst, src], Access::Write);
    }

    /// An img2col patch of the L1 feature map `src` → `dst` (L0A) on MTE1.
    pub(crate) fn img2col(&mut self, dst: BufferId, src: BufferId) {
        let cycles = linear(30, 1, 2, self.size(dst));
        let pipe = self.machine.mte1;
        self.command("IMG2COL", pipe, cycles, &[dst, src], Access::Write);
    }

    /// `acc` (L0C) += `b` (L0B) × `a` (L0A) on CUBE; operand order as in the cases.
    pub(crate) fn cube(&mut self, op: Cube, acc: BufferId, b: BufferId, a: BufferId) {
        let (opcode, cycles) = match op {
            Cube::Matmul => ("MATMUL", linear(0, 1, 2, self.size(acc))),
            Cube::Conv => ("CONV", linear(28, self.size(b), 256, self.size(acc))),
        };
        let pipe = self.machine.cube;
        self.command(opcode, pipe, cycles, &[acc, b, a], Access::Write);
    }

    /// `out` (L1) += the L0B weight tile `weight` convolved over the L1 tiles `inputs` on CUBE, as
    /// the Conv cases compute straight from L1; `add` makes it a CONV_ADD, whose last input is
    /// the residual added in. Cycles: 28 + weight · max(out, inputs) / 64 (bytes), a fit of
    /// Conv_Case0's CONVs (8-byte weights over 2 bytes: 28; 72 over 1,536: 1,756 against 1,783).
    pub(crate) fn conv_l1(
        &mut self,
        out: BufferId,
        weight: BufferId,
        inputs: &[BufferId],
        add: bool,
    ) {
        let read: u64 = inputs.iter().map(|&b| self.size(b)).sum();
        let span = read.max(self.size(out));
        let cycles = linear(28, self.size(weight), 64, span);
        let mut operands = Vec::with_capacity(inputs.len() + 2);
        operands.extend([out, weight]);
        operands.extend_from_slice(inputs);
        let opcode = if add { "CONV_ADD" } else { "CONV" };
        let pipe = self.machine.cube;
        self.command(opcode, pipe, cycles, &operands, Access::Write);
    }

    /// The L0C accumulator `src` → `dst` (UB or L1) on FIXP.
    pub(crate) fn fixpipe(&mut self, dst: BufferId, src: BufferId) {
        let cycles = linear(9, 1, 4, self.size(dst));
        let pipe = self.machine.fixp;
        self.command("FIXPIPE", pipe, cycles, &[dst, src], Access::Write);
    }

    /// A UB buffer `src` → `dst` in L1 on MTE3.
    pub(crate) fn ub_to_l1(&mut self, dst: BufferId, src: BufferId) {
        let cycles = linear(143, 1, 1, self.size(src));
        let pipe = self.machine.mte3;
        self.command("COPY", pipe, cycles, &[dst, src], Access::Write);
    }

    /// `dst` = `op`(`srcs`) on VECTOR; `dst` may be one of the inputs' former values (in place).
    pub(crate) fn vector(&mut self, op: Vector, dst: BufferId, srcs: &[BufferId]) {
        let size = srcs
            .iter()
            .map(|&b| self.size(b))
            .fold(self.size(dst), u64::max);
        let mut operands = Vec::with_capacity(srcs.len() + 1);
        operands.push(dst);
        operands.extend_from_slice(srcs);
        let pipe = self.machine.vector;
        self.command(op.opcode(), pipe, op.cycles(size), &operands, Access::Write);
    }
}
