//! The L0 gate and the `mpas` / `order` passes: an op naming two buffers of one L0 tier is
//! rejected at that op; L0 turns that contradict the dependencies stop the traversal with the
//! cycle named (never a partial order); every policy keeps L0 tiers exclusive on a trace that frees
//! everything at its end; the passes refuse planned modules, move the phase to `scheduled`,
//! report statistics and keep the bottom levels cached; MPAS's pull rule wakes the loaders of a
//! consumer together and still runs loads nobody reads. O(size of the modules).

use lattice::{AnalysisManager, PassContext, PassError, PassOptions, RegisteredPass};
use lattice_lir::{parse_module, Module, OpKind, Phase};
use lattice_passes::analysis::{bottom_levels, pressure, BottomLevels};
use lattice_passes::order::{
    mpas_order, order_by, Link, Mpas, MpasOptions, Order, OrderError, OrderOptions, Policy,
    TurnSearch,
};

const POLICIES: [Policy; 4] = [
    Policy::Input,
    Policy::Stable,
    Policy::MemoryFirst,
    Policy::CriticalFirst,
];

fn module(body: &str) -> Module {
    let text = format!(
        "module @m phase(parsed) {{
           target {{ tiers L1 = 1024, L0A = 256 l0 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = true }}
           {body}
         }}"
    );
    parse_module(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Every order policy, MPAS included, on `m`.
fn all_orders(m: &Module) -> Vec<Result<Vec<lattice_lir::OpId>, OrderError>> {
    let levels = bottom_levels(m);
    let mut orders: Vec<_> = POLICIES.iter().map(|&p| order_by(m, p, &levels)).collect();
    orders.push(mpas_order(m, &levels, &MpasOptions::default()));
    orders
}

#[test]
fn an_op_using_two_buffers_of_one_l0_tier_is_rejected_at_the_op() {
    let m = module(
        "buffer @b0 : L0A[8]
         buffer @b1 : L0A[8]
         %0 = alloc @b0
         %1 = alloc @b1
         %2 = MATMUL P 1 (@b0, @b1) after(%0, %1)
         %3 = free @b0 after(%2)
         %4 = free @b1 after(%2)",
    );
    for result in all_orders(&m) {
        let error = result.unwrap_err();
        assert!(
            matches!(error, OrderError::SharedL0Tier { op_name: 2, first: 0, second: 1, ref tier, .. } if tier == "L0A"),
            "{error:?}"
        );
        let pass_error = PassError::from(error);
        assert_eq!(pass_error.op, Some(m.op_ids().nth(2).unwrap()));
        assert!(pass_error
            .message
            .starts_with("%2 uses @b0 and @b1, two buffers of the L0 tier L0A"));
    }
}

#[test]
fn l0_turns_the_input_order_cannot_keep_are_derived_from_the_graph() {
    // σ allocates @b1 before @b0, so its turns give @b1 L0A first, but @b1's last use waits for
    // @b0's use: FREE(@b1) -> ALLOC(@b0) -> %2 -> %3 -> FREE(@b1) would be a cycle. @b0 first
    // works, and every policy finds it from the graph (a renumbered input looks like this).
    let m = module(
        "buffer @b0 : L0A[8]
         buffer @b1 : L0A[8]
         %0 = alloc @b1
         %1 = alloc @b0
         %2 = OP P 1 (@b0) after(%1)
         %3 = OP P 1 (@b1) after(%0, %2)
         %4 = free @b0 after(%1, %2)
         %5 = free @b1 after(%0, %3)",
    );
    lattice_lir::verify_module(&m).unwrap();
    for order in all_orders(&m) {
        let order = order.unwrap();
        assert_eq!(pressure(&m, &order).l0_max_live, 1);
        let mut reordered = m.clone();
        reordered.schedule = order;
        lattice_lir::verify_module(&reordered).unwrap();
    }
}

#[test]
fn l0_turns_no_order_can_keep_stop_with_the_cycle_named() {
    // @b1's use sits between two uses of @b0, so both L0A buffers are live at once in every
    // order: the graph gives no turns either, and the engine reports the incoming turns' cycle
    // FREE(@b0) -> ALLOC(@b1) -> %3 -> %4 -> FREE(@b0). %3 spells no dependency on its ALLOC:
    // that link is the buffer's lifetime.
    let m = module(
        "buffer @b0 : L0A[8]
         buffer @b1 : L0A[8]
         %0 = alloc @b0
         %1 = alloc @b1
         %2 = OP P 1 (@b0) after(%0)
         %3 = OP P 1 (@b1) after(%2)
         %4 = OP P 1 (@b0) after(%0, %3)
         %5 = free @b0 after(%4)
         %6 = free @b1 after(%1, %3)",
    );
    for result in all_orders(&m) {
        let OrderError::Cycle {
            left,
            total,
            cycle,
            search,
        } = result.unwrap_err()
        else {
            panic!("expected a cycle");
        };
        // No other turns help either: @b1 must be live across %2..%4, all of @b0's lifetime.
        assert_eq!(search, Some(TurnSearch::Exhausted));
        // At least the cycle and %6 never run; how much else depends on the policy.
        assert!(total == 7 && left >= 4, "{left} of {total}");
        let names: Vec<u32> = cycle.iter().map(|s| s.name).collect();
        assert_eq!(names, [1, 3, 4, 5]);
        assert_eq!(cycle[0].link, Link::Lifetime { buffer: 1 });
        assert_eq!(cycle[1].link, Link::Dependency);
        assert_eq!(cycle[3].link, Link::L0Turn { tier: "L0A".into() });
        let error = PassError::from(OrderError::Cycle {
            left,
            total,
            cycle,
            search: None,
        });
        assert!(
            error
                .message
                .ends_with("form the cycle %1 -> %3 -> %4 -> %5 -> %1"),
            "{}",
            error.message
        );
        assert_eq!(
            error.op,
            Some(m.op_ids().nth(1).unwrap()),
            "anchored at the waiting ALLOC"
        );
        assert_eq!(error.notes[3].1, "%1 waits for %5 (L0 exclusivity of L0A)");
    }
}

#[test]
fn every_policy_keeps_l0_exclusive_when_the_input_frees_at_the_end() {
    // Two tiles accumulating into one L0C-like buffer, contest style: every FREE at the end.
    let m = module(
        "buffer @b0 : L1[64] backed
         buffer @b1 : L0A[32]
         buffer @b2 : L0A[32]
         buffer @b3 : L1[16]
         %0 = alloc @b0
         %1 = COPY_IN P 5 (@b0) after(%0)
         %2 = alloc @b1
         %3 = MOVE P 2 (@b1, @b0) after(%1, %2)
         %4 = alloc @b3
         %5 = MATMUL P 3 (@b3, @b1) after(%3, %4)
         %6 = alloc @b2
         %7 = MOVE P 2 (@b2, @b0) after(%1, %6)
         %8 = MATMUL P 3 (@b3, @b2) after(%5, %7)
         %9 = free @b0 after(%3, %7)
         %10 = free @b1 after(%5)
         %11 = free @b2 after(%8)
         %12 = free @b3 after(%8)",
    );
    assert_eq!(pressure(&m, &m.schedule).l0_max_live, 2);
    for order in all_orders(&m) {
        let order = order.unwrap();
        assert_eq!(pressure(&m, &order).l0_max_live, 1);
        let mut reordered = m.clone();
        reordered.schedule = order;
        lattice_lir::verify_module(&reordered).unwrap();
    }
}

fn run<P: RegisteredPass>(
    options: P::Options,
    m: &mut Module,
    am: &mut AnalysisManager,
) -> (Result<(), PassError>, Vec<(&'static str, u64)>) {
    let mut cx = PassContext::new(am);
    let result = P::new(options).run(m, &mut cx);
    let (preserved, stats, _) = cx.finish();
    am.invalidate(&preserved);
    (result, stats.iter().map(|s| (s.name, s.value)).collect())
}

#[test]
fn the_passes_reorder_report_and_keep_bottom_levels() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/matmul_tile.lir"
    ))
    .unwrap();
    let original = parse_module(&text).unwrap();
    let mut m = original.clone();
    let mut am = AnalysisManager::new();
    let (result, stats) = run::<Mpas>(Default::default(), &mut m, &mut am);
    result.unwrap();
    assert_eq!(m.phase, Phase::Scheduled);
    assert_eq!(
        m.schedule,
        mpas_order(
            &original,
            &bottom_levels(&original),
            &MpasOptions::default()
        )
        .unwrap()
    );
    assert!(am.is_cached::<BottomLevels>());
    let before = pressure(&original, &original.schedule);
    let after = pressure(&m, &m.schedule);
    assert_eq!(
        stats,
        [
            ("logical-peak-before", before.logical_peak),
            ("logical-peak-after", after.logical_peak),
            ("staging-peak-after", 512),
            ("l0-max-live-before", 1),
            ("l0-max-live-after", 1),
        ]
    );
    for policy in POLICIES {
        let options = OrderOptions { policy };
        let (result, _) = run::<Order>(options, &mut m, &mut am);
        result.unwrap();
        assert_eq!(m.phase, Phase::Scheduled);
    }
    let pairs = [("policy".to_string(), "memory-first".to_string())];
    assert_eq!(
        OrderOptions::from_pairs(&pairs).unwrap().policy,
        Policy::MemoryFirst
    );
}

