//! The timing engine: the §1.3 timing of a module as plain functions over its fixed graph, shared
//! by CPE and anyone else who needs start times, slack or critical chains. It is written apart
//! from the verifier's replay (`crate::verify`), which recomputes the same makespan on its own,
//! so the two check each other.
//!
//! Pieces, one file each: [`graph`] (G_fixed: every dependency, with durations and pipes),
//! [`pipes`] (the per-pipe order ρ, read off σ or built by a scheduler), [`eval`] (earliest
//! starts over G_fixed plus ρ, or over G_fixed alone), [`levels`] (downstream criticality),
//! [`mod@slack`] (Freeze start − earliest start) and [`chain`] (a critical chain). [`Timing`] bundles
//! them for a module's own σ — its Freeze timing — and is cached by the pass manager as an
//! analysis. Every function is O(V + E); building the graph sorts its edges once.

pub mod chain;
pub mod eval;
pub mod graph;
pub mod levels;
pub mod pipes;
pub mod slack;

pub use chain::{critical_chain, Link, Via};
pub use eval::{evaluate, Cyclic, Times};
pub use graph::FixedGraph;
pub use levels::tails;
pub use pipes::PipeOrder;
pub use slack::slack;

use lattice::{Analysis, AnalysisManager};
use lattice_lir::Module;

/// The timing facts of a module's own σ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    /// G_fixed: the module's dependencies.
    pub graph: FixedGraph,
    /// The pipe order σ implies.
    pub order: PipeOrder,
    /// Start times under σ's pipe order (Freeze, once planned).
    pub freeze: Times,
    /// Earliest start times under G_fixed alone.
    pub fixed: Times,
    /// Freeze start − earliest start, per op.
    pub slack: Vec<u64>,
    /// Downstream criticality over G_fixed alone, per op.
    pub tails: Vec<u64>,
    /// A critical chain of the Freeze timing.
    pub chain: Vec<Link>,
}

/// The timing of `module` under its own σ. Fails only when the dependencies and σ's pipe order
/// form a cycle (a structurally verified module has none: σ lists dependencies first).
pub fn timing(module: &Module) -> Result<Timing, Cyclic> {
    let graph = FixedGraph::of(module);
    let order = PipeOrder::of_sigma(&graph, &module.schedule);
    let freeze = evaluate(&graph, Some(&order))?;
    let fixed = evaluate(&graph, None)?;
    let slack = slack(&freeze, &fixed);
    let tails = tails(&graph, None, &fixed);
    let chain = critical_chain(&graph, Some(&order), &freeze);
    Ok(Timing {
        graph,
        order,
        freeze,
        fixed,
        slack,
        tails,
        chain,
    })
}

/// [`timing`] as a cached analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingAnalysis(pub Result<Timing, Cyclic>);

impl Analysis for TimingAnalysis {
    const NAME: &'static str = "timing";
    fn compute(module: &Module, _: &mut AnalysisManager) -> Self {
        TimingAnalysis(timing(module))
    }
}

#[cfg(test)]
mod tests;
