//! DLR's options on generated workloads (property tests): with every victim key, both staging
//! placements, both eviction modes and reload prefetch off and on, over every generator shape, the contest core and
//! shrunk capacities, each MPAS-ordered module plans, the plan verifies with the spill count,
//! traffic and physical peak DLR reports, planning twice gives the same module, CPE refines it
//! into a plan that verifies, and the fixed-order traffic lower bound of its σ is never above its
//! traffic. `auto` moves no more bytes than `paper` or `cost`. Plus the bound's defining case:
//! one tier of backed buffers of one size, where it equals Belady's optimal paging.

mod common;

use lattice_lir::{parse_module, Module};
use lattice_passes::analysis::traffic_lower_bound;
use lattice_passes::cpe::{refine, CpeOptions};
use lattice_passes::dlr::{plan, DlrOptions, Evict, L0Mode, Victim};
use lattice_passes::generate::{generate_for, GenSpec, Shape};
use lattice_passes::verify::{replay, ReplayOptions};
use proptest::prelude::*;

/// Plans `m` with `options` and checks everything the file header promises; returns the traffic.
fn check(m: &Module, options: &DlrOptions) -> u64 {
    let planned = plan(m, options).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    let result = replay(&planned.module, &ReplayOptions::default());
    let shown = &result.violations[..result.violations.len().min(3)];
    assert!(
        result.violations.is_empty(),
        "{} {options:?}: {shown:?}",
        m.name
    );
    let r = &result.metrics;
    assert_eq!(
        (r.spill_count, r.extra_traffic, r.physical_peak),
        (
            planned.stats.spills,
            planned.stats.traffic,
            planned.stats.physical_peak
        ),
        "{} {options:?}: DLR's counters differ from the replay",
        m.name
    );
    let again = plan(m, options).expect("plans twice");
    assert_eq!(
        again.module, planned.module,
        "{}: not deterministic",
        m.name
    );
    let refined = refine(&planned.module, &CpeOptions::default()).expect("refines");
    let after = replay(&refined.module, &ReplayOptions::default());
    assert!(
        after.violations.is_empty(),
        "{}: CPE broke the plan",
        m.name
    );
    let bound = traffic_lower_bound(&planned.module).expect("bound");
    assert!(
        bound.bytes <= r.extra_traffic,
        "{} {options:?}: bound {bound:?} above the plan's traffic {}",
        m.name,
        r.extra_traffic
    );
    r.extra_traffic
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn every_option_value_plans_validly_and_the_bound_holds(
        shape in prop::sample::select(Shape::ALL.to_vec()),
        nodes in 20usize..400,
        seed in 0u64..1000,
        percent in prop_oneof![Just(100u64), Just(25), Just(8)],
        prefetch in prop_oneof![Just(0u32), Just(4), Just(64)],
    ) {
        let Ok(m) = generate_for(&GenSpec { shape, nodes, seed }, &common::shrunk(percent)) else {
            return Ok(());
        };
        let m = common::scheduled(&m);
        for (l0, evict) in [
            (L0Mode::Double, Evict::Window),
            (L0Mode::Single, Evict::Rank),
            (L0Mode::Double, Evict::Rank),
            (L0Mode::Single, Evict::Window),
        ] {
            let traffic = |victim| check(&m, &DlrOptions { victim, l0, prefetch, evict });
            let (paper, cost) = (traffic(Victim::Paper), traffic(Victim::Cost));
            traffic(Victim::Lru);
            prop_assert!(traffic(Victim::Auto) <= paper.min(cost));
        }
    }
}

/// Belady's optimal paging on `accesses` (buffer indices) with `slots` frames: the misses after
/// the first access of each buffer.
fn belady_reloads(accesses: &[usize], slots: usize) -> u64 {
    let mut resident: Vec<usize> = Vec::new();
    let mut misses = 0;
    let mut seen = std::collections::BTreeSet::new();
    for (i, &b) in accesses.iter().enumerate() {
        if resident.contains(&b) {
            continue;
        }
        if !seen.insert(b) {
            misses += 1;
        }
        if resident.len() == slots {
            let next = |r: usize| {
                accesses[i + 1..]
                    .iter()
                    .position(|&a| a == r)
                    .unwrap_or(usize::MAX)
            };
            let far = (0..resident.len())
                .max_by_key(|&k| next(resident[k]))
                .unwrap();
            resident.swap_remove(far);
        }
        resident.push(b);
    }
    misses
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn bound_equals_belady_for_backed_buffers_of_one_size(
        accesses in proptest::collection::vec(0usize..8, 1..60),
        slots in 1usize..5,
    ) {
        const SIZE: u64 = 16;
        let buffers = 8;
        let mut text = format!(
            "module @belady phase(scheduled) {{\n  target {{\n    tiers L1 = {}, UB = 64\n    \
             pipes MTE2, VECTOR\n    spill_out MTE2, spill_in MTE2, spill_cost = 150 + 2 * size\n    \
             l0_exclusive = false\n  }}\n",
            SIZE * slots as u64
        );
        for b in 0..buffers {
            text += &format!("  buffer @b{b} : L1[{SIZE}] backed\n");
        }
        // Each ALLOC just before the buffer's first use and each FREE just after its last, as
        // DLR tightens them: a residency then starts and ends at an access.
        let first = |b: usize| accesses.iter().position(|&a| a == b);
        let last = |b: usize| accesses.iter().rposition(|&a| a == b);
        let mut name = buffers;
        for (i, &b) in accesses.iter().enumerate() {
            if first(b) == Some(i) {
                text += &format!("  %{b} = alloc @b{b}\n");
            }
            text += &format!("  %{name} = U VECTOR 1 (@b{b}) after(%{b})\n");
            name += 1;
            if last(b) == Some(i) {
                text += &format!("  %{name} = free @b{b} after(%{})\n", name - 1);
                name += 1;
            }
        }
        text += "}\n";
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let bound = traffic_lower_bound(&m).expect("bound");
        prop_assert_eq!(bound.bytes, SIZE * belady_reloads(&accesses, slots));
    }
}
