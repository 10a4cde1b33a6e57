//! `qpor info`: sizes and structure of a model.

use super::args::PartialWorkLimits;
use super::{load_model, print_text, ModelArgs};
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
    // They bound the invariant search and the structural reductions (which stop after
    // 10 s in any case).
    #[command(flatten)]
    limits: PartialWorkLimits,
}

/// Runs `qpor info`.
pub fn run(a: InfoArgs) -> Result<u8, String> {
    let (limit, budget) = a.limits.start()?;
    let (loaded, system) = load_model(&a.model)?;
    let info = loaded
        .model
        .info(&system, &|| budget.exhausted().is_some())
        .map_err(|e| format!("{}: {e}", a.model.shown()))?;
    // The reductions get what the invariant search left of the limit, and 10 s at most.
    let cap = Instant::now() + REDUCTION_TIME;
    let until = budget.deadline().map_or(cap, |d| d.min(cap));
    let reduction_budget = Budget::until(Some(until), Some(limit.unwrap_or(REDUCTION_TIME)))
        .with_cancel(budget.cancel_token().clone());
    let reduction = match &loaded.model {
        Model::Net(net) => Some(qpor::net::reduce(net, &reduction_budget).summary),
        Model::Program(_) => None,
    };
    let shown = a.model.shown();
    if a.json {
        print_text(&format!(
            "{}\n",
            render::info_json(&shown, &info, reduction.as_ref())
        ))?;
    } else {
        print_text(&render::info_text(&shown, &info, reduction.as_ref()))?;
    }
    Ok(0)
}
