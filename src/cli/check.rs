//! `qpor check`: deadlock checking.

use super::args::{self, AltArgs, CutoffArg, UnfoldingArg};
use super::memory::MemoryArg;
use super::{load_model, print_text, stream_output, until_deadline, write_output, ModelArgs, ProgressLine};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use qpor::engines::stubborn::SearchOrder;
use qpor::render;
use qpor::{Budget, CheckOptions, Counters, EngineChoice, EngineError, Report, Settings, Stats};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Exit status of an internal error (a witness the replay refused).
pub const EXIT_INTERNAL: u8 = 4;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The engine: auto runs the walk and (nets) the state equation, then stubborn, qpor
    /// and explicit, and takes the first answer; lp proves deadlock freedom of nets, fires
    /// a dead solution of their state equation, or says nothing; prefix-sat builds the
    /// complete prefix and asks a SAT solver.
    #[arg(long, default_value = "auto", value_parser = engine_parser())]
    engine: EngineChoice,
    /// auto: how many engines run at once (default: one per core); qpor with --cutoff
    /// canonical, distance, causal or none: how many threads explore (default: one per
    /// core; every count is the same for any N); qpor with the default ERV cutoffs explores
    /// on one thread.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// QPOR: explore Algorithm 1's single tree, as the paper does, on one thread. Without
    /// it, k-partial and SDPOR runs with --cutoff canonical, distance, causal or none split
    /// the work into tasks at nodes fixed by the model alone (their SSB counts are those
    /// of the tasks' tree, the same for any --jobs); ERV and McMillan runs always explore
    /// the single tree.
    #[arg(long)]
    single_tree: bool,
    #[command(flatten)]
    alt: AltArgs,
    /// QPOR and prefix-sat: the adequate order deciding cutoff events (default: erv);
    /// canonical, distance and causal (qpor only, on any number of threads) or none (qpor
    /// only).
    #[arg(long, value_enum)]
    cutoff: Option<CutoffArg>,
    /// QPOR and prefix-sat: give up (inconclusive, exit 3) after creating this many events
    /// (QPOR's default without cutoffs: 20000000).
    #[arg(long, value_name = "N")]
    max_events: Option<u64>,
    /// QPOR and prefix-sat: the unfolding backend (auto: program-like for programs, NUPN nets and nets
    /// given --components; general, token by token, for other nets).
    #[arg(long, value_enum, default_value = "auto")]
    unfolding: UnfoldingArg,
    /// QPOR with --cutoff distance: how many states the breadth-first search may store in
    /// the table of distances (default: 131072, or fewer to fit 64 MB).
    #[arg(long, value_name = "N")]
    distance_states: Option<usize>,
    /// QPOR: keep every event (no pruning of the unfolding).
    #[arg(long, hide = true)]
    no_prune: bool,
    /// Random walk: the seed of its choices (the same seed, the same walks).
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Report every deadlock (and terminal state), not just the first.
    #[arg(long)]
    all: bool,
    /// Show more of each witness: the trace of each process, the states it passes through
    /// (repeatable).
    #[arg(long, value_enum, value_name = "VIEW")]
    witness: Vec<WitnessArg>,
    /// Write the first deadlock's (or fault's) witness to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    witness_file: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Explicit and stubborn engines: give up (inconclusive, exit 3) after storing this
    /// many states.
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Stubborn engine: the order in which states are expanded (default: depth).
    #[arg(long, value_enum)]
    order: Option<OrderArg>,
    /// Give up (inconclusive, exit 3) after this many seconds, counted from the start
    /// (reading the model included).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    #[command(flatten)]
    memory: MemoryArg,
    /// Nets: run the engines on the net shrunk by deadlock-preserving structural
    /// reductions, and lift their witnesses back (default: on for auto, off for a single
    /// engine; never with --all).
    #[arg(long, value_enum, value_name = "on|off")]
    reduce: Option<OnOff>,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// QPOR across the processes of an MPI run (`mpirun -np N qpor check --distributed
    /// --engine qpor --cutoff none …`); rank 0 prints the report. Needs a qpor built with
    /// `--features mpi`.
    #[arg(long)]
    distributed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

