//! Reachability to and from many marked ops at once, by bitsets swept over the [`Dag`] in chunks,
//! each over only the stretch of the topological order its marks span.
//!
//! A caller lists *marks* (ops, possibly repeated) in *groups* (consecutive mark ranges that
//! must be seen together, e.g. one buffer's ALLOC, uses and FREE). Marks are cut into chunks of
//! whole groups, at most [`CHUNK_WORDS`] 64-bit words wide (wider when one group needs it). A
//! chunk's *span* is the stretch of `dag.topo` from its earliest mark to its latest. Per chunk,
//! one forward sweep of the span ORs each node's predecessors' rows into its own, giving
//! `anc(v)`: the marks m with m ⪯ v; one backward sweep gives `desc(v)`: the marks m with
//! v ⪯ m (both reflexive: a mark's own bit is set at its op). Both are exact for every v in the
//! span: a path between a mark and v only visits ops placed between them in the topological
//! order, hence inside the span. Callers read rows of ops in the span only, and list their
//! groups in [`span_order`], so that a chunk's groups lie close together.
//!
//! Complexity: O(Σ over chunks of (span + its edges) · words) word operations — at most
//! O((V + E) · M / 64) for M marks, when every span is the whole order, and far less when the
//! groups are local (a buffer's ALLOC and FREE close in the order); O(S · CHUNK_WORDS) memory for
//! the longest span S, allocated once per sweep.

use super::dag::Dag;
use lattice_lir::OpId;
use std::ops::Range;

/// Widest chunk in 64-bit words, unless one group needs more.
pub const CHUNK_WORDS: usize = 16;

/// The ancestor and descendant rows of one chunk of marks, for the ops of its span.
pub struct Chunk<'a> {
    /// The marks the chunk covers (absolute mark indices).
    pub marks: Range<usize>,
    /// The groups the chunk covers (absolute group indices).
    pub groups: Range<usize>,
    /// The positions in `dag.topo` whose rows the chunk holds: from its first mark to its last.
    pub span: Range<usize>,
    words: usize,
    pos: &'a [usize],
    anc: &'a [u64],
    desc: &'a [u64],
}

impl Chunk<'_> {
    /// Words per row.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Bits of the marks m ⪯ `op` (an op of the span), bit i standing for mark `marks.start + i`.
    pub fn anc(&self, op: OpId) -> &[u64] {
        self.row(self.anc, op)
    }

    /// Bits of the marks m with `op` ⪯ m (an op of the span).
    pub fn desc(&self, op: OpId) -> &[u64] {
        self.row(self.desc, op)
    }

    fn row<'r>(&self, rows: &'r [u64], op: OpId) -> &'r [u64] {
        let at = self.pos[op.index()];
        debug_assert!(self.span.contains(&at), "a row outside the chunk's span");
        let i = at - self.span.start;
        &rows[i * self.words..(i + 1) * self.words]
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

/// An order of items, each given by its earliest and latest op, that keeps the spans of chunks
/// short: by length class (the log2 of the distance in the topological order), then by start.
/// Items of one class that start close together share a chunk whose span is at most about
/// twice their length plus the spread of their starts.
pub fn span_order(dag: &Dag, spans: impl Iterator<Item = (OpId, OpId)>) -> Vec<usize> {
    let mut keyed: Vec<(u32, usize, usize)> = spans
        .enumerate()
        .map(|(i, (first, last))| {
            let (a, b) = (dag.pos[first.index()], dag.pos[last.index()]);
            let (a, b) = (a.min(b), a.max(b));
            ((b - a + 1).ilog2(), a, i)
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, _, i)| i).collect()
}

/// Sweeps the span of each chunk of `marks`, cut at the boundaries of `groups` (consecutive,
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
    let pos = &dag.pos;
    let (mut anc, mut desc) = (Vec::new(), Vec::new());
    let mut g = 0;
    while g < groups.len() {
        let first = g;
        let start = groups[g].start;
        while g < groups.len() && groups[g].end - start <= cap {
            g += 1;
        }
        let end = groups[g - 1].end;
        let words = (end - start).div_ceil(64).max(1);
        let at = |i: usize| pos[marks[i].index()];
        let lo = (start..end).map(at).min().unwrap_or(0);
        let hi = (start..end).map(at).max().map_or(lo, |h| h + 1);
        for rows in [&mut anc, &mut desc] {
            rows.clear();
            rows.resize((hi - lo) * words, 0);
        }
        for (i, op) in marks[start..end].iter().enumerate() {
            let at = (pos[op.index()] - lo) * words + i / 64;
            anc[at] |= 1 << (i % 64);
            desc[at] |= 1 << (i % 64);
        }
        let topo = &dag.topo[lo..hi];
        for (i, &v) in topo.iter().enumerate() {
            // Predecessors before the span reach no mark of the chunk.
            for &p in dag.preds(v).iter().filter(|p| pos[p.index()] >= lo) {
                or_row(&mut anc, words, i, pos[p.index()] - lo);
            }
        }
        for (i, &v) in topo.iter().enumerate().rev() {
            for &s in dag.succs(v).iter().filter(|s| pos[s.index()] < hi) {
                or_row(&mut desc, words, i, pos[s.index()] - lo);
            }
        }
        visit(&Chunk {
            marks: start..end,
            groups: first..g,
            span: lo..hi,
            words,
            pos,
            anc: &anc,
            desc: &desc,
        });
    }
}

/// rows[to] |= rows[from] (`from` ≠ `to`).
fn or_row(rows: &mut [u64], words: usize, to: usize, from: usize) {
    let (dst, src) = if to < from {
        let (a, b) = rows.split_at_mut(from * words);
        (&mut a[to * words..(to + 1) * words], &b[..words])
    } else {
        let (a, b) = rows.split_at_mut(to * words);
        (&mut b[..words], &a[from * words..(from + 1) * words])
    };
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= s;
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
            for &v in &dag.topo[chunk.span.clone()] {
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
