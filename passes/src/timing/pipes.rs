//! The per-pipe resource order ρ: for each pipe, its ops in issue order. DESIGN §1.3 reads it off
//! σ (the order of the pipe's ops in σ); CPE changes it and writes it back as a new σ.
//!
//! Invariants: every op with a pipe that σ lists is in exactly one chain, its own pipe's, and
//! `slot` gives its position there, so the previous and next op of a pipe and an adjacent swap
//! are O(1). Building from σ is O(V).

use super::graph::FixedGraph;
use lattice_lir::OpId;

const NONE: usize = usize::MAX;

/// Issue order of every pipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipeOrder {
    chains: Vec<Vec<OpId>>,
    /// Position of every op in its pipe's chain (`NONE` for ops without a pipe or not listed).
    slot: Vec<usize>,
}

impl PipeOrder {
    /// The order σ implies: each pipe's ops in σ order (ids outside the graph and repeats, which
    /// a structurally valid σ does not have, are skipped).
    pub fn of_sigma(graph: &FixedGraph, sigma: &[OpId]) -> Self {
        let mut chains = vec![Vec::new(); graph.pipe_count()];
        let mut seen = vec![false; graph.len()];
        for &v in sigma {
            if v.index() >= graph.len() || std::mem::replace(&mut seen[v.index()], true) {
                continue;
            }
            if let Some(chain) = graph.pipe(v).and_then(|p| chains.get_mut(p.index())) {
                chain.push(v);
            }
        }
        Self::from_chains(graph, chains)
    }

    /// An order given chain by chain (indexed by pipe id); each op must sit on its own pipe's
    /// chain once.
    pub fn from_chains(graph: &FixedGraph, chains: Vec<Vec<OpId>>) -> Self {
        let mut slot = vec![NONE; graph.len()];
        for chain in &chains {
            for (i, &v) in chain.iter().enumerate() {
                slot[v.index()] = i;
            }
        }
        PipeOrder { chains, slot }
    }

    /// Every pipe's ops in issue order, indexed by pipe id.
    pub fn chains(&self) -> &[Vec<OpId>] {
        &self.chains
    }

    /// The op issued just before `v` on its pipe.
    pub fn prev(&self, graph: &FixedGraph, v: OpId) -> Option<OpId> {
        let i = self.slot[v.index()];
        if i == NONE || i == 0 {
            return None;
        }
        let p = graph.pipe(v)?;
        Some(self.chains[p.index()][i - 1])
    }

    /// The op issued just after `v` on its pipe.
    pub fn next(&self, graph: &FixedGraph, v: OpId) -> Option<OpId> {
        let i = self.slot[v.index()];
        if i == NONE {
            return None;
        }
        let p = graph.pipe(v)?;
        self.chains[p.index()].get(i + 1).copied()
    }

    /// Swaps `v` with the op issued just after it on its pipe; false (and no change) when `v` is
    /// the last of its pipe or has none.
    pub fn swap_with_next(&mut self, graph: &FixedGraph, v: OpId) -> bool {
        let Some(w) = self.next(graph, v) else {
            return false;
        };
        let (i, j) = (self.slot[v.index()], self.slot[w.index()]);
        if let Some(p) = graph.pipe(v) {
            self.chains[p.index()].swap(i, j);
        }
        self.slot[v.index()] = j;
        self.slot[w.index()] = i;
        true
    }
}
