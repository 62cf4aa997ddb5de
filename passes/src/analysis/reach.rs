//! Reachability to and from many marked ops at once, by bitsets swept over the [`Dag`] in chunks.
//!
//! A caller lists *marks* (ops, possibly repeated) in *groups* (consecutive mark ranges that
//! must be seen together, e.g. one buffer's ALLOC, uses and FREE). Marks are cut into chunks of
//! whole groups, at most [`CHUNK_WORDS`] 64-bit words wide (wider when one group needs it). Per
//! chunk, one forward sweep of the topological order ORs each node's predecessors' rows into
//! its own, giving `anc(v)`: the marks m with m ⪯ v; one backward sweep gives `desc(v)`: the
//! marks m with v ⪯ m (both reflexive: a mark's own bit is set at its op). The caller then reads
//! the rows of the chunk.
//!
//! Complexity: O((V + E) · M / 64) word operations for M marks, in O(V · CHUNK_WORDS) memory
//! (two rows of at most CHUNK_WORDS words per op): for a 36K-node module with 100K marks, about
//! 2·10⁸ word operations and 18 MB.

use super::dag::Dag;
use lattice_lir::OpId;
use std::ops::Range;

/// Widest chunk in 64-bit words, unless one group needs more.
pub const CHUNK_WORDS: usize = 32;

/// The ancestor and descendant rows of one chunk of marks.
pub struct Chunk {
    /// The marks the chunk covers (absolute mark indices).
    pub marks: Range<usize>,
    /// The groups the chunk covers (absolute group indices).
    pub groups: Range<usize>,
    words: usize,
    anc: Vec<u64>,
    desc: Vec<u64>,
}

impl Chunk {
    /// Words per row.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Bits of the marks m ⪯ `op`, bit i standing for mark `marks.start + i`.
    pub fn anc(&self, op: OpId) -> &[u64] {
        &self.anc[op.index() * self.words..(op.index() + 1) * self.words]
    }

    /// Bits of the marks m with `op` ⪯ m.
    pub fn desc(&self, op: OpId) -> &[u64] {
        &self.desc[op.index() * self.words..(op.index() + 1) * self.words]
    }

    /// Whether absolute mark `mark` is set in `row`.
    pub fn has(&self, row: &[u64], mark: usize) -> bool {
        let i = mark - self.marks.start;
        row[i / 64] >> (i % 64) & 1 == 1
    }

    /// How many of the absolute marks in `range` are set in `row`.
    pub fn count(&self, row: &[u64], range: Range<usize>) -> u32 {
        let (lo, hi) = (range.start - self.marks.start, range.end - self.marks.start);
        let mut total = 0;
        let mut i = lo;
        while i < hi {
            let (w, bit) = (i / 64, i % 64);
            let take = (64 - bit).min(hi - i);
            let mask = if take == 64 {
                u64::MAX
            } else {
                ((1u64 << take) - 1) << bit
            };
            total += (row[w] & mask).count_ones();
            i += take;
        }
        total
    }
}

/// Sweeps the DAG once per chunk of `marks`, cut at the boundaries of `groups` (consecutive,
/// covering `0..marks.len()`), and hands every chunk to `visit`.
pub fn sweep(dag: &Dag, marks: &[OpId], groups: &[Range<usize>], visit: impl FnMut(&Chunk)) {
    sweep_in(dag, marks, groups, CHUNK_WORDS, visit);
}

/// [`sweep`] with chunks of at most `cap_words` words (unless a group needs more).
fn sweep_in(
    dag: &Dag,
    marks: &[OpId],
    groups: &[Range<usize>],
    cap_words: usize,
    mut visit: impl FnMut(&Chunk),
) {
    let widest = groups.iter().map(|g| g.len()).max().unwrap_or(0);
    let cap = (cap_words * 64).max(widest);
    let slots = dag.slots();
    let mut g = 0;
    while g < groups.len() {
        let first = g;
        let start = groups[g].start;
        while g < groups.len() && groups[g].end - start <= cap {
            g += 1;
        }
        let end = groups[g - 1].end;
        let words = (end - start).div_ceil(64).max(1);
        let mut chunk = Chunk {
            marks: start..end,
            groups: first..g,
            words,
            anc: vec![0; slots * words],
            desc: vec![0; slots * words],
        };
        for (i, op) in marks[start..end].iter().enumerate() {
            let at = op.index() * words + i / 64;
            chunk.anc[at] |= 1 << (i % 64);
            chunk.desc[at] |= 1 << (i % 64);
        }
        for &v in &dag.topo {
            for &p in dag.preds(v) {
                or_row(&mut chunk.anc, words, v.index(), p.index());
            }
        }
        for &v in dag.topo.iter().rev() {
            for &s in dag.succs(v) {
                or_row(&mut chunk.desc, words, v.index(), s.index());
            }
        }
        visit(&chunk);
    }
}

/// rows[to] |= rows[from].
fn or_row(rows: &mut [u64], words: usize, to: usize, from: usize) {
    for w in 0..words {
        let bits = rows[from * words + w];
        rows[to * words + w] |= bits;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, GenSpec, Shape};

    /// The chunked rows agree with a plain depth-first search from every mark.
    #[test]
    fn rows_match_a_search_from_every_mark() {
        let m = generate(&GenSpec {
            shape: Shape::Attention,
            nodes: 300,
            seed: 4,
        });
        let dag = Dag::of(&m).expect("acyclic");
        let marks: Vec<OpId> = m.op_ids().step_by(3).collect();
        // Groups of one to three marks, in chunks of one word.
        let mut groups = Vec::new();
        let mut at = 0;
        while at < marks.len() {
            let len = (1 + at % 3).min(marks.len() - at);
            groups.push(at..at + len);
            at += len;
        }
        let below = |from: OpId| {
            let mut seen = vec![false; m.ops.len()];
            let mut stack = vec![from];
            while let Some(u) = stack.pop() {
                if !std::mem::replace(&mut seen[u.index()], true) {
                    stack.extend_from_slice(dag.succs(u));
                }
            }
            seen
        };
        let reach: Vec<Vec<bool>> = marks.iter().map(|&k| below(k)).collect();
        let from: Vec<Vec<bool>> = m.op_ids().map(below).collect();
        let mut seen = 0;
        let mut chunks = 0;
        sweep_in(&dag, &marks, &groups, 1, |chunk| {
            chunks += 1;
            for v in m.op_ids() {
                for k in chunk.marks.clone() {
                    assert_eq!(chunk.has(chunk.anc(v), k), reach[k][v.index()]);
                    assert_eq!(
                        chunk.has(chunk.desc(v), k),
                        from[v.index()][marks[k].index()]
                    );
                }
                let all = chunk.count(chunk.anc(v), chunk.marks.clone());
                let expect = chunk.marks.clone().filter(|&k| reach[k][v.index()]).count();
                assert_eq!(all as usize, expect);
            }
            seen += chunk.marks.len();
        });
        assert_eq!(seen, marks.len());
        assert!(chunks > 1, "the test should cut several chunks");
    }
}
