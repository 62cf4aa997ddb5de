//! Order-independent lower bounds on spill costs: the extra DDR traffic (DESIGN §1.3) that every
//! order and every plan must move, and the spill cycles every plan must put on the spill pipes.
//!
//! Model. In any order, a buffer b of tier t is live at op v when ALLOC(b) ⪯ v ⪯ FREE(b)
//! ([`super::must_live`]); it must be *resident* there when v names it (its uses, ALLOC and FREE:
//! a residency starts at the ALLOC and a spilled buffer is reloaded before its FREE). When the
//! bytes live at v exceed t's capacity, buffers of at least the excess must be out of the tier
//! at v, and each buffer out at v pays for a spill (SPILL_OUT before v, SPILL_IN after it):
//! `size` bytes of traffic when backed, `2·size` when not.
//!
//! Counting spills across ops. One spill keeps b out over a stretch of σ that holds no use of
//! b. Take a chain of b's uses that reachability orders totally — the *anchors*, canonically
//! the uses comparable with every other use of b, ALLOC and FREE among them — c_0 ≺ … ≺ c_m.
//! In every order the anchors run in that order and a spill's stretch lies between two
//! consecutive ones, c_g and c_{g+1}: gap g. At a non-use v where b is live, the anchors that
//! are ancestors of v come before the stretch and those that are descendants after it, so the
//! gap of any spill covering v lies in `[lo, hi)` = [(ancestor anchors) − 1, m + 1 −
//! (descendant anchors)). Variables: `z[b,g] ∈ [0,1]`, whether some spill of b lies in gap g
//! (cost: one spill's); `y[b,lo,hi] ≤ Σ_{g∈[lo,hi)} z[b,g]`, `y ≤ 1` for a range of several gaps.
//! Rows: at each op v and tier t with excess e > 0, `Σ size(b)·(z or y) ≥ e` over the buffers
//! live at v that v does not name. Rows with the same terms keep the largest excess.
//!
//! Why it is a bound: any order and plan give a feasible integral point — z[b,g] = 1 when b is
//! spilled in gap g, y = 1 when b is out at some op of that range — whose cost is at most the
//! plan's (one spill per gap is counted, whatever it held). Addresses, fragmentation and timing
//! are ignored. On an L0-exclusive target the staging tiers hold one buffer at a time and need
//! no spill; otherwise they are modelled like the others. The LP is solved with `microlp`; its
//! optimum is rounded up after a relative tolerance of 1e-9.
//!
//! The same program with other costs bounds the spill cycles each spill pipe must run: a
//! SPILL_IN costs `spill_cost(size)` on the target's spill-in pipe, a SPILL_OUT as much on the
//! spill-out pipe unless the buffer is backed (then 0).
//!
//! Complexity: one [`reach::sweep`](super::reach::sweep) for the live bytes of the buffers with
//! an ALLOC and a FREE — when they exceed no tier, no row exists and the bound is 0 — else
//! four: anchors among all uses (at most O((V + E) · U / 64) for U uses, less when buffers live
//! briefly), must-live bytes and pairs, anchor counts; plus building O(R · L) terms for R
//! distinct rows of at most L buffers, plus the simplex (polynomial in practice, exponential in
//! the worst case).

use super::dag::Dag;
use super::must_live::for_each_live;
use super::reach::{span_order, sweep};
use lattice_lir::{BufferId, Module, OpId, OpKind, PipeId};
use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome};
use std::collections::BTreeMap;

/// The order-independent spill bounds of one module.
#[derive(Clone, Debug, PartialEq)]
pub struct CoverBound {
    /// No order and plan moves fewer extra DDR bytes.
    pub traffic: u64,
    /// Per spill pipe (the spill-in pipe first, then the spill-out pipe if it differs): no
    /// plan of any order puts fewer spill cycles on it.
    pub spill_cycles: Vec<(PipeId, u64)>,
    /// Distinct rows of the program (ops and tiers where the live bytes exceed the capacity).
    pub rows: usize,
}

/// Why no bound exists.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CoverError {
    /// An op's operands in one tier exceed its capacity: no order can be planned.
    #[error("the operands of %{op} need {needed} bytes of {tier}, which holds {capacity}: no order can be planned")]
    Overfull {
        /// The op's name.
        op: u32,
        /// The tier.
        tier: String,
        /// Bytes its operands need there.
        needed: u64,
        /// The tier's capacity.
        capacity: u64,
    },
    /// The solver failed.
    #[error("the spill bound's LP failed: {0}")]
    Solver(String),
}

/// A term of a row: buffer, gap range `lo..hi`.
type Term = (u32, u32, u32);

/// The rows of the program, with what their terms cost.
struct Program {
    /// Distinct rows: sorted terms → largest excess.
    rows: BTreeMap<Vec<Term>, u64>,
}

