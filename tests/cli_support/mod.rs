//! Running the `qpor` binary from the tests.
#![allow(dead_code)] // each test file uses some of these

use std::process::{Command, Output};

/// Runs the `qpor` binary with `args`.
pub fn qpor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args(args)
        .output()
        .expect("the qpor binary runs")
}

/// [`qpor`] with the arguments of `line`, split at spaces (none of them holds one).
pub fn qpor_line(line: &str) -> Output {
    qpor(&line.split(' ').collect::<Vec<_>>())
}
