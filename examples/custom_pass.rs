//! Writing a pass and registering it: `count-commands` counts the compute commands of each pipe,
//! reports the count as a statistic and a remark, and runs between lattice's own passes in a
//! pipeline string, exactly as `lattice-opt --pass-pipeline` would parse it. The registry is
//! this program's own: the passes it names and nothing else.
//! Run with `cargo run --example custom_pass -- examples/matmul_tile.lir`.

use lattice::manager::Session;
use lattice::statistics::StatisticsFormat;
use lattice::{
    parse_pipeline, NoOptions, Pass, PassContext, PassError, PassInfo, PassManager, RegisteredPass,
    Registry,
};
use lattice_lir::{parse_module, Module, OpKind, Severity};
use lattice_passes::{dlr::Dlr, order::Mpas};
use std::io::Write;
use std::process::ExitCode;

/// Counts compute commands per pipe; changes nothing, so every analysis stays valid.
struct CountCommands;

impl RegisteredPass for CountCommands {
    const NAME: &'static str = "count-commands";
    const SUMMARY: &'static str = "Count the compute commands of each pipe";
    type Options = NoOptions;
    fn new(_: NoOptions) -> Self {
        CountCommands
    }
}

impl Pass for CountCommands {
    fn run(&mut self, module: &mut Module, cx: &mut PassContext<'_>) -> Result<(), PassError> {
        let mut per_pipe = vec![0u64; module.target.pipes.len()];
        for op in &module.ops {
            if let OpKind::Compute { pipe, .. } = op.kind {
                per_pipe[pipe.index()] += 1;
            }
        }
        let counts: Vec<String> = module
            .target
            .pipes
            .iter()
            .zip(&per_pipe)
            .filter(|(_, &n)| n > 0)
            .map(|(pipe, n)| format!("{pipe} {n}"))
            .collect();
        cx.statistic("commands", "compute commands", per_pipe.iter().sum());
        cx.emit(
            Severity::Remark,
            None,
            format!("commands per pipe: {}", counts.join(", ")),
        );
        cx.preserve_all();
        Ok(())
    }
}

/// This program's passes: two of lattice's and its own.
static REGISTRY: Registry = Registry::new(&[
    PassInfo::of::<Mpas>(),
    PassInfo::of::<Dlr>(),
    PassInfo::of::<CountCommands>(),
]);

/// Runs `mpas,count-commands,dlr` on the LIR module in `path`; reports go to `out`. (Public
/// for `tests/examples.rs`, which runs it in-process.)
pub fn run(path: &str, out: &mut dyn Write) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut module = parse_module(&text).map_err(|e| format!("{path}: {e}"))?;
    let pipeline = parse_pipeline("mpas,count-commands,dlr", &REGISTRY)
        .map_err(|e| e.render("pipeline", "mpas,count-commands,dlr"))?;
    let manager = PassManager::new(REGISTRY, pipeline);
    let mut dumps = Vec::new();
    let mut session = Session::new(&mut dumps);
    let ran = manager.run(&mut module, &mut session);
    for diagnostic in &session.diagnostics {
        writeln!(out, "{}: {}", diagnostic.severity, diagnostic.message)
            .map_err(|e| e.to_string())?;
    }
    ran.map_err(|failure| format!("pass {} failed", failure.index + 1))?;
    let statistics = session.statistics.report(StatisticsFormat::Text);
    writeln!(out, "{statistics}phase: {}", module.phase).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/matmul_tile.lir".into());
    match run(&path, &mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // The example's only output to stderr; a closed stderr leaves nothing to tell.
            let _ = writeln!(std::io::stderr(), "custom_pass: error: {message}");
            ExitCode::FAILURE
        }
    }
}
