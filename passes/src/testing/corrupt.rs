//! `test-corrupt`: makes the module invalid on purpose by adding a dependence of the first op in σ
//! on the last one (a dependence on a later op), so that verification after the pass must reject
//! it and name this pass. O(1).

use lattice::{NoOptions, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Dep, DepKind, Module};

/// The corrupting pass.
pub struct TestCorrupt;

impl RegisteredPass for TestCorrupt {
    const NAME: &'static str = "test-corrupt";
    const SUMMARY: &'static str =
        "Make the first op depend on the last one, so verification must fail";
    type Options = NoOptions;
    fn new(_: NoOptions) -> Self {
        TestCorrupt
    }
}

impl Pass for TestCorrupt {
    fn run(&mut self, module: &mut Module, _: &mut PassContext<'_>) -> Result<(), PassError> {
        let (Some(&first), Some(&last)) = (module.schedule.first(), module.schedule.last()) else {
            return Err(PassError::new("test-corrupt needs at least two ops"));
        };
        if first == last {
            return Err(PassError::new("test-corrupt needs at least two ops"));
        }
        module.op_mut(first).deps.push(Dep {
            op: last,
            kind: DepKind::Precedence,
        });
        Ok(())
    }
}
