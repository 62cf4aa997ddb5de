//! DLR feature by feature on small hand-written modules, with exact expected σ, offsets and
//! spill events: best fit, pinning, the cost key against LRU, backed drops against writebacks,
//! reloads at a new offset, ALLOC/FREE tightening, eviction by address against eviction by rank,
//! L0 eager flushing, and the errors.

mod common;

use lattice_lir::{parse_module, print_module, verify_module, Module};
use lattice_passes::dlr::{plan, DlrErrorKind, DlrOptions, Evict, L0Mode, Plan, Victim};

fn module(l1: u64, l0_exclusive: bool, body: &str) -> Module {
    let text = format!(
        "module @t phase(scheduled) {{
  target {{
    tiers L1 = {l1}, UB = 64, L0A = 32 l0, L0B = 32 l0, L0C = 32 l0
    pipes MTE1, MTE2, MTE3, FIXP, CUBE, VECTOR
    spill_out MTE3, spill_in MTE2, spill_cost = 150 + 2 * size
    l0_exclusive = {l0_exclusive}
  }}
{body}}}
"
    );
    parse_module(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(m: &Module, victim: Victim) -> Plan {
    let options = DlrOptions {
        victim,
        ..DlrOptions::default()
    };
    run_with(m, &options)
}

fn run_with(m: &Module, options: &DlrOptions) -> Plan {
    let p = plan(m, options).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&p.module).unwrap_or_else(|e| panic!("{e:?}"));
    let replay = common::check_plan(&p.module);
    assert_eq!(
        (replay.spills, replay.traffic),
        (p.stats.spills, p.stats.traffic)
    );
    p
}

/// The op lines of the printed plan, without indentation.
fn ops(p: &Plan) -> Vec<String> {
    print_module(&p.module)
        .lines()
        .filter(|l| l.trim_start().starts_with('%'))
        .map(|l| l.trim().to_owned())
        .collect()
}

fn assert_ops(p: &Plan, expected: &[&str]) {
    let got = ops(p);
    assert_eq!(got, expected, "\n{}", got.join("\n"));
}

#[test]
fn best_fit_takes_the_tightest_hole_and_allocs_move_to_first_use() {
    let m = module(
        100,
        false,
        "  buffer @b0 : L1[30]
  buffer @b1 : L1[20]
  buffer @b2 : L1[10]
  buffer @b3 : L1[20]
  buffer @b4 : L1[20]
  buffer @b5 : L1[15]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = alloc @b2
  %3 = alloc @b3
  %4 = alloc @b4
  %5 = alloc @b5
  %6 = OP VECTOR 10 (@b0, @b1, @b2, @b3, @b4) after(%0, %1, %2, %3, %4)
  %7 = OP VECTOR 10 (@b5, @b1, @b2, @b4) after(%5, %6)
  %8 = free @b0 after(%6)
  %9 = free @b1 after(%7)
  %10 = free @b2 after(%7)
  %11 = free @b3 after(%6)
  %12 = free @b4 after(%7)
  %13 = free @b5 after(%7)
",
    );
    let p = run(&m, Victim::Paper);
    assert_ops(
        &p,
        &[
            "%0 = alloc @b0 at 0",
            "%1 = alloc @b1 at 30",
            "%2 = alloc @b2 at 50",
            "%3 = alloc @b3 at 60",
            "%4 = alloc @b4 at 80",
            "%6 = OP VECTOR 10 (@b0, @b1, @b2, @b3, @b4) after(%0, %1, %2, %3, %4)",
            "%8 = free @b0 after(%6)",
            "%11 = free @b3 after(%6)",
            "%5 = alloc @b5 at 60 after(%11 reuse)",
            "%7 = OP VECTOR 10 (@b5, @b1, @b2, @b4) after(%5, %6)",
            "%9 = free @b1 after(%7)",
            "%10 = free @b2 after(%7)",
            "%12 = free @b4 after(%7)",
            "%13 = free @b5 after(%7)",
        ],
    );
    assert_eq!(p.stats.spills, 0);
    assert_eq!(p.stats.physical_peak, 100);
}

