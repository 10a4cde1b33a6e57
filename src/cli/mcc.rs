//! `qpor mcc`: the Model Checking Contest's interface.

use super::args;
use super::check::EXIT_INTERNAL;
use super::memory::MemoryArg;
use super::{print_text, until_deadline, ProgressLine};
use clap::Args;
use qpor::{
    answer_mcc, mcc_exact_bounds, mcc_property_id, BoundAnswer, EngineError, Examination, MccAnswer,
    MccOptions, Observer, Progress,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long past its limit an answer is waited for (the engines stop within 0.2 s).
const LATE: Duration = Duration::from_millis(300);

#[derive(Args)]
pub struct MccArgs {
    /// The contest directory holding model.pnml (and iscolored, <Examination>.xml).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// The examination (default: $BK_EXAMINATION): ReachabilityDeadlock, OneSafe,
    /// ReachabilityCardinality, ReachabilityFireability, UpperBounds, QuasiLiveness,
    /// StableMarking or Liveness.
    #[arg(long, value_name = "NAME")]
    examination: Option<String>,
    /// The time budget in seconds (default: $BK_TIME_CONFINEMENT, else none).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    /// How many engines run at once (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// The random walk's seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    memory: MemoryArg,
}

/// Runs `qpor mcc`; returns the exit status: 0 when a verdict or DO_NOT_COMPETE was
/// printed, 3 for CANNOT_COMPUTE, 4 for an internal error.
pub fn run(a: MccArgs) -> Result<u8, String> {
    let started = Instant::now();
    let examination = match a.examination {
        Some(e) => e,
        None => std::env::var("BK_EXAMINATION")
            .map_err(|_| "no examination: give --examination or set BK_EXAMINATION".to_string())?,
    };
    let seconds = match a.time_limit {
        Some(s) => Some(s),
        None => match std::env::var("BK_TIME_CONFINEMENT") {
            Ok(v) => Some(
                v.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("BK_TIME_CONFINEMENT={v}: expected a number of seconds"))?,
            ),
            Err(_) => None,
        },
    };
    if a.jobs == Some(0) {
        return Err("--jobs 0: at least one engine must run".into());
    }
    check_examination_name(&examination)?;
    if !a.dir.is_dir() {
        return Err(format!(
            "{}: no such directory (expected a contest directory holding model.pnml)",
            a.dir.display()
        ));
    }
    let time_limit = args::time_limit(seconds)?;
    let cap = a.memory.enforce()?;
    let fallback = Examination::from_name(&examination).map(|e| mcc_property_id(&a.dir, e));
    let a_examination = examination.clone();
    let opts = MccOptions {
        examination,
        time_limit,
        started: Some(started),
        jobs: a.jobs,
        seed: a.seed,
        max_memory_mb: Some(cap.mb),
    };
    // The engines end by themselves at the limit; reading the model does not, so the whole
    // answer runs on a thread that is left behind if it has not come back shortly after.
    let deadline = time_limit
        .and_then(|l| started.checked_add(l))
        .and_then(|d| d.checked_add(LATE));
    let (dir, quiet) = (a.dir.clone(), a.quiet);
    let exact: Arc<Mutex<Vec<MccAnswer>>> = Arc::default();
    let known = exact.clone();
    let outcome = until_deadline(deadline, move || {
        let mut observer = Watching {
            line: ProgressLine::new(!quiet),
            exact: known,
        };
        let outcome = answer_mcc(&dir, &opts, &mut observer);
        observer.line.finish();
        outcome
    });
    let Some(outcome) = outcome else {
        // A property examination prints no line for an undecided property; the bounds
        // exact before the deadline are printed.
        if !Examination::from_name(&a_examination).is_some_and(Examination::asks_properties) {
            let id = fallback.unwrap_or_default();
            print_text(&format!("{}\n", MccAnswer::CannotCompute { id }))?;
        }
        let lines: String = exact.lock().map_or_else(
            |_| String::new(),
            |exact| exact.iter().map(|a| format!("{a}\n")).collect(),
        );
        print_text(&lines)?;
        return Ok(3);
    };
    let outcome = match outcome {
        Ok(o) => o,
        Err(e @ EngineError::Internal(_)) => {
            eprintln!("error: {}: {e}", a.dir.display());
            return Ok(EXIT_INTERNAL);
        }
        Err(e) => return Err(format!("{}: {e}", a.dir.display())),
    };
    for note in &outcome.notes {
        eprintln!("note: {note}");
    }
    let lines: String = outcome.answers.iter().map(|a| format!("{a}\n")).collect();
    print_text(&lines)?;
    Ok(if outcome.complete() { 0 } else { 3 })
}

/// The examinations of the Model Checking Contest: qpor answers some and, as the contest
/// expects, says DO_NOT_COMPETE for the others.
const CONTEST_EXAMINATIONS: [&str; 13] = [
    "ReachabilityDeadlock",
    "OneSafe",
    "QuasiLiveness",
    "StableMarking",
    "Liveness",
    "UpperBounds",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "CTLCardinality",
    "CTLFireability",
    "LTLCardinality",
    "LTLFireability",
    "StateSpace",
];

/// Refuses a name that is no examination of the contest (a misspelling would otherwise
/// print DO_NOT_COMPETE and exit 0), suggesting the name it differs from only in case.
fn check_examination_name(name: &str) -> Result<(), String> {
    if CONTEST_EXAMINATIONS.contains(&name) {
        return Ok(());
    }
    match CONTEST_EXAMINATIONS.iter().find(|e| e.eq_ignore_ascii_case(name)) {
        Some(e) => Err(format!(
            "--examination {name}: the contest's names are case-sensitive: did you mean {e}?"
        )),
        None => Err(format!(
            "--examination {name}: not an examination of the Model Checking Contest (expected one of {})",
            CONTEST_EXAMINATIONS.join(", ")
        )),
    }
}

/// The progress line, and the bounds a bounds check knew exactly between its rounds: a run
/// that misses the deadline still gives those.
struct Watching {
    line: ProgressLine,
    exact: Arc<Mutex<Vec<MccAnswer>>>,
}

impl Observer for Watching {
    fn progress(&mut self, p: &Progress) {
        self.line.progress(p);
    }

    fn bounds_known(&mut self, known: &[BoundAnswer]) {
        if let Ok(mut exact) = self.exact.lock() {
            *exact = mcc_exact_bounds(known);
        }
    }
}
