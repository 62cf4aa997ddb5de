//! The reverse depth-first family: task sequences read off the task DAG's structure alone, not
//! off the input's numbering.
//!
//! Each member is a post-order of a depth-first walk against the task DAG's edges that starts at
//! its sinks: a task is listed once everything it waits for is, so each sink's cone is computed
//! depth first, one producer subtree at a time — layer-fused on a conv network, one query block
//! with its key/value blocks on attention, one output tile on a matmul. The main tasks in the
//! order the walk lists them are the sequence. The members differ in the order of the roots:
//! - `latest`: the sinks of greatest depth (longest path from a source) first;
//! - `earliest`: the sinks of least depth first;
//! - `cone-K`: the sink with the K-th largest cone (ops it waits for, transitively) first, then
//!   the others as in `latest` (K = 1..=[`CONES`]).
//!
//! In every root order the sinks are grouped by *cluster* (the task DAG's components without
//! sinks, [`Tasks::regions`]) and within a cluster by *row* (the same without feeders): a
//! row's roots follow each other, rows and clusters in the order of their first root, so one
//! unit's shared inputs are used up before the next starts, and symmetric rows are visited in
//! one order whatever the numbering.
//!
//! Within a walk, the producers of a task are visited tallest first (height: the longest path to
//! a sink), so the longer subtree is computed, and its results freed, first. Every tie between
//! tasks is broken by a structural fingerprint ([`fingerprints`]: opcode, pipe, cycles, buffer
//! tiers and sizes, refined over the neighbourhood) and only then by the task's number — so two
//! numberings of one DAG can differ only where the structure is symmetric.
//!
//! O(R · (T + E_T) + T log T) for R members over T tasks and E_T task edges, plus O(C · (T +
//! E_T)) for the cones of the C largest sinks (capped by [`CONE_WORK`]) and the fingerprints'
//! O(ROUNDS · (V + E) log V).

use super::tasks::Tasks;
use crate::order::graph::Graph;
use lattice_lir::{OpId, OpKind};

/// How many of the largest cones get a member that starts with them.
pub(crate) const CONES: usize = 3;
/// Most task visits spent measuring sink cones (T per sink).
const CONE_WORK: usize = 4_000_000;
/// Most refinement rounds of the fingerprints (they stop earlier once stable).
const ROUNDS: usize = 64;

/// The family's task sequences, named, as indices into [`Tasks::main`]; `print` is
/// [`task_fingerprints`]. `dfs-latest` is first.
pub(crate) fn family(tasks: &Tasks, print: &[u64]) -> Vec<(String, Vec<usize>)> {
    let t = tasks.len();
    let depth = depths(tasks);
    let height = heights(tasks);
    let sinks: Vec<usize> = (0..t).filter(|&k| tasks.succ[k].is_empty()).collect();
    let by = |key: &dyn Fn(usize) -> i64| {
        let mut roots = sinks.clone();
        roots.sort_by_key(|&k| (key(k), print[k], k));
        roots
    };
    let regions = [tasks.regions(true), tasks.regions(false)];
    let latest = clustered(by(&|k| -(depth[k] as i64)), &regions);
    let earliest = clustered(by(&|k| depth[k] as i64), &regions);
    let mut members = vec![
        ("latest".to_string(), latest.clone()),
        ("earliest".to_string(), earliest),
    ];
    if sinks.len() >= 2 && sinks.len().saturating_mul(t) <= CONE_WORK {
        let cones: Vec<usize> = sinks.iter().map(|&s| cone(tasks, s)).collect();
        let mut largest: Vec<usize> = (0..sinks.len()).collect();
        largest.sort_by_key(|&i| (std::cmp::Reverse(cones[i]), print[sinks[i]], sinks[i]));
        for (k, &i) in largest.iter().take(CONES).enumerate() {
            let first = sinks[i];
            let mut roots = vec![first];
            roots.extend(latest.iter().copied().filter(|&s| s != first));
            members.push((format!("cone-{}", k + 1), clustered(roots, &regions)));
        }
    }
    let mut main_index = vec![usize::MAX; t];
    for (i, &task) in tasks.main.iter().enumerate() {
        main_index[task] = i;
    }
    members
        .into_iter()
        .map(|(name, roots)| {
            let post = post_order(tasks, &roots, &height, print);
            let seq = post
                .into_iter()
                .map(|k| main_index[k])
                .filter(|&i| i != usize::MAX)
                .collect();
            (format!("dfs-{name}"), seq)
        })
        .collect()
}

/// `roots` grouped by region: by cluster ([`Tasks::regions`] with feeders), the clusters in the
/// order of their first root, and within a cluster by row (regions without feeders) likewise,
/// the roots of one row keeping their order. Roots are sorted by a structural key first, so
/// symmetric sinks of different rows (one query block's output and another's) tie on it and
/// fall back on their numbers; grouping makes every row's sinks follow its first one, so the
/// rows are visited in one consistent order — on any numbering, a symmetry of the graph —
/// instead of interleaved, with all their shared inputs live at once.
fn clustered(roots: Vec<usize>, regions: &[Vec<usize>; 2]) -> Vec<usize> {
    let rank = |region: &[usize]| {
        let mut rank = std::collections::BTreeMap::new();
        for &r in &roots {
            let next = rank.len();
            rank.entry(region[r]).or_insert(next);
        }
        rank
    };
    let (cluster, row) = (rank(&regions[0]), rank(&regions[1]));
    let mut out = roots;
    out.sort_by_key(|&r| (cluster[&regions[0][r]], row[&regions[1][r]]));
    out
}

/// Per task, the longest path (in tasks) to it from a source.
pub(crate) fn depths(tasks: &Tasks) -> Vec<usize> {
    levels(&tasks.topo, &tasks.pred)
}

