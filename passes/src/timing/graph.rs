//! The fixed graph G_fixed of a planned module as compressed adjacency: one node per op of the
//! arena and a *timed* edge for every dependency (precedence, spill and reuse alike, DESIGN §1.3).
//! A caller may add *order-only* edges: constraints on σ that the timing does not see (CPE adds
//! residency containment and the order of memory events). Both kinds bound every topological
//! order; only timed edges delay a start. Each op keeps its cycles and its pipe.
//!
//! Invariants: each adjacency list holds an edge once (duplicates and self-loops are dropped, and
//! an order-only edge that duplicates a timed one is dropped; edges naming an op outside the arena
//! are ignored — the structural verifier reports them), sorted by op id, so everything computed
//! over the graph is deterministic. Acyclicity is not assumed here: [`super::evaluate`] detects
//! cycles. O(V + E) time and space: edge lists are put in order by counting sorts on op ids,
//! which at a million ops is several times faster than comparison sorts of the pairs.

use lattice_lir::{Module, OpId, PipeId};

/// Compressed adjacency of one edge kind, both directions.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Adjacency {
    pred_first: Vec<usize>,
    preds: Vec<OpId>,
    succ_first: Vec<usize>,
    succs: Vec<OpId>,
}

impl Adjacency {
    /// From sorted, deduplicated `(from, to)` pairs.
    fn new(n: usize, edges: Vec<(OpId, OpId)>) -> Self {
        let (succ_first, succs) = compress(n, edges.iter().copied());
        // Stable by `to` on pairs sorted by `from`: sorted by (to, from).
        let by_to = counting_sort(n, &edges, |&(_, b)| b);
        let (pred_first, preds) = compress(n, by_to.iter().map(|&(a, b)| (b, a)));
        Adjacency {
            pred_first,
            preds,
            succ_first,
            succs,
        }
    }

    fn preds(&self, v: OpId) -> &[OpId] {
        &self.preds[self.pred_first[v.index()]..self.pred_first[v.index() + 1]]
    }

    fn succs(&self, v: OpId) -> &[OpId] {
        &self.succs[self.succ_first[v.index()]..self.succ_first[v.index() + 1]]
    }
}

/// G_fixed with every op's duration and pipe, and optional order-only edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedGraph {
    timed: Adjacency,
    order_only: Adjacency,
    cycles: Vec<u64>,
    pipe: Vec<Option<PipeId>>,
    pipes: usize,
}

impl FixedGraph {
    /// The dependencies of `module`, as §1.3 times them.
    pub fn of(module: &Module) -> Self {
        Self::with_order_edges(module, Vec::new())
    }

    /// The dependencies of `module` plus order-only edges `(from, to)`.
    pub fn with_order_edges(module: &Module, extra: Vec<(OpId, OpId)>) -> Self {
        Self::assemble(module, |i| i, extra)
    }

    /// [`Self::with_order_edges`] with op `v` of `module` as node `position[v]`: a permutation of
    /// the ops, which `extra` is already in: the graph a relabeled copy of the module would
    /// have, without making the copy.
    pub fn relabeled(module: &Module, position: &[usize], extra: Vec<(OpId, OpId)>) -> Self {
        Self::assemble(module, |i| position[i], extra)
    }

    fn assemble(
        module: &Module,
        label: impl Fn(usize) -> usize,
        mut extra: Vec<(OpId, OpId)>,
    ) -> Self {
        let n = module.ops.len();
        let mut edges: Vec<(OpId, OpId)> = Vec::with_capacity(module.dep_count());
        for (i, op) in module.ops.iter().enumerate() {
            let to = OpId::new(label(i));
            edges.extend(
                op.deps
                    .iter()
                    .filter(|d| d.op.index() < n && d.op.index() != i)
                    .map(|d| (OpId::new(label(d.op.index())), to)),
            );
        }
        let mut edges = sorted_pairs(n, &edges);
        edges.dedup();
        let keep = |&(a, b): &(OpId, OpId)| a != b && a.index() < n && b.index() < n;
        extra.retain(keep);
        let mut extra = sorted_pairs(n, &extra);
        extra.dedup();
        // Both lists sorted: one merge drops the order-only edges that are timed ones too.
        let mut timed = edges.iter().peekable();
        extra.retain(|e| {
            while timed.next_if(|t| *t < e).is_some() {}
            timed.peek() != Some(&e)
        });
        let mut cycles = vec![0; n];
        let mut pipe = vec![None; n];
        for (i, op) in module.ops.iter().enumerate() {
            cycles[label(i)] = op.kind.cycles();
            pipe[label(i)] = op.kind.pipe();
        }
        FixedGraph {
            timed: Adjacency::new(n, edges),
            order_only: Adjacency::new(n, extra),
            cycles,
            pipe,
            pipes: module.target.pipes.len(),
        }
    }

