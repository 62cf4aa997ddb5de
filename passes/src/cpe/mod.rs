//! CPE, plan-preserving Critical Path Enhancement (paper §IV-D, Alg. 3): shortens the makespan of
//! a planned module by changing only the per-pipe issue order, never the memory plan.
//!
//! Freeze — the module's own σ — is the incumbent and the fallback. CPE builds one slack-guided
//! list-scheduling seed over the constraint graph (`seed`), improved by `justify` rounds of
//! forward–backward justification (`justify`), within Freeze's physical and logical peaks,
//! and keeps it if it is accepted and faster; then up to `passes` rounds of bounded local search over adjacent
//! same-pipe swaps near a critical chain (`search`). A pipe order becomes σ by a linear
//! extension of the constraint graph and the pipe chains (`sigma`); acceptance (`accept`)
//! runs the independent verifier and checks the plan is Freeze's (ops, the spill and reuse
//! dependencies σ implies, spills, traffic, peaks no higher) and the makespan strictly lower. The constraint graph (`constraints`) is G_fixed plus residency containment and the
//! spill export order, so the exported memory and spill files stay byte-identical.
//!
//! The output is the accepted σ in phase `refined` (Freeze's σ when nothing was accepted). When
//! Freeze's makespan is already at the floor no order can beat — G_fixed's critical path, or the
//! work of the busiest pipe — Freeze is the result at once (a chain of ops on one pipe, say),
//! without building the seed or searching.
//! Deterministic: the work runs in op ids that are Freeze positions (`canonical`; the graphs are
//! built in them, the module is not copied), and every choice is keyed by times, keys and those
//! ids, so the result does not depend on how the
//! module's arena is laid out. The verifier's replay of the input runs on a second thread
//! beside the seed, which needs only Freeze's peaks (see [`refine_with`]). Cost:
//! O((1 + 2·justify + passes · candidates) · (V + E) log V) plus one verifier replay per offered
//! candidate.

mod accept;
mod canonical;
mod constraints;
pub mod error;
mod footprint;
mod justify;
pub mod pass;
mod prefix;
pub mod report;
mod search;
mod seed;
mod sigma;

pub use error::CpeError;
pub use pass::Cpe;

use crate::timing::{evaluate, timing, FixedGraph, PipeOrder, Times, Timing};
use crate::verify::{replay, Metrics, ReplayOptions};
use canonical::Canonical;
use footprint::Footprint;
use justify::Seeded;
use lattice_lir::{Module, OpId, Phase};
use std::time::{Duration, Instant};

lattice::pass_options! {
    /// Options of `cpe`.
    pub struct CpeOptions {
        /// Rounds of local search after the seed.
        #[range(0..=32)]
        passes: u32 = 2,
        /// Swaps timed per round (the bounded neighbourhood of a critical chain).
        #[range(1..=256)]
        candidates: u32 = 4,
        /// Pipe positions on each side of a chain op whose adjacent pairs are candidates.
        #[range(0..=16)]
        radius: u32 = 1,
        /// Build the list-scheduling seed (off: local search from Freeze only).
        seed: bool = true,
        /// Rounds of forward-backward justification of the seed.
        #[range(0..=32)]
        justify: u32 = 1,
        /// Keep the logical peak (L1+UB along σ) no higher than Freeze's, like the physical one.
        keep_logical_peak: bool = true,
    }
}

/// What one refinement did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpeStats {
    /// Makespan of the incoming σ (Freeze).
    pub freeze_makespan: u64,
    /// Makespan of the seed (0 when it was not built).
    pub seed_makespan: u64,
    /// Whether the seed was accepted.
    pub seed_accepted: bool,
    /// Local-search moves accepted.
    pub moves: u64,
    /// Makespan of the result.
    pub final_makespan: u64,
    /// Wall time of the refinement.
    pub time: Duration,
}

/// A refined module and what it took.
#[derive(Clone, Debug)]
pub struct Refinement {
    /// The `refined` module.
    pub module: Module,
    /// Its replayed metrics.
    pub metrics: Metrics,
    /// Counters.
    pub stats: CpeStats,
}

/// Refines a planned (or already refined) module.
pub fn refine(module: &Module, options: &CpeOptions) -> Result<Refinement, CpeError> {
    check_phase(module)?;
    match timing(module) {
        Ok(timing) => refine_with(module, &timing, options),
        Err(cyclic) => Err(untimeable(module, cyclic.into())),
    }
}

fn check_phase(module: &Module) -> Result<(), CpeError> {
    if module.phase.has_plan() {
        Ok(())
    } else {
        Err(CpeError::Phase(module.phase))
    }
}

