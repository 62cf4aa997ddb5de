//! The oracle's tables (`lattice-bench bounds` and `lattice-bench oracle`).
//!
//! - [`bounds_table`]: per module, the three order-independent bounds and the seconds they took.
//! - [`oracle_table`]: on small generated modules of every family (and of the `reuse` grids,
//!   whose traffic optimum is above zero once squeezed), with the non-staging tiers
//!   shrunk so that plans spill, `order-exact` gives the optimum of each objective and
//!   `order-search` (with the options given, its victim key fixed to DLR's own as `order-exact`'s
//!   is) runs on the same module; the table reports per objective how many optima are above
//!   zero, how often the search reaches the optimum, the mean and worst gaps, and the misses
//!   per family; a second table lists the worst misses. Modules past the state limit are
//!   counted and left out. Deterministic except for the seconds.
//!
//! Cost: the bounds per module; for the oracle, modules × objectives × (exact + search).

use super::{exact_order, ExactOptions};
use crate::analysis::{any_order_bounds, pressure, BoundError};
use crate::generate::{generate, generate_reuse, GenSpec, Shape};
use crate::search::score::value;
use crate::search::{search, BackEnd, Objective, SearchError, SearchOptions, Silent};
use crate::verify::gap_percent;
use lattice::OptionType;
use lattice_lir::Module;
use std::fmt::Write;
use std::time::Instant;

/// A Markdown table of the bounds of each module and their time; fails on the first module no
/// order can plan, naming it.
pub fn bounds_table(modules: &[Module]) -> Result<String, (String, BoundError)> {
    let mut md = String::from(
        "| module | nodes | peak bound | traffic bound | makespan bound | seconds |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for m in modules {
        let started = Instant::now();
        let b = any_order_bounds(m).map_err(|e| (m.name.clone(), e))?;
        let seconds = started.elapsed().as_secs_f64();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {seconds:.3} |",
            m.name,
            m.ops.len(),
            b.peak,
            b.traffic,
            b.makespan
        );
    }
    Ok(md)
}

/// The sizes the oracle's modules of `shape` cycle through (13 each). Matmul and conv start at
/// their smallest unit (19 ops), so that every module holds one; attention's smallest unit (51
/// ops) and resnet's (a stem and a residual block) are beyond what `order-exact` solves for every
/// objective, so their modules are the generator's small load/compute/store groups, like every
/// module below a family's smallest unit.
pub fn sizes(shape: Shape) -> std::ops::RangeInclusive<usize> {
    match shape {
        Shape::Matmul | Shape::Conv | Shape::MatmulRows | Shape::MatmulCols => 19..=31,
        Shape::Attention | Shape::Random | Shape::Resnet | Shape::HeadsKv | Shape::HeadsQ => 8..=20,
    }
}

/// The generator families the oracle cycles through: the small-unit ones (a resnet's smallest
/// unit is past what `order-exact` solves, and below it its modules are those of the others).
pub const FAMILIES: [Shape; 4] = [Shape::Matmul, Shape::Attention, Shape::Conv, Shape::Random];

/// The sizes the oracle's `reuse` modules cycle through (13): a 2 × 2 grid (22 ops) with an
/// epilogue of up to 8 ops and one padding group, then 2 × 3 grids (27 ops) from 30 ops. At 0 %
/// every order spills (the argument is in `generate/shapes/reuse.rs`); at 50 % the 2 × 2 grids
/// too, since the generated order keeps three tiles and an output live.
pub const REUSE_SIZES: std::ops::RangeInclusive<usize> = 25..=37;

/// How many families the oracle's sequence cycles through: [`FAMILIES`] and the `reuse` grids
/// ([`generate_reuse`]), which reuse tiles across cells as no shape's small modules do.
pub const ROTATION: usize = FAMILIES.len() + 1;

/// Capacities of the non-staging tiers, in percent of the way from what one op needs there to
/// what the generated order keeps live there (see [`squeezed`]).
pub const PERCENTS: [u64; 3] = [0, 50, 100];

/// The `i`-th module of the oracle's sequence: families (the [`ROTATION`]), sizes and capacities
/// in turn, each a generated module whose non-staging tiers are [`squeezed`].
pub fn oracle_module(i: usize) -> Module {
    let family = FAMILIES.get(i % ROTATION).copied();
    let rest = i / ROTATION;
    let range = family.map_or(REUSE_SIZES, sizes);
    let count = range.end() - range.start() + 1;
    let nodes = range.start() + rest % count;
    let percent = PERCENTS[(rest / count) % PERCENTS.len()];
    let seed = i as u64;
    let module = match family {
        Some(shape) => generate(&GenSpec { shape, nodes, seed }),
        None => generate_reuse(nodes, seed),
    };
    squeezed(&module, percent)
}

