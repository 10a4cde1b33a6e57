//! `qpor unfold` timing: the ERV prefix of the ll_net families and some MCC nets with both
//! backends, printed as a Markdown table (events, conditions, cutoffs, best of three wall
//! times, the builder's own bytes). Peak resident memory is per process, so the README
//! numbers for it come from `qpor unfold --json` runs; this binary measures time.
//!
//! `cargo bench --bench unfold` (optionally with model paths as arguments).

use qpor::net::{Decomposition, NetSystem};
use qpor::unfolding::prefix::{build_general, build_program, PrefixOptions, PrefixOutcome};
use qpor::LoadOptions;
use qpor::Model;
use std::time::Duration;

const DEFAULT_MODELS: &[&str] = &[
    "models/ll_net/dph_5.fsa.ll_net",
    "models/ll_net/dpd_5.fsa.ll_net",
    "models/ll_net/ring_5.fsa.ll_net",
    "models/ll_net/rw_6.fsa.ll_net",
    "models/ll_net/over_3.fsa.ll_net",
    "models/ll_net/buf100.ll_net",
    "models/mcc2023/Dekker-PT-010.pnml",
    "models/mcc2023/Peterson-PT-2.pnml",
    "models/mcc2023/Raft-PT-02.pnml",
    "models/mcc2023/Railroad-PT-005.pnml",
    "models/mcc2023/FMS-PT-00002.pnml",
];

/// One way of building the prefix of the current model.
type Builder<'a> = Box<dyn Fn() -> PrefixOutcome + 'a>;

fn best_of<F: FnMut() -> PrefixOutcome>(mut f: F) -> (PrefixOutcome, f64) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..3 {
        let out = f();
        best = best.min(out.stats.seconds);
        last = Some(out);
    }
    (last.expect("three runs"), best)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let models: Vec<String> = if args.is_empty() {
        DEFAULT_MODELS.iter().map(|s| s.to_string()).collect()
    } else {
        args
    };
    let opts = PrefixOptions {
        time_limit: Some(Duration::from_secs(60)),
        ..PrefixOptions::default()
    };
    println!("| model | backend | events | conditions | cutoffs | time (s) | builder MB | complete |");
    println!("|---|---|---|---|---|---|---|---|");
    for path in &models {
        let loaded = match qpor::load(std::path::Path::new(path), &LoadOptions::default()) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let Model::Net(net) = &loaded.model else {
            eprintln!("{path}: not a net");
            continue;
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        let Ok(sys) = NetSystem::new(net, Decomposition::Places) else {
            continue;
        };
        let runs: [(&str, Builder<'_>); 2] = [
            (
                "general",
                Box::new(|| build_general(net, &opts).expect("nets unfold")),
            ),
            (
                "program",
                Box::new(|| build_program(&sys, &opts).expect("nets unfold")),
            ),
        ];
        for (backend, run) in runs {
            let (out, secs) = best_of(run);
            let s = &out.stats;
            println!(
                "| {name} | {backend} | {} | {} | {} | {secs:.3} | {:.1} | {} |",
                s.events,
                s.conditions,
                s.cutoffs,
                s.bytes as f64 / 1e6,
                if out.stopped.is_none() { "yes" } else { "no" }
            );
        }
    }
}
