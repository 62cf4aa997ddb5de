//! The configurations `lattice-bench paper` runs on every workload, each as the exact
//! `lattice-opt --pass-pipeline` text a user would type, grouped by the study that reads them
//! (paper §V–§VI):
//! - end to end: Base and the external baselines with their own order and memory policy, and full
//!   LATTICE (`mpas,dlr{l0=single},cpe`);
//! - stage attribution: Original (the input order) + LRU + Freeze, then + MPAS, + cost-aware DLR,
//!   + CPE, one stage at a time;
//! - order sensitivity: four legal orders under the same `dlr,cpe` backend.
//!
//! Every DLR runs with `l0=single`, the paper's staging placement (every L0 buffer at offset 0,
//! so consecutive tiles of a tier hand their bytes over in σ order): the reproduction measures
//! the paper's method, not lattice's later double-buffering default.
//!
//! A pipeline shared by two studies (full LATTICE is in all three) is listed once and run once.
//! The lists are fixed, so the report's rows and columns never depend on the results.

use lattice_passes::baselines::Baseline;
use serde::Serialize;

/// One configuration: its label in the report and the pipeline that produces it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Config {
    /// Row or column label.
    pub label: String,
    /// `lattice-opt --pass-pipeline` text.
    pub pipeline: String,
}

impl Config {
    fn new(label: impl Into<String>, pipeline: impl Into<String>) -> Self {
        Config {
            label: label.into(),
            pipeline: pipeline.into(),
        }
    }
}

/// Full LATTICE.
pub const LATTICE: &str = "mpas,dlr{l0=single},cpe";

/// MPAS then DLR: the fixed plan Table III's diagnostics and CPE start from (Freeze).
pub const FREEZE: &str = "mpas,dlr{l0=single}";

/// The end-to-end methods: Base first (the normalization reference), the external baselines,
/// LATTICE last.
pub fn end_to_end() -> Vec<Config> {
    let mut methods: Vec<Config> = Baseline::TABLE
        .iter()
        .map(|&b| Config::new(b.label(), b.pipeline()))
        .collect();
    methods.push(Config::new("LATTICE", LATTICE));
    methods
}

/// Whether an end-to-end method is an external baseline (not Base, not LATTICE): the methods
/// LATTICE's "best external" comparison ranges over.
pub fn is_external(method: &Config) -> bool {
    method.pipeline != LATTICE && method.pipeline != Baseline::Base.pipeline()
}

/// Stage attribution, cumulative: each configuration adds one stage to the one before.
pub fn stages() -> Vec<Config> {
    vec![
        Config::new(
            "Original+LRU+Freeze",
            "order{policy=input},dlr{victim=lru l0=single}",
        ),
        Config::new("+MPAS", "mpas,dlr{victim=lru l0=single}"),
        Config::new("+cost-aware DLR", FREEZE),
        Config::new("+CPE", LATTICE),
    ]
}

/// Order sensitivity: every order under the same DLR/CPE backend, Stable first (the reference).
pub fn orders() -> Vec<Config> {
    vec![
        Config::new("Stable", "order{policy=stable},dlr{l0=single},cpe"),
        Config::new(
            "Memory-first",
            "order{policy=memory-first},dlr{l0=single},cpe",
        ),
        Config::new(
            "Criticality-first",
            "order{policy=critical-first},dlr{l0=single},cpe",
        ),
        Config::new("MPAS", LATTICE),
    ]
}

/// Every distinct pipeline of the studies, in first-use order (end to end, stages, orders), with
/// the Freeze plan added for the diagnostics.
pub fn all_pipelines() -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    let studies = [end_to_end(), stages(), orders()];
    let pipelines = studies
        .iter()
        .flatten()
        .map(|c| c.pipeline.clone())
        .chain([FREEZE.to_string()]);
    for pipeline in pipelines {
        if !all.contains(&pipeline) {
            all.push(pipeline);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice::parse_pipeline;
    use lattice_passes::REGISTRY;

    #[test]
    fn every_pipeline_parses_with_the_shipped_registry() {
        for pipeline in all_pipelines() {
            assert!(
                parse_pipeline(&pipeline, &REGISTRY).is_ok(),
                "{pipeline} does not parse"
            );
        }
    }

    #[test]
    fn shared_pipelines_run_once() {
        let all = all_pipelines();
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
        // Full LATTICE is in all three studies; Freeze in the stages and the diagnostics.
        assert_eq!(all.iter().filter(|p| *p == LATTICE).count(), 1);
        assert!(all.contains(&FREEZE.to_string()));
    }

    #[test]
    fn external_methods_exclude_base_and_lattice() {
        let methods = end_to_end();
        let external: Vec<&str> = methods
            .iter()
            .filter(|m| is_external(m))
            .map(|m| m.label.as_str())
            .collect();
        assert_eq!(external.len(), methods.len() - 2);
        assert!(!external.contains(&"Base") && !external.contains(&"LATTICE"));
    }
}
