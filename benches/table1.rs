//! The rows of Table 1 of the QPOR paper (CAV'18), run with the `qpor` binary (one process
//! per run, so that peak memory is the run's own), printed as a Markdown table beside
//! Dpu's published numbers (`shared/research/dpu.md` §6.2).
//!
//! `cargo bench --bench table1` runs every row whose Dpu time is at most a minute, with
//! k = 1, 2, 3 and optimal alternatives and `--cutoff none` (as the paper). Environment:
//! - `QPOR_TABLE1_ROWS=quick` only the smallest row of each family;
//! - `QPOR_TABLE1_MODES=optimal,3` the alternative modes to run (default `1,2,3,optimal`);
//! - `QPOR_TABLE1_TIMEOUT=S` the time limit of one run (default 120 s).

mod common;

use common::{env_or, Run};

/// One row of Table 1 with Dpu's numbers.
struct Row {
    name: &'static str,
    model: &'static str,
    params: &'static [(&'static str, i64)],
    configs: u64,
    events: u64,
    /// Dpu's SSBs at k = 1, 2, 3 (None: not run or timeout).
    dpu_ssbs: [Option<u64>; 3],
    /// Dpu's optimal-mode time in seconds and peak memory in MB.
    dpu_optimal: (f64, u64),
    quick: bool,
}

#[rustfmt::skip]
const ROWS: &[Row] = &[
    Row { name: "Disp(5,2)", model: "dispatcher", params: &[("S", 5), ("R", 2)], configs: 137, events: 1603, dpu_ssbs: [Some(1039), Some(43), Some(0)], dpu_optimal: (0.41, 36), quick: true },
    Row { name: "Disp(5,3)", model: "dispatcher", params: &[("S", 5), ("R", 3)], configs: 1482, events: 17594, dpu_ssbs: [Some(11167), Some(595), Some(1)], dpu_optimal: (0.89, 36), quick: false },
    Row { name: "Disp(5,4)", model: "dispatcher", params: &[("S", 5), ("R", 4)], configs: 15282, events: 185330, dpu_ssbs: [Some(105971), Some(6353), Some(213)], dpu_optimal: (7.51, 84), quick: false },
    Row { name: "Mpat(4)", model: "mpat", params: &[("K", 4)], configs: 384, events: 3822, dpu_ssbs: [Some(0), None, None], dpu_optimal: (0.51, 36), quick: true },
    Row { name: "Mpat(5)", model: "mpat", params: &[("K", 5)], configs: 3840, events: 38017, dpu_ssbs: [Some(0), None, None], dpu_optimal: (2.33, 36), quick: false },
    Row { name: "Mpat(6)", model: "mpat", params: &[("K", 6)], configs: 46080, events: 455876, dpu_ssbs: [Some(0), None, None], dpu_optimal: (62.7, 210), quick: false },
    Row { name: "MPC(2,5)", model: "multiprodcon", params: &[("P", 2), ("W", 5)], configs: 60, events: 397, dpu_ssbs: [Some(560), Some(0), None], dpu_optimal: (0.38, 37), quick: true },
    Row { name: "MPC(3,5)", model: "multiprodcon", params: &[("P", 3), ("W", 5)], configs: 2958, events: 7832, dpu_ssbs: [Some(50664), Some(2578), Some(0)], dpu_optimal: (1.64, 37), quick: false },
    Row { name: "MPC(4,5)", model: "multiprodcon", params: &[("P", 4), ("W", 5)], configs: 314064, events: 578835, dpu_ssbs: [None, None, Some(29597)], dpu_optimal: (257.5, 234), quick: false },
    Row { name: "Pi(5)", model: "pi", params: &[("T", 5)], configs: 120, events: 1623, dpu_ssbs: [Some(0), None, None], dpu_optimal: (0.46, 38), quick: true },
    Row { name: "Pi(6)", model: "pi", params: &[("T", 6)], configs: 720, events: 10221, dpu_ssbs: [Some(0), None, None], dpu_optimal: (0.77, 37), quick: false },
    Row { name: "Pi(7)", model: "pi", params: &[("T", 7)], configs: 5040, events: 75113, dpu_ssbs: [Some(0), None, None], dpu_optimal: (3.65, 43), quick: false },
    Row { name: "Pi(8)", model: "pi", params: &[("T", 8)], configs: 40320, events: 629787, dpu_ssbs: [Some(0), None, None], dpu_optimal: (40.6, 240), quick: false },
    Row { name: "Pol(7,3)", model: "poke", params: &[("N", 7), ("K", 3)], configs: 2440, events: 51317, dpu_ssbs: [Some(72022), Some(1271), Some(6)], dpu_optimal: (1.88, 37), quick: true },
    Row { name: "Pol(8,3)", model: "poke", params: &[("N", 8), ("K", 3)], configs: 3700, events: 82819, dpu_ssbs: [Some(214737), Some(2771), Some(10)], dpu_optimal: (2.82, 51), quick: false },
    Row { name: "Pol(9,3)", model: "poke", params: &[("N", 9), ("K", 3)], configs: 5332, events: 126755, dpu_ssbs: [Some(592219), Some(4659), Some(15)], dpu_optimal: (4.02, 71), quick: false },
    Row { name: "Pol(10,3)", model: "poke", params: &[("N", 10), ("K", 3)], configs: 7384, events: 185975, dpu_ssbs: [None, Some(8518), Some(21)], dpu_optimal: (5.37, 97), quick: false },
    Row { name: "Pol(11,3)", model: "poke", params: &[("N", 11), ("K", 3)], configs: 9904, events: 263617, dpu_ssbs: [None, Some(12461), Some(28)], dpu_optimal: (9.91, 135), quick: false },
    Row { name: "Pol(12,3)", model: "poke", params: &[("N", 12), ("K", 3)], configs: 12940, events: 363107, dpu_ssbs: [None, Some(20441), Some(36)], dpu_optimal: (12.4, 180), quick: false },
];

