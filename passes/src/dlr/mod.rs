//! DLR, Deterministic Linear Repackaging (paper §IV-C, Alg. 2): binds a scheduled module's
//! lifetimes to addresses in every tier, inserts spill and reload events where a tier runs out
//! of room, and writes the memory-plan contract (offsets, events, spill and reuse dependencies)
//! into the IR. The result is a `planned` module.
//!
//! Stages, one file each: `lifetimes` moves ALLOCs later and FREEs earlier so residency spans
//! first to last use; `scan` walks that σ with a `free_list` per tier and the `victim`
//! ranking (`victim=auto` scans twice and keeps the plan that moves fewer bytes), making room
//! where no hole fits by address (`window`: the cheapest range of the block's size, the default)
//! or by rank (the paper's loop, kept with `l0=single`, see [`Evict`]); `prefetch`
//! moves spill events earlier when `prefetch=H` asks; [`plan`] writes the scan into the module
//! with [`spill::materialize`] (spill k named N+2k / N+2k+1 as the contest numbers them; spill
//! and address-reuse dependencies derived). With `l0=double` (the default) a staging tier
//! alternates halves where two buffers fit, so the next tile's load can overlap the current
//! tile's use; `l0=single` puts every staging buffer at the lowest free offset, as the paper does
//! (and as the paper reproduction keeps). The pass wrapper is in [`pass`], the results table in
//! [`report`].
//!
//! Invariants of the output: it passes the structural verifier; no two residencies of a tier that
//! overlap in σ overlap in address; every use lies in a residency of its buffer; every SPILL_OUT is
//! followed by its SPILL_IN before the next use or the FREE. Deterministic: no hashing, every tie
//! broken by position or id. Complexity: O((V + E) log V), plus O(R + k log R) per request that
//! evicts k of the tier's R residents (`evict=window`; O(k·R) with `evict=rank`).

mod free_list;
mod lifetimes;
pub mod pass;
mod prefetch;
pub mod report;
mod scan;
mod victim;
mod window;

use lattice::option_enum;
use lattice_lir::spill;
use lattice_lir::{BufferId, DepKind, Module, OpId, Phase};

pub use pass::Dlr;
use victim::Rule;

option_enum! {
    /// Victim policy for non-staging tiers.
    pub enum Victim {
        /// The paper's key (no writeback first, then next use over writeback cost).
        Paper = "paper",
        /// Room freed (size times reuse distance) per byte of traffic the spill moves.
        Cost = "cost",
        /// Least recently used (the paper's ablation).
        Lru = "lru",
        /// Plan with `paper` and with `cost` and keep the plan that moves fewer bytes.
        Auto = "auto",
    }
}

option_enum! {
    /// Placement in the staging (L0) tiers of an L0-exclusive target.
    pub enum L0Mode {
        /// Away from the buffer the tier released last when it fits (ping-pong halves), so
        /// consecutive buffers of a tier share no bytes and no reuse dependency.
        Double = "double",
        /// Best fit, which puts every buffer at offset 0 (the paper's plans).
        Single = "single",
    }
}

option_enum! {
    /// How a tier makes room for a request no hole fits.
    pub enum Evict {
        /// `rank` with `l0=single` (the paper's plans, which the reproduction and the baselines
        /// pin), `window` otherwise.
        Auto = "auto",
        /// Spill exactly the residents under the cheapest address range of the request's size
        /// (victim costs from the key): O(R) per request, whatever the fragmentation.
        Window = "window",
        /// The paper's loop: spill by rank until a hole fits, put back victims clear of the block.
        Rank = "rank",
    }
}

impl Evict {
    /// The mode a scan with `l0` runs: `auto` resolved.
    fn resolve(self, l0: L0Mode) -> Evict {
        match (self, l0) {
            (Evict::Auto, L0Mode::Single) => Evict::Rank,
            (Evict::Auto, L0Mode::Double) => Evict::Window,
            (mode, _) => mode,
        }
    }
}

