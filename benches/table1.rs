//! The rows of Table 1 of the QPOR paper (CAV'18), run with the `qpor` binary (one process
//! per run, so that peak memory is the run's own), printed as a Markdown table beside
//! Dpu's published numbers (docs/paper.md#table-1).
//!
//! `cargo bench --bench table1` runs the rows up to Disp(5,4), Mpat(6), MPC(4,5), Pi(8) and
//! Pol(12,3), with k = 1, 2, 3 and optimal alternatives and `--cutoff none` (as the paper).
//! Environment:
//! - `QPOR_TABLE1_ROWS=quick` only the smallest row of each family; `all` also the rows
//!   Dpu could not finish in 8 minutes, or only just (Disp(5,5), Disp(5,6), Mpat(7),
//!   Mpat(8), MPC(5,5));
//! - `QPOR_TABLE1_MODES=optimal,3` the alternative modes to run (default `1,2,3,optimal`);
//! - `QPOR_TABLE1_TIMEOUT=S` the time limit of one run (default 120 s).

mod common;

use common::{env_or, Run};

/// One row of Table 1 with Dpu's numbers.
struct Row {
    name: &'static str,
    model: &'static str,
    params: &'static [(&'static str, i64)],
    /// Maximal configurations (the paper's, Nidhugg's or K!·2^K for Mpat; None: unknown).
    configs: Option<u64>,
    /// Dpu's distinct events (None: unknown).
    events: Option<u64>,
    /// Dpu's SSBs at k = 1, 2, 3 (None: not run or timeout).
    dpu_ssbs: [Option<u64>; 3],
    /// Dpu's optimal-mode time in seconds (None: timeout after 8 minutes) and peak memory
    /// in MB (None: not published).
    dpu_optimal: (Option<f64>, Option<u64>),
    size: Size,
}

/// Which runs of the bench include a row.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Size {
    /// Every run, `QPOR_TABLE1_ROWS=quick` included.
    Quick,
    /// Every run but the quick one.
    Normal,
    /// Only `QPOR_TABLE1_ROWS=all`.
    Large,
}

#[rustfmt::skip]
const ROWS: &[Row] = &[
    Row { name: "Disp(5,2)", model: "dispatcher", params: &[("S", 5), ("R", 2)], configs: Some(137), events: Some(1603), dpu_ssbs: [Some(1039), Some(43), Some(0)], dpu_optimal: (Some(0.41), Some(36)), size: Size::Quick },
    Row { name: "Disp(5,3)", model: "dispatcher", params: &[("S", 5), ("R", 3)], configs: Some(1482), events: Some(17594), dpu_ssbs: [Some(11167), Some(595), Some(1)], dpu_optimal: (Some(0.89), Some(36)), size: Size::Normal },
    Row { name: "Disp(5,4)", model: "dispatcher", params: &[("S", 5), ("R", 4)], configs: Some(15282), events: Some(185330), dpu_ssbs: [Some(105971), Some(6353), Some(213)], dpu_optimal: (Some(7.51), Some(84)), size: Size::Normal },
    Row { name: "Disp(5,5)", model: "dispatcher", params: &[("S", 5), ("R", 5)], configs: Some(151032), events: Some(1869116), dpu_ssbs: [None, Some(53658), Some(2378)], dpu_optimal: (Some(232.7), Some(714)), size: Size::Large },
    Row { name: "Disp(5,6)", model: "dispatcher", params: &[("S", 5), ("R", 6)], configs: None, events: None, dpu_ssbs: [None, None, None], dpu_optimal: (None, Some(1056)), size: Size::Large },
    Row { name: "Mpat(4)", model: "mpat", params: &[("K", 4)], configs: Some(384), events: Some(3822), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(0.51), Some(36)), size: Size::Quick },
    Row { name: "Mpat(5)", model: "mpat", params: &[("K", 5)], configs: Some(3840), events: Some(38017), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(2.33), Some(36)), size: Size::Normal },
    Row { name: "Mpat(6)", model: "mpat", params: &[("K", 6)], configs: Some(46080), events: Some(455876), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(62.7), Some(210)), size: Size::Normal },
    Row { name: "Mpat(7)", model: "mpat", params: &[("K", 7)], configs: Some(645120), events: None, dpu_ssbs: [None, None, None], dpu_optimal: (None, Some(701)), size: Size::Large },
    Row { name: "Mpat(8)", model: "mpat", params: &[("K", 8)], configs: Some(10321920), events: None, dpu_ssbs: [None, None, None], dpu_optimal: (None, None), size: Size::Large },
    Row { name: "MPC(2,5)", model: "multiprodcon", params: &[("P", 2), ("W", 5)], configs: Some(60), events: Some(397), dpu_ssbs: [Some(560), Some(0), None], dpu_optimal: (Some(0.38), Some(37)), size: Size::Quick },
    Row { name: "MPC(3,5)", model: "multiprodcon", params: &[("P", 3), ("W", 5)], configs: Some(2958), events: Some(7832), dpu_ssbs: [Some(50664), Some(2578), Some(0)], dpu_optimal: (Some(1.64), Some(37)), size: Size::Normal },
    Row { name: "MPC(4,5)", model: "multiprodcon", params: &[("P", 4), ("W", 5)], configs: Some(314064), events: Some(578835), dpu_ssbs: [None, None, Some(29597)], dpu_optimal: (Some(257.5), Some(234)), size: Size::Normal },
    Row { name: "MPC(5,5)", model: "multiprodcon", params: &[("P", 5), ("W", 5)], configs: None, events: None, dpu_ssbs: [None, None, None], dpu_optimal: (None, Some(820)), size: Size::Large },
    Row { name: "Pi(5)", model: "pi", params: &[("T", 5)], configs: Some(120), events: Some(1623), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(0.46), Some(38)), size: Size::Quick },
    Row { name: "Pi(6)", model: "pi", params: &[("T", 6)], configs: Some(720), events: Some(10221), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(0.77), Some(37)), size: Size::Normal },
    Row { name: "Pi(7)", model: "pi", params: &[("T", 7)], configs: Some(5040), events: Some(75113), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(3.65), Some(43)), size: Size::Normal },
    Row { name: "Pi(8)", model: "pi", params: &[("T", 8)], configs: Some(40320), events: Some(629787), dpu_ssbs: [Some(0), None, None], dpu_optimal: (Some(40.6), Some(240)), size: Size::Normal },
    Row { name: "Pol(7,3)", model: "poke", params: &[("N", 7), ("K", 3)], configs: Some(2440), events: Some(51317), dpu_ssbs: [Some(72022), Some(1271), Some(6)], dpu_optimal: (Some(1.88), Some(37)), size: Size::Quick },
    Row { name: "Pol(8,3)", model: "poke", params: &[("N", 8), ("K", 3)], configs: Some(3700), events: Some(82819), dpu_ssbs: [Some(214737), Some(2771), Some(10)], dpu_optimal: (Some(2.82), Some(51)), size: Size::Normal },
    Row { name: "Pol(9,3)", model: "poke", params: &[("N", 9), ("K", 3)], configs: Some(5332), events: Some(126755), dpu_ssbs: [Some(592219), Some(4659), Some(15)], dpu_optimal: (Some(4.02), Some(71)), size: Size::Normal },
    Row { name: "Pol(10,3)", model: "poke", params: &[("N", 10), ("K", 3)], configs: Some(7384), events: Some(185975), dpu_ssbs: [None, Some(8518), Some(21)], dpu_optimal: (Some(5.37), Some(97)), size: Size::Normal },
    Row { name: "Pol(11,3)", model: "poke", params: &[("N", 11), ("K", 3)], configs: Some(9904), events: Some(263617), dpu_ssbs: [None, Some(12461), Some(28)], dpu_optimal: (Some(9.91), Some(135)), size: Size::Normal },
    Row { name: "Pol(12,3)", model: "poke", params: &[("N", 12), ("K", 3)], configs: Some(12940), events: Some(363107), dpu_ssbs: [None, Some(20441), Some(36)], dpu_optimal: (Some(12.4), Some(180)), size: Size::Normal },
];

