//! Order level: every dependency, of any kind, is placed before its user in σ.
//!
//! Dependencies on ops that σ does not list were already reported as coverage and are skipped.
//! Requires ids in range. O(V + E).

use super::category::{Category, Violation};
use super::sigma::Sigma;
use lattice_lir::{DepKind, Module};

/// Reports every dependency that σ places at or after its user.
pub(crate) fn check_edges(m: &Module, sigma: &Sigma, out: &mut Vec<Violation>) {
    for &id in &sigma.order {
        let op = m.op(id);
        for dep in &op.deps {
            if sigma.has(dep.op) && sigma.pos[dep.op.index()] >= sigma.pos[id.index()] {
                let message = format!(
                    "%{} depends on %{} ({}), which σ places after it",
                    op.name,
                    m.op(dep.op).name,
                    kind_name(dep.kind)
                );
                out.push(Violation::new(Some(id), Category::EdgeOrder, message));
            }
        }
    }
}

/// How a dependency kind is named in messages.
pub(crate) fn kind_name(kind: DepKind) -> &'static str {
    match kind {
        DepKind::Precedence => "precedence",
        DepKind::Spill => "spill",
        DepKind::Reuse => "reuse",
    }
}
