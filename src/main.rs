//! The `qpor` command line: maps arguments to library options and results to exit codes.
//! Each subcommand lives in its own module under `cli/`.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit status for bad input or usage (clap uses 2 for usage errors too).
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(
    name = "qpor",
    version,
    about = "Deadlock checking of Petri nets and concurrent programs with unfoldings and QPOR",
    after_help = "Exit status: 0 no deadlock, 1 deadlock or fault found, 2 bad input or usage, 3 inconclusive, 4 internal error (a witness that did not replay on the model: please report it)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a model for deadlocks (and, for programs, faults).
    Check(cli::check::CheckArgs),
    /// Print sizes and structure of a model.
    Info(cli::info::InfoArgs),
    /// Convert a model to another net format.
    Convert(cli::convert::ConvertArgs),
    /// Make an NP-hardness instance (PES, program or net) from a CNF formula.
    Reduce(cli::reduce::ReduceArgs),
    /// Shrink a net with structural reductions that keep deadlocks, and write the result.
    ReduceNet(cli::reduce_net::ReduceNetArgs),
    /// Answer a reduction instance with qpor's own Alt or cex (exit 0 yes, 1 no).
    Decide(cli::decide::DecideArgs),
    /// Draw a model, its unfolding prefix, its event structure or the QPOR exploration
    /// tree with Graphviz (DOT, SVG, PNG).
    Dot(cli::dot::DotArgs),
    /// Answer a Model Checking Contest examination (ReachabilityDeadlock, OneSafe) on a
    /// contest directory, as the contest runs tools.
    Mcc(cli::mcc::MccArgs),
    /// Build the complete finite prefix of a model's unfolding (ERV) and its statistics.
    Unfold(cli::unfold::UnfoldArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) => cli::check::run(a),
        Command::Info(a) => cli::info::run(a),
        Command::Convert(a) => cli::convert::run(a),
        Command::Reduce(a) => cli::reduce::run(a),
        Command::ReduceNet(a) => cli::reduce_net::run(a),
        Command::Decide(a) => cli::decide::run(a),
        Command::Dot(a) => cli::dot::run(a),
        Command::Unfold(a) => cli::unfold::run(a),
        Command::Mcc(a) => cli::mcc::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
