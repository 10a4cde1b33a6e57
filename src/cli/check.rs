//! `qpor check`: deadlock checking.

use super::{load_model, ModelArgs, ProgressLine};
use clap::{Args, ValueEnum};
use qpor::check::{self, CheckOptions, Engine};
use qpor::export::report;
use qpor::qpor::AltMode;
use qpor::unfold::cutoff::CutoffMode;
use qpor::unfold::Backend;
use std::time::Duration;

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The exploration engine.
    #[arg(long, value_enum, default_value = "qpor")]
    engine: EngineArg,
    /// QPOR: k-partial alternatives (comb of the k newest unjustified events; default 3).
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

#[derive(Clone, Copy, ValueEnum)]
enum UnfoldingArg {
    Auto,
    Program,
    General,
}

#[derive(Clone, Copy, ValueEnum)]
enum CutoffArg {
    Erv,
    Mcmillan,
    None,
}

/// Runs `qpor check`; returns the exit status.
pub fn run(a: CheckArgs) -> Result<u8, String> {
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
        unfolding: match a.unfolding {
            UnfoldingArg::Auto => Backend::Auto,
            UnfoldingArg::Program => Backend::Program,
            UnfoldingArg::General => Backend::General,
        },
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
