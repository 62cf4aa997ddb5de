//! The numbers every later issue is judged by (DESIGN §1.3), as the replay recomputes them, with
//! their JSON form (field names are part of the interface) and a human-readable form.
//!
//! Maps are keyed by tier, pipe or category name and sorted by key, so output is deterministic.
//! Building the text or JSON is linear in the number of tiers, pipes and categories.

use super::category::Category;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The metrics of one module.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// The module's name.
    pub module: String,
    /// Ops in σ, spill ops included.
    pub nodes: u64,
    /// Dependencies of every kind.
    pub edges: u64,
    /// Dependencies by kind (`precedence`, `spill`, `reuse`).
    pub edges_by_kind: BTreeMap<String, u64>,
    /// Declared buffers.
    pub buffers: u64,
    /// The module's phase.
    pub phase: String,
    /// Max over σ of ALLOC-minus-FREE bytes summed over the tiers in `logical_peak_tiers` (the
    /// contest's max V_stay, "L1+UB").
    pub logical_peak: u64,
    /// The tiers the logical peak sums: every tier that is not a staging (L0) tier.
    pub logical_peak_tiers: Vec<String>,
    /// Max over σ of ALLOC-minus-FREE bytes of each tier.
    pub logical_peak_by_tier: BTreeMap<String, u64>,
    /// Max number of buffers resident at once in each staging tier.
    pub l0_max_live: BTreeMap<String, u64>,
    /// Max over σ of the bytes resident in all tiers (spilled buffers do not count).
    pub physical_peak: u64,
    /// Number of SPILL_OUTs.
    pub spill_count: u64,
    /// Extra DDR traffic of the spills in bytes: `size` per spill of a backed buffer, `2·size`
    /// otherwise.
    pub extra_traffic: u64,
    /// Max end time of the replayed timing.
    pub makespan: u64,
    /// The makespan was computed without reuse dependencies (the module is not planned, or the
    /// replay was asked to ignore them).
    pub makespan_without_reuse: bool,
    /// Total cycles of each pipe's ops, spill ops included.
    pub pipe_busy: BTreeMap<String, u64>,
    /// Longest dependency chain in cycles (no pipe order).
    pub critical_path: u64,
    /// max(critical path, busiest pipe): no timing of this graph is shorter.
    pub makespan_lower_bound: u64,
    /// The fixed-order traffic lower bound of σ (`analysis::traffic_bound`): no plan with this
    /// order of ops moves fewer extra bytes. Only `--metrics` computes it (an LP, not a check),
    /// for planned modules, and leaves the field out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_lower_bound_fixed_order: Option<u64>,
    /// How far the plan's traffic is above that bound, in percent of the bound (see
    /// [`gap_percent`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_gap_fixed_order_percent: Option<f64>,
    /// The order-independent peak bound (`analysis::peak_bound`): no order of the module keeps
    /// fewer bytes of the non-staging tiers live at once. Only `--metrics` computes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_lower_bound: Option<u64>,
    /// How far the logical peak is above it, in percent of the bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_gap_percent: Option<f64>,
    /// The order-independent traffic bound (`analysis::cover_bound`): no order and plan of the
    /// module moves fewer extra bytes. Only `--metrics` computes it, for planned modules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_lower_bound_any_order: Option<u64>,
    /// How far the plan's traffic is above it, in percent of the bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic_gap_any_order_percent: Option<f64>,
    /// The order-independent makespan bound (`analysis::makespan_bound`): the critical path, or
    /// the busiest pipe with the spill cycles every plan needs. Only `--metrics` computes it,
    /// for planned modules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub makespan_lower_bound_any_order: Option<u64>,
    /// How far the makespan is above it, in percent of the bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub makespan_gap_any_order_percent: Option<f64>,
    /// The order-independent bounds stopped at their work cap (`analysis::first_free`'s mark
    /// limit): still sound, but weaker than the uncapped search would prove. Shown when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bounds_capped: bool,
    /// Pairs of residencies sharing bytes that the timing holds at the same time.
    pub ownership_conflicts: u64,
    /// No violation at all.
    pub valid: bool,
    /// Violations by category (categories with none are left out).
    pub violations: BTreeMap<Category, u64>,
}

