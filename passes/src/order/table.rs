//! The order-sensitivity table (the paper's Observation 1 and Fig. 8, bottom): for every case and
//! every order, the logical peak (non-staging tiers, L1+UB on the contest target), its change
//! against `stable`, every tier's peak and the L0 max live count, as Markdown.
//!
//! Deterministic: rows follow the cases as given and the fixed policy list; tier columns are the
//! tier names in first-seen order over the cases (a case without a tier shows `—`). Cost: every
//! policy once per case, O(P·(V + E) log V) per case.

use super::{mpas_order, order_by, MpasOptions, OrderError, Policy};
use crate::analysis::{bottom_levels, pressure, Pressure};
use lattice_lir::Module;
use std::fmt::Write as _;

/// How one row's order is made.
#[derive(Clone, Copy)]
enum Make {
    Policy(Policy),
    /// MPAS with these options: the default (`mpas`), and the ablations of its two readiness
    /// adaptations — no lookahead window, no pull rule, neither (Alg. 1 with demanded ALLOCs).
    Mpas {
        /// Whether the lookahead window is on (at its default width).
        window: bool,
        /// Whether the pull rule is on.
        pull: bool,
    },
}

/// The orders the table compares, in row order, with the name shown.
const ORDERS: [(&str, Make); 8] = [
    ("input", Make::Policy(Policy::Input)),
    ("stable", Make::Policy(Policy::Stable)),
    ("memory-first", Make::Policy(Policy::MemoryFirst)),
    ("critical-first", Make::Policy(Policy::CriticalFirst)),
    (
        "mpas",
        Make::Mpas {
            window: true,
            pull: true,
        },
    ),
    (
        "mpas{lookahead=0}",
        Make::Mpas {
            window: false,
            pull: true,
        },
    ),
    (
        "mpas{pull=false}",
        Make::Mpas {
            window: true,
            pull: false,
        },
    ),
    (
        "mpas{lookahead=0,pull=false}",
        Make::Mpas {
            window: false,
            pull: false,
        },
    ),
];

/// A case whose orders could not be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{case}: {error}")]
pub struct TableError {
    /// The module's name.
    pub case: String,
    /// Why.
    pub error: OrderError,
}

/// The pressure of every order of `module`, in the table's order (input, stable, memory-first,
/// critical-first, then MPAS by default and without its lookahead, its pull rule or both), each
/// with its name.
pub fn policy_pressures(module: &Module) -> Result<Vec<(&'static str, Pressure)>, OrderError> {
    let levels = bottom_levels(module);
    ORDERS
        .iter()
        .map(|&(name, policy)| {
            let order = match policy {
                Make::Policy(policy) => order_by(module, policy, &levels)?,
                Make::Mpas { window, pull } => {
                    let default = MpasOptions::default();
                    let options = MpasOptions {
                        lookahead: if window { default.lookahead } else { 0 },
                        pull,
                    };
                    mpas_order(module, &levels, &options)?
                }
            };
            Ok((name, pressure(module, &order)))
        })
        .collect()
}

/// The Markdown table over `cases`.
pub fn order_table(cases: &[Module]) -> Result<String, TableError> {
    let mut tiers: Vec<&str> = Vec::new();
    for module in cases {
        for tier in &module.target.tiers {
            if !tiers.contains(&tier.name.as_str()) {
                tiers.push(&tier.name);
            }
        }
    }
    let mut out = String::from("| case | order | logical peak | vs stable |");
    for tier in &tiers {
        let _ = write!(out, " {tier} |");
    }
    out.push_str(" L0 max live |\n|---|---|---:|---:|");
    out.push_str(&"---:|".repeat(tiers.len() + 1));
    out.push('\n');
    for module in cases {
        let rows = policy_pressures(module).map_err(|error| TableError {
            case: module.name.clone(),
            error,
        })?;
        let stable = rows
            .iter()
            .find(|(name, _)| *name == "stable")
            .map_or(0, |(_, p)| p.logical_peak);
        for (name, p) in &rows {
            let _ = write!(
                out,
                "| {} | {name} | {} | {} |",
                module.name,
                p.logical_peak,
                change(p.logical_peak, stable)
            );
            for tier in &tiers {
                match module.target.tier_named(tier) {
                    Some(t) => write!(out, " {} |", p.tier_peak(t)),
                    None => write!(out, " — |"),
                }
                .unwrap_or(());
            }
            let _ = writeln!(out, " {} |", p.l0_max_live);
        }
    }
    Ok(out)
}

/// `value` against `base` as a signed percentage with one decimal (`—` when base is zero).
fn change(value: u64, base: u64) -> String {
    if base == 0 {
        return "—".into();
    }
    let percent = (value as f64 - base as f64) * 100.0 / base as f64;
    format!("{percent:+.1}%")
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::parse_module;

    #[test]
    fn table_has_a_row_per_case_and_order_and_a_column_per_tier() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/matmul_tile.lir"
        ))
        .unwrap();
        let module = parse_module(&text).unwrap();
        let table = order_table(&[module]).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "| case | order | logical peak | vs stable | L1 | UB | L0A | L0B | L0C | L0 max live |"
        );
        assert_eq!(
            lines[1],
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        assert_eq!(lines.len(), 2 + ORDERS.len());
        assert_eq!(
            lines[3],
            "| matmul_tile | stable | 2048 | +0.0% | 2048 | 512 | 256 | 256 | 512 | 1 |"
        );
        assert!(lines[6].starts_with("| matmul_tile | mpas | 1024 | -50.0% |"));
        assert_eq!(change(1, 0), "—");
        assert_eq!(change(150, 100), "+50.0%");
    }
}