/// `module` with each non-staging tier cut to `percent` % of the way from `need`, the most
/// bytes of the tier one op names (below it no order can be planned), to `peak`, the most bytes
/// of the tier the generated σ keeps live. Below `peak` the generated σ spills, so an order
/// that spills nothing must be found (or none exists). Small generated modules have few bytes
/// live across an op in every order (their units are independent enough to run one after the
/// other), so cutting below that ([`crate::analysis::must_live`], what the order-independent traffic bound
/// rests on) would leave nearly all at `need`. The generator sizes buffers from the capacities,
/// so cutting them after generation is what makes plans spill. O(V + operands).
pub fn squeezed(module: &Module, percent: u64) -> Module {
    let mut m = module.clone();
    let tiers = module.target.tiers.len();
    let peak = pressure(module, &module.schedule).tier_peaks;
    let mut need = vec![0u64; tiers];
    for op in &module.ops {
        let mut named: Vec<_> = op.kind.buffers().to_vec();
        named.sort_unstable();
        named.dedup();
        let mut here = vec![0u64; tiers];
        for b in named {
            here[module.buffer(b).tier.index()] += module.buffer(b).size;
        }
        for (n, x) in need.iter_mut().zip(here) {
            *n = (*n).max(x);
        }
    }
    for (t, tier) in m.target.tiers.iter_mut().enumerate() {
        if !tier.staging {
            let span = peak[t].saturating_sub(need[t]);
            tier.capacity = (need[t] + span * percent / 100).max(1);
        }
    }
    m
}

/// One objective's tally.
#[derive(Default)]
struct Tally {
    solved: u64,
    /// Solved modules whose optimum is above zero.
    positive: u64,
    refused: u64,
    reached: u64,
    gap_sum: f64,
    misses_by_family: [u64; ROTATION],
    worst: Vec<(f64, String, u64, u64)>,
    /// Seconds in `order-exact` and in `order-search`.
    exact_seconds: f64,
    search_seconds: f64,
}

/// The oracle's tables over the first `count` modules of [`oracle_module`]'s sequence; fails on
/// the first module the search fails on, naming it.
pub fn oracle_table(
    count: usize,
    options: &SearchOptions,
    max_states: std::num::NonZeroU64,
) -> Result<String, (String, SearchError)> {
    let objectives = [Objective::Peak, Objective::Traffic, Objective::Makespan];
    let mut tallies: Vec<Tally> = objectives.iter().map(|_| Tally::default()).collect();
    let started = Instant::now();
    let mut modules = 0;
    for i in 0..count {
        let m = oracle_module(i);
        modules += 1;
        let family = i % ROTATION;
        for (o, &objective) in objectives.iter().enumerate() {
            let tally = &mut tallies[o];
            let exact = ExactOptions {
                objective,
                max_states,
                back_end: BackEnd {
                    victim_search: false,
                    ..options.back_end.clone()
                },
            };
            // Past the state limit (generated modules always have an order the back end plans).
            let started = Instant::now();
            let solved = exact_order(&m, &exact).map(|found| found.optimum);
            tally.exact_seconds += started.elapsed().as_secs_f64();
            let Ok(optimum) = solved else {
                tally.refused += 1;
                continue;
            };
            // The search with the exact search's back end: DLR's own victim key.
            let searched = SearchOptions {
                objective,
                back_end: exact.back_end.clone(),
                ..options.clone()
            };
            let started = Instant::now();
            let found = search(&m, &searched, &Silent).map_err(|e| (m.name.clone(), e))?;
            tally.search_seconds += started.elapsed().as_secs_f64();
            let got = value(objective, &found.measure);
            tally.solved += 1;
            tally.positive += u64::from(optimum > 0);
            let gap = gap_percent(got, optimum).unwrap_or(f64::INFINITY);
            if got <= optimum {
                tally.reached += 1;
            } else {
                tally.misses_by_family[family] += 1;
                tally.worst.push((gap, m.name.clone(), got, optimum));
            }
            tally.gap_sum += if gap.is_finite() { gap } else { 0.0 };
        }
    }
    let mut md = format!(
        "{modules} modules ({ROTATION} families: matmul and conv of {:?} ops, attention and random of {:?}, reuse grids of {REUSE_SIZES:?}; non-staging tiers at {:?} % of the way from one op's operands to what the generated order keeps live), order-search{{{}}}, {:.0} s\n\n",
        sizes(Shape::Matmul),
        sizes(Shape::Random),
        PERCENTS,
        options_text(options),
        started.elapsed().as_secs_f64()
    );
    md.push_str("| objective | solved | optimum > 0 | refused | optimum reached | rate | mean gap | worst gap | misses: matmul / attention / conv / random / reuse | exact s | search s |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (tally, objective) in tallies.iter_mut().zip(objectives) {
        tally
            .worst
            .sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let rate = 100.0 * tally.reached as f64 / tally.solved.max(1) as f64;
        let mean = tally.gap_sum / tally.solved.max(1) as f64;
        let worst = tally.worst.first().map_or(0.0, |w| w.0);
        let misses: Vec<String> = tally.misses_by_family.iter().map(u64::to_string).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {rate:.1}% | {mean:.2}% | {worst:.1}% | {} | {:.0} | {:.0} |",
            objective.print_option(),
            tally.solved,
            tally.positive,
            tally.refused,
            tally.reached,
            misses.join(" / "),
            tally.exact_seconds,
            tally.search_seconds,
        );
    }
    md.push_str("\n| objective | module | search | optimum | gap |\n|---|---|---:|---:|---:|\n");
    for (tally, objective) in tallies.iter().zip(objectives) {
        for (gap, name, got, optimum) in tally.worst.iter().take(5) {
            let _ = writeln!(
                md,
                "| {} | {name} | {got} | {optimum} | {gap:.1}% |",
                objective.print_option()
            );
        }
    }
    Ok(md)
}

