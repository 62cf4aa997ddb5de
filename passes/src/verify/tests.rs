//! One hand-written module per violation category, each constructing exactly that violation
//! (plus the ones it necessarily brings along, named in the test), a valid planned module with
//! metrics worked out by hand, the "Ignore" diagnostic, post-plan reorder and the pass wrapper.
//! Each test is O(size of its module).

use super::*;
use lattice::{AnalysisManager, Pass, PassContext, RegisteredPass};
use lattice_lir::{parse_module, BufferId, Dep, OpId, Severity};
use std::collections::BTreeSet;

/// The planned module of docs/lir.md: @b1 is spilled (unbacked) so that @b2 can reuse its bytes, then
/// reloaded at a new offset.
const TWO_TILES: &str = "module @two_tiles phase(planned) {
  target {
    tiers L1 = 4096, UB = 1024, L0A = 256 l0, L0B = 256 l0, L0C = 512 l0
    pipes MTE1, MTE2, MTE3, FIXP, CUBE, VECTOR
    spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size
    l0_exclusive = true
  }
  buffer @b0 : L1[1024] backed
  buffer @b1 : UB[512]
  buffer @b2 : UB[768]
  %0 = alloc @b0 at 0
  %1 = COPY_IN MTE2 2198 (@b0) after(%0)
  %2 = alloc @b1 at 0
  %3 = VEC_ADD VECTOR 300 (@b1, @b0) after(%1, %2)
  %20 = spill_out @b1 MTE3 1174 after(%2 spill, %3 spill)
  %4 = alloc @b2 at 0 after(%20 reuse)
  %5 = VEC_MUL VECTOR 300 (@b2, @b0) after(%1, %4)
  %6 = free @b2 after(%5)
  %21 = spill_in @b1 at 256 MTE2 1174 after(%20 spill, %6 reuse)
  %7 = COPY_OUT MTE3 1174 (@b1) after(%3, %21 spill)
  %8 = free @b1 after(%7, %21 spill)
  %9 = free @b0 after(%5)
}";

fn parse(text: &str) -> Module {
    parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// TWO_TILES with `from` replaced by `to` (which must occur).
fn two_tiles_with(from: &str, to: &str) -> Module {
    assert!(TWO_TILES.contains(from), "{from}");
    parse(&TWO_TILES.replacen(from, to, 1))
}

/// A planned module on a small target with the given buffers and ops.
fn small(body: &str) -> Module {
    parse(&format!(
        "module @t phase(planned) {{
           target {{
             tiers L1 = 1024, UB = 512, L0A = 64 l0
             pipes MTE2, MTE3, VECTOR, CUBE
             spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size
             l0_exclusive = true
           }}
           {body}
         }}"
    ))
}

fn categories(m: &Module) -> BTreeSet<Category> {
    replay(m, &ReplayOptions::default())
        .violations
        .iter()
        .map(|v| v.category)
        .collect()
}

fn only(categories: &[Category]) -> BTreeSet<Category> {
    categories.iter().copied().collect()
}

