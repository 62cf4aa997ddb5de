//! `test-analyses`: asks for the bottom-level and buffer-use analyses and reports, as statistics,
//! whether each was already cached — so tests can watch the analysis manager cache results and
//! drop them after passes that do not preserve them. With `preserve=false` it claims to have
//! changed the module. O(1) beyond the analyses themselves.

use crate::analysis::{BottomLevels, BufferUses};
use lattice::{pass_options, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::Module;

pass_options! {
    /// What the pass declares afterwards.
    pub struct AnalysesOptions {
        /// Declare both analyses preserved.
        preserve: bool = true,
    }
}

/// The analysis-requesting pass.
pub struct TestAnalyses(AnalysesOptions);

impl RegisteredPass for TestAnalyses {
    const NAME: &'static str = "test-analyses";
    const SUMMARY: &'static str = "Request analyses and report whether they were cached";
    type Options = AnalysesOptions;
    fn new(options: AnalysesOptions) -> Self {
        TestAnalyses(options)
    }
}

impl Pass for TestAnalyses {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let levels_cached = cx.is_cached::<BottomLevels>();
        let uses_cached = cx.is_cached::<BufferUses>();
        let critical = cx.analysis::<BottomLevels>(module).critical_path();
        cx.analysis::<BufferUses>(module);
        cx.statistic(
            "bottom-levels-cached",
            "1 if bottom levels were cached",
            levels_cached.into(),
        );
        cx.statistic(
            "buffer-uses-cached",
            "1 if buffer uses were cached",
            uses_cached.into(),
        );
        cx.statistic(
            "critical-path",
            "longest dependency chain in cycles",
            critical,
        );
        if self.0.preserve {
            cx.preserve::<BottomLevels>();
            cx.preserve::<BufferUses>();
        }
        Ok(())
    }
}
