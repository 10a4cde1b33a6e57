//! `qpor check`: deadlock checking.

use super::args::{self, AltArgs, CutoffArg, UnfoldingArg};
use super::memory::MemoryArg;
use super::{load_model, print_text, stream_output, until_deadline, write_output, ModelArgs, ProgressLine};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ValueEnum};
use qpor::engines::stubborn::SearchOrder;
use qpor::render;
use qpor::validate::{applies_to, ignored_option};
use qpor::{
    Budget, CancelToken, CheckOptions, Counters, EngineChoice, EngineError, EngineName, Limits,
    PortfolioChoice, PortfolioCounters, QporChoice, Report, Settings, Stats, StopReason, UnfoldingChoice,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Exit status of an internal error (a witness the replay refused).
pub const EXIT_INTERNAL: u8 = 4;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten, next_help_heading = "Model")]
    model: ModelArgs,
    /// Nets: instead of deadlocks, answer this reachability property, `EF φ` or `AG φ`,
    /// or bound, `BOUND(p1, …)` (docs/queries.md), e.g. 'EF (p1 + p2 >= 3 AND
    /// FIREABLE(t5))' (repeatable).
    #[arg(long, value_name = "QUERY", help_heading = "Question")]
    query: Vec<String>,
    /// Nets: instead of deadlocks, answer the properties of a Model Checking Contest
    /// file (ReachabilityCardinality.xml, ReachabilityFireability.xml, UpperBounds.xml).
    #[arg(long, value_name = "FILE.xml", help_heading = "Question")]
    properties: Option<PathBuf>,
    /// Nets: instead of deadlocks, ask whether every transition can fire from some
    /// reachable marking (no dead transition).
    #[arg(long, help_heading = "Question")]
    quasi_liveness: bool,
    /// Nets: instead of deadlocks, ask whether some place keeps the same number of tokens
    /// in every reachable marking.
    #[arg(long, help_heading = "Question")]
    stable_marking: bool,
    /// Nets: instead of deadlocks, ask whether every transition can fire again from every
    /// reachable marking.
    #[arg(long, help_heading = "Question")]
    liveness: bool,
    /// The question by name: deadlock (the default), quasi-liveness, stable-marking or
    /// liveness (the same as the flags of those names).
    #[arg(long, value_name = "NAME", value_enum, help_heading = "Question")]
    property: Option<PropertyArg>,
    /// The engine: auto runs the walk and (nets) the state equation, then stubborn, qpor
    /// and explicit, and takes the first answer; lp proves deadlock freedom of nets, fires
    /// a dead solution of their state equation, or says nothing; prefix-sat builds the
    /// complete prefix and asks a SAT solver (docs/engines.md).
    #[arg(long, default_value = "auto", value_parser = engine_parser(), help_heading = "Engine")]
    engine: EngineName,
    /// auto: how many engines run at once [default: one per core].
    #[arg(long, value_name = "N", help_heading = "Engine")]
    jobs: Option<usize>,
    /// Give up (inconclusive, exit 3) after this many seconds, counted from the start
    /// (reading the model included).
    #[arg(
        long,
        value_name = "SECONDS",
        allow_negative_numbers = true,
        help_heading = "Limits"
    )]
    time_limit: Option<f64>,
    #[command(flatten, next_help_heading = "Limits")]
    memory: MemoryArg,
    /// Explicit, stubborn (and auto): give up (inconclusive, exit 3) after storing this
    /// many states; also bounds --witness shortest.
    #[arg(long, value_name = "N", help_heading = "Limits")]
    max_states: Option<u64>,
    /// qpor, prefix-sat (and auto): give up (inconclusive, exit 3) after creating this many
    /// events [qpor's default without cutoffs: 20000000].
    #[arg(long, value_name = "N", help_heading = "Limits")]
    max_events: Option<u64>,
    /// Report every deadlock (and terminal state), not just the first.
    #[arg(long, help_heading = "Output")]
    all: bool,
    /// Show more of each witness: each process's own trace (programs), the state after
    /// every step, or a shortest witness to the same dead state, found by a breadth-first
    /// search within the limits (repeatable).
    #[arg(long, value_enum, value_name = "VIEW", help_heading = "Output")]
    witness: Vec<WitnessArg>,
    /// Write the first deadlock's (or fault's) witness to FILE as JSON (`qpor replay`
    /// reads it back).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    witness_file: Option<PathBuf>,
    /// Print one JSON object instead of text (docs/output.md).
    #[arg(long, help_heading = "Output")]
    json: bool,
    /// Also show every engine of the portfolio and how it ended, the structural reduction
    /// and notes.
    #[arg(long, short, help_heading = "Output")]
    verbose: bool,
    /// No progress line on stderr.
    #[arg(long, short, help_heading = "Output")]
    quiet: bool,
    /// Nets: run the engines on the net shrunk by structural reductions that keep
    /// deadlocks and the properties asked, and lift their witnesses back [default: on for auto and lp, off for the
    /// other engines; never with --all].
    #[arg(long, value_enum, value_name = "on|off", help_heading = "Model")]
    reduce: Option<OnOff>,
    #[command(flatten, next_help_heading = "QPOR and prefix-sat")]
    alt: AltArgs,
    /// qpor, prefix-sat (and auto): the adequate order deciding cutoff events [default:
    /// erv]; canonical, distance, causal and none are qpor's only.
    #[arg(long, value_enum, help_heading = "QPOR and prefix-sat")]
    cutoff: Option<CutoffArg>,
    /// qpor, prefix-sat (and auto): the unfolding (auto: program-like for programs, NUPN
    /// nets and nets given --components; general, token by token, for other nets)
    /// [default: auto].
    #[arg(long, value_enum, help_heading = "QPOR and prefix-sat")]
    unfolding: Option<UnfoldingArg>,
    /// qpor with --cutoff distance: how many states the breadth-first search may store in
    /// the table of distances [default: 131072, or fewer to fit 64 MB].
    #[arg(long, value_name = "N", help_heading = "QPOR and prefix-sat")]
    distance_states: Option<usize>,
    /// qpor: explore Algorithm 1's single tree, as the paper does, on one thread. Without
    /// it, k-partial and SDPOR runs with --cutoff canonical, distance, causal or none split
    /// the work into tasks at nodes fixed by the model alone (the same counts for any
    /// --threads); ERV and McMillan runs always explore the single tree.
    #[arg(long, help_heading = "QPOR and prefix-sat")]
    single_tree: bool,
    /// qpor with --cutoff canonical, distance, causal or none: how many threads explore
    /// (every count is the same for any N) [default: one per core].
    #[arg(long, value_name = "N", help_heading = "QPOR and prefix-sat")]
    threads: Option<usize>,
    /// qpor: keep every event (no pruning of the unfolding).
    #[arg(long, hide = true)]
    no_prune: bool,
    /// qpor across the processes of an MPI run (`mpirun -np N qpor check --distributed
    /// --engine qpor --cutoff none …`); rank 0 prints the report. Needs a qpor built with
    /// `--features mpi` (docs/distributed.md).
    #[arg(long, help_heading = "QPOR and prefix-sat")]
    distributed: bool,
    /// stubborn (and auto): the order in which states are expanded [default: depth].
    #[arg(long, value_enum, help_heading = "Stubborn and walk")]
    order: Option<OrderArg>,
    /// walk (and auto): the seed of the random walk's choices (the same seed, the same
    /// walks) [default: 0].
    #[arg(long, value_name = "N", help_heading = "Stubborn and walk")]
    seed: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

