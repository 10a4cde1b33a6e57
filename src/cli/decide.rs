//! `qpor decide`: answers a hardness instance with qpor's own algorithms.

use super::memory::MemoryArg;
use super::print_text;
use clap::{Args, ValueEnum};
use qpor::hardness::read_instance;
use qpor::hardness::{decide_alt, decide_cex, CexOptions, DecideError, DecideOptions};
use qpor::render::{alt_json, alt_text, cex_json, cex_text};
use qpor::unfolding::PesOptions;
use qpor::unfolding::UnfoldError;
use serde_json::json;
use std::path::PathBuf;

/// Exit status: an alternative (or a t*-event) exists.
const EXIT_YES: u8 = 0;
/// Exit status: none exists.
const EXIT_NO: u8 = 1;
/// Exit status: a limit was reached before the answer.
const EXIT_INCONCLUSIVE: u8 = 3;

#[derive(Args)]
pub struct DecideArgs {
    /// The question: `alt` (an alternative to D after C, on a pes or program instance) or
    /// `cex` (a t*-event in cex(C), on a net instance).
    question: Question,
    /// The instance, as `qpor hardness` writes it; its kind is read from its content.
    instance: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// PES instances: add the conflicts inherited through causality instead of refusing a
    /// conflict relation that is not closed.
    #[arg(long)]
    close_conflict: bool,
    /// Program and net instances: give up (exit 3) after creating this many events.
    #[arg(long, value_name = "N")]
    max_events: Option<u64>,
    /// Net instances: also enumerate the general backend's whole cex(C) as a cross-check
    /// unless t* may have more than N co-sets (0: never). cex(C) has one t*-event per co-set.
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    backend_limit: u64,
    #[command(flatten)]
    memory: MemoryArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum Question {
    Alt,
    Cex,
}

/// Runs `qpor decide`.
pub fn run(a: DecideArgs) -> Result<u8, String> {
    a.memory.enforce()?;
    let shown = a.instance.display().to_string();
    let text = qpor::read_text(&a.instance).map_err(|e| e.to_string())?;
    let opts = PesOptions {
        close_conflict: a.close_conflict,
    };
    let (inst, warnings) = read_instance(&text, &shown, &opts).map_err(|e| e.to_string())?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let fail = |e: DecideError| -> Result<u8, String> {
        match e {
            DecideError::Unfold(limit @ (UnfoldError::EventLimit(_) | UnfoldError::TimeLimit)) => {
                if a.json {
                    let answer =
                        json!({"file": shown, "answer": "inconclusive", "reason": limit.to_string()});
                    print_text(&format!("{answer}\n"))?;
                } else {
                    print_text(&format!("{shown}: inconclusive: {limit}\n"))?;
                }
                Ok(EXIT_INCONCLUSIVE)
            }
            other => Err(format!("{shown}: {other}")),
        }
    };
    match a.question {
        Question::Alt => {
            let dopts = DecideOptions {
                max_events: a.max_events,
                ..DecideOptions::default()
            };
            let answer = match decide_alt(&inst, &dopts) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            if a.json {
                print_text(&format!("{}\n", alt_json(&shown, &inst, &answer)))?;
            } else {
                print_text(&alt_text(&shown, &inst, &answer))?;
            }
            Ok(if answer.exists { EXIT_YES } else { EXIT_NO })
        }
        Question::Cex => {
            let copts = CexOptions {
                max_events: a.max_events,
                backend_limit: Some(a.backend_limit),
            };
            let answer = match decide_cex(&inst, &copts) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            if a.json {
                print_text(&format!("{}\n", cex_json(&shown, &answer)))?;
            } else {
                print_text(&cex_text(&shown, &answer))?;
            }
            Ok(if answer.exists { EXIT_YES } else { EXIT_NO })
        }
    }
}
