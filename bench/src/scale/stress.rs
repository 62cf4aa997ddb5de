//! The stress workloads of `lattice-bench scale` (`--shape chain|fan-in|fan-out`): one UB buffer
//! on the contest core and `nodes` commands naming it, wired so that every check that walks the
//! DAG per op would show a quadratic cost — a walk back to the ALLOC or forward to the FREE from
//! every use of a buffer costs Σ k over a chain of uses.
//!
//! - `chain`: ALLOC, then `VADD`s each depending on the one before, then the FREE.
//! - `fan-out`: ALLOC, one `VADD` writing the buffer, then `VADD`s each depending on it alone,
//!   spread over the compute pipes, and a FREE after all of them.
//! - `fan-in`: ALLOC, `VADD`s each depending on the ALLOC alone, spread over the compute pipes,
//!   one `VADD` depending on all of them, then the FREE.
//!
//! Invariants: `nodes` counts every op (ALLOC and FREE included, at least 4); op `%i` is arena
//! index `i` and position `i` of σ, so σ is a topological order; every module passes the
//! structural verifier and plans without a spill. O(nodes) to build.

use lattice_lir::{Buffer, Dep, DepKind, Module, Op, OpId, OpKind, Target};
use std::fmt;

/// A stress workload's wiring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stress {
    /// A chain of uses.
    Chain,
    /// One writer, many readers, one FREE after them all.
    FanOut,
    /// Many writers, one reader after them all.
    FanIn,
}

impl Stress {
    /// Every workload, in the order `--help` lists them.
    pub const ALL: [Stress; 3] = [Stress::Chain, Stress::FanIn, Stress::FanOut];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Stress::Chain => "chain",
            Stress::FanIn => "fan-in",
            Stress::FanOut => "fan-out",
        }
    }

    /// The module of `nodes` ops (at least 4).
    pub fn build(self, nodes: usize) -> Module {
        let target = Target::contest();
        let tier = target.tier_named("UB").expect("the contest core has UB");
        let pipes: Vec<_> = ["VECTOR", "CUBE", "FIXP", "MTE1"]
            .iter()
            .map(|p| target.pipe_named(p).expect("the contest core has the pipe"))
            .collect();
        let mut m = Module::new(format!("{self}-n{nodes}"), target);
        let buffer = m.add_buffer(Buffer {
            name: 0,
            tier,
            size: 512,
            backed: false,
            loc: None,
        });
        let uses = nodes.max(4) - 2;
        let after = |ids: &mut dyn Iterator<Item = usize>| -> Vec<Dep> {
            ids.map(|i| Dep {
                op: OpId::new(i),
                kind: DepKind::Precedence,
            })
            .collect()
        };
        push(
            &mut m,
            OpKind::Alloc {
                buffer,
                offset: None,
            },
            Vec::new(),
        );
        for i in 1..=uses {
            let deps = match self {
                Stress::Chain => after(&mut std::iter::once(i - 1)),
                Stress::FanOut => after(&mut std::iter::once(if i == 1 { 0 } else { 1 })),
                Stress::FanIn if i == uses => after(&mut (1..uses)),
                Stress::FanIn => after(&mut std::iter::once(0)),
            };
            let pipe = match self {
                Stress::Chain => pipes[0],
                Stress::FanOut | Stress::FanIn => pipes[i % pipes.len()],
            };
            let kind = OpKind::Compute {
                opcode: "VADD".to_owned(),
                pipe,
                cycles: 1 + (i % 7) as u64,
                operands: vec![buffer],
            };
            push(&mut m, kind, deps);
        }
        let last = match self {
            Stress::Chain | Stress::FanIn => after(&mut std::iter::once(uses)),
            Stress::FanOut => after(&mut (2..=uses).chain((uses == 1).then_some(1))),
        };
        push(&mut m, OpKind::Free { buffer }, last);
        m
    }
}

/// Appends an op named after its index, at the end of σ.
fn push(m: &mut Module, kind: OpKind, deps: Vec<Dep>) -> OpId {
    let name = m.ops.len() as u32;
    m.push_op(Op {
        name,
        kind,
        deps,
        loc: None,
    })
}

impl fmt::Display for Stress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::verify_module;

    #[test]
    fn every_workload_is_valid_and_has_the_ops_asked_for() {
        for stress in Stress::ALL {
            for nodes in [4, 5, 1000] {
                let m = stress.build(nodes);
                assert_eq!(m.ops.len(), nodes, "{stress}");
                assert!(verify_module(&m).is_ok(), "{stress} {nodes}");
            }
        }
    }

    #[test]
    fn the_chain_is_a_chain_and_the_fans_fan() {
        let chain = Stress::Chain.build(100);
        assert!(chain.ops.iter().skip(1).all(|op| op.deps.len() == 1));
        assert_eq!(Stress::FanIn.build(100).ops[98].deps.len(), 97);
        assert_eq!(Stress::FanOut.build(100).ops[99].deps.len(), 97);
    }
}