    /// The same graph with every edge turned around (pipes and cycles kept): scheduling it
    /// forwards schedules the original backwards. O(1) beyond the copy.
    pub fn reversed(&self) -> Self {
        let flip = |a: &Adjacency| Adjacency {
            pred_first: a.succ_first.clone(),
            preds: a.succs.clone(),
            succ_first: a.pred_first.clone(),
            succs: a.preds.clone(),
        };
        FixedGraph {
            timed: flip(&self.timed),
            order_only: flip(&self.order_only),
            cycles: self.cycles.clone(),
            pipe: self.pipe.clone(),
            pipes: self.pipes,
        }
    }

    /// Number of nodes (ops in the arena).
    pub fn len(&self) -> usize {
        self.cycles.len()
    }

    /// Whether the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// Number of edges of both kinds.
    pub fn edge_count(&self) -> usize {
        self.timed.succs.len() + self.order_only.succs.len()
    }

    /// Number of pipes of the target.
    pub fn pipe_count(&self) -> usize {
        self.pipes
    }

    /// The ops whose end `v` waits for (timed edges), by id.
    pub fn preds(&self, v: OpId) -> &[OpId] {
        self.timed.preds(v)
    }

    /// The ops waiting for the end of `v` (timed edges), by id.
    pub fn succs(&self, v: OpId) -> &[OpId] {
        self.timed.succs(v)
    }

    /// The ops σ must list before `v` without `v` waiting for them in time, by id.
    pub fn order_preds(&self, v: OpId) -> &[OpId] {
        self.order_only.preds(v)
    }

    /// The ops σ must list after `v` without waiting for it in time, by id.
    pub fn order_succs(&self, v: OpId) -> &[OpId] {
        self.order_only.succs(v)
    }

    /// Whether an edge of either kind leads from `from` to `to`. O(log degree).
    pub fn has_edge(&self, from: OpId, to: OpId) -> bool {
        self.preds(to).binary_search(&from).is_ok()
            || self.order_preds(to).binary_search(&from).is_ok()
    }

    /// How long `v` runs.
    pub fn cycles(&self, v: OpId) -> u64 {
        self.cycles[v.index()]
    }

    /// The pipe `v` occupies (none for ALLOC and FREE).
    pub fn pipe(&self, v: OpId) -> Option<PipeId> {
        self.pipe[v.index()]
    }
}

/// CSR of `(node, neighbour)` pairs sorted by node.
/// `pairs` (ids below `n`) sorted by (from, to): counting sorts by `to`, then stably by `from`.
fn sorted_pairs(n: usize, pairs: &[(OpId, OpId)]) -> Vec<(OpId, OpId)> {
    let by_to = counting_sort(n, pairs, |&(_, b)| b);
    counting_sort(n, &by_to, |&(a, _)| a)
}

/// `items` stably sorted by `key` (an id below `n`). O(n + items).
fn counting_sort<T: Copy>(n: usize, items: &[T], key: impl Fn(&T) -> OpId) -> Vec<T> {
    let mut next = vec![0usize; n + 1];
    for item in items {
        next[key(item).index() + 1] += 1;
    }
    for i in 0..n {
        next[i + 1] += next[i];
    }
    let mut out = items.to_vec();
    for item in items {
        let slot = &mut next[key(item).index()];
        out[*slot] = *item;
        *slot += 1;
    }
    out
}

fn compress(n: usize, pairs: impl Iterator<Item = (OpId, OpId)>) -> (Vec<usize>, Vec<OpId>) {
    let mut first = vec![0usize; n + 1];
    let mut list = Vec::new();
    for (node, other) in pairs {
        first[node.index() + 1] += 1;
        list.push(other);
    }
    for i in 0..n {
        first[i + 1] += first[i];
    }
    (first, list)
}