/// x, y, z of 40 bytes in 100: z's allocation must evict x or y. x is used again first.
const THREE: &str = "  buffer @b0 : L1[40]
  buffer @b1 : L1[40]
  buffer @b2 : L1[40]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = alloc @b2
  %3 = OP VECTOR 10 (@b0) after(%0)
  %4 = OP VECTOR 10 (@b1) after(%1)
  %5 = OP VECTOR 10 (@b2) after(%2)
  %6 = OP VECTOR 10 (@b0) after(%3)
  %7 = OP VECTOR 10 (@b1) after(%4)
  %8 = OP VECTOR 10 (@b2, @b1) after(%5, %7)
  %9 = free @b0 after(%6)
  %10 = free @b1 after(%8)
  %11 = free @b2 after(%8)
";

#[test]
fn cost_key_evicts_the_farther_reuse_and_reloads_at_a_new_offset() {
    let p = run(&module(100, false, THREE), Victim::Paper);
    assert_ops(
        &p,
        &[
            "%0 = alloc @b0 at 0",
            "%3 = OP VECTOR 10 (@b0) after(%0)",
            "%1 = alloc @b1 at 40",
            "%4 = OP VECTOR 10 (@b1) after(%1)",
            "%12 = spill_out @b1 MTE3 230 after(%1 spill, %4 spill)",
            "%2 = alloc @b2 at 40 after(%12 reuse)",
            "%5 = OP VECTOR 10 (@b2) after(%2)",
            "%6 = OP VECTOR 10 (@b0) after(%3)",
            "%9 = free @b0 after(%6)",
            "%13 = spill_in @b1 at 0 MTE2 230 after(%12 spill, %9 reuse)",
            "%7 = OP VECTOR 10 (@b1) after(%4, %13 spill)",
            "%8 = OP VECTOR 10 (@b2, @b1) after(%5, %7, %13 spill)",
            "%10 = free @b1 after(%8, %13 spill)",
            "%11 = free @b2 after(%8)",
        ],
    );
}

#[test]
fn lru_evicts_the_least_recently_used() {
    let p = run(&module(100, false, THREE), Victim::Lru);
    assert_ops(
        &p,
        &[
            "%0 = alloc @b0 at 0",
            "%3 = OP VECTOR 10 (@b0) after(%0)",
            "%1 = alloc @b1 at 40",
            "%4 = OP VECTOR 10 (@b1) after(%1)",
            "%12 = spill_out @b0 MTE3 230 after(%0 spill, %3 spill)",
            "%2 = alloc @b2 at 0 after(%12 reuse)",
            "%5 = OP VECTOR 10 (@b2) after(%2)",
            "%14 = spill_out @b1 MTE3 230 after(%1 spill, %4 spill)",
            "%13 = spill_in @b0 at 40 MTE2 230 after(%12 spill, %14 reuse)",
            "%6 = OP VECTOR 10 (@b0) after(%3, %13 spill)",
            "%9 = free @b0 after(%6, %13 spill)",
            "%15 = spill_in @b1 at 40 MTE2 230 after(%14 spill, %9 reuse)",
            "%7 = OP VECTOR 10 (@b1) after(%4, %15 spill)",
            "%8 = OP VECTOR 10 (@b2, @b1) after(%5, %7, %15 spill)",
            "%10 = free @b1 after(%8, %15 spill)",
            "%11 = free @b2 after(%8)",
        ],
    );
}

#[test]
fn pinned_operands_are_never_victims() {
    // At %5, @b0 is the cost key's choice (its next use is farthest) but it is an operand.
    let m = module(
        100,
        false,
        "  buffer @b0 : L1[50]
  buffer @b1 : L1[50]
  buffer @b2 : L1[50]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = alloc @b2
  %3 = OP VECTOR 10 (@b0) after(%0)
  %4 = OP VECTOR 10 (@b1) after(%1)
  %5 = OP VECTOR 10 (@b2, @b0) after(%2, %3)
  %6 = OP VECTOR 10 (@b1) after(%4)
  %7 = OP VECTOR 10 (@b0) after(%5)
  %8 = free @b0 after(%7)
  %9 = free @b1 after(%6)
  %10 = free @b2 after(%5)
",
    );
    let p = run(&m, Victim::Paper);
    assert_ops(
        &p,
        &[
            "%0 = alloc @b0 at 0",
            "%3 = OP VECTOR 10 (@b0) after(%0)",
            "%1 = alloc @b1 at 50",
            "%4 = OP VECTOR 10 (@b1) after(%1)",
            "%11 = spill_out @b1 MTE3 250 after(%1 spill, %4 spill)",
            "%2 = alloc @b2 at 50 after(%11 reuse)",
            "%5 = OP VECTOR 10 (@b2, @b0) after(%2, %3)",
            "%10 = free @b2 after(%5)",
            "%12 = spill_in @b1 at 50 MTE2 250 after(%11 spill, %10 reuse)",
            "%6 = OP VECTOR 10 (@b1) after(%4, %12 spill)",
            "%9 = free @b1 after(%6, %12 spill)",
            "%7 = OP VECTOR 10 (@b0) after(%5)",
            "%8 = free @b0 after(%7)",
        ],
    );
}