/// The violations of `m` in category `c`, as text.
fn found(m: &Module, c: Category) -> Vec<String> {
    replay(m, &ReplayOptions::default())
        .violations
        .iter()
        .filter(|v| v.category == c)
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_readme_plan_is_valid_and_scores_as_worked_out_by_hand() {
    let m = metrics(&parse(TWO_TILES));
    assert!(m.valid, "{:?}", m.violations);
    assert_eq!((m.nodes, m.edges, m.buffers), (12, 16, 3));
    // All three allocated at %4; @b1 is spilled then, so on chip it is @b0 + @b2.
    assert_eq!(m.logical_peak, 1024 + 512 + 768);
    assert_eq!(m.physical_peak, 1024 + 768);
    assert_eq!((m.spill_count, m.extra_traffic), (1, 2 * 512));
    // %1 ends 2198, %3 2498, %20 3672, %5 3972, %21 5146, %7 6320; one chain, so the critical
    // path is the makespan.
    assert_eq!((m.makespan, m.critical_path), (6320, 6320));
    assert!(!m.makespan_without_reuse);
    assert_eq!(m.pipe_busy["MTE2"], 2198 + 1174);
    assert_eq!(m.pipe_busy["MTE3"], 2 * 1174);
    assert_eq!(m.pipe_busy["VECTOR"], 600);
    assert_eq!(m.l0_max_live["L0A"], 0);
    assert_eq!(m.logical_peak_tiers, ["L1", "UB"]);
}

#[test]
fn dangling_ids_stop_the_replay() {
    let mut m = parse(TWO_TILES);
    m.ops[1].deps.push(Dep {
        op: OpId::new(99),
        kind: DepKind::Precedence,
    });
    m.ops[3].kind = OpKind::Free {
        buffer: BufferId::new(7),
    };
    let r = replay(&m, &ReplayOptions::default());
    assert_eq!(r.violations.len(), 2);
    assert!(r
        .violations
        .iter()
        .all(|v| v.category == Category::Dangling));
    assert!(!r.metrics.valid);
}

#[test]
fn coverage_op_listed_twice_or_missing() {
    let mut m = parse(TWO_TILES);
    let last = m.schedule.pop().expect("ops");
    m.schedule.push(OpId::new(0));
    assert_eq!(
        categories(&m),
        only(&[Category::Coverage, Category::Lifecycle])
    );
    assert_eq!(
        found(&m, Category::Coverage).len(),
        2,
        "{last:?} missing, %0 twice"
    );
}

#[test]
fn edge_order_dependency_after_its_user() {
    let m = two_tiles_with("(@b0) after(%0)", "(@b0) after(%0, %2)");
    assert_eq!(categories(&m), only(&[Category::EdgeOrder]));
    assert_eq!(
        found(&m, Category::EdgeOrder),
        ["edge-order: %1 depends on %2 (precedence), which σ places after it"]
    );
}

#[test]
fn lifecycle_buffer_never_freed() {
    let m = two_tiles_with("  %9 = free @b0 after(%5)\n", "");
    assert_eq!(categories(&m), only(&[Category::Lifecycle]));
    assert_eq!(
        found(&m, Category::Lifecycle),
        ["lifecycle: @b0 is never freed"]
    );
}

#[test]
fn lifecycle_free_not_ordered_after_alloc() {
    let m = small(
        "buffer @b0 : L1[64]
         %0 = alloc @b0 at 0
         %1 = free @b0",
    );
    assert_eq!(categories(&m), only(&[Category::Lifecycle]));
}

#[test]
fn use_outside_residency_while_spilled() {
    let m = two_tiles_with("(@b2, @b0) after(%1, %4)", "(@b2, @b0, @b1) after(%1, %4)");
    assert_eq!(categories(&m), only(&[Category::UseOutsideResidency]));
    assert_eq!(
        found(&m, Category::UseOutsideResidency),
        ["use-outside-residency: %5 uses @b1, which is not resident here (spilled out by %20)"]
    );
}

#[test]
fn l0_exclusive_two_live_buffers_in_one_staging_tier() {
    let body = "buffer @b0 : L0A[32]
         buffer @b1 : L0A[32]
         %0 = alloc @b0 at 0
         %1 = alloc @b1 at 32
         %2 = MMAD CUBE 10 (@b0, @b1) after(%0, %1)
         %3 = free @b0 after(%2)
         %4 = free @b1 after(%2)";
    let m = small(body);
    assert_eq!(categories(&m), only(&[Category::L0Exclusive]));
    assert_eq!(metrics(&m).l0_max_live["L0A"], 2);
    // Without the rule, the capacity alone binds.
    let mut relaxed = m.clone();
    relaxed.target.l0_exclusive = false;
    assert!(categories(&relaxed).is_empty());
}

#[test]
fn missing_offset_in_a_planned_module() {
    let m = two_tiles_with("alloc @b0 at 0", "alloc @b0");
    assert_eq!(categories(&m), only(&[Category::MissingOffset]));
}

#[test]
fn capacity_offset_past_the_tier() {
    let m = two_tiles_with("alloc @b0 at 0", "alloc @b0 at 3584");
    assert_eq!(categories(&m), only(&[Category::Capacity]));
    assert_eq!(
        found(&m, Category::Capacity),
        ["capacity: %0 places @b0 at [3584, 4608), past the end of L1 (capacity 4096)"]
    );
}

#[test]
fn overlap_two_residencies_share_bytes_while_both_live_in_sigma() {
    let m = small(
        "buffer @b0 : UB[128]
         buffer @b1 : UB[128]
         %0 = alloc @b0 at 0
         %1 = alloc @b1 at 64
         %2 = VADD VECTOR 10 (@b0, @b1) after(%0, %1)
         %3 = free @b0 after(%2)
         %4 = free @b1 after(%2)",
    );
    // Both are held over the same cycles too.
    assert_eq!(
        categories(&m),
        only(&[Category::Overlap, Category::Ownership])
    );
    assert_eq!(
        found(&m, Category::Overlap),
        ["overlap: %1 places @b1 at [64, 192) in UB, overlapping @b0 at [0, 128), resident since %0"]
    );
}

#[test]
fn residency_freed_while_spilled_out() {
    let m = two_tiles_with(
        "  %21 = spill_in @b1 at 256 MTE2 1174 after(%20 spill, %6 reuse)
  %7 = COPY_OUT MTE3 1174 (@b1) after(%3, %21 spill)
  %8 = free @b1 after(%7, %21 spill)",
        "  %8 = free @b1 after(%20 spill)",
    );
    assert_eq!(categories(&m), only(&[Category::Residency]));
}

#[test]
fn residency_two_spills_of_one_buffer_interleave() {
    // OUT, OUT, IN, IN: the second SPILL_OUT finds @b0 already out, and the second SPILL_IN finds
    // it already back.
    let m = small(
        "buffer @b0 : UB[64]
         %0 = alloc @b0 at 0
         %1 = VADD VECTOR 10 (@b0) after(%0)
         %10 = spill_out @b0 MTE3 278 after(%1 spill)
         %12 = spill_out @b0 MTE3 278 after(%10 spill)
         %11 = spill_in @b0 at 0 MTE2 278 after(%10 spill)
         %13 = spill_in @b0 at 0 MTE2 278 after(%12 spill)
         %2 = free @b0 after(%13 spill)",
    );
    assert_eq!(
        categories(&m),
        only(&[Category::Residency, Category::Backing])
    );
}

#[test]
fn backing_flag_without_a_copy_in() {
    let m = two_tiles_with("buffer @b1 : UB[512]", "buffer @b1 : UB[512] backed");
    // The replay's own backing decides the spill cost, so the cycles still check out.
    assert_eq!(categories(&m), only(&[Category::Backing]));
}

#[test]
fn backing_reload_without_a_spill_out() {
    let m = small(
        "buffer @b0 : UB[64]
         %0 = alloc @b0 at 0
         %1 = spill_in @b0 at 64 MTE2 278 after(%0)
         %2 = free @b0 after(%1)",
    );
    assert_eq!(categories(&m), only(&[Category::Backing]));
}

#[test]
fn spill_cost_wrong_cycles_and_pipe() {
    let m = two_tiles_with("spill_out @b1 MTE3 1174", "spill_out @b1 MTE2 1000");
    assert_eq!(categories(&m), only(&[Category::SpillCost]));
    assert_eq!(found(&m, Category::SpillCost).len(), 2);
}

#[test]
fn spill_edge_use_not_ordered_before_the_spill_out() {
    let m = two_tiles_with("after(%2 spill, %3 spill)", "after(%2 spill)");
    // The SPILL_OUT then runs while %3 still reads @b1, and @b2 moves in before %3 ends.
    assert_eq!(
        categories(&m),
        only(&[Category::SpillEdge, Category::Ownership])
    );
    assert_eq!(
        found(&m, Category::SpillEdge),
        [
            "spill-edge: the SPILL_OUT %20 of @b1 must follow %3, which uses it before, but no \
          dependency path orders them"
        ]
    );
}

#[test]
fn spill_edge_stated_through_another_path_is_accepted() {
    // %3 → %20 is implied by %3 → %10 → %20 instead of a direct spill edge.
    let m = two_tiles_with(
        "  %20 = spill_out @b1 MTE3 1174 after(%2 spill, %3 spill)",
        "  %10 = VEC_NOP VECTOR 1 (@b0) after(%3)
  %20 = spill_out @b1 MTE3 1174 after(%2 spill, %10)",
    );
    assert!(categories(&m).is_empty(), "{:?}", categories(&m));
}

#[test]
fn cycle_through_a_dependency_and_pipe_order() {
    // %3 waits for %5, which runs after it on VECTOR.
    let m = two_tiles_with("after(%1, %2)", "after(%1, %2, %5)");
    let c = categories(&m);
    assert!(
        c.contains(&Category::Cycle) && c.contains(&Category::EdgeOrder),
        "{c:?}"
    );
    let cycle = found(&m, Category::Cycle);
    assert_eq!(cycle.len(), 1);
    assert!(
        cycle[0].contains("%3") && cycle[0].contains("%5"),
        "{cycle:?}"
    );
}

#[test]
fn hand_off_without_a_reuse_edge() {
    let m = two_tiles_with("alloc @b2 at 0 after(%20 reuse)", "alloc @b2 at 0");
    // Nothing delays @b2's ALLOC either, so the timing has both owners at once.
    assert_eq!(
        categories(&m),
        only(&[Category::HandOff, Category::Ownership])
    );
    assert_eq!(
        found(&m, Category::HandOff),
        ["hand-off: %4 starts @b2 on bytes of UB that @b1 held until %20, but no dependency path \
          orders %20 before %4"]
    );
}

#[test]
fn ownership_use_running_after_its_free() {
    // The FREE of @b0 does not wait for %1, which still reads @b0 when @b1 takes its bytes.
    let m = small(
        "buffer @b0 : UB[64]
         buffer @b1 : UB[64]
         %0 = alloc @b0 at 0
         %1 = VREAD VECTOR 100 (@b0) after(%0)
         %2 = free @b0 after(%0)
         %3 = alloc @b1 at 0 after(%2 reuse)
         %4 = VWRITE VECTOR 100 (@b1) after(%3)
         %5 = free @b1 after(%4)",
    );
    assert_eq!(categories(&m), only(&[Category::Ownership]));
    assert_eq!(metrics(&m).ownership_conflicts, 1);
}

#[test]
fn unplanned_modules_get_order_checks_and_a_timing_without_reuse() {
    let m = parse(
        "module @m phase(scheduled) {
           target { tiers L1 = 64 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = false }
           buffer @b0 : L1[8]
           %0 = alloc @b0
           %1 = OP P 5 (@b0) after(%0)
           %2 = OP P 7 (@b0) after(%0)
           %3 = free @b0 after(%1, %2)
         }",
    );
    let r = replay(&m, &ReplayOptions::default());
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    assert!(r.metrics.makespan_without_reuse);
    // One pipe: 5 then 7 cycles in σ order; the longest chain is 7.
    assert_eq!((r.metrics.makespan, r.metrics.critical_path), (12, 7));
    assert_eq!(r.metrics.makespan_lower_bound, 12);
}

