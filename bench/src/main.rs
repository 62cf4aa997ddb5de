//! `lattice-bench`: reproduces the paper's experiments on a directory of contest cases.
//!
//! Every subcommand reads every `*.json` case in `--cases DIR` (by file name) and prints Markdown:
//! - `orders`: the order-sensitivity table (every order: logical peak, change against `stable`,
//!   per-tier peaks, L0 max live; `lattice_passes::order::order_table`);
//! - `dlr`: DLR's results (every case × {mpas, stable} × {paper, cost, auto, lru} victims:
//!   spills, drops, traffic, the fixed-order traffic bound and the gap, physical peak;
//!   `lattice_passes::dlr::report::results_table`);
//! - `cpe`: CPE's results (every case after MPAS and DLR: Freeze, seed and CPE makespans, the
//!   lower bound, CPE/Freeze and their geomean, spill-in pipe busy time, physical peak, traffic
//!   and its bound; then `l0=single` against `l0=double`;
//!   `lattice_passes::cpe::report::results_tables`);
//! - `baselines`: every baseline on every case (Base, HMCOS, MAGIS, COSMA, the EDA placeholder:
//!   logical peak / traffic, then pipeline, peak against Base, spills, traffic and makespan from
//!   the independent replay; `lattice_passes::baselines::baseline_table`);
//! - `search`: `order-search` against the paper pipeline on every case and objective (peak,
//!   traffic and its fixed-order bound, spills, makespan from the independent replay,
//!   evaluations and seconds; `--generated` adds, or with no `--cases` runs alone, generated
//!   modules of every shape up to 50K nodes or of `--shape` at `--nodes`,
//!   `lattice_bench::generated`; `lattice_passes::search::report::results_table`;
//!   `--max-seconds S` fails after the table when a search took longer than S or ended worse
//!   than MPAS's order); `--time-limits T,…` prints instead each search under `time-limit=T`
//!   against T + 1 s and fails likewise (`lattice_passes::search::time_limits`);
//! - `bounds`: the order-independent lower bounds (peak, traffic, makespan) of every case and
//!   of generated modules (`--generated N,…`: every family at N nodes), with their time
//!   (`lattice_passes::exact::report::bounds_table`);
//! - `oracle`: on `--modules` small generated modules, how often `order-search` reaches the
//!   optimum `order-exact` proves, per objective, with the worst gaps
//!   (`lattice_passes::exact::report::oracle_table`);
//! - `paper`: the whole evaluation of the paper written to `--out DIR` (report.md, results.json,
//!   timings.json, SVG figures; `lattice_bench::paper`), with a progress bar on a terminal.
//!
//! `scale` is the exception: it generates DAGs of growing size (`--nodes`, default 10K to 1M),
//! times the pipeline stage by stage and reads each stage's peak heap from the counting
//! allocator installed below (`lattice_bench::alloc_meter`), then writes `scale.md`,
//! `scale.json` and `scale.svg` into `--out DIR` and prints the table (`lattice_bench::scale`).
//! Its numbers are measurements, so they vary between runs. The full run, in release:
//! `cargo run --release -p lattice-bench -- scale --out target/scale`.
//!
//! The work is the library's; this file parses arguments, reads the cases and renders errors.
//! Deterministic (except `scale`'s times and peaks). Exit codes: 0 success, 1 an unreadable or invalid case or a case the pipeline
//! fails on, 2 bad usage. `orders` and `search` run case by case: when a case fails, the rows of
//! the cases finished before it are printed, then the error.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use lattice::io::read_text;
use lattice::{parse_pipeline, OptionType, PassOptions};
use lattice_bench::alloc_meter::{self, Meter};
use lattice_bench::paper::{reproduce, write, PaperError, PaperOptions};
use lattice_bench::scale::{self, ScaleSpec, DEFAULT_NODES};
use lattice_lir::contest::{import_graph, ImportOptions};
use lattice_lir::diag::render_error;
use lattice_lir::{Module, Phase};
use lattice_passes::analysis::bottom_levels;
use lattice_passes::baselines::baseline_table;
use lattice_passes::cpe::report::results_tables as cpe_tables;
use lattice_passes::dlr::report::{results_table, Row};
use lattice_passes::exact::report::{bounds_table, oracle_table};
use lattice_passes::generate::{generate, GenSpec, Shape};
use lattice_passes::order::{mpas_order, order_by, order_table, MpasOptions, Policy};
use lattice_passes::search::renumbered::renumbered_table;
use lattice_passes::search::report::{results_table as search_table, Bounds, Run};
use lattice_passes::search::time_limits::{time_limit_table, SLACK};

