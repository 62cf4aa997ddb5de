//! The options of `order-search`: the objective, the budget, the seed, the threads, the time
//! limit and the back end the search plans its candidates with.
//!
//! The back end is, by default, the passes that follow the search in the pipeline being run
//! (`back-end=pipeline`; the pass reads them in [`lattice::Pass::follow`]), so
//! `order-search{…},dlr{…},cpe{…}` gives exactly the plan the search scored. Given explicitly it
//! is written as a pipeline (`dlr{…}` or `dlr{…},cpe{…}`) and parsed with the registry's own
//! pipeline parser and the two passes' own option types, so a misspelt option is rejected when
//! the pipeline is parsed, like any other; the pass warns when the passes that follow differ.

use crate::cpe::CpeOptions;
use crate::dlr::{DlrOptions, Victim};
use lattice::options::{OptionType, PassOptions};
use lattice::{option_enum, pass_options, PassSpec};
use std::num::{NonZeroU32, NonZeroU64};

option_enum! {
    /// What the search minimizes.
    pub enum Objective {
        /// Logical peak (L1+UB) of σ as planned.
        Peak = "peak",
        /// DLR's extra DDR traffic.
        Traffic = "traffic",
        /// The makespan after the back end (CPE's, or Freeze's without CPE).
        Makespan = "makespan",
    }
}

/// The passes that plan the search's candidates: DLR, then CPE unless left out.
#[derive(Clone, Debug, PartialEq)]
pub struct BackEnd {
    /// DLR's options.
    pub dlr: DlrOptions,
    /// CPE's options; `None` when the pipeline ends with DLR (makespan is then Freeze's).
    pub cpe: Option<CpeOptions>,
    /// Whether this is the back end of the pipeline being run (`back-end=pipeline`, the default:
    /// the passes that follow the search), rather than one given in the option.
    pub following: bool,
    /// Whether the search chooses DLR's victim key too (`paper` or `cost`) and hands its choice
    /// to the `dlr` that follows: when the back end is the pipeline's and that `dlr` leaves
    /// `victim` at its default.
    pub victim_search: bool,
}

impl Default for BackEnd {
    /// `back-end=pipeline` before the pass has seen what follows it (and when nothing does):
    /// DLR's and CPE's defaults, DLR's default victim key only.
    fn default() -> Self {
        BackEnd {
            dlr: DlrOptions::default(),
            cpe: Some(CpeOptions::default()),
            following: true,
            victim_search: false,
        }
    }
}

impl BackEnd {
    /// The back end this one stands for in `order-search{…},dlr,cpe` — what [`BackEnd::of_following`]
    /// makes of DLR and CPE at their defaults (the victim key searched) when it is the pipeline's,
    /// itself when given. For callers that run the search without a pipeline around it.
    pub fn before_default_passes(&self) -> BackEnd {
        if self.following {
            BackEnd {
                victim_search: true,
                ..BackEnd::default()
            }
        } else {
            self.clone()
        }
    }

    /// The back end the passes `following` the search make: the leading `dlr` and `cpe` specs,
    /// the victim key searched when that `dlr` leaves it at its default; `None` when no `dlr`
    /// comes right after the search.
    pub fn of_following(following: &[PassSpec]) -> Option<BackEnd> {
        let dlr_spec = following.first().filter(|p| p.name == "dlr")?;
        let dlr = DlrOptions::from_pairs(&dlr_spec.options).ok()?;
        let cpe = match following.get(1).filter(|p| p.name == "cpe") {
            Some(spec) => Some(CpeOptions::from_pairs(&spec.options).ok()?),
            None => None,
        };
        Some(BackEnd {
            victim_search: dlr.victim == DlrOptions::default().victim,
            dlr,
            cpe,
            following: true,
        })
    }

    /// The back end with DLR's victim key set to `victim`.
    pub fn with_victim(&self, victim: Victim) -> BackEnd {
        let mut back_end = self.clone();
        back_end.dlr.victim = victim;
        back_end
    }

    /// The victim keys the search tries, DLR's own first.
    pub fn victims(&self) -> Vec<Victim> {
        let own = self.dlr.victim;
        let mut keys = vec![own];
        if self.victim_search {
            keys.extend(
                [Victim::Paper, Victim::Cost]
                    .into_iter()
                    .filter(|&v| v != own),
            );
        }
        keys
    }

    /// The pipeline text of the passes: `dlr{…}` or `dlr{…},cpe{…}`.
    pub fn spec(&self) -> String {
        let spec = |name: &str, pairs: Vec<(String, String)>| {
            let body: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{name}{{{}}}", body.join(" "))
        };
        let mut text = spec("dlr", self.dlr.pairs());
        if let Some(cpe) = &self.cpe {
            text.push(',');
            text.push_str(&spec("cpe", cpe.pairs()));
        }
        text
    }
}

impl OptionType for BackEnd {
    fn describe() -> String {
        "`pipeline` (the passes that follow) or a pipeline `dlr{…}` or `dlr{…},cpe{…}`".into()
    }

