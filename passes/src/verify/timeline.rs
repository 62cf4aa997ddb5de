//! The replay's own results, handed to tools that show a plan (the Chrome trace, the figures)
//! so that what they show is what the verifier checked: every op's start and end under the
//! §1.3 timing, every residency with the cycles it holds its bytes (the same holding interval
//! the ownership check uses), every buffer's lifetime from its ALLOC's start to its FREE's end,
//! and the logical peaks with the ALLOC at which σ first reaches them.
//!
//! Nothing here computes a time or a residency of its own: it only moves the replay's pieces
//! into public, documented fields. Built only for modules the replay finds valid
//! ([`super::timeline`]). O(V + S) for S residencies.

use super::occupancy::Occupancy;
use super::ownership::holding;
use super::residency::Residencies;
use super::sigma::Sigma;
use super::timing::Timing;
use super::Metrics;
use lattice_lir::{BufferId, Module, OpId};
use std::ops::Range;

/// The pieces of one replay that a [`Timeline`] is made from.
pub(crate) struct Parts {
    pub sigma: Sigma,
    pub residencies: Residencies,
    pub occupancy: Occupancy,
    pub timing: Timing,
}

/// One residency: a buffer held at one offset from the op that opens it to the one that closes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residency {
    /// The buffer.
    pub buffer: BufferId,
    /// The ALLOC or SPILL_IN that opens it.
    pub opened_by: OpId,
    /// The FREE or SPILL_OUT that closes it.
    pub closed_by: OpId,
    /// For one opened by a SPILL_IN: the SPILL_OUT whose copy it reloads.
    pub reloads: Option<OpId>,
    /// Its offset in the buffer's tier (none before planning).
    pub offset: Option<u64>,
    /// The cycles it holds its bytes: from the earliest start among its opening op and its uses
    /// to the latest end among its closing op and its uses (empty when it holds them for no time).
    pub held: Range<u64>,
}

/// A buffer's logical lifetime in cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// The buffer.
    pub buffer: BufferId,
    /// Its ALLOC.
    pub alloc: OpId,
    /// Its FREE.
    pub free: OpId,
    /// From the ALLOC's start to the FREE's end.
    pub live: Range<u64>,
}

/// A peak of σ's running sum of ALLOC-minus-FREE bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peak {
    /// The bytes.
    pub bytes: u64,
    /// The first ALLOC in σ at which the sum reaches them (none when nothing is allocated).
    pub at: Option<OpId>,
}

/// What the replay computed of a valid module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// σ.
    pub order: Vec<OpId>,
    /// When each op starts, indexed by op id.
    pub start: Vec<u64>,
    /// When each op ends, indexed by op id.
    pub end: Vec<u64>,
    /// Max end.
    pub makespan: u64,
    /// Every residency, in σ order of the ops that open them.
    pub residencies: Vec<Residency>,
    /// Every buffer's lifetime, indexed by buffer id.
    pub lifetimes: Vec<Lifetime>,
    /// The logical peak (the contest's P1, over the non-staging tiers).
    pub logical_peak: Peak,
    /// Each tier's own logical peak, indexed by tier id.
    pub tier_peaks: Vec<Peak>,
    /// The timing ignored reuse dependencies because the module is not planned yet.
    pub without_reuse: bool,
}

impl Timeline {
    /// Moves the replay's pieces of `module` (valid: every buffer allocated and freed once, every
    /// segment closed) into a timeline.
    pub(crate) fn of(module: &Module, parts: Parts, metrics: &Metrics) -> Timeline {
        let Parts {
            sigma,
            residencies: r,
            occupancy: o,
            timing: t,
        } = parts;
        let residencies = r
            .segments
            .iter()
            .filter_map(|seg| {
                Some(Residency {
                    buffer: seg.buffer,
                    opened_by: seg.start,
                    closed_by: seg.end?,
                    reloads: seg.reloads,
                    offset: seg.offset,
                    held: holding(seg, &t),
                })
            })
            .collect();
        let lifetimes = module
            .buffer_ids()
            .filter_map(|b| {
                let (alloc, free) = (r.alloc[b.index()]?, r.free[b.index()]?);
                Some(Lifetime {
                    buffer: b,
                    alloc,
                    free,
                    live: t.start[alloc.index()]..t.end[free.index()],
                })
            })
            .collect();
        let tier_peaks = o
            .logical_by_tier
            .iter()
            .zip(&o.logical_by_tier_at)
            .map(|(&bytes, &at)| Peak { bytes, at })
            .collect();
        Timeline {
            order: sigma.order,
            start: t.start,
            end: t.end,
            makespan: t.makespan,
            residencies,
            lifetimes,
            logical_peak: Peak {
                bytes: o.logical_peak,
                at: o.logical_peak_at,
            },
            tier_peaks,
            without_reuse: metrics.makespan_without_reuse,
        }
    }
}