/// The order-independent traffic and spill-cycle bounds of `module` (any phase; spill events
/// and plan dependencies are ignored).
pub fn cover_bound(module: &Module, dag: &Dag) -> Result<CoverBound, CoverError> {
    let m = module;
    let modelled = |b: BufferId| {
        let buffer = m.buffer(b);
        buffer.size > 0 && !(m.target.tier(buffer.tier).staging && m.target.l0_exclusive)
    };
    let program = rows(m, dag, &modelled)?;
    let traffic = solve(m, &program, |b| {
        m.buffer(b).spill_traffic().unwrap_or(u64::MAX)
    })?;
    let (pin, pout) = (m.target.spill_in_pipe, m.target.spill_out_pipe);
    let mut spill_cycles = vec![(pin, solve(m, &program, |b| spill_cost(m, b, pin))?)];
    if pout != pin {
        spill_cycles.push((pout, solve(m, &program, |b| spill_cost(m, b, pout))?));
    }
    Ok(CoverBound {
        traffic,
        spill_cycles,
        rows: program.rows.len(),
    })
}

/// The cycles one spill of `b` puts on `pipe`: its SPILL_IN's on the spill-in pipe, its
/// SPILL_OUT's on the spill-out pipe unless `b` is backed (then zero).
pub fn spill_cost(m: &Module, b: BufferId, pipe: PipeId) -> u64 {
    let buffer = m.buffer(b);
    let full = m.target.spill_cost.cycles(buffer.size);
    let reload = if pipe == m.target.spill_in_pipe {
        full
    } else {
        0
    };
    let evict = if pipe == m.target.spill_out_pipe && !buffer.backed {
        full
    } else {
        0
    };
    reload.saturating_add(evict)
}

/// Every buffer's uses in the DAG (ALLOC, the ops naming it, FREE), each op once.
fn uses_of(m: &Module, dag: &Dag, modelled: &impl Fn(BufferId) -> bool) -> Vec<Vec<OpId>> {
    let mut uses: Vec<Vec<OpId>> = vec![Vec::new(); m.buffers.len()];
    for &v in &dag.topo {
        for &b in m.op(v).kind.buffers() {
            if modelled(b) && uses[b.index()].last() != Some(&v) {
                uses[b.index()].push(v);
            }
        }
    }
    uses
}

/// Per buffer, its anchors (uses comparable with all its other uses) in chain order; empty for
/// a buffer without both an ALLOC and a FREE (such buffers are left out of the rows, which only
/// weakens them).
fn anchors(m: &Module, dag: &Dag, uses: &[Vec<OpId>]) -> Vec<Vec<OpId>> {
    let complete = |b: usize| {
        let has = |f: fn(&OpKind) -> bool| uses[b].iter().any(|&u| f(&m.op(u).kind));
        has(|k| matches!(k, OpKind::Alloc { .. })) && has(|k| matches!(k, OpKind::Free { .. }))
    };
    let (listed, marks, groups) = grouped(dag, uses, complete);
    let mut out: Vec<Vec<OpId>> = vec![Vec::new(); uses.len()];
    sweep(dag, &marks, &groups, |chunk| {
        for g in chunk.groups.clone() {
            let range = groups[g].clone();
            let k = range.len() as u32;
            let mut chain: Vec<(u32, OpId)> = Vec::new();
            for &u in &marks[range.clone()] {
                let above = chunk.count(chunk.anc(u), range.clone());
                let below = chunk.count(chunk.desc(u), range.clone());
                // u counts itself in both; comparable with all k − 1 others.
                if above + below == k + 1 {
                    chain.push((above, u));
                }
            }
            chain.sort_unstable();
            out[listed[g]] = chain.into_iter().map(|(_, u)| u).collect();
        }
    });
    out
}

/// The buffers `keep` accepts (each with a non-empty list), in [`span_order`], with their
/// `lists` (each in topological order, so its first and last ops span it) as the marks and
/// groups of one sweep.
fn grouped(
    dag: &Dag,
    lists: &[Vec<OpId>],
    keep: impl Fn(usize) -> bool,
) -> (Vec<usize>, Vec<OpId>, Vec<std::ops::Range<usize>>) {
    let kept: Vec<usize> = (0..lists.len()).filter(|&b| keep(b)).collect();
    let ends = kept
        .iter()
        .map(|&b| (lists[b][0], lists[b][lists[b].len() - 1]));
    let listed: Vec<usize> = span_order(dag, ends).into_iter().map(|i| kept[i]).collect();
    let mut marks = Vec::new();
    let mut groups = Vec::new();
    for &b in &listed {
        groups.push(marks.len()..marks.len() + lists[b].len());
        marks.extend_from_slice(&lists[b]);
    }
    (listed, marks, groups)
}