#[test]
fn ignore_reuse_times_without_reuse_edges_and_counts_conflicts() {
    let m = parse(TWO_TILES);
    let r = replay(&m, &ReplayOptions { ignore_reuse: true });
    let x = &r.metrics;
    assert!(x.makespan_without_reuse);
    // Without %20 → %4, @b2 is allocated at 0 and %5 runs 2498..2798 right after %3, while @b1
    // holds [0, 512) until %20 ends at 3672. The reload still waits for %20, after @b2's FREE.
    assert!(x.makespan < 6320, "{}", x.makespan);
    assert_eq!(x.ownership_conflicts, 1);
    assert_eq!(categories_of(&r), only(&[Category::Ownership]));
}

fn categories_of(r: &Replay) -> BTreeSet<Category> {
    r.violations.iter().map(|v| v.category).collect()
}

#[test]
fn reorder_keeps_spills_anchored_and_counts_static_errors() {
    let m = parse(TWO_TILES);
    let originals: Vec<OpId> = m
        .schedule
        .iter()
        .copied()
        .filter(|&id| !m.op(id).kind.is_spill())
        .collect();
    assert!(reorder_static_errors(&m, &originals).is_empty());
    // Moving @b2's lifetime before @b1's spill breaks its reuse edge and overlaps @b1 in UB.
    let name = |n: u32| m.op_ids().find(|&id| m.op(id).name == n).expect("op");
    let order: Vec<OpId> = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(name).to_vec();
    let moved: Vec<OpId> = [0, 1, 2, 4, 5, 6, 3, 7, 8, 9].map(name).to_vec();
    assert!(reorder_static_errors(&m, &order).is_empty());
    let errors = reorder_static_errors(&m, &moved);
    assert_eq!(errors.get(&Category::Overlap), Some(&1), "{errors:?}");
    assert!(errors.contains_key(&Category::EdgeOrder), "{errors:?}");
}

