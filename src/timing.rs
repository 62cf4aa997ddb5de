//! `--timing`: wall time of parsing, each pass (with the analyses it computed and the verification
//! after it), and output, shown as a tree in pipeline order, a list sorted by time, or JSON.
//!
//! Invariants: the tree has one top-level entry per pipeline stage in run order (times of several
//! `--split-input-file` chunks are summed into the same entries); children are merged by name; the
//! percentages are of the total wall time of the run. Reports cost O(n log n) in the entries.

use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// What a timed entry measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimingKind {
    /// Reading and parsing (or importing) the input.
    Parse,
    /// A pass.
    Pass,
    /// An analysis computed on demand.
    Analysis,
    /// The structural verifier.
    Verify,
    /// Printing and writing the output.
    Output,
}

impl TimingKind {
    fn marker(self) -> &'static str {
        match self {
            TimingKind::Analysis => "(A) ",
            TimingKind::Verify => "(V) ",
            _ => "",
        }
    }
}

/// One timed entry and what it contains.
#[derive(Clone, Debug, Serialize)]
pub struct TimingNode {
    /// Stage, pass or analysis name.
    pub name: String,
    /// What it measures.
    pub kind: TimingKind,
    /// Wall time.
    #[serde(rename = "seconds", serialize_with = "seconds")]
    pub wall: Duration,
    /// Nested entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TimingNode>,
}

fn seconds<S: serde::Serializer>(wall: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(wall.as_secs_f64())
}

impl TimingNode {
    /// An entry without children.
    pub fn leaf(name: impl Into<String>, kind: TimingKind, wall: Duration) -> Self {
        TimingNode {
            name: name.into(),
            kind,
            wall,
            children: Vec::new(),
        }
    }

    /// Adds `child`, merging it into an existing child of the same name and kind.
    pub fn add_child(&mut self, child: TimingNode) {
        match self
            .children
            .iter_mut()
            .find(|c| c.name == child.name && c.kind == child.kind)
        {
            Some(existing) => existing.merge(child),
            None => self.children.push(child),
        }
    }

    fn merge(&mut self, other: TimingNode) {
        self.wall += other.wall;
        for child in other.children {
            self.add_child(child);
        }
    }
}

/// How `--timing` shows its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TimingFormat {
    /// Entries in pipeline order, analyses and verification nested under their pass.
    Tree,
    /// One line per distinct name, slowest first.
    List,
    /// The tree as JSON.
    Json,
}

/// The timing of a whole run.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    stages: Vec<Option<TimingNode>>,
}

impl Timing {
    /// Adds a top-level entry as stage number `slot` (entries of the same slot are summed, so
    /// chunks of a split input land in the same rows).
    pub fn record(&mut self, slot: usize, node: TimingNode) {
        if slot >= self.stages.len() {
            self.stages.resize(slot + 1, None);
        }
        match &mut self.stages[slot] {
            Some(existing) => existing.merge(node),
            empty => *empty = Some(node),
        }
    }

    /// The top-level entries in run order (for tools that aggregate times themselves).
    pub fn entries(&self) -> impl Iterator<Item = &TimingNode> {
        self.stages.iter().flatten()
    }

    /// The report in `format`, with percentages of `total`.
    pub fn report(&self, format: TimingFormat, total: Duration) -> String {
        match format {
            TimingFormat::Tree => self.table(total, true),
            TimingFormat::List => self.table(total, false),
            TimingFormat::Json => {
                #[derive(Serialize)]
                struct Report<'a> {
                    total_seconds: f64,
                    entries: Vec<&'a TimingNode>,
                }
                let report = Report {
                    total_seconds: total.as_secs_f64(),
                    entries: self.entries().collect(),
                };
                serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
            }
        }
    }

    fn table(&self, total: Duration, tree: bool) -> String {
        let rule =
            "===-------------------------------------------------------------------------===";
        let mut out = format!(
            "{rule}\n{}\n{rule}\n  Total Execution Time: {:.4} seconds\n\n  ----Wall Time----  ----Name----\n",
            centered("... Execution time report ..."),
            total.as_secs_f64()
        );
        let mut rows: Vec<(usize, String, Duration)> = Vec::new();
        if tree {
            fn walk(node: &TimingNode, depth: usize, rows: &mut Vec<(usize, String, Duration)>) {
                rows.push((
                    depth,
                    format!("{}{}", node.kind.marker(), node.name),
                    node.wall,
                ));
                for child in &node.children {
                    walk(child, depth + 1, rows);
                }
            }
            for stage in self.entries() {
                walk(stage, 0, &mut rows);
            }
        } else {
            fn collect(node: &TimingNode, rows: &mut Vec<(usize, String, Duration)>) {
                let name = format!("{}{}", node.kind.marker(), node.name);
                match rows.iter_mut().find(|r| r.1 == name) {
                    Some(row) => row.2 += node.wall,
                    None => rows.push((0, name, node.wall)),
                }
                for child in &node.children {
                    collect(child, rows);
                }
            }
            for stage in self.entries() {
                collect(stage, &mut rows);
            }
            rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
        }
        let share = |d: Duration| {
            if total.is_zero() {
                0.0
            } else {
                100.0 * d.as_secs_f64() / total.as_secs_f64()
            }
        };
        for (depth, name, wall) in rows {
            let _ = writeln!(
                out,
                "  {:>8.4} ({:>5.1}%)  {}{name}",
                wall.as_secs_f64(),
                share(wall),
                "  ".repeat(depth)
            );
        }
        let _ = writeln!(
            out,
            "  {:>8.4} ({:>5.1}%)  Total",
            total.as_secs_f64(),
            100.0
        );
        out
    }
}

/// `title` centred in the 79 columns of a report rule, without trailing spaces.
pub(crate) fn centered(title: &str) -> String {
    let pad = 79usize.saturating_sub(title.chars().count()) / 2;
    format!("{}{title}", " ".repeat(pad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn chunks_are_summed_and_children_merged_by_name() {
        let mut timing = Timing::default();
        for _ in 0..2 {
            let mut pass = TimingNode::leaf("mpas", TimingKind::Pass, ms(10));
            pass.add_child(TimingNode::leaf(
                "bottom-levels",
                TimingKind::Analysis,
                ms(2),
            ));
            timing.record(0, pass);
        }
        let tree = timing.report(TimingFormat::Tree, ms(100));
        assert!(tree.contains("  0.0200 ( 20.0%)  mpas\n"), "{tree}");
        assert!(
            tree.contains("  0.0040 (  4.0%)    (A) bottom-levels\n"),
            "{tree}"
        );
        let list = timing.report(TimingFormat::List, ms(100));
        assert!(
            list.contains("  0.0040 (  4.0%)  (A) bottom-levels\n"),
            "{list}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&timing.report(TimingFormat::Json, ms(100))).unwrap();
        assert_eq!(json["entries"][0]["children"][0]["kind"], "analysis");
    }
}
