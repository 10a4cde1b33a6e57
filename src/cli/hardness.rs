//! `qpor hardness`: the NP-hardness instances of the QPOR paper, made from a CNF formula
//! (docs/hardness.md).

use super::memory::{MemoryArg, EXIT_LIMIT};
use super::write_output;
use clap::{Args, ValueEnum};
use qpor::formats::dimacs;
use qpor::hardness;
use std::path::PathBuf;

#[derive(Args)]
pub struct HardnessArgs {
    /// The formula, in DIMACS CNF.
    formula: PathBuf,
    /// The instance to make: an explicit PES (Theorem 4.1), a lock program (Theorem 4.2)
    /// or a P/T net (Theorem 4.3).
    #[arg(long, value_enum)]
    to: InstanceKind,
    /// The output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    memory: MemoryArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum InstanceKind {
    Pes,
    Program,
    Net,
}

/// Runs `qpor hardness`.
pub fn run(a: HardnessArgs) -> Result<u8, String> {
    let cap = a.memory.enforce()?;
    if qpor::Format::from_path(&a.formula).is_some() {
        return Err(format!(
            "{}: a model, not a DIMACS CNF formula: `qpor hardness` makes NP-hardness instances from a formula; to shrink a net with structural reductions use `qpor reduce-net {}`",
            a.formula.display(),
            a.formula.display()
        ));
    }
    let (cnf, warnings) = dimacs::read(&a.formula).map_err(|e| e.to_string())?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    // The program and net instances grow linearly and the watchdog guards them; the PES
    // grows with the square of its events, so it is refused before it is built.
    let need_mb = hardness::pes_instance_bytes(&cnf) >> 20;
    if matches!(a.to, InstanceKind::Pes) && need_mb > cap.mb {
        eprintln!(
            "error: {}: the PES instance of {} variables and {} clauses needs at least {need_mb} MB \
             (its relations are bitsets over all events), past the memory limit of {} MB (--max-memory)",
            a.formula.display(),
            cnf.num_vars,
            cnf.clauses.len(),
            cap.mb
        );
        return Ok(EXIT_LIMIT);
    }
    let source = a
        .formula
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| a.formula.display().to_string());
    let bytes = match a.to {
        InstanceKind::Pes => hardness::pes_instance_text(&cnf, &source).into_bytes(),
        InstanceKind::Program => hardness::program_instance_text(&cnf, &source).into_bytes(),
        InstanceKind::Net => hardness::net_instance_pnml(&cnf, &source)
            .map_err(|e| format!("{}: cannot write the net: {e}", a.formula.display()))?,
    };
    write_output(a.output.as_deref(), &bytes)?;
    Ok(0)
}