/// @b0 backed and used last; @b1 unbacked and used first: z's allocation must evict one.
const BACKED: &str = "  buffer @b0 : L1[40] backed
  buffer @b1 : L1[40]
  buffer @b2 : L1[40]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = alloc @b2
  %3 = OP VECTOR 10 (@b1) after(%1)
  %4 = COPY_IN MTE2 10 (@b0) after(%0)
  %5 = OP VECTOR 10 (@b2) after(%2)
  %6 = OP VECTOR 10 (@b0, @b1) after(%3, %4)
  %7 = free @b0 after(%6)
  %8 = free @b1 after(%6)
  %9 = free @b2 after(%5)
";

#[test]
fn cost_drops_a_backed_victim_for_free() {
    let p = run(&module(100, false, BACKED), Victim::Paper);
    assert_ops(
        &p,
        &[
            "%1 = alloc @b1 at 0",
            "%3 = OP VECTOR 10 (@b1) after(%1)",
            "%0 = alloc @b0 at 40",
            "%4 = COPY_IN MTE2 10 (@b0) after(%0)",
            "%10 = spill_out @b0 MTE3 0 after(%0 spill, %4 spill)",
            "%2 = alloc @b2 at 40 after(%10 reuse)",
            "%5 = OP VECTOR 10 (@b2) after(%2)",
            "%9 = free @b2 after(%5)",
            "%11 = spill_in @b0 at 40 MTE2 230 after(%10 spill, %9 reuse)",
            "%6 = OP VECTOR 10 (@b0, @b1) after(%3, %4, %11 spill)",
            "%7 = free @b0 after(%6, %11 spill)",
            "%8 = free @b1 after(%6)",
        ],
    );
    assert_eq!((p.stats.spills, p.stats.drops, p.stats.traffic), (1, 1, 40));
}

#[test]
fn lru_writes_back_the_older_unbacked_victim() {
    let p = run(&module(100, false, BACKED), Victim::Lru);
    assert_ops(
        &p,
        &[
            "%1 = alloc @b1 at 0",
            "%3 = OP VECTOR 10 (@b1) after(%1)",
            "%0 = alloc @b0 at 40",
            "%4 = COPY_IN MTE2 10 (@b0) after(%0)",
            "%10 = spill_out @b1 MTE3 230 after(%1 spill, %3 spill)",
            "%2 = alloc @b2 at 0 after(%10 reuse)",
            "%5 = OP VECTOR 10 (@b2) after(%2)",
            "%9 = free @b2 after(%5)",
            "%11 = spill_in @b1 at 0 MTE2 230 after(%10 spill, %9 reuse)",
            "%6 = OP VECTOR 10 (@b0, @b1) after(%3, %4, %11 spill)",
            "%7 = free @b0 after(%6)",
            "%8 = free @b1 after(%6, %11 spill)",
        ],
    );
    assert_eq!((p.stats.spills, p.stats.drops, p.stats.traffic), (1, 0, 80));
}

/// Two 16-byte L0A buffers used alternately: they fit L0A together.
const L0: &str = "  buffer @b0 : L0A[16]
  buffer @b1 : L0A[16]
  buffer @b2 : L1[16]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = alloc @b2
  %3 = MOVE MTE1 10 (@b0, @b2) after(%0, %2)
  %4 = MOVE MTE1 10 (@b1, @b2) after(%1, %3)
  %5 = OP CUBE 10 (@b0) after(%3)
  %6 = OP CUBE 10 (@b1) after(%4)
  %7 = free @b0 after(%5)
  %8 = free @b1 after(%6)
  %9 = free @b2 after(%4)
