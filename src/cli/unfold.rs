//! `qpor unfold`: the complete finite prefix of a model and its statistics (ERV algorithm).

use super::args::{self, PrefixCutoffArg, UnfoldingArg};
use super::memory::MemoryArg;
use super::{load_model, print_text, ModelArgs};
use clap::Args;
use qpor::dot::write_prefix;
use qpor::dot::{DotOptions, Incomplete};
use qpor::engines::prefix_sat::deadlock_cnf;
use qpor::render::{outcome_json, outcome_text};
use qpor::unfolding::prefix::{build_model, PrefixOptions};
use qpor::unfolding::CutoffMode;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct UnfoldArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The adequate order deciding cutoff events.
    #[arg(long, value_enum, default_value = "erv")]
    cutoff: PrefixCutoffArg,
    /// The unfolding backend (auto: program-like for programs, NUPN nets and nets given
    /// --components; general, token by token, for other nets).
    #[arg(long, value_enum, default_value = "auto")]
    unfolding: UnfoldingArg,
    /// Stop (incomplete, exit 3) when the prefix has this many events.
    #[arg(long, value_name = "N")]
    max_events: Option<u64>,
    /// Stop (incomplete, exit 3) after this many seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time_limit: Option<f64>,
    #[command(flatten)]
    memory: MemoryArg,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Write the prefix as a Graphviz DOT occurrence net to FILE.
    #[arg(long, value_name = "FILE")]
    dot: Option<PathBuf>,
    /// Write the prefix's deadlock formula (the one `check --engine prefix-sat` solves
    /// first) to FILE in DIMACS CNF: satisfiable iff a deadlock (or a fault) is reachable.
    #[arg(long, value_name = "FILE")]
    cnf: Option<PathBuf>,
}

/// Runs `qpor unfold`; returns the exit status (0 complete, 3 stopped by a limit).
pub fn run(a: UnfoldArgs) -> Result<u8, String> {
    let started = Instant::now();
    let cap = a.memory.enforce()?;
    let (loaded, system) = load_model(&a.model)?;
    let time_limit = args::time_limit(a.time_limit)?;
    let cutoff: CutoffMode = a.cutoff.into();
    let opts = PrefixOptions {
        cutoff,
        max_events: a.max_events,
        time_limit,
        started: Some(started),
        // The builder's own estimate, so the stop is graceful; the watchdog's token for
        // the rest of the process.
        max_bytes: Some(cap.mb.saturating_mul(1 << 20)),
        cancel: Some(cap.token.clone()),
    };
    let backend = a.unfolding.into();
    let shown = a.model.shown();
    let out = build_model(&loaded.model, backend, &system, &opts).map_err(|e| format!("{shown}: {e}"))?;
    if let Some(path) = &a.dot {
        let file = File::create(path).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        let title = a
            .model
            .model
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.clone());
        // A stopped builder leaves the start of the prefix: the picture says so. A stop
        // with nothing queued is no stop (the next pop would have ended the construction).
        let incomplete = out
            .stopped
            .as_ref()
            .filter(|_| out.stats.pending > 0)
            .map(|why| Incomplete {
                why: why.clone(),
                pending: out.stats.pending,
            });
        let dot_opts = DotOptions {
            marking: None,
            title: Some(title),
            incomplete,
            ..DotOptions::default()
        };
        write_prefix(&out.prefix, &dot_opts, BufWriter::new(file))
            .and_then(|mut w| w.flush())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    if a.json {
        print_text(&format!("{}\n", outcome_json(&shown, &out, opts.cutoff)))?;
    } else {
        print_text(&outcome_text(&shown, &out, opts.cutoff))?;
    }
    if let Some(path) = &a.cnf {
        if out.stopped.is_some() {
            return Err(format!(
                "{}: the prefix is incomplete ({}): its formula would prove nothing; no CNF written",
                shown,
                out.stopped.as_deref().unwrap_or("stopped")
            ));
        }
        let cnf = deadlock_cnf(&out.prefix, &out.faults);
        let file = File::create(path).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        let mut w = BufWriter::new(file);
        cnf.write_dimacs(&mut w)
            .and_then(|()| w.flush())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(if out.stopped.is_some() { 3 } else { 0 })
}
