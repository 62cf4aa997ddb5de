//! The canonical copy: the module renumbered along an order read off its structure, so that the
//! search runs on one numbering whatever numbering the input came in.
//!
//! Why: the search's portfolio and chains break ties, draw moves and take L0 turns by id (the
//! task numbers τ, the op orders' turns, the lists the chains draw from), so two numberings of
//! one DAG searched as given end a few percent apart either way (docs/search.md). Searched on
//! this copy, every such choice is the same for every numbering; only MPAS's order, which the
//! caller computes on the module as given (the paper's pass, whose turns follow the input) and
//! hands in mapped onto the copy, and what is searched from it, still see the input's order;
//! so does the family floor, which runs the family of the module as given
//! (`super::family_floor`).
//!
//! The order is a post-order of a depth-first walk against the edges of the precedence graph
//! (dependencies and buffer lifetimes, no L0 turns) from its sinks, so each op comes just after
//! what it waits for, an ALLOC just before its buffer's first use, and one sink's cone is listed
//! before the next sink starts: the locality an input's own loop order usually has.
//! - A sink to start from: the one whose cone holds the earliest op already listed (`near`:
//!   the position of the first op listed in its cone, unset while none is), so the walk goes on
//!   next to what it has listed (on a matmul grid: the tiles sharing the first tile's first
//!   load, then those sharing its second, then row by row); among sinks with none listed, the
//!   deepest (longest path from a source) first.
//! - The producers of an op: the tallest (longest path to a sink) first, as the reverse
//!   depth-first family does (`super::family`).
//! - Every remaining tie by the structural fingerprint (`super::family::fingerprints`), then
//!   by `near`, and only then by id, so two numberings give different copies only where the
//!   refinement finds ops alike and `near` does not tell them apart (symmetric blocks no
//!   listed op breaks; the sinks' key puts `near` first).
//!
//! The copy's op `i` is the module's `original[i]`; orders map both ways, and an order error the
//! copy's stages report is renamed to the module's ops and buffers ([`Canonical::located`]).
//!
//! O((V + E) log V) for the walk, plus the fingerprints' O(ROUNDS · (V + E) log V) and the
//! renumbering's O(V + E + B log B); O(V + E + B) memory.

use super::family::fingerprints;
use crate::order::graph::Graph;
use crate::order::OrderError;
use crate::renumber::{renumber, RenumberError};
use lattice_lir::{Module, OpId};
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The module renumbered along its canonical order, with the maps between the two.
pub(crate) struct Canonical {
    /// The renumbered module (unplanned, [`crate::renumber::renumber`]).
    pub(crate) copy: Module,
    /// Per copy op: the module's op.
    original: Vec<OpId>,
    /// Per module op: the copy's op.
    of_original: Vec<OpId>,
    /// Per copy op and per copy buffer: the module's name for it.
    op_name: Vec<u32>,
    buffer_name: Vec<u32>,
}

impl Canonical {
    /// The canonical copy of `module` (unplanned, structurally verified).
    pub(crate) fn of(module: &Module) -> Result<Self, OrderError> {
        let graph = Graph::build_with(module, false)?;
        let original = order(&graph, &fingerprints(&graph));
        let copy = match renumber(module, &original) {
            Ok(copy) => copy,
            Err(RenumberError::Order(e)) => return Err(e),
            Err(other) => unreachable!("a topological order of every op renumbers: {other}"),
        };
        let mut of_original = vec![OpId::new(0); original.len()];
        for (i, &op) in original.iter().enumerate() {
            of_original[op.index()] = OpId::new(i);
        }
        let op_name = original.iter().map(|&op| module.op(op).name).collect();
        let mut buffer_name = vec![0; copy.buffers.len()];
        for (i, &op) in original.iter().enumerate() {
            let theirs = module.op(op).kind.buffers();
            for (mine, theirs) in copy.op(OpId::new(i)).kind.buffers().iter().zip(theirs) {
                buffer_name[mine.index()] = module.buffer(*theirs).name;
            }
        }
        Ok(Canonical {
            copy,
            original,
            of_original,
            op_name,
            buffer_name,
        })
    }

    /// `order` (the module's ops) as the copy's ops.
    pub(crate) fn to_copy(&self, order: &[OpId]) -> Vec<OpId> {
        order
            .iter()
            .map(|op| self.of_original[op.index()])
            .collect()
    }

    /// `order` (the copy's ops) as the module's ops.
    pub(crate) fn to_original(&self, order: &[OpId]) -> Vec<OpId> {
        order.iter().map(|op| self.original[op.index()]).collect()
    }

    /// Per copy op, `values` (one per module op) permuted onto the copy.
    pub(crate) fn permuted<T: Copy>(&self, values: &[T]) -> Vec<T> {
        self.original.iter().map(|op| values[op.index()]).collect()
    }

    /// `e`, reported on the copy, with the module's ops and buffers in place of the copy's.
    pub(crate) fn located(&self, e: OrderError) -> OrderError {
        use crate::order::Link;
        match e {
            OrderError::SharedL0Tier {
                op,
                tier,
                first,
                second,
                ..
            } => OrderError::SharedL0Tier {
                op: self.original[op.index()],
                op_name: self.op_name[op.index()],
                tier,
                first: self.buffer_name[first as usize],
                second: self.buffer_name[second as usize],
            },
            OrderError::Cycle {
                left,
                total,
                cycle,
                search,
            } => OrderError::Cycle {
                left,
                total,
                cycle: cycle
                    .into_iter()
                    .map(|mut step| {
                        step.name = self.op_name[step.op.index()];
                        step.op = self.original[step.op.index()];
                        if let Link::Lifetime { buffer } = &mut step.link {
                            *buffer = self.buffer_name[*buffer as usize];
                        }
                        step
                    })
                    .collect(),
                search,
            },
        }
    }
}