";

#[test]
fn l0_exclusive_flushes_eagerly_and_double_buffers() {
    // `l0=double`: @b1 takes the half @b0 did not use, so its ALLOC needs no reuse dependency
    // and each reload returns to its own half.
    let p = run(&module(100, true, L0), Victim::Paper);
    assert_ops(
        &p,
        &[
            "%0 = alloc @b0 at 0",
            "%2 = alloc @b2 at 0",
            "%3 = MOVE MTE1 10 (@b0, @b2) after(%0, %2)",
            "%10 = spill_out @b0 MTE3 182 after(%0 spill, %3 spill)",
            "%1 = alloc @b1 at 16",
            "%4 = MOVE MTE1 10 (@b1, @b2) after(%1, %3)",
            "%9 = free @b2 after(%4)",
            "%12 = spill_out @b1 MTE3 182 after(%1 spill, %4 spill)",
            "%11 = spill_in @b0 at 0 MTE2 182 after(%10 spill, %10 reuse)",
            "%5 = OP CUBE 10 (@b0) after(%3, %11 spill)",
            "%7 = free @b0 after(%5, %11 spill)",
            "%13 = spill_in @b1 at 16 MTE2 182 after(%12 spill, %12 reuse)",
            "%6 = OP CUBE 10 (@b1) after(%4, %13 spill)",
            "%8 = free @b1 after(%6, %13 spill)",
        ],
    );
    // `l0=single`: every L0 buffer at offset 0, each handed off through a reuse dependency.
    let single = DlrOptions {
        victim: Victim::Paper,
        l0: L0Mode::Single,
        ..DlrOptions::default()
    };
    let p = run_with(&module(100, true, L0), &single);
    assert_ops(
        &p,
        &[
            "%0 = alloc @b0 at 0",
            "%2 = alloc @b2 at 0",
            "%3 = MOVE MTE1 10 (@b0, @b2) after(%0, %2)",
            "%10 = spill_out @b0 MTE3 182 after(%0 spill, %3 spill)",
            "%1 = alloc @b1 at 0 after(%10 reuse)",
            "%4 = MOVE MTE1 10 (@b1, @b2) after(%1, %3)",
            "%9 = free @b2 after(%4)",
            "%12 = spill_out @b1 MTE3 182 after(%1 spill, %4 spill)",
            "%11 = spill_in @b0 at 0 MTE2 182 after(%10 spill, %12 reuse)",
            "%5 = OP CUBE 10 (@b0) after(%3, %11 spill)",
            "%7 = free @b0 after(%5, %11 spill)",
            "%13 = spill_in @b1 at 0 MTE2 182 after(%12 spill, %7 reuse)",
            "%6 = OP CUBE 10 (@b1) after(%4, %13 spill)",
            "%8 = free @b1 after(%6, %13 spill)",
        ],
    );
    let shared = run(&module(100, false, L0), Victim::Paper);
    assert_eq!(shared.stats.spills, 0);
}

