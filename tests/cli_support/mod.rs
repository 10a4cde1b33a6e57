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

/// [`qpor`], asserting that it exits with `code` (the message shows its standard error).
pub fn qpor_exits(args: &[&str], code: i32) -> Output {
    let o = qpor(args);
    assert_eq!(
        o.status.code(),
        Some(code),
        "qpor {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// [`qpor_line`], asserting its exit code as [`qpor_exits`] does.
pub fn qpor_line_exits(line: &str, code: i32) -> Output {
    qpor_exits(&line.split(' ').collect::<Vec<_>>(), code)
}
