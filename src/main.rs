//! The `qpor` command line: maps arguments to library options and results to exit codes.

use clap::{Args, Parser, Subcommand, ValueEnum};
use qpor::check::{self, CheckOptions, Engine, Observer, Progress};
use qpor::export::report;
use qpor::parse::{self, Format, LoadOptions, Loaded};
use qpor::qpor::AltMode;
use qpor::system::model::{Model, SystemOptions};
use qpor::system::net::Decomposition;
use qpor::unfold::cutoff::CutoffMode;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Exit status for bad input or usage (clap uses 2 for usage errors too).
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(
    name = "qpor",
    version,
    about = "Deadlock checking of Petri nets and concurrent programs with unfoldings and QPOR",
    after_help = "Exit status: 0 no deadlock, 1 deadlock or fault found, 2 bad input or usage, 3 inconclusive."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a model for deadlocks (and, for programs, faults).
    Check(CheckArgs),
    /// Print sizes and structure of a model.
    Info(InfoArgs),
    /// Convert a model to another net format.
    Convert(ConvertArgs),
}

#[derive(Args)]
struct ModelArgs {
    /// The model: a .pnml, .ll_net or .proc file.
    model: PathBuf,
    /// The input format, when the extension does not say it.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Set a program parameter (`-D N=5`); repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    define: Vec<String>,
    /// How a net is cut into components: NUPN units when the file has them (auto),
    /// or one component per place.
    #[arg(long, value_enum, default_value = "auto")]
    components: ComponentsArg,
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The exploration engine.
    #[arg(long, value_enum, default_value = "qpor")]
    engine: EngineArg,
    /// QPOR: k-partial alternatives (comb of the k newest unjustified events).
    #[arg(short = 'k', value_name = "N", conflicts_with_all = ["optimal", "sdpor"])]
    k: Option<usize>,
    /// QPOR: optimal alternatives (k = infinity): no sleep-set-blocked executions.
    #[arg(long, conflicts_with = "sdpor")]
    optimal: bool,
    /// QPOR: singleton alternatives, the SDPOR view of the paper.
    #[arg(long)]
    sdpor: bool,
    /// QPOR: the adequate order deciding cutoff events, or none.
    #[arg(long, value_enum, default_value = "erv")]
    cutoff: CutoffArg,
    /// QPOR: give up (inconclusive, exit 3) after creating this many events (default
    /// without cutoffs: 20000000).
    #[arg(long, value_name = "N")]
    max_events: Option<u64>,
    /// QPOR: keep every event (no pruning of the unfolding).
    #[arg(long, hide = true)]
    no_prune: bool,
    /// Report every deadlock (and terminal state), not just the first.
    #[arg(long)]
    all: bool,
    /// Show the witness per process as well as in order.
    #[arg(long)]
    witness: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up (inconclusive, exit 3) after storing this many states.
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Give up (inconclusive, exit 3) after this many seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct InfoArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ConvertArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The output format.
    #[arg(long, value_enum)]
    to: NetFormatArg,
    /// The output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Pnml,
    Llnet,
    Proc,
}

#[derive(Clone, Copy, ValueEnum)]
enum NetFormatArg {
    Pnml,
    Llnet,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    Qpor,
    Explicit,
}

#[derive(Clone, Copy, ValueEnum)]
enum CutoffArg {
    Erv,
    Mcmillan,
    None,
}

