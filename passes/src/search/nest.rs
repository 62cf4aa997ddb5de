//! Nested task families: both loop nestings of a two-level family of tasks, read off the task
//! DAG's structure.
//!
//! A *row* is a region of the task DAG without its sinks and feeders ([`Tasks::regions`]): the
//! tasks one chain of state ties together — on attention, one query block's online softmax
//! (its Q·Kᵀ, softmax and P·V tasks for every key/value block). A *cluster* is a region with
//! the feeders: rows that share loaded inputs (an attention head, a matmul unit).
//!
//! Each row's tasks are ordered *deepest first*: a Kahn traversal of the task DAG that emits
//! every ready feeder and drain at once and, among the ready main tasks, the one of greatest
//! depth (longest path from a source), then greatest height (to a sink), then structural
//! fingerprint, then number — so a chain is followed as far as it goes before a new one starts
//! (Q·Kᵀ of block 0, its two P·V, Q·Kᵀ of block 1, …). Feeders and drains are emitted at once,
//! so a row's main tasks become ready through its own choices only, and one global traversal,
//! read row by row, gives every row's order. The *period* of a row is the smallest p such that
//! its task sizes (op counts) repeat with step p — the body of the row's loop (3 on the shipped
//! FlashAttention traces: one Q·Kᵀ and two P·V per key/value block).
//!
//! The members:
//! - `nest-rows`: rows one after another, each deepest first (the query-block loop outside);
//! - `nest-steps`: per cluster, for each period-long chunk of the rows, that chunk of every
//!   row in turn (the key/value loop outside, as the shipped FlashAttention traces are
//!   numbered: a key/value step of every query block before the next step);
//! - `nest-steps-serpentine`: the same with the rows' order reversed at every other chunk;
//! - `nest-steps-across`: the chunks of every cluster's rows at once (the head loop inside),
//!   only when several clusters have two rows or more.
//!
//! Rows and clusters are ranked by their first task in the deepest-first order; structurally
//! identical rows tie there and keep the order of their task numbers, where exchanging them is
//! a symmetry of the graph and the visiting order's cost the same. The step members are left
//! out when no cluster has two rows. O(T log T + E_T) for the traversal, O(M · p) for the
//! periods, O(M) per member for M main tasks.

use super::family::{depths, heights};
use super::tasks::{Class, Tasks};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The nested members, named, as indices into [`Tasks::main`]; `print` is the tasks'
/// structural fingerprints.
pub(crate) fn nested(tasks: &Tasks, print: &[u64]) -> Vec<(String, Vec<usize>)> {
    let deep = deepest_first(tasks, print);
    let rank_of = |region: Vec<usize>| {
        let mut rank = vec![usize::MAX; tasks.len()];
        let mut next = 0;
        for &i in &deep {
            let r = &mut rank[region[tasks.main[i]]];
            if *r == usize::MAX {
                *r = next;
                next += 1;
            }
        }
        (0..tasks.main.len())
            .map(|i| rank[region[tasks.main[i]]])
            .collect::<Vec<_>>()
    };
    let (row, cluster) = (rank_of(tasks.regions(false)), rank_of(tasks.regions(true)));
    // Rows in rank order, each deepest first; clusters with their rows.
    let count = row.iter().max().map_or(0, |r| r + 1);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); count];
    for &i in &deep {
        rows[row[i]].push(i);
    }
    let mut clusters: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (r, list) in rows.iter().enumerate() {
        clusters[cluster[list[0]]].push(r);
    }
    clusters.retain(|c| !c.is_empty());
    let mut members = vec![("nest-rows".to_string(), rows.concat())];
    let nesting = clusters.iter().filter(|c| c.len() >= 2).count();
    if nesting == 0 {
        return members;
    }
    let chunks: Vec<Vec<&[usize]>> = rows
        .iter()
        .map(|list| {
            let sizes: Vec<usize> = list
                .iter()
                .map(|&i| tasks.ops[tasks.main[i]].len())
                .collect();
            list.chunks(period(&sizes)).collect()
        })
        .collect();
    members.push(("nest-steps".into(), steps(&chunks, &clusters, false)));
    members.push((
        "nest-steps-serpentine".into(),
        steps(&chunks, &clusters, true),
    ));
    if nesting >= 2 {
        let all = vec![clusters.concat()];
        members.push(("nest-steps-across".into(), steps(&chunks, &all, false)));
    }
    members
}

/// The main tasks (indices into [`Tasks::main`]) deepest first (see the header).
fn deepest_first(tasks: &Tasks, print: &[u64]) -> Vec<usize> {
    let (depth, height) = (depths(tasks), heights(tasks));
    let mut main_index = vec![usize::MAX; tasks.len()];
    for (i, &t) in tasks.main.iter().enumerate() {
        main_index[t] = i;
    }
    let mut missing: Vec<usize> = tasks.pred.iter().map(Vec::len).collect();
    let mut free: Vec<usize> = Vec::new();
    let mut ready = BinaryHeap::new();
    let push = |k: usize, free: &mut Vec<usize>, ready: &mut BinaryHeap<_>| {
        if tasks.class[k] == Class::Main {
            ready.push((depth[k], height[k], Reverse(print[k]), Reverse(k)));
        } else {
            free.push(k);
        }
    };
    for k in (0..tasks.len()).filter(|&k| missing[k] == 0) {
        push(k, &mut free, &mut ready);
    }
    let mut out = Vec::with_capacity(tasks.main.len());
    loop {
        let k = match free.pop() {
            Some(k) => k,
            None => match ready.pop() {
                Some((_, _, _, Reverse(k))) => {
                    out.push(main_index[k]);
                    k
                }
                None => break,
            },
        };
        for &s in &tasks.succ[k] {
            missing[s] -= 1;
            if missing[s] == 0 {
                push(s, &mut free, &mut ready);
            }
        }
    }
    out
}

/// The smallest p ≥ 1 with `sizes[k] == sizes[k + p]` for every k (the whole length when
/// none shorter repeats).
fn period(sizes: &[usize]) -> usize {
    (1..sizes.len())
        .find(|&p| (0..sizes.len() - p).all(|k| sizes[k] == sizes[k + p]))
        .unwrap_or(sizes.len().max(1))
}

/// For each cluster in turn, for each chunk index, that chunk of each of the cluster's rows (in
/// reverse row order at every other chunk when `serpentine`).
fn steps(chunks: &[Vec<&[usize]>], clusters: &[Vec<usize>], serpentine: bool) -> Vec<usize> {
    let mut out = Vec::new();
    for cluster in clusters {
        let longest = cluster.iter().map(|&r| chunks[r].len()).max().unwrap_or(0);
        for c in 0..longest {
            let mut at: Vec<usize> = cluster.clone();
            if serpentine && c % 2 == 1 {
                at.reverse();
            }
            for r in at {
                if let Some(chunk) = chunks[r].get(c) {
                    out.extend_from_slice(chunk);
                }
            }
        }
    }
    out
}