/// The search options as a pipeline would spell them.
fn options_text(options: &SearchOptions) -> String {
    use lattice::PassOptions;
    let pairs: Vec<String> = options
        .pairs()
        .into_iter()
        .filter(|(k, _)| k != "objective")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    pairs.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracle_sequence_covers_every_family_and_size_and_squeezes_capacities() {
        let per_round = ROTATION * 13;
        let modules: Vec<Module> = (0..per_round * 3).map(oracle_module).collect();
        let families = FAMILIES
            .iter()
            .map(|&shape| (shape.to_string(), sizes(shape)));
        for (family, range) in families.chain([("reuse".to_owned(), REUSE_SIZES)]) {
            for n in range {
                let name = format!("gen-{family}-n{n}-");
                assert!(modules.iter().any(|m| m.name.starts_with(&name)), "{name}");
            }
        }
        // At the tightest capacities the generated order overflows a tier in a good share of
        // the modules (matmul and conv units keep more live than one op needs); at the
        // loosest, never; every module can still be planned.
        let overflowing = |range: std::ops::Range<usize>| {
            modules[range]
                .iter()
                .filter(|m| {
                    any_order_bounds(m).expect("plannable");
                    let peaks = pressure(m, &m.schedule).tier_peaks;
                    let tiers = m.target.tiers.iter().zip(peaks);
                    tiers.into_iter().any(|(t, p)| !t.staging && p > t.capacity)
                })
                .count()
        };
        let tight = overflowing(0..per_round);
        assert!(tight * 4 >= per_round, "{tight} of {per_round}");
        assert_eq!(overflowing(2 * per_round..3 * per_round), 0);
    }

    #[test]
    fn the_oracle_table_counts_every_module_and_objective() {
        let options = SearchOptions {
            budget: crate::search::Budget::Steps(std::num::NonZeroU64::new(8).expect("nonzero")),
            ..SearchOptions::default()
        };
        let md = oracle_table(
            8,
            &options,
            std::num::NonZeroU64::new(100_000).expect("nonzero"),
        )
        .expect("runs");
        assert!(md.starts_with("8 modules"), "{md}");
        for objective in ["peak", "traffic", "makespan"] {
            let row = md
                .lines()
                .find(|l| l.starts_with(&format!("| {objective} | ")))
                .expect("a row per objective");
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let solved: u64 = cells[2].parse().expect("a count");
            let positive: u64 = cells[3].parse().expect("a count");
            let refused: u64 = cells[4].parse().expect("a count");
            assert_eq!(solved + refused, 8, "{row}");
            assert!(positive <= solved, "{row}");
        }
    }
}