#[test]
fn planned_modules_are_refused_unchanged() {
    let mut m = module(
        "buffer @b0 : L1[8]
         %0 = alloc @b0 at 0
         %1 = OP P 1 (@b0) after(%0)
         %2 = free @b0 after(%1)",
    );
    m.phase = Phase::Planned;
    assert!(m.ops.iter().any(|op| matches!(
        op.kind,
        OpKind::Alloc {
            offset: Some(0),
            ..
        }
    )));
    let before = m.clone();
    let mut am = AnalysisManager::new();
    let (result, _) = run::<Mpas>(Default::default(), &mut m, &mut am);
    assert_eq!(
        result.unwrap_err().message,
        "mpas cannot reorder a `planned` module: its memory plan is bound to the current order; \
         order before planning"
    );
    let (result, _) = run::<Order>(OrderOptions::default(), &mut m, &mut am);
    assert!(result
        .unwrap_err()
        .message
        .starts_with("order cannot reorder a `planned` module"));
    assert_eq!(m, before);
}

#[test]
fn pulled_loaders_wake_together_for_their_consumer_and_dead_loads_still_run() {
    // %6 reads two loaded buffers, so both loaders wake together when nothing else can run, and
    // the op %0 runs first although σ lists it last. Nothing reads the load into @b2, but its
    // FREE waits for %6 too, so it wakes only after %6. Without the rule the key loads @b2
    // first (its chain is the longest) and holds it across %6.
    let m = module(
        "buffer @b0 : L1[8]
         buffer @b1 : L1[8]
         buffer @b2 : L1[8]
         %1 = alloc @b0
         %2 = LOAD P 1 (@b0) after(%1)
         %3 = alloc @b1
         %4 = LOAD P 1 (@b1) after(%3)
         %5 = alloc @b2
         %7 = LOAD P 5 (@b2) after(%5)
         %6 = OP P 1 (@b0, @b1) after(%2, %4)
         %8 = free @b0 after(%6)
         %9 = free @b1 after(%6)
         %10 = free @b2 after(%6, %7)
         %0 = OP P 1 ()",
    );
    let levels = bottom_levels(&m);
    let order = mpas_order(&m, &levels, &MpasOptions::default()).unwrap();
    let names: Vec<u32> = order.iter().map(|&op| m.op(op).name).collect();
    assert_eq!(names, [0, 1, 2, 3, 4, 6, 8, 9, 5, 7, 10]);
    let unpulled = MpasOptions {
        pull: false,
        ..MpasOptions::default()
    };
    let early = mpas_order(&m, &levels, &unpulled).unwrap();
    assert_eq!(pressure(&m, &order).logical_peak, 16);
    assert_eq!(pressure(&m, &early).logical_peak, 24);
}
