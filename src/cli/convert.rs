//! `qpor convert`: writing a model as a net (PNML, ll_net).

use super::memory::MemoryArg;
use super::{load_model, write_output, ModelArgs, NetFormatArg};
use clap::Args;
use qpor::program::{to_net, ToNetOptions};
use qpor::Model;
use std::path::PathBuf;

#[derive(Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The output format.
    #[arg(long, value_enum)]
    to: NetFormatArg,
    /// The output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Programs: most local states one component may have in the exported net.
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_domain: usize,
    /// Programs: build the net from the reachable states (a search of at most N states)
    /// instead of the local fixpoint; exact for counters and semaphores.
    #[arg(long, value_name = "N")]
    reachable: Option<usize>,
    #[command(flatten)]
    memory: MemoryArg,
}

/// Runs `qpor convert`.
pub fn run(a: ConvertArgs) -> Result<u8, String> {
    a.memory.enforce()?;
    let (loaded, system) = load_model(&a.model)?;
    let exported;
    let net = match &loaded.model {
        Model::Net(net) => net,
        Model::Program(p) => {
            let mut opts = ToNetOptions::default()
                .max_local_states(a.max_domain)
                .every_access(system.every_access);
            if let Some(n) = a.reachable {
                opts = opts.reachable_only(n);
            }
            exported = to_net(p, &opts).map_err(|e| {
                format!(
                    "{}: {e} (on the command line: --max-domain N, or --reachable N)",
                    a.model.shown()
                )
            })?;
            &exported
        }
    };
    let mut buf = Vec::new();
    let written = match a.to {
        NetFormatArg::Pnml => qpor::formats::pnml::write(net, &mut buf),
        NetFormatArg::Llnet => qpor::formats::llnet::write(net, &mut buf),
    };
    written.map_err(|e| format!("{}: cannot convert: {e}", a.model.shown()))?;
    write_output(a.output.as_deref(), &buf)?;
    Ok(0)
}