/// The verifier's metrics of a module it accepts.
fn valid_metrics(module: &Module) -> Result<Metrics, CpeError> {
    let result = replay(module, &ReplayOptions::default());
    match result.violations.first() {
        None => Ok(result.metrics),
        Some(first) => Err(CpeError::InvalidPlan {
            count: result.violations.len(),
            first: first.to_string(),
        }),
    }
}

/// The error for a module whose Freeze timing failed with `error`: the verifier's, when it
/// rejects the plan (the cause a user can act on), else `error`.
fn untimeable(module: &Module, error: CpeError) -> CpeError {
    valid_metrics(module).err().unwrap_or(error)
}

/// [`refine`] given the module's Freeze timing (`timing(module)`, or the `cpe` pass's timing
/// analysis), so a pipeline that already timed the module builds G_fixed once. The verifier's
/// replay of the input, which only acceptance needs, runs on a second thread beside the seed
/// (whose budgets are Freeze's peaks along σ, read off the footprint); its verdict comes first,
/// so an invalid plan is reported as such whatever else fails. The result does not depend on
/// the threads.
pub fn refine_with(
    module: &Module,
    freeze: &Timing,
    options: &CpeOptions,
) -> Result<Refinement, CpeError> {
    check_phase(module)?;
    // Everything below reads ids through σ: a σ that is not a permutation of the ops is the
    // verifier's to describe.
    let canon = Canonical::of(module).ok_or_else(|| {
        let fallback = CpeError::InvalidPlan {
            count: 1,
            first: "σ does not list every op exactly once".into(),
        };
        untimeable(module, fallback)
    })?;
    if freeze.freeze.makespan <= makespan_floor(&freeze.graph, &freeze.fixed) {
        // No pipe order beats a makespan at the floor and acceptance takes only a strictly lower
        // one, so the result is Freeze's: the seed and the search could only be turned down.
        let clock = Instant::now();
        let mut result = unchanged(module, valid_metrics(module)?);
        result.stats.time = clock.elapsed();
        return Ok(result);
    }
    let (freeze_metrics, prepared) = lattice::parallel::join(
        || valid_metrics(module),
        || prepare(module, canon, freeze, options),
    );
    let freeze_metrics = freeze_metrics?;
    improve(module, prepared?, freeze_metrics, options)
}

/// What CPE builds before it needs Freeze's metrics: the relabelling, the constraint graph,
/// footprint, σ, peaks and timing of Freeze in it, and the justified seed.
struct Prepared {
    canon: Canonical,
    graph: FixedGraph,
    footprint: Footprint,
    sigma: Vec<OpId>,
    peaks: [u64; footprint::METERS],
    order: PipeOrder,
    times: Times,
    seeded: Option<Seeded>,
    clock: Instant,
}

/// Builds everything up to the seed, which needs Freeze's peaks (read off the footprint) but not
/// the replay's verdict, so that the replay can run meanwhile.
fn prepare(
    module: &Module,
    canon: Canonical,
    freeze: &Timing,
    options: &CpeOptions,
) -> Result<Prepared, CpeError> {
    let clock = Instant::now();
    // All the work happens in Freeze positions (see `canonical`), where Freeze's σ is 0, 1, 2, …
    let graph = constraints::constraint_graph(module, &canon);
    let footprint = Footprint::of(module, &canon.position, false);
    let sigma = canon.freeze_sigma();
    let order = PipeOrder::of_sigma(&graph, &sigma);
    let times = evaluate(&graph, Some(&order))?;
    let peaks = footprint.peaks(&sigma);
    let seeded = if options.seed {
        let [physical, logical] = peaks;
        let slack = canon.per_op(&freeze.slack);
        let criticality = canon.per_op(&freeze.tails);
        let position: Vec<usize> = (0..sigma.len()).collect();
        let back_footprint = Footprint::of(module, &canon.position, true);
        let input = justify::SeedInput {
            footprint: &footprint,
            back_footprint: &back_footprint,
            slack: &slack,
            criticality: &criticality,
            position: &position,
            budget: [physical, logical_budget(options, logical)],
        };
        justify::justified_seed(&graph, &input, options.justify)?
    } else {
        None
    };
    Ok(Prepared {
        canon,
        graph,
        footprint,
        sigma,
        peaks,
        order,
        times,
        seeded,
        clock,
    })
}

/// The most logical peak a candidate may have: Freeze's `logical`, or any when the option lets
/// it rise.
fn logical_budget(options: &CpeOptions, logical: u64) -> u64 {
    if options.keep_logical_peak {
        logical
    } else {
        u64::MAX
    }
}