#[derive(Clone, Copy, ValueEnum)]
enum ComponentsArg {
    Auto,
    Places,
    Units,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) => run_check(a),
        Command::Info(a) => run_info(a),
        Command::Convert(a) => run_convert(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

fn load_model(args: &ModelArgs) -> Result<(Loaded, SystemOptions), String> {
    let mut defines = Vec::new();
    for d in &args.define {
        let (name, value) = d
            .split_once('=')
            .ok_or_else(|| format!("-D {d}: expected NAME=VALUE"))?;
        let value: i64 = value
            .trim()
            .parse()
            .map_err(|_| format!("-D {d}: the value must be an integer"))?;
        defines.push((name.trim().to_string(), value));
    }
    let opts = LoadOptions {
        format: args.format.map(|f| match f {
            FormatArg::Pnml => Format::Pnml,
            FormatArg::Llnet => Format::LlNet,
            FormatArg::Proc => Format::Proc,
        }),
        defines,
    };
    let loaded = parse::load(&args.model, &opts).map_err(|e| e.to_string())?;
    for w in &loaded.warnings {
        eprintln!("warning: {w}");
    }
    let system = SystemOptions {
        decomposition: match args.components {
            ComponentsArg::Auto => None,
            ComponentsArg::Places => Some(Decomposition::Places),
            ComponentsArg::Units => Some(Decomposition::Units),
        },
    };
    Ok((loaded, system))
}

/// A progress line on stderr, drawn only when stderr is a terminal.
struct ProgressLine {
    bar: Option<indicatif::ProgressBar>,
}

impl ProgressLine {
    fn new(enabled: bool) -> ProgressLine {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar
        });
        ProgressLine { bar }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for ProgressLine {
    fn progress(&mut self, p: &Progress) {
        if let Some(bar) = &self.bar {
            let parts: Vec<String> = p.counters.iter().map(|(n, v)| format!("{n} {v}")).collect();
            let rate = p
                .counters
                .first()
                .map(|(_, v)| *v as f64 / p.seconds.max(1e-9))
                .unwrap_or(0.0);
            bar.set_message(format!("{}, {:.0}/s, {:.1} s", parts.join(", "), rate, p.seconds));
            bar.tick();
        }
    }
}

fn run_check(a: CheckArgs) -> Result<u8, String> {
    let (loaded, system) = load_model(&a.model)?;
    let time_limit = match a.time_limit {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(format!("--time-limit {s}: expected a positive number of seconds"))
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    if a.max_states.is_some() && matches!(a.engine, EngineArg::Qpor) {
        return Err("--max-states limits the explicit engine (--engine explicit); QPOR stores no states, use --max-events".into());
    }
    let alt = match (a.k, a.optimal, a.sdpor) {
        (Some(0), _, _) => return Err("-k 0: k must be at least 1 (use --optimal for k = infinity)".into()),
        (Some(k), _, _) => AltMode::KPartial(k),
        (None, true, _) => AltMode::Optimal,
        (None, _, true) => AltMode::Sdpor,
        (None, false, false) => AltMode::default(),
    };
    let opts = CheckOptions {
        engine: match a.engine {
            EngineArg::Qpor => Engine::Qpor,
            EngineArg::Explicit => Engine::Explicit,
        },
        system,
        all: a.all,
        max_states: a.max_states,
        time_limit,
        alt,
        cutoff: match a.cutoff {
            CutoffArg::Erv => CutoffMode::Erv,
            CutoffArg::Mcmillan => CutoffMode::McMillan,
            CutoffArg::None => CutoffMode::None,
        },
        max_events: a.max_events,
        no_prune: a.no_prune,
    };
    let mut progress = ProgressLine::new(!a.quiet);
    let result = check::check(&loaded.model, &opts, &mut progress);
    progress.finish();
    let report = result.map_err(|e| format!("{}: {e}", a.model.model.display()))?;
    let shown = a.model.model.display().to_string();
    if a.json {
        println!("{}", report::report_json(&shown, &report));
    } else {
        print!(
            "{}",
            report::report_text(
                &shown,
                &report,
                report::TextOptions {
                    detailed_witness: a.witness
                }
            )
        );
    }
    Ok(report.verdict.exit_code() as u8)
}

fn run_info(a: InfoArgs) -> Result<u8, String> {
    let (loaded, system) = load_model(&a.model)?;
    let info = loaded
        .model
        .info(&system)
        .map_err(|e| format!("{}: {e}", a.model.model.display()))?;
    let shown = a.model.model.display().to_string();
    if a.json {
        println!("{}", report::info_json(&shown, &info));
    } else {
        print!("{}", report::info_text(&shown, &info));
    }
    Ok(0)
}

fn run_convert(a: ConvertArgs) -> Result<u8, String> {
    let (loaded, _) = load_model(&a.model)?;
    let net = match &loaded.model {
        Model::Net(net) => net,
        Model::Program(_) => return Err("converting programs to nets is not supported yet".into()),
    };
    let mut buf = Vec::new();
    let written = match a.to {
        NetFormatArg::Pnml => qpor::export::pnml::write(net, &mut buf),
        NetFormatArg::Llnet => qpor::export::llnet::write(net, &mut buf),
    };
    written.map_err(|e| format!("{}: cannot convert: {e}", a.model.model.display()))?;
    write_output(a.output.as_deref(), &buf)?;
    Ok(0)
}

fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        Some(p) => std::fs::write(p, bytes).map_err(|e| format!("{}: cannot write: {e}", p.display())),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| format!("cannot write to standard output: {e}")),
    }
}
