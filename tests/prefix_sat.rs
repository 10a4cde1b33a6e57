//! The prefix + SAT engine against the explicit-state oracle: the same verdict and, with
//! `--all`, the same dead states (and terminations, faults) on random safe nets, random
//! weighted nets with several tokens per place (the general backend's conditions are
//! single tokens), both unfolding backends, the shipped nets and programs; and the net on
//! which Cunf's `cna` answered a false deadlock.

mod net_support;

mod engine_support;
use engine_support::explore_within;
use net_support::{random_net, safe_net, NetSpec};
use proptest::prelude::*;
use qpor::net::{Decomposition, Net, NetSystem};
use qpor::unfolding::Backend;
use qpor::{
    check, load, CheckOptions, EngineChoice, Limits, LoadOptions, Model, Report, Silent, UnfoldingChoice,
    Verdict,
};
use std::collections::BTreeSet;
use std::path::Path;

/// (kind, state) of every finding.
fn findings(r: &Report) -> BTreeSet<(String, String)> {
    r.findings
        .iter()
        .map(|f| (f.kind.name().to_string(), f.state.clone()))
        .collect()
}

/// Random nets whose prefix grows past this are skipped (several tokens on a place make
/// a condition each, and their permutations events).
const MAX_EVENTS: u64 = 5_000;