/// The canonical order of `graph`'s ops (see the header); `print` their fingerprints.
fn order(graph: &Graph<'_>, print: &[u64]) -> Vec<OpId> {
    let n = graph.len();
    let topo = graph.topological();
    let mut depth = vec![0u32; n];
    for &v in &topo {
        for &s in graph.succs(v) {
            depth[s.index()] = depth[s.index()].max(depth[v.index()] + 1);
        }
    }
    let mut height = vec![0u32; n];
    for &v in topo.iter().rev() {
        for &p in graph.preds(v) {
            height[p.index()] = height[p.index()].max(height[v.index()] + 1);
        }
    }
    let mut near = vec![u32::MAX; n];
    let sink_key = |v: usize, near: &[u32]| (near[v], Reverse(depth[v]), print[v], v);
    let mut sinks: BTreeSet<(u32, Reverse<u32>, u64, usize)> = (0..n)
        .filter(|&v| graph.succs(OpId::new(v)).is_empty())
        .map(|v| sink_key(v, &near))
        .collect();
    let mut listed = vec![false; n];
    let mut order: Vec<OpId> = Vec::with_capacity(n);
    // Per frame: the op and its producers still to visit, the next last.
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut reached: Vec<usize> = Vec::new();
    while let Some(&root) = sinks.first() {
        let root = root.3;
        stack.push((root, producers(graph, root, &height, &near, print)));
        while let Some((v, todo)) = stack.last_mut() {
            let v = *v;
            match todo.pop() {
                Some(p) if !listed[p] => {
                    let next = producers(graph, p, &height, &near, print);
                    stack.push((p, next));
                }
                Some(_) => {}
                None => {
                    stack.pop();
                    let position = order.len() as u32;
                    listed[v] = true;
                    order.push(OpId::new(v));
                    if graph.succs(OpId::new(v)).is_empty() {
                        sinks.remove(&sink_key(v, &near));
                    }
                    // Everything downstream not yet reached now has a listed op in its cone.
                    reached.push(v);
                    while let Some(u) = reached.pop() {
                        for s in graph.succs(OpId::new(u)) {
                            let s = s.index();
                            if near[s] == u32::MAX && !listed[s] {
                                if graph.succs(OpId::new(s)).is_empty() {
                                    sinks.remove(&sink_key(s, &near));
                                    near[s] = position;
                                    sinks.insert(sink_key(s, &near));
                                } else {
                                    near[s] = position;
                                }
                                reached.push(s);
                            }
                        }
                    }
                }
            }
        }
    }
    order
}

/// `v`'s producers in the order the walk visits them, the first last (a stack).
fn producers(
    graph: &Graph<'_>,
    v: usize,
    height: &[u32],
    near: &[u32],
    print: &[u64],
) -> Vec<usize> {
    let mut preds: Vec<usize> = graph
        .preds(OpId::new(v))
        .iter()
        .map(|p| p.index())
        .collect();
    preds.sort_by_key(|&p| Reverse((Reverse(height[p]), print[p], near[p], p)));
    preds
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use super::*;
    use crate::generate::{generate, GenSpec, Shape};
    use crate::renumber::random_topological;
    use lattice_lir::print_module;

    /// The copy is a renumbering (the maps invert each other, every op after what it waits
    /// for), and random renumberings of a module have the module's copy, on every shape whose
    /// ops the fingerprints all tell apart; where some share a fingerprint (a symmetric block
    /// no listed op breaks, e.g. a matmul grid's tiles), the ids may decide, so the copies may
    /// differ, but at least the attention, conv, random and resnet shapes must agree.
    #[test]
    fn renumbered_copies_of_a_module_have_one_canonical_copy() {
        let mut agreed = Vec::new();
        for shape in Shape::ALL {
            let module = generate(&GenSpec {
                shape,
                nodes: 300,
                seed: 4,
            });
            let canonical = Canonical::of(&module).expect("canonical");
            let ids: Vec<OpId> = module.op_ids().collect();
            assert_eq!(canonical.to_original(&canonical.to_copy(&ids)), ids);
            let graph = Graph::build_with(&canonical.copy, false).expect("builds");
            for v in canonical.copy.op_ids() {
                assert!(graph.preds(v).iter().all(|p| p < &v), "{shape:?}");
            }
            let text = print_module(&canonical.copy);
            let same = (1..=3).all(|seed| {
                let order = random_topological(&module, seed).expect("orders");
                let copy = renumber(&module, &order).expect("renumbers");
                print_module(&Canonical::of(&copy).expect("canonical").copy) == text
            });
            let mut print = fingerprints(&Graph::build_with(&module, false).expect("builds"));
            print.sort_unstable();
            let ties = print.windows(2).any(|w| w[0] == w[1]);
            assert!(same || ties, "{shape:?}: copies differ without a tie");
            if same {
                agreed.push(shape);
            }
        }
        for shape in [Shape::Attention, Shape::Conv, Shape::Random, Shape::Resnet] {
            assert!(agreed.contains(&shape), "{shape:?}: {agreed:?}");
        }
    }
}
