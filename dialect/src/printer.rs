//! Prints a [`Module`] as LIR text.
//!
//! The output is canonical: one declaration or op per line, ops in σ order, dependencies in the
//! order stored, nothing taken from a hash map. It is exactly what the parser reads back, so
//! `print(parse(print(m))) == print(m)` for every module `m` whose names are well formed.
//! Complexity: O(V + E) in ops and dependencies.

use crate::module::{Module, Op, OpKind};
use std::fmt::Write;

/// The module as LIR text, ending with a newline.
pub fn print_module(module: &Module) -> String {
    let mut out = String::with_capacity(64 * (module.ops.len() + module.buffers.len()) + 256);
    write_module(&mut out, module).expect("writing to a String cannot fail");
    out
}

fn write_module(out: &mut String, m: &Module) -> std::fmt::Result {
    let t = &m.target;
    writeln!(out, "module @{} phase({}) {{", m.name, m.phase)?;
    out.push_str("  target {\n    tiers ");
    for (i, tier) in t.tiers.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let staging = if tier.staging { " l0" } else { "" };
        write!(out, "{sep}{} = {}{staging}", tier.name, tier.capacity)?;
    }
    writeln!(out, "\n    pipes {}", t.pipes.join(", "))?;
    writeln!(
        out,
        "    spill_out {}, spill_in {}, spill_cost = {} + {} * size",
        t.pipe(t.spill_out_pipe),
        t.pipe(t.spill_in_pipe),
        t.spill_cost.base,
        t.spill_cost.per_byte
    )?;
    writeln!(out, "    l0_exclusive = {}\n  }}", t.l0_exclusive)?;
    for b in &m.buffers {
        let backed = if b.backed { " backed" } else { "" };
        writeln!(
            out,
            "  buffer @b{} : {}[{}]{backed}",
            b.name,
            t.tier(b.tier).name,
            b.size
        )?;
    }
    for &id in &m.schedule {
        write_op(out, m, m.op(id))?;
    }
    out.push_str("}\n");
    Ok(())
}

fn write_op(out: &mut String, m: &Module, op: &Op) -> std::fmt::Result {
    let t = &m.target;
    let buf = |id: crate::ids::BufferId| m.buffer(id).name;
    write!(out, "  %{} = ", op.name)?;
    match &op.kind {
        OpKind::Alloc { buffer, offset } => {
            write!(out, "alloc @b{}", buf(*buffer))?;
            if let Some(offset) = offset {
                write!(out, " at {offset}")?;
            }
        }
        OpKind::Free { buffer } => write!(out, "free @b{}", buf(*buffer))?,
        OpKind::SpillOut {
            buffer,
            pipe,
            cycles,
        } => write!(
            out,
            "spill_out @b{} {} {cycles}",
            buf(*buffer),
            t.pipe(*pipe)
        )?,
        OpKind::SpillIn {
            buffer,
            offset,
            pipe,
            cycles,
        } => write!(
            out,
            "spill_in @b{} at {offset} {} {cycles}",
            buf(*buffer),
            t.pipe(*pipe)
        )?,
        OpKind::Compute {
            opcode,
            pipe,
            cycles,
            operands,
        } => {
            write!(out, "{opcode} {} {cycles} (", t.pipe(*pipe))?;
            for (i, &b) in operands.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(out, "{sep}@b{}", buf(b))?;
            }
            out.push(')');
        }
    }
    if !op.deps.is_empty() {
        out.push_str(" after(");
        for (i, dep) in op.deps.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(out, "{sep}%{}", m.op(dep.op).name)?;
            if let Some(kind) = dep.kind.suffix() {
                write!(out, " {kind}")?;
            }
        }
        out.push(')');
    }
    out.push('\n');
    Ok(())
}