/// Offers the seed, then runs the local search, against Freeze's verified metrics.
fn improve(
    module: &Module,
    prepared: Prepared,
    freeze_metrics: Metrics,
    options: &CpeOptions,
) -> Result<Refinement, CpeError> {
    let Prepared {
        canon,
        graph,
        footprint,
        sigma: freeze_sigma,
        peaks,
        mut order,
        mut times,
        seeded,
        clock,
    } = prepared;
    debug_assert_eq!(
        peaks,
        [freeze_metrics.physical_peak, freeze_metrics.logical_peak],
        "the footprint's peaks along Freeze's σ are the replay's"
    );
    let mut best = Incumbent {
        result: unchanged(module, freeze_metrics.clone()),
        sigma: freeze_sigma,
    };
    let logical_budget = logical_budget(options, freeze_metrics.logical_peak);
    // Offers a pipe order with its σ (by default a linear extension close to the incumbent's):
    // on acceptance it becomes the incumbent.
    let offer = |order: &PipeOrder, sigma: Option<&[OpId]>, best: &mut Incumbent| -> bool {
        let sigma = match sigma {
            Some(sigma) => sigma.to_vec(),
            None => {
                let rank = ranks(&best.sigma);
                match sigma::linear_extension(&graph, &footprint, order, &rank) {
                    Ok(sigma) => sigma,
                    Err(_) => return false,
                }
            }
        };
        // The candidate is the incumbent with σ replaced: swap σ in place rather than copy a
        // module of a million ops per offer, and swap it back if the candidate is turned down.
        let mut previous = canon.to_original(&sigma);
        std::mem::swap(&mut best.result.module.schedule, &mut previous);
        let incumbent = best.result.metrics.makespan;
        match accept::accept(
            module,
            &freeze_metrics,
            &best.result.module,
            incumbent,
            logical_budget,
        ) {
            Ok(metrics) => {
                best.result.stats.final_makespan = metrics.makespan;
                best.result.metrics = metrics;
                best.sigma = sigma;
                true
            }
            Err(why) => {
                best.result.module.schedule = previous;
                tracing::debug!(%why, "cpe: candidate rejected");
                false
            }
        }
    };

    if let Some(seeded) = seeded {
        best.result.stats.seed_makespan = seeded.times.makespan;
        if seeded.times.makespan < times.makespan
            && offer(&seeded.order, Some(&seeded.sigma), &mut best)
        {
            best.result.stats.seed_accepted = true;
            order = seeded.order;
            times = seeded.times;
        }
    }
    let bounds = search::Bounds {
        passes: options.passes,
        candidates: options.candidates,
        radius: options.radius,
    };
    best.result.stats.moves = search::local_search(&graph, &mut order, &mut times, bounds, |o| {
        offer(o, None, &mut best)
    });
    best.result.stats.time = clock.elapsed();
    Ok(best.result)
}

/// No makespan under any pipe order is below the floor: G_fixed's critical path (its earliest
/// timing `fixed`), nor the work of the busiest pipe. O(V).
fn makespan_floor(graph: &FixedGraph, fixed: &Times) -> u64 {
    let mut busy = vec![0u64; graph.pipe_count()];
    for v in (0..graph.len()).map(OpId::new) {
        if let Some(b) = graph.pipe(v).and_then(|p| busy.get_mut(p.index())) {
            *b = b.saturating_add(graph.cycles(v));
        }
    }
    busy.into_iter().fold(fixed.makespan, u64::max)
}

/// Freeze as the refinement (σ kept, phase `refined`), with its verified metrics.
fn unchanged(module: &Module, freeze_metrics: Metrics) -> Refinement {
    let mut metrics = freeze_metrics;
    metrics.phase = Phase::Refined.to_string();
    Refinement {
        module: Module {
            phase: Phase::Refined,
            ..module.clone()
        },
        stats: CpeStats {
            freeze_makespan: metrics.makespan,
            final_makespan: metrics.makespan,
            ..CpeStats::default()
        },
        metrics,
    }
}

/// The result so far and its σ in Freeze positions.
struct Incumbent {
    result: Refinement,
    sigma: Vec<OpId>,
}

/// Every op's position in `sigma`, indexed by op id (σ lists every op once).
fn ranks(sigma: &[OpId]) -> Vec<usize> {
    let mut rank = vec![0; sigma.len()];
    for (i, v) in sigma.iter().enumerate() {
        rank[v.index()] = i;
    }
    rank
}
