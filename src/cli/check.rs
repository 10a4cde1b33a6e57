//! `qpor check`: deadlock checking.

use super::args::{self, AltArgs, CutoffArg, UnfoldingArg};
use super::{load_model, ModelArgs, ProgressLine};
use clap::{Args, ValueEnum};
use qpor::render;
use qpor::{CheckOptions, EngineChoice};

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The exploration engine.
    #[arg(long, value_enum, default_value = "qpor")]
    engine: EngineArg,
    #[command(flatten)]
    alt: AltArgs,
    /// QPOR: the adequate order deciding cutoff events, or none.
    #[arg(long, value_enum, default_value = "erv")]
    cutoff: CutoffArg,
    /// QPOR: give up (inconclusive, exit 3) after creating this many events (default
    /// without cutoffs: 20000000).
    #[arg(long, value_name = "N")]
    max_events: Option<u64>,
    /// QPOR: the unfolding backend (auto: program-like for programs, NUPN nets and nets
    /// given --components; general, token by token, for other nets).
    #[arg(long, value_enum, default_value = "auto")]
    unfolding: UnfoldingArg,
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

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    Qpor,
    Explicit,
}

/// Runs `qpor check`; returns the exit status.
pub fn run(a: CheckArgs) -> Result<u8, String> {
    let (loaded, system) = load_model(&a.model)?;
    let time_limit = args::time_limit(a.time_limit)?;
    if a.max_states.is_some() && matches!(a.engine, EngineArg::Qpor) {
        return Err("--max-states limits the explicit engine (--engine explicit); QPOR stores no states, use --max-events".into());
    }
    let opts = CheckOptions {
        engine: match a.engine {
            EngineArg::Qpor => EngineChoice::Qpor,
            EngineArg::Explicit => EngineChoice::Explicit,
        },
        system,
        all: a.all,
        max_states: a.max_states,
        time_limit,
        alt: a.alt.mode()?,
        cutoff: a.cutoff.into(),
        max_events: a.max_events,
        no_prune: a.no_prune,
        unfolding: a.unfolding.into(),
    };
    let mut progress = ProgressLine::new(!a.quiet);
    let result = qpor::check(&loaded.model, &opts, &mut progress);
    progress.finish();
    let report = result.map_err(|e| format!("{}: {e}", a.model.model.display()))?;
    let shown = a.model.model.display().to_string();
    if a.json {
        println!("{}", render::report_json(&shown, &report));
    } else {
        let text_opts = render::TextOptions {
            detailed_witness: a.witness,
        };
        print!("{}", render::report_text(&shown, &report, text_opts));
    }
    Ok(report.verdict.exit_code() as u8)
}
