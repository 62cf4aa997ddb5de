//! The verifier on the shared workloads: the peer solutions in `shared/peer-solutions` import,
//! replay valid and score exactly the numbers of its README (DESIGN §1.3); every contest case
//! imported as is replays with only the findings its input order explains; the Table III
//! diagnostics run on a peer plan. A missing `shared/` directory is a failure, not a skip.
//! Complexity: linear in the size of the shared files.

use lattice_lir::contest::{import_graph, import_solution, ImportOptions, SolutionFile};
use lattice_lir::{verify_module, Module, OpKind};
use lattice_passes::verify::{
    metrics, reorder_static_errors, replay, Category, Metrics, ReplayOptions,
};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    assert!(
        dir.join("cases").is_dir(),
        "the shared workloads are missing: expected {}/cases next to the workspace",
        dir.display()
    );
    dir
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn import_case(case: &str) -> Module {
    let path = shared().join("cases").join(format!("{case}.json"));
    import_graph(&read(&path), case, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `problem/case` of the peer solutions as a planned module.
fn import_peer(problem: &str, case: &str) -> Module {
    let folder = shared().join("peer-solutions").join(problem);
    let file = |kind: &str| {
        let path = folder.join(format!("{case}_{kind}.txt"));
        SolutionFile {
            name: path.display().to_string(),
            text: read(&path),
        }
    };
    let module = import_solution(
        import_case(case),
        &file("schedule"),
        &file("memory"),
        Some(&file("spill")),
    )
    .unwrap_or_else(|e| panic!("{problem}/{case}: {e}"));
    assert!(
        verify_module(&module).is_ok(),
        "{problem}/{case}: structure"
    );
    module
}

/// The README's numbers: nodes in σ, spills, extra traffic, makespan, max V_stay (L1+UB).
const PEERS: [(&str, &str, [u64; 5]); 4] = [
    (
        "problem2",
        "FlashAttention_Case0",
        [1798, 41, 3692, 53_374, 4500],
    ),
    (
        "problem3",
        "FlashAttention_Case0",
        [1764, 24, 4128, 46_761, 4500],
    ),
    ("problem2", "Conv_Case0", [2862, 141, 73_500, 535_312, 7488]),
    (
        "problem2",
        "Matmul_Case0",
        [4706, 273, 34_944, 194_331, 9216],
    ),
];

#[test]
fn peer_solutions_replay_valid_with_the_readme_numbers() {
    for (problem, case, expected) in PEERS {
        let what = format!("{problem}/{case}");
        let result = replay(&import_peer(problem, case), &ReplayOptions::default());
        let m = &result.metrics;
        assert_eq!(
            result.violations.first().map(ToString::to_string),
            None,
            "{what}: {} violation(s)",
            result.violations.len()
        );
        assert!(m.valid, "{what}");
        let got = [
            m.nodes,
            m.spill_count,
            m.extra_traffic,
            m.makespan,
            m.logical_peak,
        ];
        assert_eq!(
            got, expected,
            "{what}: nodes, spills, traffic, makespan, V_stay"
        );
        assert!(!m.makespan_without_reuse, "{what}");
        assert_eq!(m.logical_peak_tiers, ["L1", "UB"], "{what}");
        assert!(
            m.l0_max_live.values().all(|&n| n <= 1),
            "{what}: L0 multi-live"
        );
        assert_eq!(m.ownership_conflicts, 0, "{what}");
        assert!(m.makespan >= m.makespan_lower_bound, "{what}: lower bound");
    }
}

#[test]
fn peer_pipe_busy_cycles_match_the_readme() {
    let m = metrics(&import_peer("problem2", "FlashAttention_Case0"));
    let busy: Vec<(&str, u64)> = m.pipe_busy.iter().map(|(p, &c)| (p.as_str(), c)).collect();
    assert_eq!(
        busy,
        [
            ("CUBE", 8192),
            ("FIXP", 1968),
            ("MTE1", 5440),
            ("MTE2", 23_786),
            ("MTE3", 16_906),
            ("VECTOR", 25_600),
        ]
    );
    assert_eq!(m.makespan_lower_bound, m.critical_path.max(25_600));
    let json: serde_json::Value = serde_json::from_str(&m.to_json_string()).expect("JSON");
    assert_eq!(json["makespan"], 53_374);
    assert_eq!(json["logical_peak"], 4500);
    assert_eq!(json["valid"], true);
    assert!(m.to_text().contains("logical peak (L1+UB): 4500"));
}

/// Raw imports run σ in input id order, which frees every buffer at the end: L0 tiers then hold
/// several buffers at once. That, and nothing else, is what the replay may find.
#[test]
fn raw_cases_replay_with_only_l0_exclusivity_findings() {
    let mut names: Vec<String> = fs::read_dir(shared().join("cases"))
        .expect("cases")
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for case in names {
        let module = import_case(&case);
        let result = replay(&module, &ReplayOptions::default());
        let m: &Metrics = &result.metrics;
        let other: Vec<String> = result
            .violations
            .iter()
            .filter(|v| v.category != Category::L0Exclusive)
            .take(3)
            .map(ToString::to_string)
            .collect();
        assert!(other.is_empty(), "{case}: {other:?}");
        assert!(m.makespan_without_reuse && m.spill_count == 0, "{case}");
        assert!(m.makespan >= m.makespan_lower_bound, "{case}");
        // Frees come last, so each L0 tier ends up holding every buffer it ever had.
        for (tier, &live) in &m.l0_max_live {
            let tier_id = module.target.tier_named(tier).expect("tier");
            let buffers = module.buffers.iter().filter(|b| b.tier == tier_id).count() as u64;
            assert_eq!(live, buffers, "{case}: {tier}");
            let expected = buffers.saturating_sub(1);
            let found = result
                .violations
                .iter()
                .filter(|v| {
                    v.op.is_some_and(|op| {
                        matches!(module.op(op).kind, OpKind::Alloc { buffer, .. }
                            if module.buffer(buffer).tier == tier_id)
                    })
                })
                .count() as u64;
            assert_eq!(found, expected, "{case}: {tier} violations");
        }
    }
}

#[test]
fn ignoring_reuse_shortens_the_peer_timing_and_breaks_ownership() {
    let module = import_peer("problem2", "FlashAttention_Case0");
    let full = metrics(&module);
    let ignore = replay(&module, &ReplayOptions { ignore_reuse: true });
    assert!(ignore.metrics.makespan_without_reuse);
    assert!(ignore.metrics.makespan <= full.makespan);
    let conflicts = ignore.metrics.ownership_conflicts;
    let by_category: BTreeMap<Category, u64> = ignore.metrics.violations.clone();
    assert!(conflicts > 0, "the peer plan needs its reuse edges");
    assert!(by_category.keys().all(|&c| c == Category::Ownership));
    eprintln!(
        "FA0 p2 Ignore: makespan {} (full {}), {conflicts} ownership conflicts",
        ignore.metrics.makespan, full.makespan
    );
}

#[test]
fn replacing_a_peer_order_without_replanning_makes_static_errors() {
    let planned = import_peer("problem2", "FlashAttention_Case0");
    let unchanged = reorder_static_errors(&planned, &planned.schedule);
    assert!(unchanged.is_empty(), "{unchanged:?}");
    let input_order: Vec<_> = planned
        .op_ids()
        .filter(|&id| !planned.op(id).kind.is_spill())
        .collect();
    let errors = reorder_static_errors(&planned, &input_order);
    assert!(!errors.is_empty());
    eprintln!("FA0 p2 in input order with its plan: {errors:?}");
}