use lattice_passes::search::{Objective, SearchError, SearchOptions};
use lattice_passes::REGISTRY;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const TOOL: &str = "lattice-bench";

// Counts every allocation so `scale` can report each stage's peak heap.
#[global_allocator]
static METER: Meter = Meter;

/// Runs the paper's experiments on contest cases and prints Markdown tables.
#[derive(Parser, Debug)]
#[command(
    name = TOOL,
    version,
    after_help = "Examples:\n  lattice-bench orders --cases ../shared/cases\n  lattice-bench dlr --cases ../shared/cases\n  lattice-bench cpe --cases ../shared/cases\n  lattice-bench baselines --cases ../shared/cases\n  lattice-bench search --cases ../shared/cases --objective traffic\n  lattice-bench search --generated\n  lattice-bench search --generated --shape attention --nodes 1000000 --no-bounds --max-seconds 60\n  lattice-bench search --cases ../shared/cases --time-limits 2,5,30\n  lattice-bench paper --cases ../shared/cases --out target/paper\n  lattice-bench scale --out target/scale --nodes 10000,100000"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Order sensitivity: logical and per-tier peaks of every order on every case.
    Orders {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
    },
    /// DLR results: spills, drops, traffic and physical peak per case, order and victim policy.
    Dlr {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
    },
    /// CPE results: Freeze, seed and CPE makespans, lower bound and CPE/Freeze on every case.
    Cpe {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
    },
    /// Baselines: logical peak, spills, traffic and makespan of every baseline on every case.
    Baselines {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
    },
    /// Order search: the paper pipeline against `order-search` per case and objective.
    Search {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR", required_unless_present = "generated")]
        cases: Option<PathBuf>,
        /// Also (or, without --cases, only) the generated modules: every shape at 2K, 12K and
        /// 50K nodes (seed 1), or those of --shape, --nodes and --seed.
        #[arg(long)]
        generated: bool,
        /// With --generated: only this shape (matmul, attention, conv, random, resnet, heads-kv,
        /// heads-q, matmul-rows or matmul-cols).
        #[arg(long, requires = "generated")]
        shape: Option<Shape>,
        /// With --generated: these node counts, comma-separated, instead of 2K, 12K and 50K.
        #[arg(
            long,
            value_name = "N,N,...",
            value_delimiter = ',',
            value_parser = node_count,
            requires = "generated"
        )]
        nodes: Vec<usize>,
        /// With --generated: the generator's seed.
        #[arg(long, default_value_t = 1, requires = "generated")]
        seed: u64,
        /// The objective (default: all three, one after the other).
        #[arg(long, value_parser = objective)]
        objective: Option<Objective>,
        /// Further `order-search` options, as in a pipeline: `"budget=2000 seed=3"`.
        #[arg(long, value_name = "OPTIONS", default_value = "")]
        options: String,
        /// Leave out the bound columns (a linear program and reachability sweeps that take far
        /// longer than the search on a 1M-node module).
        #[arg(long)]
        no_bounds: bool,
        /// Fail (exit 1, after the table) when a search takes longer than SECONDS or ends worse
        /// than MPAS's order on its objective.
        #[arg(long, value_name = "SECONDS", conflicts_with = "renumber")]
        max_seconds: Option<f64>,
        /// Instead of the table against the paper pipeline, the time-limit table: each module
        /// and objective under `time-limit=T` for each T, wall seconds against T + 1; fails
        /// (exit 1, after the table) when a run takes longer or ends worse than MPAS's order.
        #[arg(
            long,
            value_name = "T,T,...",
            value_delimiter = ',',
            value_parser = clap::value_parser!(u64).range(1..=86400),
            conflicts_with_all = ["renumber", "max_seconds"]
        )]
        time_limits: Vec<u64>,
        /// Instead of the table against the paper pipeline, the renumbering table: each module
        /// and K renumbered copies (MPAS's order, then random topological orders), the worst
        /// result over the best, and the best reverse depth-first order.
        #[arg(long, value_name = "K")]
        renumber: Option<usize>,
    },
    /// Order-independent lower bounds of every case (and of generated modules) and their time.
    Bounds {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
        /// Also every generator family at these node counts (seed 1), comma-separated.
        #[arg(long, value_name = "N,N,...", value_delimiter = ',', value_parser = node_count)]
        generated: Vec<usize>,
    },
    /// How often `order-search` reaches the optimum `order-exact` proves, on small generated
    /// modules of every family with spilling capacities.
    Oracle {
        /// How many modules (families, sizes and capacities in turn).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
        modules: u64,
        /// `order-search` options, as in a pipeline: `"budget=2000 seed=3"`.
        #[arg(long, value_name = "OPTIONS", default_value = "")]
        options: String,
        /// `order-exact`'s state limit.
        #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        max_states: u64,
    },
    /// Scaling: wall time and peak heap of each pipeline stage on generated DAGs of growing size
    /// (writes scale.md, scale.json and scale.svg; build with --release for real numbers).
    Scale {
        /// Directory to write scale.md, scale.json and scale.svg into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Node counts of the generated DAGs, comma-separated, run in this order.
        #[arg(
            long,
            value_name = "N,N,...",
            value_delimiter = ',',
            value_parser = node_count,
            default_values_t = DEFAULT_NODES
        )]
        nodes: Vec<usize>,
        /// Shape of the DAGs: generated (matmul, attention, conv, random, resnet, heads-kv,
        /// heads-q, matmul-rows, matmul-cols) or a stress workload on one buffer (chain, fan-in,
        /// fan-out).
        #[arg(long, default_value = "attention")]
        shape: scale::Workload,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The paper's evaluation: end to end, stages, orders, Table III, compile time, figures.
    Paper {
        /// Directory holding the contest cases (`*.json`).
        #[arg(long, value_name = "DIR")]
        cases: PathBuf,
        /// Directory to write report.md, results.json, timings.json and the figures into.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Worker threads (default: the machine's parallelism). Results do not depend on it.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
    },
}

