//! `--pass-statistics`: the named counters each pass instance reported, as text or JSON.
//!
//! Invariants: entries follow pipeline order (one per pass instance that reported anything);
//! counters keep the order the pass first reported them in; with `--split-input-file` the counters
//! of the same pass instance are summed over chunks, as MLIR sums them over operations.

use crate::pass::Statistic;
use serde::Serialize;
use std::fmt::Write as _;

/// How `--pass-statistics` shows its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StatisticsFormat {
    /// A human-readable report.
    Text,
    /// JSON.
    Json,
}

#[derive(Clone, Debug, Serialize)]
struct Entry {
    index: usize,
    pass: String,
    statistics: Vec<Counter>,
}

#[derive(Clone, Debug, Serialize)]
struct Counter {
    name: &'static str,
    value: u64,
    description: &'static str,
}

/// The statistics of a whole run.
#[derive(Clone, Debug, Default)]
pub struct Statistics {
    entries: Vec<Entry>,
}

impl Statistics {
    /// Adds what pass number `index` (1-based), shown as `label`, reported.
    pub fn record(&mut self, index: usize, label: &str, stats: Vec<Statistic>) {
        if stats.is_empty() {
            return;
        }
        let position = self.entries.iter().position(|e| e.index == index);
        let entry = match position {
            Some(i) => &mut self.entries[i],
            None => {
                let at = self.entries.partition_point(|e| e.index < index);
                self.entries.insert(
                    at,
                    Entry {
                        index,
                        pass: label.to_string(),
                        statistics: Vec::new(),
                    },
                );
                &mut self.entries[at]
            }
        };
        for stat in stats {
            match entry.statistics.iter_mut().find(|c| c.name == stat.name) {
                Some(counter) => counter.value += stat.value,
                None => entry.statistics.push(Counter {
                    name: stat.name,
                    value: stat.value,
                    description: stat.description,
                }),
            }
        }
    }

    /// The report in `format`.
    pub fn report(&self, format: StatisticsFormat) -> String {
        match format {
            StatisticsFormat::Json => {
                #[derive(Serialize)]
                struct Report<'a> {
                    passes: &'a [Entry],
                }
                let report = Report {
                    passes: &self.entries,
                };
                serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
            }
            StatisticsFormat::Text => {
                let rule =
                    "===-------------------------------------------------------------------------===";
                let mut out = format!("{rule}\n{}\n{rule}\n", "... Pass statistics report ...");
                for entry in &self.entries {
                    let _ = writeln!(out, "{} ({})", entry.pass, entry.index);
                    let width = entry
                        .statistics
                        .iter()
                        .map(|c| c.value.to_string().len())
                        .max()
                        .unwrap_or(0);
                    for c in &entry.statistics {
                        let _ = writeln!(
                            out,
                            "  (S) {:>width$} {} - {}",
                            c.value, c.name, c.description
                        );
                    }
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(name: &'static str, value: u64) -> Statistic {
        Statistic {
            name,
            description: "d",
            value,
        }
    }

    #[test]
    fn counters_are_summed_per_pass_instance_in_pipeline_order() {
        let mut s = Statistics::default();
        s.record(2, "b", vec![stat("x", 1)]);
        s.record(1, "a", vec![stat("y", 10), stat("z", 5)]);
        s.record(2, "b", vec![stat("x", 2)]);
        s.record(3, "c", Vec::new());
        let text = s.report(StatisticsFormat::Text);
        let a = text.find("a (1)").unwrap();
        let b = text.find("b (2)").unwrap();
        assert!(a < b, "{text}");
        assert!(text.contains("  (S) 3 x - d\n"), "{text}");
        assert!(text.contains("  (S) 10 y - d\n  (S)  5 z - d\n"), "{text}");
        assert!(!text.contains("c (3)"));
    }
}
