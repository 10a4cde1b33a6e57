//! `qpor reduce-net`: the net shrunk by the deadlock-preserving structural reductions.

use super::args::PartialWorkLimits;
use super::{load_model, print_text, write_output, ModelArgs, NetFormatArg};
use clap::Args;
use qpor::net::{Net, ReducedNet};
use qpor::{render, Model};
use serde_json::json;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReduceNetArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The format of the reduced net.
    #[arg(long, value_enum, default_value = "pnml")]
    to: NetFormatArg,
    /// Write the reduced net to FILE (default: standard output, unless --json).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print the summary (sizes, rules, and the original firing sequence of every
    /// transition built by agglomeration) as one JSON object on standard output.
    #[arg(long)]
    json: bool,
    /// No summary line on stderr.
    #[arg(long, short)]
    quiet: bool,
    // At the time limit the net reduced so far is written.
    #[command(flatten)]
    limits: PartialWorkLimits,
}

/// Runs `qpor reduce-net`.
pub fn run(a: ReduceNetArgs) -> Result<u8, String> {
    let (_, budget) = a.limits.start()?;
    let (loaded, _) = load_model(&a.model)?;
    let shown = a.model.shown();
    let Model::Net(net) = &loaded.model else {
        return Err(format!(
            "{shown}: reduce-net works on nets; `qpor convert --to pnml` makes a net of a program"
        ));
    };
    let reduced = qpor::net::reduce(net, &budget);
    if !a.json || a.output.is_some() {
        let mut buf = Vec::new();
        let written = match a.to {
            NetFormatArg::Pnml => qpor::formats::pnml::write(&reduced.net, &mut buf),
            NetFormatArg::Llnet => qpor::formats::llnet::write(&reduced.net, &mut buf),
        };
        written.map_err(|e| format!("{shown}: cannot write the reduced net: {e}"))?;
        write_output(a.output.as_deref(), &buf)?;
    }
    if a.json {
        print_text(&format!("{}\n", summary_json(&shown, net, &reduced)))?;
    } else if !a.quiet {
        eprintln!("{shown}: {}", render::reduction_text(&reduced.summary));
    }
    Ok(0)
}

/// The summary, and for every transition that stands for several original ones, their
/// ids in firing order.
fn summary_json(shown: &str, original: &Net, reduced: &ReducedNet) -> serde_json::Value {
    let merged: Vec<serde_json::Value> = reduced
        .net
        .transitions
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let fires = reduced.expansion(qpor::net::TransId(i as u32));
            let ids: Vec<&str> = fires
                .iter()
                .map(|f| original.transitions[f.index()].id.as_str())
                .collect();
            (fires.len() > 1).then(|| json!({ "transition": t.id, "fires": ids }))
        })
        .collect();
    json!({
        "model": shown,
        "reduction": reduced.summary,
        "merged": merged,
    })
}