fn run(row: &Row, mode: &str, timeout: u64) -> Run {
    // QPOR itself: under `auto` another engine may answer first and count no maximal
    // configuration.
    let mut args: Vec<String> = ["--engine", "qpor", "--cutoff", "none", "--all", "--time-limit"]
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
        // Algorithm 1's own tree, whose SSBs the paper counts (without it the run
        // splits its work into tasks, which meet other SSBs).
        args.push("--single-tree".into());
    }
    common::check(&format!("models/proc/{}.proc", row.model), &args)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects rows by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let rows = std::env::var("QPOR_TABLE1_ROWS").unwrap_or_default();
    let wanted = |size: Size| match rows.as_str() {
        "quick" => size == Size::Quick,
        "all" => true,
        _ => size != Size::Large,
    };
    let modes: Vec<String> = std::env::var("QPOR_TABLE1_MODES")
        .unwrap_or_else(|_| "1,2,3,optimal".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let timeout: u64 = env_or("QPOR_TABLE1_TIMEOUT", 120);

    println!("| row | max-confs (paper) | events (paper) | mode | SSBs (Dpu) | qpor s | Dpu optimal s | qpor MB | Dpu MB |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in ROWS {
        if !wanted(row.size) || (!filter.is_empty() && !filter.iter().any(|f| row.name.contains(f.as_str())))
        {
            continue;
        }
        for mode in &modes {
            let r = run(row, mode, timeout);
            let dpu_ssbs = match mode.parse::<usize>() {
                Ok(k @ 1..=3) => row.dpu_ssbs[k - 1].map_or("–".to_string(), |s| s.to_string()),
                _ => "0".to_string(),
            };
            let paper = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
            let (configs, events) = if r.verdict == "inconclusive" {
                (
                    format!(
                        "timeout: {} ({})",
                        r.stat("max_configurations"),
                        paper(row.configs)
                    ),
                    format!("– ({})", paper(row.events)),
                )
            } else {
                let (c, e) = (r.stat("max_configurations"), r.stat("events"));
                (
                    format!("{c} ({})", paper(row.configs)),
                    format!("{e} ({})", paper(row.events)),
                )
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
                match (optimal, row.dpu_optimal.0) {
                    (false, _) => "".to_string(),
                    (true, Some(t)) => format!("{t:.2}"),
                    (true, None) => "TO (480)".to_string(),
                },
                r.rss_mb,
                match (optimal, row.dpu_optimal.1) {
                    (true, Some(mb)) => mb.to_string(),
                    _ => "".to_string(),
                },
            );
            if let (false, Some(expected)) = (r.verdict == "inconclusive", row.configs) {
                assert_eq!(
                    r.stat("max_configurations"),
                    expected,
                    "{} {mode}: maximal configurations",
                    row.name
                );
            }
        }
    }
}