/// The distinct rows: at each op and modelled tier whose live bytes exceed the capacity.
fn rows(
    m: &Module,
    dag: &Dag,
    modelled: &impl Fn(BufferId) -> bool,
) -> Result<Program, CoverError> {
    let tiers = m.target.tiers.len();
    for &v in &dag.topo {
        let mut needed = vec![0u64; tiers];
        let mut seen: Vec<BufferId> = Vec::new();
        for &b in m.op(v).kind.buffers() {
            if !seen.contains(&b) {
                seen.push(b);
                needed[m.buffer(b).tier.index()] += m.buffer(b).size;
            }
        }
        for (t, &need) in needed.iter().enumerate() {
            let capacity = m.target.tiers[t].capacity;
            if need > capacity {
                return Err(CoverError::Overfull {
                    op: m.op(v).name,
                    tier: m.target.tiers[t].name.clone(),
                    needed: need,
                    capacity,
                });
            }
        }
    }
    // Live bytes per (op, tier) of the buffers `keep` accepts.
    let live_bytes = |keep: &dyn Fn(BufferId) -> bool| {
        let mut live = vec![0u64; m.ops.len() * tiers];
        for_each_live(m, dag, keep, false, |v, b| {
            live[v.index() * tiers + m.buffer(b).tier.index()] += m.buffer(b).size;
        });
        live
    };
    let exceeds =
        |live: &[u64], v: usize, t: usize| live[v * tiers + t] > m.target.tiers[t].capacity;
    // Anchored buffers have an ALLOC and a FREE: when those never exceed a tier, no row exists
    // and the anchors, dearer to find, are not needed.
    let complete = |b: BufferId| {
        modelled(b) && dag.alloc_of[b.index()].is_some() && dag.free_of[b.index()].is_some()
    };
    let upper = live_bytes(&complete);
    if !(0..m.ops.len()).any(|v| (0..tiers).any(|t| exceeds(&upper, v, t))) {
        return Ok(Program {
            rows: BTreeMap::new(),
        });
    }
    let uses = uses_of(m, dag, modelled);
    let chains = anchors(m, dag, &uses);
    let anchored = |b: BufferId| modelled(b) && !chains[b.index()].is_empty();
    let live = live_bytes(&anchored);
    // The (op, buffer) pairs of the rows, with the buffer's gap range filled in below.
    let mut pairs: Vec<(OpId, BufferId)> = Vec::new();
    for_each_live(m, dag, anchored, false, |v, b| {
        let named = m.op(v).kind.buffers().contains(&b);
        if exceeds(&live, v.index(), m.buffer(b).tier.index()) && !named {
            pairs.push((v, b));
        }
    });
    let ranges = gap_ranges(dag, &chains, &mut pairs);
    // Group the pairs by (op, tier) into rows.
    let mut by_row: BTreeMap<(usize, usize), Vec<Term>> = BTreeMap::new();
    for (&(v, b), &(lo, hi)) in pairs.iter().zip(&ranges) {
        let t = m.buffer(b).tier.index();
        by_row
            .entry((v.index(), t))
            .or_default()
            .push((b.index() as u32, lo, hi));
    }
    let mut rows: BTreeMap<Vec<Term>, u64> = BTreeMap::new();
    for ((v, t), mut terms) in by_row {
        terms.sort_unstable();
        let excess = live[v * tiers + t] - m.target.tiers[t].capacity;
        let slot = rows.entry(terms).or_insert(0);
        *slot = (*slot).max(excess);
    }
    Ok(Program { rows })
}

/// For each (op, buffer) pair, the range `lo..hi` of the buffer's gaps a spill covering the op
/// may lie in. Sorts `pairs` by the buffer's place in the sweep.
fn gap_ranges(dag: &Dag, chains: &[Vec<OpId>], pairs: &mut [(OpId, BufferId)]) -> Vec<(u32, u32)> {
    let (listed, marks, groups) = grouped(dag, chains, |b| !chains[b].is_empty());
    let mut group_of = vec![usize::MAX; chains.len()];
    for (g, &b) in listed.iter().enumerate() {
        group_of[b] = g;
    }
    pairs.sort_unstable_by_key(|&(v, b)| (group_of[b.index()], v));
    let mut ranges = vec![(0, 0); pairs.len()];
    let mut next = 0;
    sweep(dag, &marks, &groups, |chunk| {
        while next < pairs.len() && chunk.groups.contains(&group_of[pairs[next].1.index()]) {
            let (v, b) = pairs[next];
            let range = groups[group_of[b.index()]].clone();
            let m = range.len() as u32;
            let above = chunk.count(chunk.anc(v), range.clone());
            let below = chunk.count(chunk.desc(v), range);
            ranges[next] = (above - 1, m - below);
            next += 1;
        }
    });
    ranges
}