lattice::pass_options! {
    /// Options of `dlr`.
    pub struct DlrOptions {
        /// Victim policy in L1/UB: `paper` (the paper's key), `cost`, `lru` or `auto` (the better of paper and cost).
        victim: Victim = Victim::Paper,
        /// Staging-tier placement: `double` (alternate halves) or `single` (offset 0, the paper's).
        l0: L0Mode = L0Mode::Double,
        /// Move SPILL_INs up to this many σ positions early into free bytes, SPILL_OUTs to their last use (0: off).
        #[range(0..=4294967295)]
        prefetch: u32 = 0,
        /// Making room where no hole fits: `window` (cheapest address range), `rank` (the paper's loop) or `auto` (rank with l0=single).
        evict: Evict = Evict::Auto,
    }
}

/// The victim key a pass right before `dlr` chose for it (the order search, which scored its
/// order with this key): `dlr` plans with it when its own `victim` is the default. Handed over
/// through [`lattice::PassContext::leave`], so it reaches the next pass only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VictimChoice(pub Victim);

/// Counters of one plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DlrStats {
    /// SPILL_OUT events.
    pub spills: u64,
    /// SPILL_OUTs of backed buffers (free: no cycles, no traffic).
    pub drops: u64,
    /// SPILL_IN events.
    pub reloads: u64,
    /// Extra DDR traffic in bytes (DESIGN §1.3: `size` per backed spill, `2·size` otherwise).
    pub traffic: u64,
    /// Address-reuse dependencies in the plan.
    pub reuse_edges: u64,
    /// Most bytes resident in all tiers at once.
    pub physical_peak: u64,
    /// Eviction rounds the tier's free bytes could have served but no single hole could.
    pub frag_evictions: u64,
    /// Sum over eviction rounds of (request − largest free hole) when the round began.
    pub frag_shortfall_sum: u64,
    /// Largest (request − largest free hole) of any eviction round.
    pub frag_shortfall_max: u64,
    /// Deterministic work units: ops scanned, plus residents and holes visited making room (a
    /// search's budget adds these up).
    pub work: u64,
}

/// A planned module and its counters.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The `planned` module.
    pub module: Module,
    /// What planning did.
    pub stats: DlrStats,
}

/// Why planning failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DlrErrorKind {
    /// The module is not `scheduled`.
    #[error("dlr plans `scheduled` modules, but this one is `{phase}`{hint}")]
    Phase {
        /// Its phase.
        phase: Phase,
        /// What to do about it.
        hint: &'static str,
    },
    /// A request does not fit even after evicting every unpinned resident: the command's
    /// operands in the tier need more bytes at once than the tier holds (the only way a request
    /// can fail, since compaction serves any command whose operands fit).
    #[error("the op's operands in {tier} need {needed} bytes at once, more than its capacity {capacity}: @b{buffer} ({size} bytes) does not fit beside the others (largest hole {largest} bytes)")]
    NoRoom {
        /// The buffer.
        buffer: u32,
        /// Its size.
        size: u64,
        /// Bytes the command's distinct operands in the tier need together.
        needed: u64,
        /// Its tier.
        tier: String,
        /// The tier's capacity.
        capacity: u64,
        /// The largest hole left.
        largest: u64,
    },
    /// With `l0_exclusive`, one op needs two buffers of the same staging tier.
    #[error("@b{buffer} and @b{other} must both be resident in {tier}, which l0-exclusive allows one buffer at a time")]
    L0Shared {
        /// The buffer being placed.
        buffer: u32,
        /// The pinned resident in the way.
        other: u32,
        /// The tier.
        tier: String,
    },
    /// The plan cannot be written: too many spills to name, or traffic past 2⁶⁴−1 bytes.
    #[error("{0}")]
    Materialize(spill::MaterializeError),
}

/// A planning failure, at the op it concerns when there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct DlrError {
    /// The op being served when planning failed.
    pub op: Option<OpId>,
    /// What failed.
    pub kind: DlrErrorKind,
}

impl DlrError {
    fn at(op: OpId, kind: DlrErrorKind) -> Self {
        DlrError { op: Some(op), kind }
    }
}

impl From<DlrError> for lattice::PassError {
    fn from(e: DlrError) -> Self {
        match e.op {
            Some(op) => lattice::PassError::at(op, e.kind.to_string()),
            None => lattice::PassError::new(e.kind.to_string()),
        }
    }
}

