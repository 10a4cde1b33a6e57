//! QPOR (with and without cutoffs) against the explicit-state engine on model families of
//! growing size: maximal configurations or states, events, time, peak memory, in one run.
//!
//! `cargo bench --bench engines`. Environment: `QPOR_ENGINES_MAX_N` (default 14) the
//! largest philosophers instance; `QPOR_ENGINES_TIMEOUT` (default 120 s) per run.

mod common;

use common::{check, env_or, Run};

fn row(name: &str, what: &str, r: &Run, size_key: &str) {
    let size = if r.verdict == "inconclusive" {
        format!("stopped ({})", r.stat(size_key))
    } else {
        r.stat(size_key).to_string()
    };
    println!(
        "| {name} | {what} | {} | {size} | {} | {:.3} | {:.0} |",
        r.verdict,
        r.stat("events"),
        r.seconds,
        r.rss_mb
    );
}

fn main() {
    let max_n: i64 = env_or("QPOR_ENGINES_MAX_N", 14);
    let timeout: u64 = env_or("QPOR_ENGINES_TIMEOUT", 120);
    let limit = ["--time-limit".to_string(), timeout.to_string()];
    println!("| model | engine | verdict | states / max configurations | events | s | MB |");
    println!("|---|---|---|---|---|---|---|");
    for model in ["philosophers-ordered", "philosophers"] {
        for n in 5..=max_n {
            let path = format!("models/proc/{model}.proc");
            let name = format!("{model}({n})");
            let mut args = vec!["-D".to_string(), format!("N={n}")];
            args.extend(limit.clone());
            let explicit = check(
                &path,
                &[args.clone(), vec!["--engine".into(), "explicit".into()]].concat(),
            );
            let qpor = check(
                &path,
                &[args.clone(), vec!["--engine".into(), "qpor".into()]].concat(),
            );
            // Without cutoffs the unfolding of a cyclic program is infinite, and the
            // depth-first exploration follows one infinite run to the event limit, deadlock
            // or not: cutoffs are what make cyclic programs checkable.
            let none = check(
                &path,
                &[
                    args.clone(),
                    ["--engine", "qpor", "--cutoff", "none", "--max-events", "100000"]
                        .map(String::from)
                        .to_vec(),
                ]
                .concat(),
            );
            row(&name, "explicit", &explicit, "states");
            row(
                &name,
                "qpor (no cutoffs, 100 000 events)",
                &none,
                "max_configurations",
            );
            row(&name, "qpor (erv cutoffs)", &qpor, "max_configurations");
            assert!(
                explicit.verdict == "inconclusive"
                    || qpor.verdict == "inconclusive"
                    || explicit.verdict == qpor.verdict,
                "{name}: the engines disagree"
            );
            assert!(
                none.verdict == "inconclusive"
                    || explicit.verdict == "inconclusive"
                    || none.verdict == explicit.verdict,
                "{name}: QPOR without cutoffs disagrees"
            );
        }
    }
    // Table-1 families (terminating programs): QPOR with and without cutoffs.
    for (model, params) in [
        ("dispatcher", "S=5,R=2"),
        ("mpat", "K=4"),
        ("multiprodcon", "P=2,W=5"),
        ("pi", "T=5"),
        ("poke", "N=7,K=3"),
        ("ssbexp", "K=10"),
    ] {
        let path = format!("models/proc/{model}.proc");
        let name = format!("{model}({params})");
        let mut args: Vec<String> = params
            .split(',')
            .flat_map(|p| ["-D".to_string(), p.to_string()])
            .collect();
        args.extend(limit.clone());
        let explicit = check(
            &path,
            &[args.clone(), vec!["--engine".into(), "explicit".into()]].concat(),
        );
        let none = check(
            &path,
            &[
                args.clone(),
                ["--engine", "qpor", "--cutoff", "none"]
                    .map(String::from)
                    .to_vec(),
            ]
            .concat(),
        );
        let erv = check(
            &path,
            &[args.clone(), vec!["--engine".into(), "qpor".into()]].concat(),
        );
        row(&name, "explicit", &explicit, "states");
        row(&name, "qpor (no cutoffs)", &none, "max_configurations");
        row(&name, "qpor (erv cutoffs)", &erv, "max_configurations");
    }
}
