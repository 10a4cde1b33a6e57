//! `qpor info`: sizes and structure of a model.

use super::{load_model, ModelArgs};
use clap::Args;
use qpor::{render, Budget, Model};
use std::time::Duration;

/// How long `info` spends on the structural reductions of a net.
const REDUCTION_TIME: Duration = Duration::from_secs(10);

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `qpor info`.
pub fn run(a: InfoArgs) -> Result<u8, String> {
    let (loaded, system) = load_model(&a.model)?;
    let info = loaded
        .model
        .info(&system)
        .map_err(|e| format!("{}: {e}", a.model.shown()))?;
    let reduction = match &loaded.model {
        Model::Net(net) => Some(qpor::net::reduce(net, &Budget::new(Some(REDUCTION_TIME))).summary),
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
