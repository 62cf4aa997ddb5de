//! The target description: memory tiers with capacities, execution pipes, the spill cost model and
//! the L0 exclusivity rule.
//!
//! Algorithms read every machine fact from here instead of hard-coding it, so a user can model
//! another chip (or force spills in a test) by changing the IR's `target { … }` block or the
//! importer's `--capacity` flags. Invariants: tier and pipe names are unique and non-empty, and the
//! spill pipes name pipes of this target.

use crate::ids::{PipeId, TierId};

/// One on-chip memory tier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tier {
    /// The name used in the IR and the contest JSON (`L1`, `UB`, `L0A`, …).
    pub name: String,
    /// Capacity in bytes; every resident byte range lies in `[0, capacity)`.
    pub capacity: u64,
    /// A staging tier next to a compute unit (L0A/L0B/L0C). Staging tiers do not count towards the
    /// logical peak and are the ones `l0_exclusive` restricts.
    pub staging: bool,
}

/// Cycles of one spill transfer on a buffer of `size` bytes: `base + per_byte * size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillCost {
    /// Fixed cost of a transfer.
    pub base: u64,
    /// Cost per byte moved.
    pub per_byte: u64,
}

impl SpillCost {
    /// Cycles to move `size` bytes between a tier and DDR, saturating rather than wrapping.
    pub fn cycles(self, size: u64) -> u64 {
        self.base.saturating_add(self.per_byte.saturating_mul(size))
    }
}

/// Everything an algorithm may know about the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Memory tiers, indexed by [`TierId`].
    pub tiers: Vec<Tier>,
    /// Single-issue, in-order execution pipes, indexed by [`PipeId`].
    pub pipes: Vec<String>,
    /// The pipe that runs SPILL_OUT transfers.
    pub spill_out_pipe: PipeId,
    /// The pipe that runs SPILL_IN (reload) transfers.
    pub spill_in_pipe: PipeId,
    /// Cycle cost of one spill transfer.
    pub spill_cost: SpillCost,
    /// At most one live buffer per staging tier at any point of the schedule.
    pub l0_exclusive: bool,
}

impl Target {
    /// The Da Vinci-style core of the contest (DESIGN §1.2).
    pub fn contest() -> Self {
        let tier = |name: &str, capacity, staging| Tier {
            name: name.to_owned(),
            capacity,
            staging,
        };
        let pipes: Vec<String> = ["MTE1", "MTE2", "MTE3", "FIXP", "CUBE", "VECTOR"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        Target {
            tiers: vec![
                tier("L1", 4096, false),
                tier("UB", 1024, false),
                tier("L0A", 256, true),
                tier("L0B", 256, true),
                tier("L0C", 512, true),
            ],
            spill_out_pipe: PipeId::new(2),
            spill_in_pipe: PipeId::new(1),
            pipes,
            spill_cost: SpillCost {
                base: 150,
                per_byte: 2,
            },
            l0_exclusive: true,
        }
    }

    /// The tier with this id.
    pub fn tier(&self, id: TierId) -> &Tier {
        &self.tiers[id.index()]
    }

    /// The name of the pipe with this id.
    pub fn pipe(&self, id: PipeId) -> &str {
        &self.pipes[id.index()]
    }

    /// Looks a tier up by its name.
    pub fn tier_named(&self, name: &str) -> Option<TierId> {
        self.tiers
            .iter()
            .position(|t| t.name == name)
            .map(TierId::new)
    }

    /// Looks a pipe up by its name.
    pub fn pipe_named(&self, name: &str) -> Option<PipeId> {
        self.pipes.iter().position(|p| p == name).map(PipeId::new)
    }

    /// All tier ids, in declaration order.
    pub fn tier_ids(&self) -> impl Iterator<Item = TierId> + '_ {
        (0..self.tiers.len()).map(TierId::new)
    }

    /// All pipe ids, in declaration order.
    pub fn pipe_ids(&self) -> impl Iterator<Item = PipeId> + '_ {
        (0..self.pipes.len()).map(PipeId::new)
    }

    /// Sets the capacity of each named tier (`--capacity TIER=N`); the first name the target has
    /// no tier for is the error, and nothing after it is applied.
    pub fn set_capacities(&mut self, capacities: &[(String, u64)]) -> Result<(), String> {
        for (name, capacity) in capacities {
            let tier = self.tier_named(name).ok_or_else(|| name.clone())?;
            self.tiers[tier.index()].capacity = *capacity;
        }
        Ok(())
    }

    /// Comma-separated tier names, for "valid tiers are …" messages.
    pub fn tier_names(&self) -> String {
        self.tiers
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Comma-separated pipe names, for "valid pipes are …" messages.
    pub fn pipe_names(&self) -> String {
        self.pipes.join(", ")
    }
}