#[test]
fn the_pass_reports_each_violation_at_its_op_and_fails_with_a_summary() {
    let mut m = two_tiles_with("alloc @b2 at 0 after(%20 reuse)", "alloc @b2 at 0");
    let before = m.clone();
    let mut analyses = AnalysisManager::new();
    let mut cx = PassContext::new(&mut analyses);
    let options = VerifyOptions {
        max_per_category: 0,
        ..VerifyOptions::default()
    };
    let err = Verify::new(options)
        .run(&mut m, &mut cx)
        .expect_err("invalid");
    assert_eq!(
        err.message,
        "verification failed: 2 violation(s): hand-off=1, ownership=1"
    );
    let (_, stats, diagnostics) = cx.finish();
    assert_eq!(m, before);
    let stat = |n: &str| stats.iter().find(|s| s.name == n).map(|s| s.value);
    assert_eq!(stat("hand-off"), Some(1));
    assert_eq!(stat("spill-count"), Some(1));
    // With no errors shown per category, only notes remain.
    assert!(diagnostics.iter().all(|d| d.severity == Severity::Note));
    assert_eq!(diagnostics.len(), 2);

    let mut valid = parse(TWO_TILES);
    let mut analyses = AnalysisManager::new();
    let mut cx = PassContext::new(&mut analyses);
    assert!(Verify::new(VerifyOptions::default())
        .run(&mut valid, &mut cx)
        .is_ok());
    let (_, stats, diagnostics) = cx.finish();
    assert!(diagnostics.is_empty());
    assert!(stats
        .iter()
        .any(|s| s.name == "makespan" && s.value == 6320));
}
