//! `test-corrupt`: breaks the module on purpose so the pass manager's checks can be tested.
//! `what=order` adds a dependence of the first op in σ on the last one (a dependence on a later
//! op), which verification after the pass must reject and attribute to this pass; `what=phase`
//! moves the phase one step back, which the manager must refuse. O(1).

use lattice::{option_enum, pass_options, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Dep, DepKind, Module, Phase};

option_enum! {
    /// Which invariant to break.
    pub enum Breakage {
        /// A dependence on a later op.
        Order = "order",
        /// The phase moved backwards.
        Phase = "phase",
    }
}

pass_options! {
    /// What to break.
    pub struct CorruptOptions {
        /// `order` (a dependence on a later op) or `phase` (phase moved back).
        what: Breakage = Breakage::Order,
    }
}

/// The corrupting pass.
pub struct TestCorrupt(CorruptOptions);

impl RegisteredPass for TestCorrupt {
    const NAME: &'static str = "test-corrupt";
    const SUMMARY: &'static str = "Break the IR on purpose, so the pass manager's checks must fail";
    type Options = CorruptOptions;
    fn new(options: CorruptOptions) -> Self {
        TestCorrupt(options)
    }
}

impl Pass for TestCorrupt {
    fn run(&mut self, module: &mut Module, _: &mut PassContext<'_>) -> Result<(), PassError> {
        match self.0.what {
            Breakage::Order => {
                let (Some(&first), Some(&last)) = (module.schedule.first(), module.schedule.last())
                else {
                    return Err(PassError::new("test-corrupt needs at least two ops"));
                };
                if first == last {
                    return Err(PassError::new("test-corrupt needs at least two ops"));
                }
                module.op_mut(first).deps.push(Dep {
                    op: last,
                    kind: DepKind::Precedence,
                });
            }
            Breakage::Phase => {
                module.phase = match module.phase {
                    Phase::Parsed => {
                        return Err(PassError::new("a `parsed` module has no earlier phase"))
                    }
                    Phase::Scheduled => Phase::Parsed,
                    Phase::Planned => Phase::Scheduled,
                    Phase::Refined => Phase::Planned,
                };
            }
        }
        Ok(())
    }
}
