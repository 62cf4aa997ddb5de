//! The timing engine on small hand-written modules whose timings are worked out by hand in the
//! comments: earliest starts with and without the pipe order, cycles, slack, downstream
//! criticality, the critical chain, order-only edges and the reversed graph.

use super::*;
use lattice_lir::{parse_module, Module, OpId};

/// Ops named `%i` sit at arena index `i` in these modules (they are written in order).
fn module(body: &str) -> Module {
    let text = format!(
        "module @m phase(planned) {{
           target {{
             tiers L1 = 64, UB = 64, L0A = 32 l0, L0B = 32 l0, L0C = 32 l0
             pipes MTE1, MTE2, MTE3, FIXP, CUBE, VECTOR
             spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size
             l0_exclusive = false
           }}
           buffer @b0 : L1[8]
           {body}
         }}"
    );
    parse_module(&text).unwrap()
}

fn op(i: usize) -> OpId {
    OpId::new(i)
}

/// MTE1 runs %1 (10) then %2 (1); %3 on VECTOR (10) needs %2; %4 is a sink. Freeze: %1 0–10, %2 10–11,
/// %3 11–21. Without the pipe order %2 starts at 0 and %3 ends at 11.
const SWAP: &str = "%0 = alloc @b0 at 0
    %1 = LONG MTE1 10 (@b0) after(%0)
    %2 = SHORT MTE1 1 (@b0) after(%0)
    %3 = TAIL VECTOR 10 (@b0) after(%2)
    %4 = free @b0 after(%1, %3)";

#[test]
fn earliest_starts_with_and_without_the_pipe_order() {
    let m = module(SWAP);
    let t = timing(&m).unwrap();
    assert_eq!(t.freeze.start, vec![0, 0, 10, 11, 21]);
    assert_eq!(t.freeze.end, vec![0, 10, 11, 21, 21]);
    assert_eq!(t.freeze.makespan, 21);
    assert_eq!(t.fixed.start, vec![0, 0, 0, 1, 11]);
    assert_eq!(t.fixed.makespan, 11);
    assert_eq!(t.slack, vec![0, 0, 10, 10, 10]);
    assert_eq!(t.tails, vec![11, 10, 11, 10, 0]);
    // Every op appears once in the evaluation order, after its predecessors.
    let mut seen = t.freeze.topo.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..5).map(op).collect::<Vec<_>>());
}

#[test]
fn a_reordered_pipe_is_timed_by_its_new_order() {
    let m = module(SWAP);
    let graph = FixedGraph::of(&m);
    let mut order = PipeOrder::of_sigma(&graph, &m.schedule);
    assert_eq!(order.prev(&graph, op(2)), Some(op(1)));
    assert!(order.swap_with_next(&graph, op(1)));
    assert_eq!(order.prev(&graph, op(1)), Some(op(2)));
    assert_eq!(order.next(&graph, op(1)), None);
    assert!(!order.swap_with_next(&graph, op(1)), "last of its pipe");
    let t = evaluate(&graph, Some(&order)).unwrap();
    assert_eq!(t.start[1], 1);
    assert_eq!(t.makespan, 11);
}

#[test]
fn a_pipe_order_against_a_dependency_is_a_cycle() {
    // %2 needs %1 and both run on MTE1, so issuing %2 first cannot be timed.
    let m = module(
        "%0 = alloc @b0 at 0
         %1 = A MTE1 3 (@b0) after(%0)
         %2 = B MTE1 3 (@b0) after(%1)
         %3 = C MTE1 3 (@b0) after(%0)
         %4 = free @b0 after(%2, %3)",
    );
    let graph = FixedGraph::of(&m);
    let mut order = PipeOrder::of_sigma(&graph, &m.schedule);
    assert!(order.swap_with_next(&graph, op(1)));
    let err = evaluate(&graph, Some(&order)).unwrap_err();
    // Everything but the ALLOC is stuck behind the cycle %1 → %2 → %3 → %1.
    assert_eq!(err.unordered, 4);
    assert!(evaluate(&graph, None).is_ok());
}

#[test]
fn the_critical_chain_follows_tight_links_back_to_time_zero() {
    let m = module(SWAP);
    let t = timing(&m).unwrap();
    let chain: Vec<(usize, Via)> = t.chain.iter().map(|l| (l.op.index(), l.via)).collect();
    // %3 ends last; it waits for %2, which waits for %1 on MTE1, which starts at time zero.
    assert_eq!(chain, vec![(1, Via::Start), (2, Via::Pipe), (3, Via::Dep)]);
}

#[test]
fn order_only_edges_bind_the_order_but_not_the_time() {
    let m = module(SWAP);
    // %3 must be listed before %1, which does not delay %1 in time.
    let graph = FixedGraph::with_order_edges(&m, vec![(op(3), op(1)), (op(2), op(3))]);
    assert_eq!(graph.order_preds(op(1)), &[op(3)]);
    assert!(graph.has_edge(op(3), op(1)));
    // The duplicate of the timed edge %2 → %3 is dropped.
    assert!(graph.order_preds(op(3)).is_empty());
    let t = evaluate(&graph, None).unwrap();
    assert_eq!(t.start[1], 0);
    let rank: Vec<usize> = t.topo.iter().map(|v| v.index()).collect();
    let at = |i: usize| rank.iter().position(|&r| r == i).unwrap();
    assert!(at(3) < at(1));
    // With Freeze's pipe order (%1 before %2 before %3 before %1) there is no order at all.
    let order = PipeOrder::of_sigma(&graph, &m.schedule);
    assert!(evaluate(&graph, Some(&order)).is_err());
}

#[test]
fn the_reversed_graph_turns_every_edge_around() {
    let m = module(SWAP);
    let graph = FixedGraph::with_order_edges(&m, vec![(op(1), op(3))]);
    let back = graph.reversed();
    for v in (0..graph.len()).map(op) {
        assert_eq!(back.preds(v), graph.succs(v));
        assert_eq!(back.succs(v), graph.preds(v));
        assert_eq!(back.order_preds(v), graph.order_succs(v));
        assert_eq!(back.cycles(v), graph.cycles(v));
        assert_eq!(back.pipe(v), graph.pipe(v));
    }
    assert_eq!(back.edge_count(), graph.edge_count());
    // Backwards, the longest chain is as long as forwards.
    assert_eq!(
        evaluate(&back, None).unwrap().makespan,
        evaluate(&graph, None).unwrap().makespan
    );
}
