//! `qpor reduce`: NP-hardness instances from a CNF formula (DESIGN.md §4).

use super::write_output;
use clap::{Args, ValueEnum};
use qpor::formats::dimacs;
use qpor::reduction;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReduceArgs {
    /// The formula, in DIMACS CNF.
    formula: PathBuf,
    /// The instance to make: an explicit PES (Theorem 4.1), a lock program (Theorem 4.2)
    /// or a P/T net (Theorem 4.3).
    #[arg(long, value_enum)]
    to: ReduceTo,
    /// The output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReduceTo {
    Pes,
    Program,
    Net,
}

/// Runs `qpor reduce`.
pub fn run(a: ReduceArgs) -> Result<u8, String> {
    let (cnf, warnings) = dimacs::read(&a.formula).map_err(|e| e.to_string())?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if cnf.num_vars > reduction::MAX_VARIABLES {
        return Err(format!(
            "{}: {} variables are too many for a reduction instance (at most {})",
            a.formula.display(),
            cnf.num_vars,
            reduction::MAX_VARIABLES
        ));
    }
    let source = a
        .formula
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| a.formula.display().to_string());
    let bytes = match a.to {
        ReduceTo::Pes => reduction::pes_instance_text(&cnf, &source).into_bytes(),
        ReduceTo::Program => reduction::program_instance_text(&cnf, &source).into_bytes(),
        ReduceTo::Net => reduction::net_instance_pnml(&cnf, &source)
            .map_err(|e| format!("{}: cannot write the net: {e}", a.formula.display()))?,
    };
    write_output(a.output.as_deref(), &bytes)?;
    Ok(0)
}
