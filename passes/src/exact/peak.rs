//! The least logical peak over all orders: a best-first search over the downsets of decision
//! ops ([`Space`]), memoized on the set run.
//!
//! The live bytes after a set of decision ops have run are a function of the set, so the best
//! peak of any prefix reaching a set is all that matters about it: g(S) = the least peak over
//! the step sequences reaching S, with g(S ∪ {v}) = max(g(S), live(S) + the step's ALLOCs).
//! g never decreases along a path, so a best-first search in increasing g (Dijkstra's, for a
//! bottleneck cost) expands only states whose g is at most the optimum, and the first time the
//! full set comes out of the queue its g is the optimum.
//!
//! Ties are broken by the larger set, then by insertion order, and the memo is a hash map that
//! is only looked up, so the result is deterministic. Cost: O(S · d · (s + k) · log S) for S
//! states expanded, d decision ops, s staging buffers and k lifecycle ops per step; memory O(S).

use super::space::{Set, Space};
use super::ExactError;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// One memoized state.
struct Node {
    /// Least peak reaching it.
    g: u64,
    /// Live non-staging bytes once it has run.
    live: u64,
    /// The state it was reached from and the decision op run, for the way back.
    parent: Option<(Set, usize)>,
}

/// A step sequence (decision numbers) of least peak and the states memoized; fails past
/// `limit` states.
pub fn least_peak(space: &Space<'_>, limit: u64) -> Result<(Vec<usize>, u64), ExactError> {
    let full = space.all();
    let mut memo: HashMap<Set, Node> = HashMap::new();
    let mut queue = BinaryHeap::new();
    let mut pushed = 0u64;
    memo.insert(
        0,
        Node {
            g: 0,
            live: 0,
            parent: None,
        },
    );
    queue.push((Reverse(0u64), 0u32, Reverse(pushed), 0u128));
    while let Some((Reverse(g), _, _, done)) = queue.pop() {
        let node = &memo[&done];
        if node.g != g {
            continue; // a better way here was found after this entry was queued
        }
        if done == full {
            return Ok((path(&memo, full), memo.len() as u64));
        }
        let live = node.live;
        for d in space.ready(done) {
            let Some(step) = space.step(done, d) else {
                continue;
            };
            let (up, down) = space.bytes(d, &step);
            let next = done | 1u128 << d;
            let g2 = g.max(live + up);
            let improves = memo.get(&next).is_none_or(|n| g2 < n.g);
            if !improves {
                continue;
            }
            if memo.len() as u64 >= limit && !memo.contains_key(&next) {
                return Err(ExactError::TooManyStates { limit });
            }
            memo.insert(
                next,
                Node {
                    g: g2,
                    live: live + up - down,
                    parent: Some((done, d)),
                },
            );
            pushed += 1;
            queue.push((Reverse(g2), next.count_ones(), Reverse(pushed), next));
        }
    }
    Err(ExactError::NoExclusiveOrder)
}

/// The decision ops from the empty set to `end`, in order.
fn path(memo: &HashMap<Set, Node>, end: Set) -> Vec<usize> {
    let mut steps = Vec::new();
    let mut at = end;
    while let Some((parent, d)) = memo[&at].parent {
        steps.push(d);
        at = parent;
    }
    steps.reverse();
    steps
}