/// `--engine`'s values: the library's engines, by name.
fn engine_parser() -> impl TypedValueParser<Value = EngineName> {
    PossibleValuesParser::new(EngineName::ALL.map(EngineName::name)).map(|name| {
        EngineName::ALL
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
    /// to take away to disable them): deadlocks that need tokens gathered first. On
    /// properties: the marking closest to a target first.
    Best,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum WitnessArg {
    /// Programs: each process's own trace beside the interleaved one.
    Process,
    /// The state after every step.
    States,
    /// A witness of the fewest steps to the same state (a breadth-first search).
    Shortest,
}

/// Whether each engine-specific option was given on the command line: given, it is
/// refused for an engine that ignores it (the library's rules, [`qpor::OptionsError`]),
/// even where its value is the default.
fn given_options(a: &CheckArgs) -> [(&'static str, bool); 14] {
    [
        ("-k", a.alt.given_k()),
        ("--optimal", a.alt.given_optimal()),
        ("--sdpor", a.alt.given_sdpor()),
        ("--cutoff", a.cutoff.is_some()),
        ("--max-events", a.max_events.is_some()),
        ("--unfolding", a.unfolding.is_some()),
        ("--distance-states", a.distance_states.is_some()),
        ("--single-tree", a.single_tree),
        ("--distributed", a.distributed),
        ("--jobs", a.jobs.is_some()),
        ("--threads", a.threads.is_some()),
        ("--max-states", a.max_states.is_some()),
        ("--order", a.order.is_some()),
        ("--seed", a.seed.is_some()),
    ]
}

/// Refuses an option the chosen engine would ignore, naming the engines it applies to.
fn refuse_ignored_options(a: &CheckArgs) -> Result<(), String> {
    for (option, given) in given_options(a) {
        if given && !applies_to(option, a.engine) {
            return Err(ignored_option(option, a.engine).message);
        }
    }
    Ok(())
}

/// Refuses an option the model would ignore: those that apply to nets or to programs only.
fn refuse_options_of_other_models(a: &CheckArgs, model: &qpor::Model) -> Result<(), String> {
    let shown = a.model.shown();
    match model {
        qpor::Model::Program(_) if a.reduce.is_some() => Err(format!(
            "--reduce: {shown} is a program; the structural reductions apply to nets"
        )),
        qpor::Model::Net(_) if a.witness.contains(&WitnessArg::Process) => Err(format!(
            "--witness process: {shown} is a net, whose steps belong to no process; it applies to programs"
        )),
        _ => Ok(()),
    }
}

/// The engine of `--engine` with the options given for it (the others were refused),
/// QPOR exploring on `threads`.
fn engine_choice(a: &CheckArgs, threads: Option<usize>) -> Result<EngineChoice, String> {
    let unfolding = UnfoldingChoice {
        backend: a.unfolding.unwrap_or(UnfoldingArg::Auto).into(),
        cutoff: a.cutoff.unwrap_or(CutoffArg::Erv).into(),
    };
    let order = match a.order {
        Some(OrderArg::Breadth) => SearchOrder::Breadth,
        Some(OrderArg::Best) => SearchOrder::Best,
        Some(OrderArg::Depth) | None => SearchOrder::Depth,
    };
    let seed = a.seed.unwrap_or(0);
    Ok(match a.engine {
        EngineName::Auto => EngineChoice::Auto(PortfolioChoice {
            jobs: a.jobs,
            alt: a.alt.mode()?,
            unfolding,
            distance_states: a.distance_states,
            order,
            seed,
        }),
        EngineName::Qpor => EngineChoice::Qpor(QporChoice {
            alt: a.alt.mode()?,
            unfolding,
            distance_states: a.distance_states,
            threads,
            single_tree: a.single_tree,
            no_prune: a.no_prune,
        }),
        EngineName::Explicit => EngineChoice::Explicit,
        EngineName::Walk => EngineChoice::Walk { seed },
        EngineName::Stubborn => EngineChoice::Stubborn { order },
        EngineName::Lp => EngineChoice::Lp,
        EngineName::PrefixSat => EngineChoice::PrefixSat { unfolding },
    })
}

/// `--property`: a question by name.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum PropertyArg {
    Deadlock,
    QuasiLiveness,
    StableMarking,
    Liveness,
}

/// The questions about the whole net asked by flags, with the flag's name.
fn net_questions(a: &CheckArgs) -> Vec<(&'static str, qpor::Question)> {
    let mut asked = Vec::new();
    let flags = [
        (
            a.quasi_liveness,
            "--quasi-liveness",
            qpor::Question::QuasiLiveness,
        ),
        (
            a.stable_marking,
            "--stable-marking",
            qpor::Question::StableMarking,
        ),
        (a.liveness, "--liveness", qpor::Question::Liveness),
    ];
    for (given, name, q) in flags {
        if given {
            asked.push((name, q));
        }
    }
    match a.property {
        Some(PropertyArg::QuasiLiveness) => asked.push(("--property", qpor::Question::QuasiLiveness)),
        Some(PropertyArg::StableMarking) => asked.push(("--property", qpor::Question::StableMarking)),
        Some(PropertyArg::Liveness) => asked.push(("--property", qpor::Question::Liveness)),
        Some(PropertyArg::Deadlock) => asked.push(("--property", qpor::Question::Deadlock)),
        None => {}
    }
    asked
}

/// What the check asks: the question of a flag, the properties or bounds of `--query`
/// and `--properties` about the net `model`, or else whether it deadlocks. One kind of
/// question per run.
fn question(a: &CheckArgs, model: &qpor::Model) -> Result<qpor::Question, String> {
    let flagged = net_questions(a);
    let queried = !a.query.is_empty() || a.properties.is_some();
    if flagged.len() + usize::from(queried) > 1 {
        let mut given: Vec<&str> = flagged.iter().map(|(n, _)| *n).collect();
        if queried {
            given.push("--query/--properties");
        }
        return Err(format!(
            "{}: one question per run; run qpor check once for each",
            given.join(", ")
        ));
    }
    if !queried {
        let Some((flag, q)) = flagged.into_iter().next() else {
            return Ok(qpor::Question::Deadlock);
        };
        if q != qpor::Question::Deadlock && !matches!(model, qpor::Model::Net(_)) {
            return Err(format!(
                "{flag}: {} is a program; {} is asked of nets (`qpor convert --to pnml` makes a net of it)",
                a.model.shown(),
                q.name()
            ));
        }
        return Ok(q);
    }
    let qpor::Model::Net(net) = model else {
        return Err(format!(
            "--query, --properties: {} is a program; reachability properties are asked of nets (`qpor convert --to pnml` makes a net of it)",
            a.model.shown()
        ));
    };
    let mut properties = Vec::new();
    let mut bounds = Vec::new();
    for (i, text) in a.query.iter().enumerate() {
        let id = match a.query.len() {
            1 => "query".to_string(),
            _ => format!("query-{}", i + 1),
        };
        if qpor::properties::is_bound_query(text) {
            let b =
                qpor::properties::parse_bound_query(text, "--query", net, &id).map_err(|e| e.to_string())?;
            bounds.push(b);
        } else {
            let p = qpor::properties::parse_query(text, "--query", net, &id).map_err(|e| e.to_string())?;
            properties.push(p);
        }
    }
    if let Some(path) = &a.properties {
        let text = qpor::read_text(path).map_err(|e| e.to_string())?;
        let shown = path.display().to_string();
        match qpor::properties::read_queries(&text, &shown, net).map_err(|e| e.to_string())? {
            qpor::properties::Queries::Reachability(ps) => properties.extend(ps),
            qpor::properties::Queries::Bounds(bs) => bounds.extend(bs),
        }
    }
    match (properties.is_empty(), bounds.is_empty()) {
        (_, true) => Ok(qpor::Question::Reachability(properties.into())),
        (true, false) => {
            let mut ids = std::collections::HashSet::new();
            if let Some(b) = bounds.iter().find(|b| !ids.insert(b.id.clone())) {
                return Err(format!("bound id `{}` appears twice: each bound is answered under its id", b.id));
            }
            Ok(qpor::Question::Bounds(bounds.into()))
        }
        (false, false) => Err(
            "--query, --properties: bounds (BOUND(…), <place-bound>) and reachability properties are asked in separate runs"
                .into(),
        ),
    }
}

/// Runs `qpor check`; returns the exit status.
pub fn run(a: CheckArgs) -> Result<u8, String> {
    let started = Instant::now();
    let time_limit = args::time_limit(a.time_limit)?;
    let engine = a.engine;
    if a.model.model.is_dir() {
        return Err(format!(
            "{}: a directory; to answer the Model Checking Contest's examinations on a contest directory run `qpor mcc {}`",
            a.model.shown(),
            a.model.shown()
        ));
    }
    refuse_ignored_options(&a)?;
    let cutoff: qpor::unfolding::CutoffMode = a.cutoff.unwrap_or(CutoffArg::Erv).into();
    let mut threads = a.threads;
    if let Some(n) = threads.filter(|&n| {
        engine == EngineName::Qpor && n > 1 && a.cutoff.is_none() && !cutoff.same_in_every_replica()
    }) {
        // The user asked for threads, not for this cutoff order: keep the default order,
        // which prunes the most, and say how to get the threads.
        eprintln!(
            "warning: qpor explores on one thread with the default cutoffs, since {}",
            cutoff
                .split_refusal(&format!("--threads {n}"))
                .unwrap_or_default()
        );
        threads = Some(1);
    }
    let choice = engine_choice(&a, threads)?;
    if let (true, EngineChoice::Qpor(q)) = (a.distributed, &choice) {
        if let Some(e) = qpor::validate::distributed_refusal(q) {
            return Err(e.message);
        }
    }
    let cap = a.memory.enforce()?;
    let deadline = time_limit.and_then(|l| started.checked_add(l));
    let model_args = a.model.clone();
    let Some(loaded) = until_deadline(deadline, move || load_model(&model_args)) else {
        // The model is still being read: nothing was explored.
        let why = Budget::until(deadline, time_limit).time_limit_reached();
        let stats = Stats::new(
            Counters::of(&PortfolioCounters { engines_started: 0 }),
            started.elapsed().as_secs_f64(),
        );
        let report = Report::new(engine.name(), Vec::new(), Some(why), stats, Settings::default());
        return print_report(&a, &report);
    };
    let read_seconds = started.elapsed().as_secs_f64();
    let (loaded, system) = loaded?;
    refuse_options_of_other_models(&a, &loaded.model)?;
    let question = question(&a, &loaded.model)?;
    if a.witness_file.is_some() && !matches!(question, qpor::Question::Deadlock) {
        return Err(format!(
            "--witness-file with {}: it saves a deadlock's witness; --json lists the answers' witnesses",
            question.name()
        ));
    }
    let interrupt = CancelToken::default();
    let opts = CheckOptions {
        question,
        engine: choice,
        system,
        all: a.all,
        limits: Limits {
            time_limit,
            started: Some(started),
            max_memory_mb: Some(cap.mb),
            max_states: a.max_states,
            max_events: a.max_events,
            interrupt: Some(interrupt.clone()),
        },
        witness_states: a.witness.contains(&WitnessArg::States),
        shortest_witness: a.witness.contains(&WitnessArg::Shortest),
        reduce: a.reduce.map(|r| r == OnOff::On),
    };
    opts.validate().map_err(|e| e.message)?;
    if a.distributed {
        return distributed(&a, &loaded.model, &opts);
    }
    stop_on_ctrl_c(interrupt);
    let mut progress = ProgressLine::new(!a.quiet);
    let result = qpor::check_shared(&Arc::new(loaded.model), &opts, &mut progress);
    progress.finish();
    let shown = a.model.shown();
    let report = match result {
        Ok(report) => Report {
            read_seconds: Some(read_seconds),
            ..report
        },
        Err(e @ EngineError::Internal(_)) => {
            eprintln!("error: {shown}: {e}");
            return Ok(EXIT_INTERNAL);
        }
        Err(e) => return Err(format!("{shown}: {e}")),
    };
    print_report(&a, &report)
}

/// Makes Ctrl-C stop the run through `interrupt`, so that the report of what was done is
/// printed (exit 3); a second Ctrl-C ends the process at once (exit 130, as a shell's
/// interrupted command).
fn stop_on_ctrl_c(interrupt: CancelToken) {
    let result = ctrlc::set_handler(move || {
        if interrupt.is_cancelled() {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping the engines (Ctrl-C again to quit at once)");
        interrupt.stop(StopReason::Interrupted);
    });
    if let Err(e) = result {
        eprintln!("warning: Ctrl-C will end the run without a report: {e}");
    }
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
            verbose: a.verbose,
        };
        print_text(&render::report_text(&shown, report, text_opts))?;
    }
    Ok(report.verdict.exit_code() as u8)
}