#[test]
fn impossible_request_fails_at_the_op() {
    let m = module(
        100,
        false,
        "  buffer @b0 : L1[60]
  buffer @b1 : L1[60]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = OP VECTOR 10 (@b0, @b1) after(%0, %1)
  %3 = free @b0 after(%2)
  %4 = free @b1 after(%2)
",
    );
    let e = plan(&m, &DlrOptions::default()).unwrap_err();
    assert_eq!(e.op.map(|op| m.op(op).name), Some(2));
    assert!(
        matches!(e.kind, DlrErrorKind::NoRoom { buffer: 1, .. }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "the op's operands in L1 need 120 bytes at once, more than its capacity 100: @b1 (60 \
         bytes) does not fit beside the others (largest hole 40 bytes)"
    );
}

#[test]
fn refuses_unscheduled_and_planned_modules() {
    let mut m = module(100, false, "");
    m.phase = lattice_lir::Phase::Parsed;
    let e = plan(&m, &DlrOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("run an order pass such as mpas first"),
        "{e}"
    );
    m.phase = lattice_lir::Phase::Planned;
    let e = plan(&m, &DlrOptions::default()).unwrap_err();
    assert!(e.to_string().contains("already has a memory plan"), "{e}");
}

#[test]
fn results_table_lists_every_key_with_the_bound() {
    // The bound: at @b2's first use the tier holds 60 free bytes beside it and @b0 and @b1 wait
    // in it (80 bytes), and at @b0's second use @b1 and @b2 wait; keeping all but 20 bytes of
    // @b1 satisfies both, for 20 · 2 = 40 bytes of traffic (the LP keeps part of a buffer, which
    // no real plan can, hence the 100% gap).
    let m = module(100, false, THREE);
    let rows = [lattice_passes::dlr::report::Row {
        case: "three",
        order: "input",
        module: &m,
    }];
    let table = lattice_passes::dlr::report::results_table(&rows).unwrap();
    assert_eq!(
        table,
        "| case | order | victim | spills | drops | traffic | traffic bound | gap | physical peak |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|\n\
         | three | input | paper | 1 | 0 | 80 | 40 | 100.0% | 80 |\n\
         | three | input | cost | 1 | 0 | 80 | 40 | 100.0% | 80 |\n\
         | three | input | auto | 1 | 0 | 80 | 40 | 100.0% | 80 |\n\
         | three | input | lru | 2 | 0 | 160 | 40 | 300.0% | 80 |\n\
         | **total** | | paper / cost / auto / lru | | | 80 / 80 / 80 / 160 | 40 | | |\n"
    );
}

/// A full tier of four residents (a, b, c, d at 0, 30, 50, 80), next used in the order a, c, b,
/// d, and a 40-byte request. By rank the paper's key releases d, then b, then c, places the block
/// where b and c were and puts d back: b and c are spilled. By address the cheapest 40-byte
/// range is the one over c and d (d is needed last, b before it): exactly those two are spilled.
#[test]
fn window_spills_the_cheapest_range_where_rank_spills_what_its_holes_merge() {
    let m = module(
        100,
        false,
        "  buffer @b0 : L1[30]
  buffer @b1 : L1[20]
  buffer @b2 : L1[30]
  buffer @b3 : L1[20]
  buffer @b4 : L1[40]
  %0 = alloc @b0
  %1 = alloc @b1
  %2 = alloc @b2
  %3 = alloc @b3
  %4 = alloc @b4
  %5 = OP VECTOR 10 (@b0, @b1, @b2, @b3) after(%0, %1, %2, %3)
  %6 = OP VECTOR 10 (@b4) after(%4, %5)
  %7 = OP VECTOR 10 (@b0) after(%6)
  %8 = OP VECTOR 10 (@b2) after(%7)
  %9 = OP VECTOR 10 (@b1) after(%8)
  %10 = OP VECTOR 10 (@b3) after(%9)
  %11 = free @b0 after(%7)
  %12 = free @b1 after(%9)
  %13 = free @b2 after(%8)
  %14 = free @b3 after(%10)
  %15 = free @b4 after(%6)
",
    );
    let with = |evict| {
        let options = DlrOptions {
            evict,
            ..DlrOptions::default()
        };
        let p = run_with(&m, &options);
        let lines = ops(&p);
        let spilled: Vec<String> = lines
            .iter()
            .filter(|l| l.contains("spill_out"))
            .map(|l| l.split_whitespace().nth(3).unwrap_or("").to_owned())
            .collect();
        let placed = lines
            .iter()
            .find(|l| l.starts_with("%4 = alloc @b4"))
            .cloned()
            .unwrap_or_default();
        (spilled, placed, p.stats.spills)
    };
    let (spilled, placed, spills) = with(Evict::Window);
    assert_eq!(
        (spilled, spills),
        (vec!["@b2".to_owned(), "@b3".to_owned()], 2)
    );
    assert!(placed.starts_with("%4 = alloc @b4 at 50"), "{placed}");
    let (spilled, placed, spills) = with(Evict::Rank);
    assert_eq!(
        (spilled, spills),
        (vec!["@b1".to_owned(), "@b2".to_owned()], 2)
    );
    assert!(placed.starts_with("%4 = alloc @b4 at 30"), "{placed}");
    // `auto` is `window` with the default `l0=double`, `rank` with `l0=single`.
    let single = DlrOptions {
        l0: L0Mode::Single,
        ..DlrOptions::default()
    };
    let rank = DlrOptions {
        evict: Evict::Rank,
        ..DlrOptions::default()
    };
    assert_eq!(run_with(&m, &single).module, run_with(&m, &rank).module);
}
