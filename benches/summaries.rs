//! Bytes per event of the program-like unfolding's history summaries (the map c ↦ max_c(\[e\])
//! of every event), against the two ways of storing them that copy a history per event: a
//! dense array over all components and Dpu's sparse sorted list.
//!
//! `cargo bench --bench summaries` explores each model with QPOR (optimal alternatives,
//! `--all`, no pruning, so every event ever created is still alive at the end) and prints
//! one Markdown row per model. Programs have few components (one per process, mutex,
//! variable); nets are cut into one component per place, where a history touches many
//! components.

use qpor::engines::qpor::{explore, AltMode, ExploreOptions, NoTree};
use qpor::net::Decomposition;
use qpor::unfolding::CutoffMode;
use qpor::unfolding::{ProgramOptions, ProgramUnfolding};
use qpor::SystemOptions;
use qpor::{load, LoadOptions};
use qpor::{Budget, Silent};
use std::path::Path;
use std::time::Duration;

struct Case {
    name: &'static str,
    path: &'static str,
    defines: &'static [(&'static str, i64)],
    cutoff: CutoffMode,
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { name: "Disp(5,3)", path: "models/proc/dispatcher.proc", defines: &[("S", 5), ("R", 3)], cutoff: CutoffMode::None },
    Case { name: "Mpat(5)", path: "models/proc/mpat.proc", defines: &[("K", 5)], cutoff: CutoffMode::None },
    Case { name: "MPC(3,5)", path: "models/proc/multiprodcon.proc", defines: &[("P", 3), ("W", 5)], cutoff: CutoffMode::None },
    Case { name: "Pol(8,3)", path: "models/proc/poke.proc", defines: &[("N", 8), ("K", 3)], cutoff: CutoffMode::None },
    Case { name: "Pi(7)", path: "models/proc/pi.proc", defines: &[("T", 7)], cutoff: CutoffMode::None },
    Case { name: "dph_5 (places)", path: "models/ll_net/dph_5.fsa.ll_net", defines: &[], cutoff: CutoffMode::Erv },
    Case { name: "dpd_5 (places)", path: "models/ll_net/dpd_5.fsa.ll_net", defines: &[], cutoff: CutoffMode::Erv },
    Case { name: "rw_6 (places)", path: "models/ll_net/rw_6.fsa.ll_net", defines: &[], cutoff: CutoffMode::Erv },
    Case { name: "Peterson-PT-2 (places)", path: "models/mcc2023/Peterson-PT-2.pnml", defines: &[], cutoff: CutoffMode::Erv },
    Case { name: "Dekker-PT-010 (places)", path: "models/mcc2023/Dekker-PT-010.pnml", defines: &[], cutoff: CutoffMode::Erv },
    Case { name: "DLCround-PT-03a (places)", path: "models/mcc2023/DLCround-PT-03a.pnml", defines: &[], cutoff: CutoffMode::Erv },
    Case { name: "buf100 (places)", path: "models/ll_net/buf100.ll_net", defines: &[], cutoff: CutoffMode::Erv },
];

fn main() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    println!("| model | components | live events | trie B/event | sparse copy B/event | dense copy B/event | entries/event |");
    println!("|---|---|---|---|---|---|---|");
    for case in CASES {
        let opts = LoadOptions {
            format: None,
            defines: case.defines.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        };
        let model = load(Path::new(case.path), &opts)
            .unwrap_or_else(|e| panic!("{}: {e}", case.path))
            .model;
        let sys = model
            .system(&SystemOptions {
                decomposition: Some(Decomposition::Places),
                ..SystemOptions::default()
            })
            .unwrap();
        let mut unf = ProgramUnfolding::new(
            &*sys,
            ProgramOptions {
                cutoff: case.cutoff,
                max_events: Some(2_000_000),
                distances: None,
                canonical: None,
            },
        );
        let qopts = ExploreOptions {
            alt: AltMode::Optimal,
            all: true,
            no_prune: true,
        };
        let budget = Budget::new(Some(Duration::from_secs(10)));
        let out = explore(&mut unf, &*sys, &qopts, &budget, &mut Silent, &mut NoTree).unwrap();
        let f = unf.summary_footprint();
        println!(
            "| {}{} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            case.name,
            if out.stopped.is_some() { " (stopped)" } else { "" },
            f.components,
            f.events,
            f.trie_bytes_per_event(),
            f.sparse_bytes_per_event(),
            f.dense_bytes_per_event(),
            f.entries as f64 / f.events.max(1) as f64,
        );
    }
}
