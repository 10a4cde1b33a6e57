//! The engines run on a component system or a net with their own options, for the test
//! files that compare them.
#![allow(dead_code)] // each test file uses some of these

use qpor::engines::qpor::AltMode;
use qpor::engines::{explicit, qpor as por};
use qpor::net::Net;
use qpor::unfolding::CutoffMode;
use qpor::{Budget, EngineError, FindingKind, ModelError, Observer, Report, Silent, System};
use std::collections::BTreeSet;
use std::time::Duration;

/// Every way of computing alternatives: k = 1, 2, 3, optimal and SDPOR's clues.
pub const ALL_MODES: [AltMode; 5] = [
    AltMode::KPartial(1),
    AltMode::KPartial(2),
    AltMode::KPartial(3),
    AltMode::Optimal,
    AltMode::Sdpor,
];

/// QPOR on the program-like unfolding of `sys`, without a time limit.
pub fn check_qpor<S: System + Sync + ?Sized>(
    sys: &S,
    opts: &por::QporOptions,
    observer: &mut dyn Observer,
) -> Result<Report, EngineError> {
    por::check_system(sys, opts, &Budget::unlimited(), observer, &mut por::NoTree)
}

/// QPOR on the general unfolding (branching process) of `net`, within `time_limit`.
pub fn check_general(
    net: &Net,
    opts: &por::QporOptions,
    time_limit: Option<Duration>,
    observer: &mut dyn Observer,
) -> Result<Report, EngineError> {
    por::check_net(net, opts, &Budget::new(time_limit), observer)
}

/// The explicit-state search on `sys`: the oracle.
pub fn explicit_check<S: System + ?Sized>(
    sys: &S,
    opts: &explicit::ExplicitOptions,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    explicit::search(sys, opts, &Budget::unlimited(), observer)
}

/// The explicit-state search on `sys` with default options and no limit.
pub fn explore_states<S: System + ?Sized>(sys: &S) -> Report {
    explicit::search(
        sys,
        &explicit::ExplicitOptions::default(),
        &Budget::unlimited(),
        &mut Silent,
    )
    .expect("the explicit search runs")
}

/// The explicit-state search on `sys` with `--all` if `all` and at most `max_states`
/// states (`None`: no limit).
pub fn explore_within<S: System + ?Sized>(sys: &S, all: bool, max_states: Option<u64>) -> Report {
    let opts = explicit::ExplicitOptions {
        all,
        max_states,
        ..explicit::ExplicitOptions::default()
    };
    explicit::search(sys, &opts, &Budget::unlimited(), &mut Silent).expect("the explicit search runs")
}

/// [`explore_states`] collecting every dead state (`--all`).
pub fn explore_all<S: System + ?Sized>(sys: &S) -> Report {
    let opts = explicit::ExplicitOptions {
        all: true,
        ..explicit::ExplicitOptions::default()
    };
    explicit::search(sys, &opts, &Budget::unlimited(), &mut Silent).expect("the explicit search runs")
}

/// The findings of `r` as (kind, state in words): what two engines must agree on.
pub fn dead_states(r: &Report) -> BTreeSet<(FindingKind, String)> {
    r.findings.iter().map(|f| (f.kind, f.state.clone())).collect()
}

/// Asserts that `r`, a complete run collecting every dead state, has the oracle's verdict
/// and findings.
pub fn assert_agrees(r: &Report, oracle: &Report, what: &str) {
    assert_eq!(r.verdict, oracle.verdict, "{what}");
    assert_eq!(dead_states(r), dead_states(oracle), "{what}: dead states");
}

/// [`assert_agrees`] for a QPOR run with `alt` and `cutoff`; an optimal run also meets no
/// sleep-set-blocked leaf.
pub fn assert_qpor_agrees(r: &Report, oracle: &Report, what: &str, alt: AltMode, cutoff: CutoffMode) {
    let what = format!("{what}: {alt:?} {cutoff:?}");
    assert_agrees(r, oracle, &what);
    if alt == AltMode::Optimal {
        assert_eq!(r.stats.get("ssbs"), Some(0), "{what}: SSB in optimal mode");
    }
}

/// The Table 1 families at sizes small enough to compare runs of every kind: name and
/// parameters.
pub const TABLE_1_SMALL: [(&str, &[(&str, i64)]); 5] = [
    ("dispatcher", &[("S", 3), ("R", 3)]),
    ("mpat", &[("K", 4)]),
    ("multiprodcon", &[("P", 2), ("W", 3)]),
    ("pi", &[("T", 5)]),
    ("poke", &[("N", 4), ("K", 2)]),
];

/// The shipped program `models/proc/{model}.proc` with its parameters.
pub fn program(model: &str, params: &[(&str, i64)]) -> qpor::Model {
    let opts = qpor::LoadOptions {
        defines: params.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..qpor::LoadOptions::default()
    };
    qpor::load(std::path::Path::new(&format!("models/proc/{model}.proc")), &opts)
        .unwrap_or_else(|e| panic!("{model}: {e}"))
        .model
}

/// The names of the shipped programs (`models/proc/*.proc`).
pub fn shipped_programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("models/proc")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "proc"))
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Every shipped program as (file, text), in file order.
pub fn shipped_program_texts() -> Vec<(String, String)> {
    shipped_programs()
        .into_iter()
        .map(|name| {
            let file = format!("models/proc/{name}.proc");
            let text = std::fs::read_to_string(&file).unwrap();
            (file, text)
        })
        .collect()
}

/// The names of the `param`s a program declares, in order.
pub fn param_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("param "))
        .filter_map(|l| l.split('=').next())
        .map(|n| n.trim().to_string())
        .collect()
}
