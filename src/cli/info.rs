//! `qpor info`: sizes and structure of a model.

use super::{load_model, ModelArgs};
use clap::Args;
use qpor::render;

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
    let shown = a.model.shown();
    if a.json {
        println!("{}", render::info_json(&shown, &info));
    } else {
        print!("{}", render::info_text(&shown, &info));
    }
    Ok(0)
}
