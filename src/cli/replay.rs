//! `qpor replay`: fires a saved witness on a model and says whether it does what it
//! claims, or at which step it fails.

use super::memory::MemoryArg;
use super::{load_model, print_text, ModelArgs};
use clap::Args;
use qpor::{read_saved_witness, replay_saved, StateEntries};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Exit status of a witness that does not replay.
const EXIT_FAILS: u8 = 1;

#[derive(Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The witness: a file written by `qpor check --witness-file`, or a `qpor check --json`
    /// report.
    #[arg(value_name = "WITNESS.json")]
    witness: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    memory: MemoryArg,
}

/// Runs `qpor replay`: exit 0 when the witness replays and ends where it claims, 1 when it
/// does not.
pub fn run(a: ReplayArgs) -> Result<u8, String> {
    a.memory.enforce()?;
    let shown_witness = a.witness.display().to_string();
    let text =
        std::fs::read_to_string(&a.witness).map_err(|e| format!("{shown_witness}: cannot read: {e}"))?;
    let witness = read_saved_witness(&text).map_err(|e| format!("{shown_witness}: {e}"))?;
    let (loaded, system) = load_model(&a.model)?;
    let shown = a.model.shown();
    let sys = loaded
        .model
        .system(&system)
        .map_err(|e| format!("{shown}: {e}"))?;
    let steps = witness.steps.len();
    let outcome = replay_saved(&*sys, &witness);
    if a.json {
        let v = match &outcome {
            Ok(done) => serde_json::json!({
                "model": shown,
                "witness": shown_witness,
                "replays": true,
                "steps": steps,
                "ends_in": done.kind.map_or("live", |k| k.name()),
                "state": StateEntries(sys.state_entries(&done.state)),
                "state_text": sys.describe_state(&done.state),
            }),
            Err(f) => serde_json::json!({
                "model": shown,
                "witness": shown_witness,
                "replays": false,
                "steps": steps,
                "failed_step": f.step,
                "message": f.message,
            }),
        };
        print_text(&format!("{v:#}\n"))?;
    } else {
        let mut s = String::new();
        match &outcome {
            Ok(done) => {
                let end = match done.kind {
                    Some(k) => format!("a {}", k.name()),
                    None => "a live state (some step is enabled)".into(),
                };
                let _ = writeln!(s, "{shown}: the witness replays: {} to {end}", steps_text(steps));
                let _ = writeln!(s, "  state: {}", sys.describe_state(&done.state));
            }
            Err(f) => {
                let at = f
                    .step
                    .map_or_else(String::new, |i| format!(" at step {i} of {steps}"));
                let _ = writeln!(s, "{shown}: the witness fails{at}: {}", f.message);
            }
        }
        print_text(&s)?;
    }
    Ok(if outcome.is_ok() { 0 } else { EXIT_FAILS })
}

/// `1 step`, `5 steps`.
fn steps_text(n: usize) -> String {
    if n == 1 {
        "1 step".into()
    } else {
        format!("{n} steps")
    }
}
