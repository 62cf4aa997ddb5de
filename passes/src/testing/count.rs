//! `test-count`: reports how many ops of each kind, buffers and dependencies the module has, as
//! pass statistics. It changes nothing and says so (all analyses preserved). O(V + E).

use lattice::{NoOptions, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Module, OpKind};

/// The counting pass.
pub struct TestCount;

impl RegisteredPass for TestCount {
    const NAME: &'static str = "test-count";
    const SUMMARY: &'static str =
        "Count ops, buffers and dependencies as statistics; change nothing";
    type Options = NoOptions;
    fn new(_: NoOptions) -> Self {
        TestCount
    }
}

impl Pass for TestCount {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let count =
            |f: fn(&OpKind) -> bool| module.ops.iter().filter(|op| f(&op.kind)).count() as u64;
        cx.statistic("ops", "ops in the schedule", module.schedule.len() as u64);
        cx.statistic(
            "allocs",
            "ALLOC ops",
            count(|k| matches!(k, OpKind::Alloc { .. })),
        );
        cx.statistic(
            "frees",
            "FREE ops",
            count(|k| matches!(k, OpKind::Free { .. })),
        );
        cx.statistic(
            "commands",
            "commands of the input DAG",
            count(|k| matches!(k, OpKind::Compute { .. })),
        );
        cx.statistic(
            "spills",
            "SPILL_OUT and SPILL_IN ops",
            count(OpKind::is_spill),
        );
        cx.statistic("buffers", "declared buffers", module.buffers.len() as u64);
        cx.statistic(
            "deps",
            "dependencies of all kinds",
            module.dep_count() as u64,
        );
        cx.preserve_all();
        Ok(())
    }
}