/// `--engine`'s values: the library's engine choices, by name.
fn engine_parser() -> impl TypedValueParser<Value = EngineChoice> {
    PossibleValuesParser::new(EngineChoice::ALL.map(EngineChoice::name)).map(|name| {
        EngineChoice::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .expect("the parser accepts only the names of the choices")
    })
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OrderArg {
    /// Newest state first: finds deep deadlocks early.
    Depth,
    /// Oldest state first: shortest witnesses.
    Breadth,
    /// The state closest to dead first (fewest enabled transitions, then fewest tokens
    /// to take away to disable them): deadlocks that need tokens gathered first.
    Best,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum WitnessArg {
    /// Each process's own trace beside the interleaved one.
    Process,
    /// The state after every step.
    States,
}

/// Runs `qpor check`; returns the exit status.
pub fn run(a: CheckArgs) -> Result<u8, String> {
    let started = Instant::now();
    let time_limit = args::time_limit(a.time_limit)?;
    let engine = a.engine;
    if a.max_states.is_some()
        && matches!(
            engine,
            EngineChoice::Qpor | EngineChoice::Walk | EngineChoice::Lp | EngineChoice::PrefixSat
        )
    {
        return Err(format!(
            "--max-states limits the explicit and stubborn engines; the {} engine stores no states{}",
            engine.name(),
            if matches!(engine, EngineChoice::Qpor | EngineChoice::PrefixSat) {
                " (use --max-events)"
            } else {
                ""
            }
        ));
    }
    if a.order.is_some() && !matches!(engine, EngineChoice::Stubborn | EngineChoice::Auto) {
        return Err(format!(
            "--order sets the stubborn engine's search order; the {} engine does not take it",
            engine.name()
        ));
    }
    if a.jobs == Some(0) {
        return Err("--jobs 0: at least one engine must run".into());
    }
    let cutoff: qpor::unfolding::CutoffMode = a.cutoff.unwrap_or(CutoffArg::Erv).into();
    let mut jobs = a.jobs;
    if let Some(n) =
        jobs.filter(|&n| engine == EngineChoice::Qpor && n > 1 && !cutoff.same_in_every_replica())
    {
        let why = "under an adequate order, which events are cutoffs depends on the order each thread met the states";
        if a.cutoff.is_some() {
            return Err(format!(
                "--jobs with --cutoff {}: {why}; give --cutoff canonical (ERV's cutoffs from the complete prefix, built first), distance or causal (decided by each event's history) or none",
                cutoff.name()
            ));
        }
        // The user asked for threads, not for this cutoff order: keep the default order,
        // which prunes the most, and say how to get the threads.
        eprintln!(
            "warning: --jobs {n}: with the default --cutoff erv qpor explores on one thread ({why}); give --cutoff canonical (ERV's cutoffs from the complete prefix, built first), distance, causal or none to explore on {n} threads"
        );
        jobs = Some(1);
    }
    if a.single_tree {
        if engine != EngineChoice::Qpor {
            return Err(format!(
                "--single-tree sets the qpor engine's exploration; the {} engine does not take it (give --engine qpor)",
                engine.name()
            ));
        }
        if let Some(n) = a.jobs.filter(|&n| n > 1) {
            return Err(format!(
                "--single-tree with --jobs {n}: Algorithm 1's single tree is explored on one thread (each Alt call needs U as the whole subtree before it left it); drop --single-tree to split the work into tasks"
            ));
        }
        if a.distributed {
            return Err(
                "--single-tree with --distributed: the single tree is explored by one process".into(),
            );
        }
    }
    if a.distributed && a.jobs.is_some() {
        return Err(
            "--jobs with --distributed: each process explores on one thread; start more processes (mpirun -np N)"
                .into(),
        );
    }
    let cap = a.memory.enforce()?;
    let deadline = time_limit.and_then(|l| started.checked_add(l));
    let model_args = a.model.clone();
    let Some(loaded) = until_deadline(deadline, move || load_model(&model_args)) else {
        // The model is still being read: nothing was explored.
        let why = Budget::until(deadline, time_limit).time_limit_reached();
        let stats = Stats::new(
            Counters::Portfolio { engines_started: 0 },
            started.elapsed().as_secs_f64(),
        );
        let report = Report::new(engine.name(), Vec::new(), Some(why), stats, Settings::default());
        return print_report(&a, &report);
    };
    let (loaded, system) = loaded?;
    let opts = CheckOptions {
        engine,
        system,
        all: a.all,
        max_states: a.max_states,
        time_limit,
        started: Some(started),
        max_memory_mb: Some(cap.mb),
        jobs,
        single_tree: a.single_tree,
        alt: a.alt.mode()?,
        cutoff,
        max_events: a.max_events,
        distance_states: a.distance_states,
        no_prune: a.no_prune,
        unfolding: a.unfolding.into(),
        seed: a.seed,
        order: match a.order {
            Some(OrderArg::Breadth) => SearchOrder::Breadth,
            Some(OrderArg::Best) => SearchOrder::Best,
            Some(OrderArg::Depth) | None => SearchOrder::Depth,
        },
        witness_states: a.witness.contains(&WitnessArg::States),
        reduce: a.reduce.map(|r| r == OnOff::On),
    };
    if a.distributed {
        return distributed(&a, &loaded.model, &opts);
    }
    let mut progress = ProgressLine::new(!a.quiet);
    let result = qpor::check_shared(&Arc::new(loaded.model), &opts, &mut progress);
    progress.finish();
    let shown = a.model.shown();
    let report = match result {
        Ok(report) => report,
        Err(e @ EngineError::Internal(_)) => {
            eprintln!("error: {shown}: {e}");
            return Ok(EXIT_INTERNAL);
        }
        Err(e) => return Err(format!("{shown}: {e}")),
    };
    print_report(&a, &report)
}

/// `--distributed`: the run across the processes of `mpirun`; rank 0 prints the report,
/// and every process exits with its status.
#[cfg(feature = "mpi")]
fn distributed(a: &CheckArgs, model: &qpor::Model, opts: &CheckOptions) -> Result<u8, String> {
    use super::mpi::MpiTransport;
    let transport = MpiTransport::start()?;
    let shown = a.model.shown();
    let mut progress = ProgressLine::new(!a.quiet && transport.is_root());
    let result = qpor::check_distributed(model, opts, &mut progress, &transport);
    progress.finish();
    let status = match result {
        Ok(Some(report)) => print_report(a, &report),
        Ok(None) => Ok(0),
        Err(e @ EngineError::Internal(_)) => {
            eprintln!("error: {shown}: {e}");
            Ok(EXIT_INTERNAL)
        }
        Err(e) => Err(format!("{shown}: {e}")),
    };
    // Rank 0 writes its error before the others learn the status: a rank that exits with
    // a failure makes mpirun end the job, and an error printed after that may be lost.
    let status = match status {
        Ok(code) => code,
        Err(e) => {
            if transport.is_root() {
                eprintln!("error: {e}");
            }
            crate::EXIT_BAD_INPUT
        }
    };
    // Every process ends with rank 0's status, so that mpirun's is the run's.
    Ok(transport.agree_on_status(status))
}

/// `--distributed` in a qpor built without MPI.
#[cfg(not(feature = "mpi"))]
fn distributed(_: &CheckArgs, _: &qpor::Model, _: &CheckOptions) -> Result<u8, String> {
    Err("--distributed: this qpor was built without MPI; build it with `cargo build --release --features mpi` (Debian: apt-get install libopenmpi-dev openmpi-bin libclang-dev)".into())
}

/// Prints `report` as `a` asks (text or JSON, the witness file); returns the exit status.
fn print_report(a: &CheckArgs, report: &Report) -> Result<u8, String> {
    let shown = a.model.shown();
    if let Some(path) = &a.witness_file {
        let json = render::witness_json(&shown, report);
        write_output(Some(path), format!("{json:#}\n").as_bytes())?;
    }
    if a.json {
        stream_output(|out| {
            render::write_report_json(&mut *out, &shown, report)?;
            out.write_all(b"\n")
        })?;
    } else {
        let text_opts = render::TextOptions {
            detailed_witness: a.witness.contains(&WitnessArg::Process),
        };
        print_text(&render::report_text(&shown, report, text_opts))?;
    }
    Ok(report.verdict.exit_code() as u8)
}