/// The scan of `life.order`, with its spill events moved early by `options.prefetch`.
fn scan_and_prefetch(
    module: &Module,
    life: &lifetimes::Lifetimes,
    options: &DlrOptions,
) -> Result<scan::Scan, DlrError> {
    let evict = options.evict.resolve(options.l0);
    let scan_with = |rule| scan::scan(module, life, rule, options.l0, evict);
    let mut scan = match options.victim {
        Victim::Auto => {
            let (paper, cost) = (scan_with(Rule::Paper)?, scan_with(Rule::Cost)?);
            let moved = |s: &scan::Scan| (s.stats.traffic, s.stats.spills);
            let work = paper.stats.work + cost.stats.work;
            let mut kept = if moved(&cost) < moved(&paper) {
                cost
            } else {
                paper
            };
            kept.stats.work = work;
            kept
        }
        Victim::Paper => scan_with(Rule::Paper)?,
        Victim::Cost => scan_with(Rule::Cost)?,
        Victim::Lru => scan_with(Rule::Lru)?,
    };
    prefetch::prefetch(module, &mut scan, options.prefetch);
    Ok(scan)
}

/// Plans a `scheduled`, structurally verified `module`.
pub fn plan(module: &Module, options: &DlrOptions) -> Result<Plan, DlrError> {
    plan_in(module, &module.schedule, options)
}

/// [`plan`] of `module` with its ops in `order` (a legal order listing every op once) instead of
/// its σ: how a search plans its candidates, without a copy of the module for each.
pub fn plan_in(module: &Module, order: &[OpId], options: &DlrOptions) -> Result<Plan, DlrError> {
    if module.phase != Phase::Scheduled {
        let hint = match module.phase {
            Phase::Parsed => "; run an order pass such as mpas first",
            _ => "; it already has a memory plan",
        };
        let kind = DlrErrorKind::Phase {
            phase: module.phase,
            hint,
        };
        return Err(DlrError { op: None, kind });
    }
    let life = lifetimes::tighten(module, order);
    let scan = scan_and_prefetch(module, &life, options)?;
    let spills: Vec<(BufferId, u64)> = scan
        .spills
        .iter()
        .map(|s| (s.buffer, s.reload_offset))
        .collect();
    let out =
        spill::materialize(module, &scan.alloc_offsets, &spills, &scan.events).map_err(|e| {
            DlrError {
                op: None,
                kind: DlrErrorKind::Materialize(e),
            }
        })?;
    let mut stats = scan.stats;
    stats.reuse_edges = out
        .ops
        .iter()
        .flat_map(|op| &op.deps)
        .filter(|d| d.kind == DepKind::Reuse)
        .count() as u64;
    Ok(Plan { module: out, stats })
}

/// `module`'s ops in a candidate order as DLR would plan them: ALLOCs moved to their first use
/// and FREEs after their last, nothing else moved. A search measures the tightened order (its
/// logical peak is the planned module's: spill events do not change it) and then scans it with
/// [`scan_tightened`], so the order is tightened once per candidate.
pub struct Tightened(lifetimes::Lifetimes);

impl Tightened {
    /// Tightens `order` (a legal order listing every op of `module` once).
    /// O((V + E) + V log V).
    pub fn of(module: &Module, order: &[OpId]) -> Self {
        Tightened(lifetimes::tighten(module, order))
    }

    /// The tightened order (spill events left out).
    pub fn order(&self) -> &[OpId] {
        &self.0.order
    }
}

/// What [`plan`] would report for `module` (unplanned, structurally verified) with its ops in
/// the order `tightened` stands for, without building the plan: how a search scores candidate
/// orders cheaply. Every counter but `reuse_edges` (0: nothing is materialized) equals
/// [`plan`]'s for that order. O(V log V) plus O(R) per eviction round.
pub fn scan_tightened(
    module: &Module,
    tightened: &Tightened,
    options: &DlrOptions,
) -> Result<DlrStats, DlrError> {
    Ok(scan_and_prefetch(module, &tightened.0, options)?.stats)
}