/// A `--nodes` entry: a positive whole number.
fn node_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("a DAG needs at least one node".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("\"{text}\" is not a node count: {e}")),
    }
}

/// An `--objective` value, spelt as the pass option.
fn objective(text: &str) -> Result<Objective, String> {
    Objective::parse_option(text)
}

/// `--options` text as `order-search`'s options, rejected as the pipeline parser would.
fn search_options(text: &str) -> Result<SearchOptions, String> {
    let pipeline = parse_pipeline(&format!("order-search{{{text}}}"), &REGISTRY)
        .map_err(|e| format!("{TOOL}: error: --options: {e}\n"))?;
    SearchOptions::from_pairs(&pipeline.passes[0].options)
        .map_err(|e| format!("{TOOL}: error: --options: {e}\n"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Search { options, .. } | Command::Oracle { options, .. } = &cli.command {
        if let Err(message) = search_options(options) {
            lattice::io::report(&message);
            return ExitCode::from(2);
        }
    }
    let result = match cli.command {
        Command::Orders { cases } => read_cases(&cases).and_then(|m| {
            let table =
                |case: &[Module]| order_table(case).map_err(|e| format!("{TOOL}: error: {e}\n"));
            per_case(&m, table, &mut show)
        }),
        Command::Dlr { cases } => read_cases(&cases).and_then(|m| dlr(&m)),
        Command::Cpe { cases } => read_cases(&cases)
            .and_then(|m| cpe_tables(&m).map_err(|e| format!("{TOOL}: error: {e}\n"))),
        Command::Baselines { cases } => read_cases(&cases)
            .and_then(|m| baseline_table(&m).map_err(|e| format!("{TOOL}: error: {e}\n"))),
        Command::Search {
            cases,
            generated,
            shape,
            nodes,
            seed,
            objective,
            options,
            renumber,
            no_bounds,
            max_seconds,
            time_limits,
        } => search_modules(cases.as_deref(), generated.then_some((shape, nodes, seed))).and_then(
            |m| {
                let objectives = objective.map_or_else(
                    || vec![Objective::Peak, Objective::Traffic, Objective::Makespan],
                    |o| vec![o],
                );
                let options = search_options(&options)?;
                let bounds = if no_bounds {
                    Bounds::Skip
                } else {
                    Bounds::Show
                };
                let fail =
                    |(case, e): (String, SearchError)| format!("{TOOL}: error: {case}: {e}\n");
                match renumber {
                    Some(k) => per_case(
                        &m,
                        |case| renumbered_table(case, &objectives, &options, k).map_err(fail),
                        &mut show,
                    ),
                    None if !time_limits.is_empty() => checked(&m, None, |case| {
                        time_limit_table(case, &objectives, &options, &time_limits).map_err(fail)
                    }),
                    None => checked(&m, max_seconds, |case| {
                        search_table(case, &objectives, &options, bounds).map_err(fail)
                    }),
                }
            },
        ),
        Command::Bounds { cases, generated } => read_cases(&cases).and_then(|mut m| {
            for &nodes in &generated {
                for shape in Shape::ALL {
                    m.push(generate(&GenSpec {
                        shape,
                        nodes,
                        seed: 1,
                    }));
                }
            }
            bounds_table(&m).map_err(|(case, e)| format!("{TOOL}: error: {case}: {e}\n"))
        }),
        Command::Oracle {
            modules,
            options,
            max_states,
        } => search_options(&options).and_then(|options| {
            let limit = std::num::NonZeroU64::new(max_states).unwrap_or(std::num::NonZeroU64::MIN);
            oracle_table(modules as usize, &options, limit)
                .map_err(|(case, e)| format!("{TOOL}: error: {case}: {e}\n"))
        }),
        Command::Scale {
            out,
            nodes,
            shape,
            seed,
        } => run_scale(&out, ScaleSpec { shape, nodes, seed }),
        Command::Paper { cases, out, jobs } => {
            read_cases(&cases).and_then(|m| paper(&m, &cases, &out, jobs))
        }
    };
    match result.and_then(|table| {
        // A closed stdout (`| head`) ends the run quietly.
        lattice::io::print_text(&table).map_err(|e| format!("{TOOL}: error: {e}\n"))
    }) {
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            lattice::io::report(&message);
            ExitCode::from(1)
        }
    }
}

/// `table` (one Markdown table with rows per case) of every case, run case by case: when a case
/// fails, the rows of the cases before it go to `shown` first, then the error is returned, so a
/// long run that fails late still shows what it finished.
fn per_case(
    cases: &[Module],
    mut table: impl FnMut(&[Module]) -> Result<String, String>,
    shown: &mut dyn FnMut(&str),
) -> Result<String, String> {
    let mut out = String::new();
    for case in cases {
        match table(std::slice::from_ref(case)) {
            // The header (title and rule lines) once, from the first case.
            Ok(rows) if out.is_empty() => out = rows,
            Ok(rows) => out.extend(rows.split_inclusive('\n').skip(2)),
            Err(e) => {
                if !out.is_empty() {
                    shown(&out);
                }
                return Err(e);
            }
        }
    }
    Ok(out)
}

/// The table `table` makes of `modules` (case by case, as [`per_case`]), then an error after it
/// when a search ended worse than MPAS's order or took longer than it may: T + 1 s under
/// `time-limit=T`, else `max_seconds` if given.
fn checked(
    modules: &[Module],
    max_seconds: Option<f64>,
    table: impl Fn(&[Module]) -> Result<(String, Vec<Run>), String>,
) -> Result<String, String> {
    let mut failed = Vec::new();
    let rows = per_case(
        modules,
        |case| {
            let (rows, runs) = table(case)?;
            for run in &runs {
                let (name, seconds) = (run.objective.print_option(), run.time.as_secs_f64());
                if run.value > run.mpas {
                    failed.push(format!(
                        "{}: {name}: the search's {} is worse than MPAS's {}",
                        run.case, run.value, run.mpas
                    ));
                }
                let most = match run.time_limit {
                    0 => max_seconds,
                    limit => Some((Duration::from_secs(limit) + SLACK).as_secs_f64()),
                };
                if let Some(most) = most.filter(|&most| seconds > most) {
                    failed.push(format!(
                        "{}: {name}: the search took {seconds:.2} s, more than {most} s",
                        run.case
                    ));
                }
            }
            Ok(rows)
        },
        &mut show,
    )?;
    if failed.is_empty() {
        return Ok(rows);
    }
    show(&rows);
    Err(failed
        .iter()
        .map(|f| format!("{TOOL}: error: {f}\n"))
        .collect())
}

/// Prints rows a failing run finished (a closed stdout is not worth an error of its own).
fn show(rows: &str) {
    let _ = lattice::io::print_text(rows);
}

/// The modules `search` runs on: the cases in `cases`, then, with `generated`, the generated
/// set (one shape or all, the given node counts or the default ones, the given seed).
fn search_modules(
    cases: Option<&Path>,
    generated: Option<(Option<Shape>, Vec<usize>, u64)>,
) -> Result<Vec<Module>, String> {
    let mut modules = match cases {
        Some(dir) => read_cases(dir)?,
        None => Vec::new(),
    };
    if let Some((shape, nodes, seed)) = generated {
        let shapes = shape.map_or(Shape::ALL.to_vec(), |s| vec![s]);
        let nodes = if nodes.is_empty() {
            lattice_bench::generated::SIZES.to_vec()
        } else {
            nodes
        };
        modules.extend(lattice_bench::generated::modules(&shapes, &nodes, seed));
    }
    Ok(modules)
}

/// Every case in `dir`, or the first error rendered for a human.
fn read_cases(dir: &Path) -> Result<Vec<Module>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{TOOL}: error: {}: {e}\n", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!(
            "{TOOL}: error: {}: no *.json case\n",
            dir.display()
        ));
    }
    let mut modules = Vec::with_capacity(paths.len());
    for path in &paths {
        let name = path.display().to_string();
        let text = read_text(path).map_err(|e| format!("{TOOL}: error: {e}\n"))?;
        let case = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let module = import_graph(&text, &case.unwrap_or_default(), &ImportOptions::default())
            .map_err(|e| render_error(&name, Some(&text), &e))?;
        modules.push(module);
    }
    Ok(modules)
}

