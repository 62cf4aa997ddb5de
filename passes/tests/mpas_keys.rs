//! MPAS tie-breaking, one test per component of K(v) = (L(v), Δ(v), −C(v), inputpos(v), id(v)),
//! each on a hand-written module whose exact order only that component explains, plus
//! determinism. Orders are compared by op name (`%<name>`). O(size of the modules).

use lattice_lir::{parse_module, Module};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::order::{mpas_key, mpas_order, MpasKey, MpasOptions};
use std::cmp::Reverse;

fn module(body: &str) -> Module {
    let text = format!(
        "module @m phase(parsed) {{
           target {{ tiers L1 = 1024, L0A = 256 l0 pipes P spill_out P, spill_in P, spill_cost = 0 + 0 * size l0_exclusive = true }}
           {body}
         }}"
    );
    parse_module(&text).unwrap_or_else(|e| panic!("{e}"))
}

fn mpas_names(module: &Module) -> Vec<u32> {
    let order = mpas_order(module, &bottom_levels(module), &MpasOptions::default()).unwrap();
    order.iter().map(|&op| module.op(op).name).collect()
}

#[test]
fn lifecycle_class_puts_free_before_ordinary_before_alloc() {
    // After %1, the FREE %3 runs before the ordinary %2 that precedes it in σ; the ordinary %7,
    // last in σ, runs before either ALLOC.
    let m = module(
        "buffer @b0 : L1[8]
         buffer @b1 : L1[8]
         %0 = alloc @b0
         %1 = OP P 1 (@b0) after(%0)
         %2 = OP P 1 () after(%1)
         %3 = free @b0 after(%1)
         %4 = alloc @b1
         %5 = OP P 1 (@b1) after(%4)
         %6 = free @b1 after(%5)
         %7 = OP P 1 ()",
    );
    assert_eq!(mpas_names(&m), [7, 0, 1, 3, 2, 4, 5, 6]);
}

#[test]
fn delta_takes_smaller_allocations_and_larger_releases_first() {
    // Both ALLOCs and both FREEs are ready together; σ lists the larger ALLOC and the smaller
    // FREE first, Δ reverses both.
    let m = module(
        "buffer @b0 : L1[8]
         buffer @b1 : L1[32]
         %0 = alloc @b1
         %1 = alloc @b0
         %2 = OP P 1 (@b0, @b1) after(%0, %1)
         %3 = free @b0 after(%2)
         %4 = free @b1 after(%2)",
    );
    assert_eq!(mpas_names(&m), [1, 0, 2, 4, 3]);
}

#[test]
fn larger_bottom_level_runs_first() {
    // %1 (C = 5) is later in σ than %0 (C = 1 + 1) but runs first.
    let m = module(
        "%0 = OP P 1 ()
         %1 = OP P 5 ()
         %2 = OP P 1 () after(%0)",
    );
    assert_eq!(mpas_names(&m), [1, 0, 2]);
}

#[test]
fn input_position_breaks_remaining_ties_not_the_name() {
    // Equal class, Δ and C: the incoming σ decides, whatever the names say.
    let m = module(
        "%5 = OP P 1 ()
         %3 = OP P 1 ()
         %4 = OP P 1 ()",
    );
    assert_eq!(mpas_names(&m), [5, 3, 4]);
}

#[test]
fn id_is_the_last_field_of_the_key() {
    // inputpos is a permutation of the ops, so on a module id never decides; it orders keys that
    // agree on everything else, as the paper's stable tie-break.
    let key = |id| MpasKey {
        lifecycle: 1,
        delta: 0,
        bottom_level: Reverse(3),
        input_position: 7,
        id,
    };
    assert!(key(2) < key(5));
    let m = module("%9 = OP P 2 ()");
    let levels = bottom_levels(&m);
    let op = m.op_ids().next().unwrap();
    assert_eq!(
        mpas_key(&m, op, &levels, 0),
        MpasKey {
            lifecycle: 1,
            delta: 0,
            bottom_level: Reverse(2),
            input_position: 0,
            id: 9
        }
    );
}

#[test]
fn mpas_is_deterministic() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/matmul_tile.lir"
    ))
    .unwrap();
    let m = parse_module(&text).unwrap();
    let levels = bottom_levels(&m);
    let first = mpas_order(&m, &levels, &MpasOptions::default()).unwrap();
    for _ in 0..3 {
        assert_eq!(
            mpas_order(&m.clone(), &levels, &MpasOptions::default()).unwrap(),
            first
        );
    }
}
