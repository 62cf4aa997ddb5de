//! `test-fail` and `test-remark`: emit a diagnostic at a chosen op (or at the module), so failure
//! handling, reproducers and `--verify-diagnostics` can be tested. `test-fail` stops the pipeline;
//! `test-remark` emits a warning or remark and changes nothing. O(V) to find the op.

use lattice::{pass_options, Pass, PassContext, PassError, RegisteredPass};
use lattice_lir::{Module, OpId, Severity};

pass_options! {
    /// Where and what `test-fail` reports.
    pub struct FailOptions {
        /// The op to report at, as `%N` (empty: the whole module).
        op: String = String::new(),
        /// The message.
        message: String = String::from("requested failure"),
    }
}

pass_options! {
    /// Where and what `test-remark` reports.
    pub struct RemarkOptions {
        /// The op to report at, as `%N` (empty: the whole module).
        op: String = String::new(),
        /// The message.
        message: String = String::from("requested remark"),
        /// Emit a warning rather than a remark.
        warning: bool = false,
    }
}

/// Finds the op named `%N` (or `N`); an empty name means none.
fn find_op(module: &Module, name: &str) -> Result<Option<OpId>, PassError> {
    if name.is_empty() {
        return Ok(None);
    }
    let number: Option<u32> = name.trim_start_matches('%').parse().ok();
    module
        .op_ids()
        .find(|&id| Some(module.op(id).name) == number)
        .map(Some)
        .ok_or_else(|| PassError::new(format!("there is no op `{name}` to report at")))
}

/// Fails with the configured message.
pub struct TestFail(FailOptions);

impl RegisteredPass for TestFail {
    const NAME: &'static str = "test-fail";
    const SUMMARY: &'static str = "Fail with an error at an op, to test failure handling";
    type Options = FailOptions;
    fn new(options: FailOptions) -> Self {
        TestFail(options)
    }
}

impl Pass for TestFail {
    fn run(&mut self, module: &mut Module, _: &mut PassContext<'_>) -> Result<(), PassError> {
        let op = find_op(module, &self.0.op)?;
        Err(PassError {
            op,
            ..PassError::new(self.0.message.clone())
        })
    }
}

/// Emits a warning or remark and succeeds.
pub struct TestRemark(RemarkOptions);

impl RegisteredPass for TestRemark {
    const NAME: &'static str = "test-remark";
    const SUMMARY: &'static str = "Emit a remark or warning at an op, to test diagnostics";
    type Options = RemarkOptions;
    fn new(options: RemarkOptions) -> Self {
        TestRemark(options)
    }
}

impl Pass for TestRemark {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let op = find_op(module, &self.0.op)?;
        let severity = if self.0.warning {
            Severity::Warning
        } else {
            Severity::Remark
        };
        cx.emit(severity, op, self.0.message.clone());
        cx.preserve_all();
        Ok(())
    }
}