/// Runs the evaluation on `modules` (read from `cases`) and writes it to `out`; returns what to
/// print: the files written.
fn paper(
    modules: &[Module],
    cases: &Path,
    out: &Path,
    jobs: Option<u16>,
) -> Result<String, String> {
    let jobs = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let options = PaperOptions {
        jobs,
        progress: true,
    };
    let fail = |e: PaperError| format!("{TOOL}: error: {e}\n");
    let results = reproduce(modules, options).map_err(fail)?;
    let command = format!(
        "lattice-bench paper --cases {} --out {}",
        cases.display(),
        out.display()
    );
    write(&results, out, &command).map_err(fail)?;
    Ok(format!(
        "{}: wrote report.md, results.json, timings.json and the figures for {} workload(s)\n",
        out.display(),
        results.len()
    ))
}

/// DLR's results table over `cases`, each scheduled by `mpas` and by `stable`.
fn dlr(cases: &[Module]) -> Result<String, String> {
    let fail =
        |case: &Module, e: &dyn std::fmt::Display| format!("{TOOL}: error: {}: {e}\n", case.name);
    let mut scheduled = Vec::with_capacity(2 * cases.len());
    for case in cases {
        let levels = bottom_levels(case);
        let mpas =
            mpas_order(case, &levels, &MpasOptions::default()).map_err(|e| fail(case, &e))?;
        let stable = order_by(case, Policy::Stable, &levels).map_err(|e| fail(case, &e))?;
        for (order, schedule) in [("mpas", mpas), ("stable", stable)] {
            let mut module = case.clone();
            module.schedule = schedule;
            module.phase = Phase::Scheduled;
            scheduled.push((order, module));
        }
    }
    let rows: Vec<Row<'_>> = scheduled
        .iter()
        .map(|(order, module)| Row {
            case: &module.name,
            order,
            module,
        })
        .collect();
    results_table(&rows).map_err(|e| format!("{TOOL}: error: {e}\n"))
}