impl Metrics {
    /// Fills the fixed-order traffic bound fields from `bound`.
    pub fn set_traffic_lower_bound_fixed_order(&mut self, bound: u64) {
        self.traffic_lower_bound_fixed_order = Some(bound);
        self.traffic_gap_fixed_order_percent = gap_percent(self.extra_traffic, bound);
    }

    /// Fills the order-independent bound fields: the peak's always, traffic's and makespan's
    /// when `planned` (before planning the module has no traffic and no final timing).
    /// `capped`: the bounds stopped at their work cap.
    pub fn set_any_order_bounds(
        &mut self,
        (peak, traffic, makespan): (u64, u64, u64),
        capped: bool,
        planned: bool,
    ) {
        self.bounds_capped = capped;
        self.peak_lower_bound = Some(peak);
        self.peak_gap_percent = gap_percent(self.logical_peak, peak);
        if planned {
            self.traffic_lower_bound_any_order = Some(traffic);
            self.traffic_gap_any_order_percent = gap_percent(self.extra_traffic, traffic);
            self.makespan_lower_bound_any_order = Some(makespan);
            self.makespan_gap_any_order_percent = gap_percent(self.makespan, makespan);
        }
    }

    /// Pretty-printed JSON, one field per line.
    pub fn to_json_string(&self) -> String {
        // Every field is a string, number, bool or string-keyed map: serialization cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A few lines for people.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let list = |map: &BTreeMap<String, u64>| {
            map.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "module @{} ({}): {} nodes, {} edges ({}), {} buffers",
            self.module,
            self.phase,
            self.nodes,
            self.edges,
            list(&self.edges_by_kind),
            self.buffers
        );
        let _ = writeln!(s, "valid: {}", if self.valid { "yes" } else { "no" });
        let _ = writeln!(
            s,
            "logical peak ({}): {}   per tier: {}",
            self.logical_peak_tiers.join("+"),
            self.logical_peak,
            list(&self.logical_peak_by_tier)
        );
        let _ = writeln!(s, "L0 max live: {}", list(&self.l0_max_live));
        let _ = writeln!(s, "physical peak: {}", self.physical_peak);
        let _ = writeln!(
            s,
            "spills: {}, extra traffic: {}",
            self.spill_count, self.extra_traffic
        );
        let shown =
            |gap: Option<f64>| gap.map_or_else(|| "unbounded".to_string(), |g| format!("{g:.1}%"));
        if let Some(bound) = self.traffic_lower_bound_fixed_order {
            let gap = shown(self.traffic_gap_fixed_order_percent);
            let _ = writeln!(s, "traffic lower bound, this order: {bound} (gap {gap})");
        }
        if let Some(peak) = self.peak_lower_bound {
            let mut line = format!(
                "lower bounds, any order: peak {peak} (gap {})",
                shown(self.peak_gap_percent)
            );
            if let (Some(t), Some(m)) = (
                self.traffic_lower_bound_any_order,
                self.makespan_lower_bound_any_order,
            ) {
                let (tg, mg) = (
                    shown(self.traffic_gap_any_order_percent),
                    shown(self.makespan_gap_any_order_percent),
                );
                line += &format!(", traffic {t} (gap {tg}), makespan {m} (gap {mg})");
            }
            if self.bounds_capped {
                line += " (capped: weaker than proved without the work cap)";
            }
            let _ = writeln!(s, "{line}");
        }
        let _ = writeln!(
            s,
            "makespan: {}{}   lower bound: {} (critical path {})",
            self.makespan,
            if self.makespan_without_reuse {
                " (without reuse edges)"
            } else {
                ""
            },
            self.makespan_lower_bound,
            self.critical_path
        );
        let _ = writeln!(s, "pipe busy: {}", list(&self.pipe_busy));
        let _ = writeln!(s, "ownership conflicts: {}", self.ownership_conflicts);
        let violations = if self.violations.is_empty() {
            "none".to_string()
        } else {
            self.violations
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(s, "violations: {violations}");
        s
    }
}

/// How far `value` is above `bound`, in percent of the bound, to two decimals (0 when both are
/// 0; `None` when the bound is 0 and the value is not: the gap is unbounded).
pub fn gap_percent(value: u64, bound: u64) -> Option<f64> {
    match (bound, value) {
        (0, 0) => Some(0.0),
        (0, _) => None,
        // Two decimals: the JSON stays readable and deterministic across platforms.
        (b, v) => Some(((v as f64 - b as f64) * 10_000.0 / b as f64).round() / 100.0),
    }
}
