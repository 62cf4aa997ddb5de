//! Workload characterization (paper Fig. "Workload characterization"): DAG scale, command mix,
//! allocation sizes and ALLOC-to-last-access spans of each imported case, before any pass runs.
//!
//! Command classes are read off the commands themselves: `COPY_IN`/`COPY_OUT` move data between
//! DDR and the core; any other command on a transfer pipe (MTE*, FIXP) moves data on chip; the
//! rest compute. Spans are measured in the input order (the ids as given, `order{policy=input}`),
//! from a buffer's ALLOC to the last command naming it, in σ positions. O(V + E + B log B).

use lattice_lir::{Module, OpKind};
use serde::Serialize;
use std::collections::BTreeMap;

/// The command classes, in report order.
pub const CLASSES: [&str; 3] = ["DDR movement", "on-chip movement", "compute"];

/// One workload's shape.
#[derive(Clone, Debug, Serialize)]
pub struct Workload {
    /// The case name.
    pub name: String,
    /// Contest nodes (ALLOC, FREE and commands).
    pub nodes: u64,
    /// Commands (nodes that are neither ALLOC nor FREE).
    pub commands: u64,
    /// Input-precedence edges.
    pub edges: u64,
    /// Buffers.
    pub buffers: u64,
    /// Bytes of all buffers.
    pub allocated_bytes: u64,
    /// Commands per class of [`CLASSES`], in that order.
    pub mix: Vec<u64>,
    /// Commands per pipe.
    pub pipes: BTreeMap<String, u64>,
    /// Allocation sizes per tier.
    pub tiers: Vec<Sizes>,
    /// ALLOC-to-last-access spans in σ positions.
    pub spans: Summary,
    /// Every buffer size (for the distribution figure).
    #[serde(skip)]
    pub size_values: Vec<u64>,
    /// Every span (for the distribution figure).
    #[serde(skip)]
    pub span_values: Vec<u64>,
}

/// The allocations of one tier.
#[derive(Clone, Debug, Serialize)]
pub struct Sizes {
    /// The tier.
    pub tier: String,
    /// Its buffers.
    pub buffers: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Their size distribution.
    pub size: Summary,
}

/// Order statistics of a list of values (all 0 for an empty list).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Smallest.
    pub min: u64,
    /// Lower median.
    pub median: u64,
    /// 90th percentile (nearest rank).
    pub p90: u64,
    /// Largest.
    pub max: u64,
}

impl Summary {
    /// The summary of `values` (sorted here).
    pub fn of(values: &mut [u64]) -> Summary {
        values.sort_unstable();
        let Some(&max) = values.last() else {
            return Summary::default();
        };
        let rank = |q: usize| values[(values.len() * q).div_ceil(100).max(1) - 1];
        Summary {
            min: values[0],
            median: rank(50),
            p90: rank(90),
            max,
        }
    }
}

/// The class index (into [`CLASSES`]) of a command with `opcode` on `pipe`.
fn class(opcode: &str, pipe: &str) -> usize {
    if opcode == "COPY_IN" || opcode == "COPY_OUT" {
        0
    } else if pipe.starts_with("MTE") || pipe == "FIXP" {
        1
    } else {
        2
    }
}

/// Characterizes `case`, with spans measured along `input_order` (every op once).
pub fn characterize(case: &Module, input_order: &[lattice_lir::OpId]) -> Workload {
    let mut mix = vec![0; CLASSES.len()];
    let mut pipes = BTreeMap::new();
    for op in &case.ops {
        if let OpKind::Compute { opcode, pipe, .. } = &op.kind {
            let name = &case.target.pipes[pipe.index()];
            mix[class(opcode, name)] += 1;
            *pipes.entry(name.clone()).or_insert(0) += 1;
        }
    }
    let mut alloc_at = vec![None; case.buffers.len()];
    let mut last_use = vec![None; case.buffers.len()];
    for (position, &id) in input_order.iter().enumerate() {
        match &case.op(id).kind {
            OpKind::Alloc { buffer, .. } => alloc_at[buffer.index()] = Some(position),
            OpKind::Compute { operands, .. } => {
                for b in operands {
                    last_use[b.index()] = Some(position);
                }
            }
            _ => {}
        }
    }
    let mut span_values: Vec<u64> = alloc_at
        .iter()
        .zip(&last_use)
        .filter_map(|(&a, &l)| Some(l?.saturating_sub(a?) as u64))
        .collect();
    let tiers = case
        .target
        .tiers
        .iter()
        .enumerate()
        .map(|(t, tier)| {
            let mut sizes: Vec<u64> = case
                .buffers
                .iter()
                .filter(|b| b.tier.index() == t)
                .map(|b| b.size)
                .collect();
            Sizes {
                tier: tier.name.clone(),
                buffers: sizes.len() as u64,
                bytes: sizes.iter().sum(),
                size: Summary::of(&mut sizes),
            }
        })
        .collect();
    let size_values: Vec<u64> = case.buffers.iter().map(|b| b.size).collect();
    let commands = mix.iter().sum();
    Workload {
        name: case.name.clone(),
        nodes: case.ops.len() as u64,
        commands,
        edges: case.dep_count() as u64,
        buffers: case.buffers.len() as u64,
        allocated_bytes: size_values.iter().sum(),
        mix,
        pipes,
        tiers,
        spans: Summary::of(&mut span_values),
        size_values,
        span_values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_uses_nearest_ranks() {
        let mut values: Vec<u64> = (1..=10).rev().collect();
        let s = Summary::of(&mut values);
        assert_eq!((s.min, s.median, s.p90, s.max), (1, 5, 9, 10));
        assert_eq!(Summary::of(&mut []), Summary::default());
        assert_eq!(Summary::of(&mut [7]).p90, 7);
    }

    #[test]
    fn the_example_is_characterized_from_its_commands() {
        let case = crate::paper::example();
        let w = characterize(&case, &case.schedule);
        // Two COPY_INs and one COPY_OUT, two MOVEs, a MATMUL, a FIXP copy.
        assert_eq!(w.mix.iter().sum::<u64>(), w.commands);
        assert!(w.mix[0] >= 2 && w.mix[2] >= 1, "{:?}", w.mix);
        assert_eq!(w.buffers, case.buffers.len() as u64);
        assert_eq!(w.span_values.len() as u64, w.buffers);
        assert!(w.spans.max > 0);
    }
}