/// Runs `scale`, writes its files into `out` and returns the table.
fn run_scale(out: &Path, spec: ScaleSpec) -> Result<String, String> {
    let fail = |e: &dyn std::fmt::Display| format!("{TOOL}: error: {e}\n");
    // Fail before the long run, not after it.
    std::fs::create_dir_all(out).map_err(|e| format!("{TOOL}: error: {}: {e}\n", out.display()))?;
    // indicatif draws nothing when stderr is not a terminal (pipes, tests).
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} stages, {elapsed}")
            .map_err(|e| fail(&e))?,
    );
    // Only this command reads heap peaks: the meter counts from here on.
    alloc_meter::start();
    let report = scale::run(&spec, &bar).map_err(|e| fail(&e))?;
    scale::write_outputs(out, &report).map_err(|e| fail(&e))?;
    Ok(scale::markdown(&report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lattice_lir::Target;

    #[test]
    fn a_failing_case_shows_the_rows_before_it_then_its_error() {
        let cases: Vec<Module> = ["a", "b", "c"]
            .into_iter()
            .map(|name| Module::new(name, Target::contest()))
            .collect();
        let table = |case: &[Module]| match case[0].name.as_str() {
            "c" => Err("c failed".to_owned()),
            name => Ok(format!("| case |\n|---|\n| {name} |\n")),
        };
        let mut shown = String::new();
        let err = per_case(&cases, table, &mut |rows| shown.push_str(rows)).unwrap_err();
        assert_eq!(err, "c failed");
        assert_eq!(shown, "| case |\n|---|\n| a |\n| b |\n");
        let all = per_case(&cases[..2], table, &mut |_| panic!("nothing failed")).unwrap();
        assert_eq!(all, shown);
    }
}
