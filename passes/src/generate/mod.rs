//! The workload generator: random command DAGs of a chosen shape and size, deterministic by seed,
//! with a trivially valid memory plan ([`trivial_plan`]). Behind the `generate` feature.
//!
//! What every generated module guarantees (the tests check each independently):
//! - the invariants of the public cases (DESIGN §1.1): one ALLOC per buffer, a root; one FREE, a
//!   sink; every user between them by explicit dependencies (ALLOC → user → FREE) and after the
//!   previous writer of each buffer it names; `COPY_IN` marks a buffer `backed`; commands move data
//!   along the Da Vinci path on the cases' pipes with cycle counts fitted to the cases
//!   (`ops.rs`); all five tiers (L1, UB, L0A, L0B, L0C) are used once the module holds a unit
//!   of a structured shape or the first nine steps of `random` (the tests check from 200 nodes);
//! - σ is the generation order, op `%i` is the i-th op of σ, and the module is in phase `parsed`
//!   and passes [`lattice_lir::verify_module`];
//! - **L0 exclusivity**: σ itself keeps at most one live buffer per L0 tier (each L0 buffer is
//!   freed before the next of its tier is allocated), and no command names two buffers of one L0
//!   tier, so σ is a witness that an L0-exclusive order exists;
//! - **capacity**: every buffer size is a power of two and each shape bounds what is live per
//!   tier so that the aligned first-fit allocator places every ALLOC of σ (the bound is in
//!   `space.rs`); the generator runs that allocator while emitting, and [`trivial_plan`] replays
//!   it, so the trivial plan of a generated module always succeeds and verifies;
//! - **size**: exactly `nodes` ops (contest nodes), except that 1 and 2 give 3: the shape emits
//!   whole units while they fit the remaining budget, then small load/compute/store groups fill
//!   the rest (`pad.rs`). Below the smallest unit of a shape (19 ops for matmul, conv and
//!   `matmul-*`, 51 for attention and `heads-*`, 3 for random, 20 for resnet) a module holds only such groups;
//! - **determinism**: the module is a pure function of (shape, nodes, seed) and the target; the
//!   name `gen-<shape>-n<nodes>-s<seed>` says which.
//!
//! Complexity: O(nodes) time and memory (1M nodes take well under a second in release; see the
//! `generate` bench).

mod builder;
mod machine;
mod ops;
mod pad;
mod plan;
mod shape;
mod shapes;
mod space;

pub use crate::renumber::{random_topological, renumber, RenumberError};
pub use machine::{GenError, MIN_CAPACITY};
pub use plan::{trivial_plan, PlanError};
pub use shape::{Shape, UnknownShape};

use crate::rng::Rng;
use builder::Builder;
use lattice_lir::{Module, Target};
use machine::Machine;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GenSpec {
    /// The workload's structure.
    pub shape: Shape,
    /// How many ops (contest nodes: ALLOC, FREE and commands) the module has; 1 and 2 give 3,
    /// and requests beyond `u32::MAX` (the most contest ids) are cut to it.
    pub nodes: usize,
    /// The seed; equal specs give equal modules.
    pub seed: u64,
}

impl GenSpec {
    /// The name of the generated module: `gen-<shape>-n<nodes>-s<seed>`.
    pub fn module_name(&self) -> String {
        format!("gen-{}-n{}-s{}", self.shape, self.nodes, self.seed)
    }
}

/// The workload `spec` names, on the contest core ([`Target::contest`]).
pub fn generate(spec: &GenSpec) -> Module {
    let target = Target::contest();
    match generate_for(spec, &target) {
        Ok(module) => module,
        // The contest core has every tier and pipe the generator names, at capacities far above
        // the minimum, so this arm only keeps the function total.
        Err(_) => Module::new(spec.module_name(), target),
    }
}

/// The workload `spec` names, on `target`: sizes scale with its capacities. The target needs the
/// contest core's tiers and pipes by name, each tier holding at least [`MIN_CAPACITY`] bytes.
pub fn generate_for(spec: &GenSpec, target: &Target) -> Result<Module, GenError> {
    let machine = Machine::resolve(target)?;
    let b = Builder::new(spec.module_name(), target.clone(), machine);
    let mut rng = Rng::new(spec.seed);
    let unit = shapes::unit_of(spec.shape, &b, &mut rng);
    Ok(fill(b, rng, unit, spec.nodes))
}

/// A module of `nodes` ops (as [`GenSpec::nodes`]) of grids of UB tiles each read by several
/// cells, on the contest core, named `gen-reuse-n<nodes>-s<seed>`: the order-exact oracle's
/// family whose traffic optimum is above zero once UB is squeezed (`shapes/reuse.rs`). Not a
/// [`Shape`]: it uses UB alone (but for padding), while every shape's modules use all five
/// tiers, which the benches, fuzzers and renumbering tests over [`Shape::ALL`] rest on.
pub fn generate_reuse(nodes: usize, seed: u64) -> Module {
    let target = Target::contest();
    let name = format!("gen-reuse-n{nodes}-s{seed}");
    match Machine::resolve(&target) {
        Ok(machine) => {
            let b = Builder::new(name, target.clone(), machine);
            let unit = shapes::reuse(&b);
            fill(b, Rng::new(seed), unit, nodes)
        }
        // As in [`generate`]: the contest core has every tier and pipe.
        Err(_) => Module::new(name, target),
    }
}

/// Emits `unit`'s units into `b` while they fit, then pads to exactly `nodes` ops.
fn fill(mut b: Builder, mut rng: Rng, mut unit: Box<dyn shapes::Unit>, nodes: usize) -> Module {
    // Op names are u32 (contest ids); larger requests could not be named.
    let goal = nodes.min(u32::MAX as usize);
    loop {
        // Every live buffer still owes its FREE, and padding needs room for one whole group.
        let budget = goal.saturating_sub(b.len() + b.live() + pad::MIN_GROUP);
        if !unit.emit(&mut b, &mut rng, budget) {
            break;
        }
    }
    b.free_all();
    let rest = goal.saturating_sub(b.len());
    pad::pad(&mut b, &mut rng, rest);
    b.finish()
}