/// The LP optimum of the program with `cost(b)` per spill of b, rounded up after tolerance.
fn solve(m: &Module, program: &Program, cost: impl Fn(BufferId) -> u64) -> Result<u64, CoverError> {
    if program.rows.is_empty() {
        return Ok(0);
    }
    let mut pb = Problem::new(OptimizationDirection::Minimize);
    let mut z: BTreeMap<(u32, u32), microlp::Variable> = BTreeMap::new();
    let mut y: BTreeMap<Term, microlp::Variable> = BTreeMap::new();
    let mut links: Vec<(microlp::Variable, Term)> = Vec::new();
    for (terms, &excess) in &program.rows {
        let mut row = Vec::with_capacity(terms.len());
        for &(b, lo, hi) in terms {
            let size = m.buffers[b as usize].size as f64;
            let var = if hi == lo + 1 {
                *z.entry((b, lo)).or_insert_with(|| {
                    pb.add_var(cost(BufferId::new(b as usize)) as f64, (0.0, 1.0))
                })
            } else {
                *y.entry((b, lo, hi)).or_insert_with(|| {
                    let var = pb.add_var(0.0, (0.0, 1.0));
                    links.push((var, (b, lo, hi)));
                    var
                })
            };
            row.push((var, size));
        }
        pb.add_constraint(row, ComparisonOp::Ge, excess as f64);
    }
    for (var, (b, lo, hi)) in links {
        let mut row = vec![(var, 1.0)];
        for g in lo..hi {
            let zg = *z
                .entry((b, g))
                .or_insert_with(|| pb.add_var(cost(BufferId::new(b as usize)) as f64, (0.0, 1.0)));
            row.push((zg, -1.0));
        }
        pb.add_constraint(row, ComparisonOp::Le, 0.0);
    }
    let solved = match pb.solve().map_err(|e| CoverError::Solver(e.to_string()))? {
        SolveOutcome::Solution(solved) => solved.objective(),
        SolveOutcome::Interrupted(_) => return Err(CoverError::Solver("interrupted".into())),
    };
    let tolerance = 1e-9 * solved.abs().max(1.0);
    Ok((solved - tolerance).ceil().max(0.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    /// b2 is written before %6 and read after it, which needs b0 and b1: in every order 24
    /// bytes are live at %6 in a 16-byte tier, so b2 (unbacked, 8 bytes) is spilled once.
    const FORCED: &str = "module @m phase(parsed) {
       target { tiers L1 = 16 pipes P, Q spill_out Q, spill_in P, spill_cost = 10 + 1 * size l0_exclusive = false }
       buffer @b0 : L1[8]
       buffer @b1 : L1[8]
       buffer @b2 : L1[8]
       %0 = alloc @b0
       %1 = alloc @b1
       %2 = alloc @b2
       %3 = OP P 1 (@b0) after(%0)
       %4 = OP P 1 (@b1) after(%1)
       %5 = OP P 1 (@b2) after(%2)
       %6 = OP P 1 (@b0, @b1) after(%3, %4, %5)
       %7 = OP P 1 (@b2) after(%5, %6)
       %8 = free @b0 after(%6)
       %9 = free @b1 after(%6)
       %10 = free @b2 after(%7)
     }";

    #[test]
    fn an_op_whose_live_bytes_exceed_the_tier_forces_a_spill() {
        let m = parse_module(FORCED).expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        let bound = cover_bound(&m, &dag).expect("bounds");
        assert_eq!(bound.traffic, 16, "one spill of an unbacked 8-byte buffer");
        assert_eq!(bound.rows, 1);
        // The reload (18 cycles) on P, the spill-out (18) on Q.
        assert_eq!(
            bound.spill_cycles,
            vec![(PipeId::new(0), 18), (PipeId::new(1), 18)]
        );
        // Without %5 → %6, b2 can be written after %6: no spill is forced.
        let free = FORCED.replace("after(%3, %4, %5)", "after(%3, %4)");
        let m = parse_module(&free).expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        assert_eq!(cover_bound(&m, &dag).expect("bounds").traffic, 0);
    }

    #[test]
    fn operands_over_capacity_are_refused() {
        let text = FORCED.replace("L1 = 16", "L1 = 12");
        let m = parse_module(&text).expect("parses");
        let dag = Dag::of(&m).expect("acyclic");
        let err = cover_bound(&m, &dag).unwrap_err();
        assert!(
            matches!(
                err,
                CoverError::Overfull {
                    op: 6,
                    needed: 16,
                    capacity: 12,
                    ..
                }
            ),
            "{err}"
        );
    }
}
