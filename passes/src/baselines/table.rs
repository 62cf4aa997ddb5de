//! The baselines end to end, and their summary tables (`lattice-bench baselines --cases DIR`):
//! every baseline as the pipeline a user runs (`base`, `hmcos,dlr{l0=single}`,
//! `magis,dlr{l0=single}`, `cosma`, `eda,dlr{l0=single}`, each with default options), and for every case and baseline the replayed logical
//! peak, spills, traffic and makespan as Markdown.
//!
//! The order-only baselines are planned by `dlr` with its defaults (the common backend); Base by
//! DLR with LRU victims. Numbers come from the independent replay ([`crate::verify::replay`]), so
//! they equal `lattice-opt --pass-pipeline=… --metrics` for the same pipeline, and a row is only
//! printed for a plan with no violation. The EDA row is labelled a placeholder (baselines.md §6).
//! Deterministic: rows follow the cases as given and the fixed baseline list. Cost: every
//! baseline once per case plus one replay each.

use super::{base, cosma, eda_order, hmcos_order, magis_order};
use super::{CosmaOptions, EdaTraversal, HmcosOptions, MagisOptions};
use crate::dlr::{plan, DlrOptions, L0Mode};
use crate::verify::{replay, Metrics, Replay, ReplayOptions};
use lattice_lir::{Module, OpId, Phase};
use std::fmt::Write as _;

/// One baseline of the evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Stable order, DLR with LRU victims.
    Base,
    /// HMCOS order, then `dlr`.
    Hmcos,
    /// MAGIS order, then `dlr`.
    Magis,
    /// COSMA order and placement.
    Cosma,
    /// An EDA placeholder traversal, then `dlr`.
    EdaPlaceholder(EdaTraversal),
}

impl Baseline {
    /// The table's baselines, in row order.
    pub const TABLE: [Baseline; 5] = [
        Baseline::Base,
        Baseline::Hmcos,
        Baseline::Magis,
        Baseline::Cosma,
        Baseline::EdaPlaceholder(EdaTraversal::DfsConsumer),
    ];

    /// The row label.
    pub fn label(self) -> String {
        match self {
            Baseline::Base => "Base".into(),
            Baseline::Hmcos => "HMCOS".into(),
            Baseline::Magis => "MAGIS".into(),
            Baseline::Cosma => "COSMA".into(),
            Baseline::EdaPlaceholder(t) => {
                format!(
                    "EDA placeholder ({})",
                    lattice::options::OptionType::print_option(&t)
                )
            }
        }
    }

    /// The `lattice-opt --pass-pipeline` text that produces the same module.
    pub fn pipeline(self) -> String {
        match self {
            Baseline::Base => "base".into(),
            Baseline::Hmcos => "hmcos,dlr{l0=single}".into(),
            Baseline::Magis => "magis,dlr{l0=single}".into(),
            Baseline::Cosma => "cosma".into(),
            Baseline::EdaPlaceholder(t) => format!(
                "eda{{traversal={}}},dlr{{l0=single}}",
                lattice::options::OptionType::print_option(&t)
            ),
        }
    }
}

/// Why a baseline failed on a module: the message of the failing stage.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{case}: {baseline}: {message}")]
pub struct BaselineError {
    /// The module's name.
    pub case: String,
    /// The baseline's label.
    pub baseline: String,
    /// What failed.
    pub message: String,
}

/// The planned module `baseline` makes of `module`.
pub fn run_baseline(module: &Module, baseline: Baseline) -> Result<Module, BaselineError> {
    let fail = |message: String| BaselineError {
        case: module.name.clone(),
        baseline: baseline.label(),
        message,
    };
    let planned = |order: Result<Vec<OpId>, String>| -> Result<Module, BaselineError> {
        let mut scheduled = module.clone();
        scheduled.schedule = order.map_err(&fail)?;
        scheduled.phase = Phase::Scheduled;
        // The paper's staging placement, as every baseline's published numbers assume.
        let options = DlrOptions {
            l0: L0Mode::Single,
            prefetch: 0,
            ..DlrOptions::default()
        };
        plan(&scheduled, &options)
            .map(|p| p.module)
            .map_err(|e| fail(e.to_string()))
    };
    match baseline {
        Baseline::Base => base(module)
            .map(|p| p.module)
            .map_err(|e| fail(e.to_string())),
        Baseline::Cosma => cosma(module, &CosmaOptions::default())
            .map(|(m, _)| m)
            .map_err(|e| fail(e.to_string())),
        Baseline::Hmcos => planned(
            hmcos_order(module, &HmcosOptions::default())
                .map(|(o, _)| o)
                .map_err(|e| e.to_string()),
        ),
        Baseline::Magis => planned(
            magis_order(module, &MagisOptions::default())
                .map(|(o, _)| o)
                .map_err(|e| e.to_string()),
        ),
        Baseline::EdaPlaceholder(t) => planned(eda_order(module, t).map_err(|e| e.to_string())),
    }
}

/// Two Markdown tables of every baseline on every case: a compact one (logical peak / extra
/// traffic, one row per case, one column per baseline), then the details (one row per case and
/// baseline: the pipeline, logical peak against Base, spills, traffic, makespan).
pub fn baseline_table(cases: &[Module]) -> Result<String, BaselineError> {
    let mut compact = String::from("| case |");
    for baseline in Baseline::TABLE {
        let _ = write!(compact, " {} |", baseline.label());
    }
    compact.push_str("\n|---|");
    compact.push_str(&"---:|".repeat(Baseline::TABLE.len()));
    compact.push('\n');
    let mut details = String::from(
        "| case | baseline | pipeline | logical peak | vs Base | spills | traffic | makespan |\n\
         |---|---|---|---:|---:|---:|---:|---:|\n",
    );
    for module in cases {
        let mut base_peak = None;
        let _ = write!(compact, "| {} |", module.name);
        for baseline in Baseline::TABLE {
            let m = verified_metrics(module, baseline)?;
            let base = *base_peak.get_or_insert(m.logical_peak);
            let _ = write!(compact, " {} / {} |", m.logical_peak, m.extra_traffic);
            let _ = writeln!(
                details,
                "| {} | {} | `{}` | {} | {} | {} | {} | {} |",
                module.name,
                baseline.label(),
                baseline.pipeline(),
                m.logical_peak,
                ratio(m.logical_peak, base),
                m.spill_count,
                m.extra_traffic,
                m.makespan
            );
        }
        compact.push('\n');
    }
    Ok(format!("{compact}\n{details}"))
}

/// The replayed metrics of `baseline` on `module`; an error unless the plan verifies.
fn verified_metrics(module: &Module, baseline: Baseline) -> Result<Metrics, BaselineError> {
    let planned = run_baseline(module, baseline)?;
    let Replay {
        violations,
        metrics,
    } = replay(&planned, &ReplayOptions::default());
    match violations.first() {
        None => Ok(metrics),
        Some(v) => Err(BaselineError {
            case: module.name.clone(),
            baseline: baseline.label(),
            message: format!("the plan does not verify: {v:?}"),
        }),
    }
}

/// `value / base` with two decimals (`-` when base is zero).
fn ratio(value: u64, base: u64) -> String {
    if base == 0 {
        return "-".into();
    }
    format!("{:.2}x", value as f64 / base as f64)
}
