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
    after_help = "Exit status: 0 no deadlock, 1 deadlock or fault found, 2 bad input or usage, 3 inconclusive."
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(a) => cli::check::run(a),
        Command::Info(a) => cli::info::run(a),
        Command::Convert(a) => cli::convert::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