fn prefix_sat(model: &Model, all: bool, unfolding: Backend) -> Report {
    let opts = CheckOptions {
        engine: EngineChoice::PrefixSat {
            unfolding: UnfoldingChoice {
                backend: unfolding,
                ..UnfoldingChoice::default()
            },
        },
        all,
        limits: Limits {
            max_events: Some(MAX_EVENTS),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    check(model, &opts, &mut Silent).expect("prefix-sat runs and its witnesses replay")
}

/// prefix-sat on `net` with both backends against the oracle (skipped when the oracle does
/// not finish within `max_states`). `Auto` is the general backend on safe nets and the
/// program-like one on others (the general prefix is complete on safe nets only).
fn agrees_with_the_oracle(net: &Net, max_states: u64) -> Result<(), TestCaseError> {
    let sys = NetSystem::new(net, Decomposition::Places).unwrap();
    let oracle = explore_within(&sys, true, Some(max_states));
    prop_assume!(oracle.stopped.is_none());
    let model = Model::Net(net.clone());
    for backend in [Backend::Auto, Backend::Program] {
        let all = prefix_sat(&model, true, backend);
        prop_assume!(all.stopped.is_none());
        prop_assert_eq!(all.verdict, oracle.verdict, "{:?}", backend);
        prop_assert_eq!(findings(&all), findings(&oracle), "{:?}", backend);
        let one = prefix_sat(&model, false, backend);
        prop_assert_eq!(one.verdict, oracle.verdict, "{:?}", backend);
        prop_assert!(one.findings.len() <= 1);
        if let Some(f) = one.findings.first() {
            prop_assert!(findings(&oracle).contains(&(f.kind.name().to_string(), f.state.clone())));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    /// Products of state machines: every place holds at most one token.
    #[test]
    fn safe_nets_have_the_oracles_dead_markings(spec in safe_net(false)) {
        agrees_with_the_oracle(&spec.build(), 5_000)?;
    }

    /// Ordinary nets, at most one initial token per place (often not safe).
    #[test]
    fn ordinary_nets_have_the_oracles_dead_markings(spec in random_net(2..=7, 1..=9, false, 1, 1)) {
        agrees_with_the_oracle(&spec.build(), 2_000)?;
    }
}

proptest! {
    // Several tokens per place make big prefixes: fewer, smaller cases.
    #![proptest_config(ProptestConfig { cases: 300, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    /// Weighted arcs and several tokens per place: the counters behind `--all` count the
    /// tokens of a place exactly.
    #[test]
    fn weighted_nets_have_the_oracles_dead_markings(spec in random_net(2..=4, 1..=5, false, 2, 2)) {
        agrees_with_the_oracle(&spec.build(), 300)?;
    }
}

/// Cunf's `cna` skipped the conflict clauses of the first condition of the prefix and
/// answered "deadlock" on nets like this one (docs/paper.md#deadlocks-by-sat): p0, the first place, has
/// two consumers, each taking a resource the other branch's loop needs. Firing both (which
/// the conflict on p0 forbids) would kill both loops.
#[test]
fn the_first_condition_of_the_prefix_is_in_conflict_like_any_other() {
    // Places: p0, ra, rb, x, y.
    let spec = NetSpec {
        marking: vec![1, 1, 1, 0, 0],
        transitions: vec![
            (vec![(0, 1), (1, 1)], vec![(3, 1)]),
            (vec![(3, 1), (2, 1)], vec![(3, 1), (2, 1)]),
            (vec![(0, 1), (2, 1)], vec![(4, 1)]),
            (vec![(4, 1), (1, 1)], vec![(4, 1), (1, 1)]),
        ],
    };
    let model = Model::Net(spec.build());
    for backend in [Backend::General, Backend::Program] {
        let r = prefix_sat(&model, true, backend);
        assert_eq!(r.verdict, Verdict::NoDeadlock, "{backend:?}");
        assert!(r.findings.is_empty());
    }
    // Without the loops' self-arcs each branch ends: two dead markings, no more.
    let spec = NetSpec {
        marking: vec![1, 1, 1, 0, 0],
        transitions: vec![
            (vec![(0, 1), (1, 1)], vec![(3, 1)]),
            (vec![(0, 1), (2, 1)], vec![(4, 1)]),
        ],
    };
    let r = prefix_sat(&Model::Net(spec.build()), true, Backend::General);
    assert_eq!(r.verdict, Verdict::Deadlock);
    assert_eq!(r.findings.len(), 2);
}

/// With ERV's tie-break, the token prefix of this non-safe net had no cutoff-free
/// configuration reaching the dead empty marking (both ways to pair the two p0 tokens with
/// the two p5 tokens used a cutoff whose corresponding event is in the same
/// configuration). Without it, both prefixes find all three dead markings.
#[test]
fn a_net_that_is_not_safe_gets_the_complete_prefix() {
    // t0: p3 → p5, t1: p0 →, t2: p6 →, t3: p2 → p0 + p3, t4: p0 + p5 →, t5: p4 →.
    let spec = NetSpec {
        marking: vec![1, 0, 1, 1, 0, 0, 1],
        transitions: vec![
            (vec![(3, 1)], vec![(5, 1)]),
            (vec![(0, 1)], vec![]),
            (vec![(6, 1)], vec![]),
            (vec![(2, 1)], vec![(0, 1), (3, 1)]),
            (vec![(0, 1), (5, 1)], vec![]),
            (vec![(4, 1)], vec![]),
        ],
    };
    let model = Model::Net(spec.build());
    for backend in [Backend::Auto, Backend::General, Backend::Program] {
        let r = prefix_sat(&model, true, backend);
        let states: BTreeSet<String> = r.findings.iter().map(|f| f.state.clone()).collect();
        assert_eq!(
            states,
            ["(empty)", "2*p5", "p5"].map(String::from).into(),
            "{backend:?}"
        );
    }
}

/// A transition with no input is enabled in every marking: no deadlock, whatever else.
#[test]
fn a_source_transition_rules_out_every_deadlock() {
    let spec = NetSpec {
        marking: vec![1, 0],
        transitions: vec![(vec![(0, 1)], vec![(1, 1)]), (vec![], vec![])],
    };
    let model = Model::Net(spec.build());
    for backend in [Backend::General, Backend::Program] {
        assert_eq!(
            prefix_sat(&model, true, backend).verdict,
            Verdict::NoDeadlock,
            "{backend:?}"
        );
    }
}

fn shipped(dir: &str, ext: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Every shipped net and program small enough for the oracle: the same findings with
/// `--all`, the same verdict without.
#[test]
fn shipped_models_have_the_oracles_findings() {
    let mut compared = 0;
    let models = [
        shipped("models/nets", "pnml"),
        shipped("models/ll_net", "ll_net"),
        shipped("models/proc", "proc"),
    ]
    .concat();
    for path in models {
        let loaded = load(&path, &LoadOptions::default()).unwrap();
        let sys = loaded.model.system(&Default::default()).unwrap();
        let oracle = explore_within(&*sys, true, Some(200_000));
        if oracle.stopped.is_some() {
            continue;
        }
        let all = prefix_sat(&loaded.model, true, Backend::Auto);
        assert_eq!(findings(&all), findings(&oracle), "{}", path.display());
        let one = prefix_sat(&loaded.model, false, Backend::Auto);
        assert_eq!(one.verdict, oracle.verdict, "{}", path.display());
        compared += 1;
    }
    assert!(compared >= 30, "only {compared} shipped models compared");
}

/// A failed assertion is a fault state: with `--all` every fault state the oracle
/// reaches (exactly one fault event, fired last), and the dead states beside them.
#[test]
fn program_faults_are_the_oracles() {
    let text = "\
mutex m;
var hits: int = 0;
process worker[id in 0..3] {
    lock m;
    hits += 1;
    unlock m;
    assert hits < 3;
}
init worker[0]; init worker[1]; init worker[2];
";
    let loaded = qpor::load_str(text, "faults.proc", qpor::Format::Proc, &[]).unwrap();
    let sys = loaded.model.system(&Default::default()).unwrap();
    let oracle = explore_within(&*sys, true, None);
    assert_eq!(oracle.verdict, Verdict::Fault);
    let all = prefix_sat(&loaded.model, true, Backend::Auto);
    assert_eq!(findings(&all), findings(&oracle));
    let one = prefix_sat(&loaded.model, false, Backend::Auto);
    assert_eq!(one.verdict, Verdict::Fault);
}
