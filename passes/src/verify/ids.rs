//! The first check of the replay: every id the module stores points into its arena (ops, buffers,
//! tiers, pipes, dependencies, σ and the target's spill pipes).
//!
//! The structural verifier checks the same, but the replay trusts nothing it did not check itself:
//! every later check indexes arenas directly, which is safe only once this one found nothing.
//! O(V + E + B).

use super::category::{Category, Violation};
use lattice_lir::Module;

/// Reports every out-of-range id; returns whether there was none.
pub(crate) fn check_ids(m: &Module, out: &mut Vec<Violation>) -> bool {
    let before = out.len();
    let mut dangling = |what: String, entity: &str, index: usize| {
        let message = format!("{what} refers to {entity} #{index}, which does not exist");
        out.push(Violation::new(None, Category::Dangling, message));
    };
    let t = &m.target;
    for (i, b) in m.buffers.iter().enumerate() {
        if b.tier.index() >= t.tiers.len() {
            dangling(
                format!("buffer @b{} (#{i})", b.name),
                "tier",
                b.tier.index(),
            );
        }
    }
    for p in [t.spill_out_pipe, t.spill_in_pipe] {
        if p.index() >= t.pipes.len() {
            dangling("the target's spill model".into(), "pipe", p.index());
        }
    }
    for (i, op) in m.ops.iter().enumerate() {
        let what = || format!("op %{} (#{i})", op.name);
        for b in op.kind.buffers() {
            if b.index() >= m.buffers.len() {
                dangling(what(), "buffer", b.index());
            }
        }
        if let Some(p) = op.kind.pipe() {
            if p.index() >= t.pipes.len() {
                dangling(what(), "pipe", p.index());
            }
        }
        for d in &op.deps {
            if d.op.index() >= m.ops.len() {
                dangling(what(), "op", d.op.index());
            }
        }
    }
    for id in &m.schedule {
        if id.index() >= m.ops.len() {
            dangling("the schedule".into(), "op", id.index());
        }
    }
    out.len() == before
}