fn run(row: &Row, mode: &str, timeout: u64) -> Run {
    let mut args: Vec<String> = ["--cutoff", "none", "--all", "--time-limit"]
        .map(String::from)
        .to_vec();
    args.push(timeout.to_string());
    for (name, value) in row.params {
        args.push("-D".into());
        args.push(format!("{name}={value}"));
    }
    if mode == "optimal" {
        args.push("--optimal".into());
    } else {
        args.push("-k".into());
        args.push(mode.into());
    }
    common::check(&format!("models/proc/{}.proc", row.model), &args)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects rows by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let quick = std::env::var("QPOR_TABLE1_ROWS").is_ok_and(|v| v == "quick");
    let modes: Vec<String> = std::env::var("QPOR_TABLE1_MODES")
        .unwrap_or_else(|_| "1,2,3,optimal".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let timeout: u64 = env_or("QPOR_TABLE1_TIMEOUT", 120);

    println!("| row | max-confs (paper) | events (paper) | mode | SSBs (Dpu) | qpor s | Dpu optimal s | qpor MB | Dpu MB |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in ROWS {
        if (quick && !row.quick)
            || (!filter.is_empty() && !filter.iter().any(|f| row.name.contains(f.as_str())))
        {
            continue;
        }
        for mode in &modes {
            let r = run(row, mode, timeout);
            let dpu_ssbs = match mode.parse::<usize>() {
                Ok(k @ 1..=3) => row.dpu_ssbs[k - 1].map_or("–".to_string(), |s| s.to_string()),
                _ => "0".to_string(),
            };
            let (configs, events) = if r.verdict == "inconclusive" {
                ("timeout".to_string(), "–".to_string())
            } else {
                let (c, e) = (r.stat("max_configurations"), r.stat("events"));
                (format!("{c} ({})", row.configs), format!("{e} ({})", row.events))
            };
            let optimal = mode == "optimal";
            println!(
                "| {} | {configs} | {events} | {} | {} ({dpu_ssbs}) | {:.2} | {} | {:.0} | {} |",
                row.name,
                if optimal {
                    "optimal".to_string()
                } else {
                    format!("k={mode}")
                },
                r.stat("ssbs"),
                r.seconds,
                if optimal {
                    format!("{:.2}", row.dpu_optimal.0)
                } else {
                    "".into()
                },
                r.rss_mb,
                if optimal {
                    row.dpu_optimal.1.to_string()
                } else {
                    "".into()
                },
            );
            if r.verdict != "inconclusive" {
                assert_eq!(
                    r.stat("max_configurations"),
                    row.configs,
                    "{} {mode}: maximal configurations",
                    row.name
                );
            }
        }
    }
}