/// Per task, the longest path (in tasks) from it to a sink.
pub(crate) fn heights(tasks: &Tasks) -> Vec<usize> {
    let rev: Vec<usize> = tasks.topo.iter().rev().copied().collect();
    levels(&rev, &tasks.succ)
}

/// Longest path (in tasks) to each task from the ends `along` starts from, `order` being a
/// topological order of the direction walked.
fn levels(order: &[usize], along: &[Vec<usize>]) -> Vec<usize> {
    let mut level = vec![0; along.len()];
    for &k in order {
        level[k] = along[k].iter().map(|&p| level[p] + 1).max().unwrap_or(0);
    }
    level
}

/// Ops in the cone of `sink`: the tasks it waits for, transitively, and itself.
fn cone(tasks: &Tasks, sink: usize) -> usize {
    let mut seen = vec![false; tasks.len()];
    let mut stack = vec![sink];
    let mut ops = 0;
    while let Some(k) = stack.pop() {
        if std::mem::replace(&mut seen[k], true) {
            continue;
        }
        ops += tasks.ops[k].len();
        stack.extend(tasks.pred[k].iter().copied().filter(|&p| !seen[p]));
    }
    ops
}

/// Every task in the post-order of a depth-first walk against the edges from `roots` (then any
/// task left, which only a cycle could leave), producers tallest first.
fn post_order(tasks: &Tasks, roots: &[usize], height: &[usize], print: &[u64]) -> Vec<usize> {
    let t = tasks.len();
    let mut visited = vec![false; t];
    let mut out = Vec::with_capacity(t);
    for &root in roots.iter().chain(tasks.topo.iter().rev()) {
        let mut stack = vec![(root, false)];
        while let Some((k, expanded)) = stack.pop() {
            if expanded {
                out.push(k);
                continue;
            }
            if std::mem::replace(&mut visited[k], true) {
                continue;
            }
            stack.push((k, true));
            let mut preds: Vec<usize> = tasks.pred[k]
                .iter()
                .copied()
                .filter(|&p| !visited[p])
                .collect();
            // Pushed last is expanded first: the tallest producer.
            preds.sort_by_key(|&p| (height[p], std::cmp::Reverse(print[p]), std::cmp::Reverse(p)));
            stack.extend(preds.into_iter().map(|p| (p, false)));
        }
    }
    out
}

/// A structural fingerprint per task: the sorted fingerprints of its ops (`ops`, from
/// [`fingerprints`]), hashed.
pub(crate) fn task_fingerprints(ops: &[u64], tasks: &Tasks) -> Vec<u64> {
    tasks
        .ops
        .iter()
        .map(|list| {
            let mut prints: Vec<u64> = list.iter().map(|op| ops[op.index()]).collect();
            prints.sort_unstable();
            hash(&prints)
        })
        .collect()
}

/// A structural fingerprint per op (a Weisfeiler–Lehman refinement): first what the op is —
/// kind, opcode, pipe, cycles, and the tier, size and backing of each buffer it names — then,
/// until the partition into equal fingerprints stops splitting (at most [`ROUNDS`] times), its
/// own fingerprint with the sorted fingerprints of its predecessors and of its successors:
/// ops that tie then are alike as far as this refinement can tell, as in a symmetric block.
/// Equal numberings of isomorphic graphs give equal fingerprints; ids and positions never
/// enter.
pub(crate) fn fingerprints(graph: &Graph<'_>) -> Vec<u64> {
    let module = graph.module;
    let mut print: Vec<u64> = module
        .ops
        .iter()
        .map(|op| {
            let mut words: Vec<u64> = match &op.kind {
                OpKind::Alloc { .. } => vec![0],
                OpKind::Free { .. } => vec![1],
                OpKind::Compute {
                    opcode,
                    pipe,
                    cycles,
                    ..
                } => vec![
                    2,
                    hash(&opcode.bytes().map(u64::from).collect::<Vec<_>>()),
                    pipe.index() as u64,
                    *cycles,
                ],
                OpKind::SpillOut { .. } | OpKind::SpillIn { .. } => vec![3],
            };
            for &b in op.kind.buffers() {
                let buffer = module.buffer(b);
                words.extend([
                    buffer.tier.index() as u64,
                    buffer.size,
                    u64::from(buffer.backed),
                ]);
            }
            hash(&words)
        })
        .collect();
    let classes = |print: &[u64]| {
        let mut sorted = print.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        sorted.len()
    };
    let mut distinct = classes(&print);
    for _ in 0..ROUNDS {
        let next: Vec<u64> = (0..graph.len())
            .map(|v| {
                let op = OpId::new(v);
                let mut preds: Vec<u64> =
                    graph.preds(op).iter().map(|p| print[p.index()]).collect();
                let mut succs: Vec<u64> =
                    graph.succs(op).iter().map(|s| print[s.index()]).collect();
                preds.sort_unstable();
                succs.sort_unstable();
                let mut words = vec![print[v], preds.len() as u64];
                words.extend(preds);
                words.extend(succs);
                hash(&words)
            })
            .collect();
        let refined = classes(&next);
        print = next;
        if refined == distinct {
            break;
        }
        distinct = refined;
    }
    print
}

/// A fixed 64-bit hash of `words` (SplitMix64's finaliser over a running sum), the same on every
/// platform and Rust version, so fingerprints never change with the toolchain.
fn hash(words: &[u64]) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    words.iter().fold(words.len() as u64, |acc, &w| {
        mix(acc.wrapping_add(0x9E37_79B9_7F4A_7C15).wrapping_add(mix(w)))
    })
}
