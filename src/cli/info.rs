//! `qpor info`: sizes and structure of a model.

use super::memory::MemoryArg;
use super::{load_model, ModelArgs};
use clap::Args;
use qpor::{render, Budget, Model};
use std::time::{Duration, Instant};

/// How long `info` spends on the structural reductions of a net.
const REDUCTION_TIME: Duration = Duration::from_secs(10);

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Give up the invariant search and the structural reductions after this many
    /// seconds (each is then reported as not known or partial); the reductions stop after
    /// 10 s in any case.
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    #[command(flatten)]
    memory: MemoryArg,
}

/// Runs `qpor info`.
pub fn run(a: InfoArgs) -> Result<u8, String> {
    let limit = super::args::time_limit(a.time_limit)?;
    let memory = a.memory.enforce()?;
    let (loaded, system) = load_model(&a.model)?;
    let budget = Budget::new(limit).with_cancel(memory.token.clone());
    let info = loaded
        .model
        .info(&system, &|| budget.exhausted().is_some())
        .map_err(|e| format!("{}: {e}", a.model.shown()))?;
    // The reductions get what the invariant search left of the limit, and 10 s at most.
    let cap = Instant::now() + REDUCTION_TIME;
    let until = budget.deadline().map_or(cap, |d| d.min(cap));
    let reduction_budget =
        Budget::until(Some(until), Some(limit.unwrap_or(REDUCTION_TIME))).with_cancel(memory.token);
    let reduction = match &loaded.model {
        Model::Net(net) => Some(qpor::net::reduce(net, &reduction_budget).summary),
        Model::Program(_) => None,
    };
    let shown = a.model.shown();
    if a.json {
        println!("{}", render::info_json(&shown, &info, reduction.as_ref()));
    } else {
        print!("{}", render::info_text(&shown, &info, reduction.as_ref()));
    }
    Ok(0)
}