    fn parse_option(text: &str) -> Result<Self, String> {
        if text == "pipeline" {
            return Ok(BackEnd::default());
        }
        let wrong =
            |why: String| format!("expected `pipeline` or a back end `dlr{{…}}[,cpe{{…}}]`, {why}");
        let pipeline = lattice::parse_pipeline(text, &crate::REGISTRY)
            .map_err(|e| wrong(e.kind.to_string()))?;
        let names: Vec<&str> = pipeline.passes.iter().map(|p| p.name).collect();
        match names[..] {
            ["dlr"] | ["dlr", "cpe"] => {}
            _ => return Err(wrong(format!("found `{text}`"))),
        }
        let dlr = DlrOptions::from_pairs(&pipeline.passes[0].options).map_err(wrong)?;
        let cpe = match pipeline.passes.get(1) {
            Some(spec) => Some(CpeOptions::from_pairs(&spec.options).map_err(wrong)?),
            None => None,
        };
        Ok(BackEnd {
            dlr,
            cpe,
            following: false,
            victim_search: false,
        })
    }

    fn print_option(&self) -> String {
        if self.following {
            "pipeline".into()
        } else {
            self.spec()
        }
    }
}

/// How much the search may spend, in steps or in work units.
///
/// A work unit is one op, dependency or event that the search's scoring walks (counted by
/// [`super::score`]: tightening and pressure per candidate, DLR's scan and its evictions, the
/// timing of the makespan objective, realizing a task order, the final stage's back end), so
/// work measures what a search costs on any module — a step on a fragmented conv network costs
/// many times one on a matmul of the same size — while staying a pure function of the module,
/// the options and the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// [`AUTO_WORK`] work units for the whole search, portfolio, chains and final stage: about
    /// the same CPU time whatever the module up to 50K nodes (docs/search.md, "Cost").
    Auto,
    /// Exactly this many steps (the portfolio counts, and is cut when larger); the final stage
    /// comes on top.
    Steps(NonZeroU64),
    /// This many work units for the whole search (`work:N`), at most three times `auto`'s.
    Work(NonZeroU64),
}

/// The work units of `budget=auto`.
pub const AUTO_WORK: u64 = 160_000_000;

impl Budget {
    /// The most steps a module of `ops` ops may be given: `3 · max(256, W / ops)`, W =
    /// 40,000,000 for peak and traffic and 6,000,000 for makespan (whose steps build and time a
    /// plan). A step's cost grows with the module, so a fixed cap would either forbid long
    /// searches of small modules or let one budget run for hours on a large one; this keeps
    /// every explicit step budget within about 40 s on one thread on the largest shipped case.
    pub fn max_steps(objective: Objective, ops: usize) -> u64 {
        let work: u64 = match objective {
            Objective::Peak | Objective::Traffic => 40_000_000,
            Objective::Makespan => 6_000_000,
        };
        3 * (work / ops.max(1) as u64).max(256)
    }

    /// The most work units a budget may give: three times `auto`'s.
    pub const MAX_WORK: u64 = 3 * AUTO_WORK;
}

impl OptionType for Budget {
    fn describe() -> String {
        "`auto`, a positive step count, or `work:N` work units".into()
    }

    fn parse_option(text: &str) -> Result<Self, String> {
        let wrong = || {
            format!("expected `auto`, a positive integer or `work:` and a positive integer, found `{text}`")
        };
        if text == "auto" {
            return Ok(Budget::Auto);
        }
        match text.strip_prefix("work:") {
            Some(units) => NonZeroU64::parse_option(units)
                .map(Budget::Work)
                .map_err(|_| wrong()),
            None => NonZeroU64::parse_option(text)
                .map(Budget::Steps)
                .map_err(|_| wrong()),
        }
    }

    fn print_option(&self) -> String {
        match self {
            Budget::Auto => "auto".into(),
            Budget::Steps(n) => n.to_string(),
            Budget::Work(n) => format!("work:{n}"),
        }
    }
}

pass_options! {
    /// Options of `order-search`.
    pub struct SearchOptions {
        /// What to minimize: peak, traffic or makespan (ties broken by the other two, then spills).
        objective: Objective = Objective::Makespan,
        /// What to spend: `auto` (a fixed amount of work), `N` steps or `work:N` units; deterministic for a seed.
        budget: Budget = Budget::Auto,
        /// Seed of the local search.
        #[range(0..=18446744073709551615)]
        seed: u64 = 1,
        /// Worker threads; the result does not depend on it.
        #[range(1..=256)]
        threads: NonZeroU32 = NonZeroU32::MIN.saturating_add(1),
        /// End the whole search within this many seconds (0: no limit); a limit makes the result timing-dependent.
        #[range(0..=86400)]
        time_limit: u64 = 0,
        /// The back end the search plans its candidates with: `pipeline` (the passes that follow it, with the victim key searched when `dlr` leaves it at its default) or `dlr{…}[,cpe{…}]`.
        back_end: BackEnd = BackEnd::default(),
    }
}
