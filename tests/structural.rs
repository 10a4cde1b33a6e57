//! Structural reductions against the explicit-state oracle: on random nets the reduced
//! net has a reachable deadlock iff the original has, every dead marking the oracle finds
//! in the reduced net lifts to a firing sequence of the original that ends dead, and a
//! check through the reduction gives the oracle's verdict with a replayed witness.

mod net_support;

mod engine_support;
use engine_support::explore_within;
use net_support::{random_net, NetSpec};
use proptest::prelude::*;
use qpor::net::{reduce, Decomposition, Net, NetSystem, PlaceId, TransId};
use qpor::{check, Budget, CheckOptions, EngineChoice, Model, Silent, Verdict};
use std::path::Path;

/// `spec` with some arcs cut in two by a new place and a new transition (kind 0: an input
/// arc `p → t` becomes `p → u → q → t`; kind 1: an output arc `t → p` becomes
/// `t → q → u → p`), and some transitions given a private starter (kind 2: `x → u → q → t`
/// with `x` marked once, used by nobody else), so that the agglomeration rules find
/// chains; and with read arcs added: each (t, p) makes transition t read place p.
fn with_chains(spec: &NetSpec, cuts: &[(usize, u8)], reads: &[(usize, usize)]) -> Net {
    let mut net = spec.build();
    let (places, transitions) = (net.places.len(), net.transitions.len());
    for (i, &(t, kind)) in cuts.iter().enumerate() {
        let t = TransId((t % transitions) as u32);
        if kind % 3 == 2 {
            let x = net.add_place(format!("x{i}"), None, 1);
            let q = net.add_place(format!("c{i}"), None, 0);
            net.add_transition_between(format!("u{i}"), &[x], &[q]);
            net.add_pre(t, q, 1);
            continue;
        }
        let input = kind % 3 == 0;
        let arcs = if input {
            &net.transitions[t.index()].pre
        } else {
            &net.transitions[t.index()].post
        };
        let Some(&(p, w)) = arcs.first() else { continue };
        let q = net.add_place(format!("c{i}"), None, 0);
        let u = net.add_transition(format!("u{i}"), None);
        let tr = &mut net.transitions[t.index()];
        if input {
            tr.pre.retain(|&(r, _)| r != p);
            net.add_pre(t, q, w);
            net.add_pre(u, p, w);
            net.add_post(u, q, w);
        } else {
            tr.post.retain(|&(r, _)| r != p);
            net.add_post(t, q, 1);
            net.add_pre(u, q, 1);
            net.add_post(u, p, w);
        }
    }
    for &(t, p) in reads {
        let (t, p) = (t % transitions, p % places);
        if !net.transitions[t].reads(PlaceId(p as u32)) {
            net.add_read(TransId(t as u32), PlaceId(p as u32));
        }
    }
    net
}

/// Fires `seq` on `net` from its initial marking; the marking reached, or the step that
/// was not enabled.
fn fire_all(net: &Net, seq: &[TransId]) -> Result<Vec<u32>, usize> {
    let mut m = net.initial_marking();
    match seq.iter().position(|&t| !net.fire(&mut m, t)) {
        Some(i) => Err(i),
        None => Ok(m),
    }
}

fn dead(net: &Net, m: &[u32]) -> bool {
    net.transitions
        .iter()
        .all(|tr| tr.needs().iter().any(|&(p, w)| m[p.index()] < w))
}

/// The reduction of `net` against the oracle: the same answer, and liftable witnesses.
fn reduction_keeps_deadlocks(net: &Net) -> Result<(), TestCaseError> {
    let sys = NetSystem::new(net, Decomposition::Places).unwrap();
    // Every state, so that the reduced net (whose markings are projections of these) is
    // known to be small too.
    let oracle = explore_within(&sys, true, Some(5_000));
    prop_assume!(oracle.stopped.is_none());
    let reduced = reduce(net, &Budget::unlimited());
    let small = NetSystem::new(&reduced.net, Decomposition::Places).unwrap();
    let on_reduced = explore_within(&small, true, Some(50_000));
    prop_assert_eq!(on_reduced.stopped, None);
    prop_assert!(on_reduced.stats.get("states") <= oracle.stats.get("states"));
    let deadlocks = |v: Verdict| v == Verdict::Deadlock;
    prop_assert_eq!(
        deadlocks(on_reduced.verdict),
        deadlocks(oracle.verdict),
        "reduced: {:?}",
        reduced.summary
    );
    for finding in &on_reduced.findings {
        let steps: Vec<TransId> = finding.witness.steps.iter().map(|s| TransId(s.id.0)).collect();
        let lifted = reduced.lift(net, &steps).map_err(TestCaseError::fail)?;
        let reached = fire_all(net, &lifted);
        prop_assert!(reached.is_ok(), "lifted step {:?} not enabled", reached);
        prop_assert!(
            dead(net, &reached.unwrap()),
            "the lifted witness does not end dead"
        );
    }
    Ok(())
}

proptest! {
    // Unbounded random nets are skipped: up to a third of the weighted ones.
    #![proptest_config(ProptestConfig { cases: 2000, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    /// Weighted nets with several tokens per place, chains cut into some arcs.
    #[test]
    fn weighted_nets_keep_their_deadlocks(
        spec in random_net(2..=7, 1..=10, false, 3, 3),
        cuts in prop::collection::vec((0usize..10, 0u8..3), 0..=6),
    ) {
        reduction_keeps_deadlocks(&with_chains(&spec, &cuts, &[]))?;
    }

    /// Ordinary nets with at most one initial token per place, chains and read arcs.
    #[test]
    fn ordinary_nets_with_read_arcs_keep_their_deadlocks(
        spec in random_net(2..=8, 1..=12, false, 1, 1),
        cuts in prop::collection::vec((0usize..12, 0u8..3), 0..=8),
        reads in prop::collection::vec((0usize..12, 0usize..8), 0..=3),
    ) {
        reduction_keeps_deadlocks(&with_chains(&spec, &cuts, &reads))?;
    }

    /// Through `check`: the explicit engine on the reduced net gives the oracle's verdict,
    /// and its witness, lifted, passes the replay on the original net.
    #[test]
    fn checks_through_the_reduction_agree_with_the_oracle(
        spec in random_net(2..=8, 1..=12, false, 2, 2),
        cuts in prop::collection::vec((0usize..12, 0u8..3), 0..=8),
    ) {
        let net = with_chains(&spec, &cuts, &[]);
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let oracle = explore_within(&sys, false, Some(5_000));
        prop_assume!(oracle.stopped.is_none());
        let opts = CheckOptions {
            engine: EngineChoice::Explicit,
            reduce: Some(true),
            ..CheckOptions::default()
        };
        let r = check(&Model::Net(net), &opts, &mut Silent).unwrap();
        prop_assert_eq!(r.verdict, oracle.verdict);
        prop_assert!(r.reduction.is_some());
    }
}

/// Every shipped net small enough for the oracle: the same answer reduced and not.
#[test]
fn shipped_nets_keep_their_deadlocks() {
    let mut compared = 0;
    for dir in ["models/nets", "models/ll_net", "models/mcc2023"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.extension().is_some_and(|e| e == "pnml" || e == "ll_net") {
                continue;
            }
            let Model::Net(net) = qpor::load(Path::new(&path), &Default::default()).unwrap().model else {
                unreachable!("{} is a net", path.display())
            };
            let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
            let oracle = explore_within(&sys, false, Some(200_000));
            if oracle.stopped.is_some() {
                continue;
            }
            let opts = CheckOptions {
                engine: EngineChoice::Explicit,
                reduce: Some(true),
                ..CheckOptions::default()
            };
            let r = check(&Model::Net(net), &opts, &mut Silent).unwrap();
            assert_eq!(r.verdict, oracle.verdict, "{}", path.display());
            compared += 1;
        }
    }
    assert!(compared >= 20, "only {compared} nets compared");
}

/// `count` random nets (the same ones every run) with up to `places` places and
/// `transitions` transitions before chains and starters are added, weights and tokens up
/// to 2, and read arcs.
fn sample_nets(count: usize, places: usize, transitions: usize) -> Vec<Net> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (
        random_net(2..=places, 1..=transitions, false, 2, 2),
        prop::collection::vec((0..transitions, 0u8..3), 0..=places),
        prop::collection::vec((0..transitions, 0..places), 0..=3),
    );
    (0..count)
        .map(|_| {
            let (spec, cuts, reads) = strategy.new_tree(&mut runner).unwrap().current();
            with_chains(&spec, &cuts, &reads)
        })
        .collect()
}

/// The random nets above exercise every rule: over 1 000 of them, each rule applies.
#[test]
fn the_random_nets_exercise_every_rule() {
    let mut seen = std::collections::BTreeMap::new();
    for net in sample_nets(1000, 8, 12) {
        let reduced = reduce(&net, &Budget::unlimited());
        for (rule, n) in reduced.summary.rules {
            *seen.entry(rule).or_insert(0) += n;
        }
    }
    let rules = [
        "dead-transition",
        "sink-place",
        "constant-place",
        "duplicate-place",
        "dominated-transition",
        "post-agglomeration",
        "pre-agglomeration",
        "implicit-place",
    ];
    // The implicit-place rule solves linear programs with Z3: a build without `lp` has
    // the other rules only.
    for rule in rules
        .into_iter()
        .filter(|&r| cfg!(feature = "lp") || r != "implicit-place")
    {
        assert!(
            seen.get(rule).is_some_and(|&n| n > 0),
            "{rule} never applied: {seen:?}"
        );
    }
}

/// The state equation on `net`, through `check` without reductions: its verdict.
#[cfg(feature = "lp")]
fn lp_verdict(net: &Net) -> Verdict {
    let opts = CheckOptions {
        engine: EngineChoice::Lp,
        reduce: Some(false),
        ..CheckOptions::default()
    };
    check(&Model::Net(net.clone()), &opts, &mut Silent)
        .unwrap()
        .verdict
}

/// On random nets the state equation never claims deadlock freedom the oracle denies,
/// reduced or not, and reports a deadlock (a fired dead solution, replayed by `check`) only
/// where the oracle finds one; it proves some and fires some. Needs the `lp` engine (Z3).
#[cfg(feature = "lp")]
#[test]
fn the_state_equation_answers_only_what_the_oracle_says() {
    let (mut proved, mut fired, mut compared) = (0, 0, 0);
    for net in sample_nets(800, 7, 10) {
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let oracle = explore_within(&sys, false, Some(5_000));
        if oracle.stopped.is_some() && oracle.verdict != Verdict::Deadlock {
            continue;
        }
        compared += 1;
        let plain = lp_verdict(&net);
        if plain == Verdict::Deadlock {
            assert_eq!(oracle.verdict, Verdict::Deadlock, "a wrong deadlock on {net:?}");
            fired += 1;
        }
        if plain == Verdict::NoDeadlock {
            assert_eq!(oracle.verdict, Verdict::NoDeadlock, "a wrong proof on {net:?}");
            proved += 1;
        }
        let reduced = check(
            &Model::Net(net.clone()),
            &CheckOptions {
                engine: EngineChoice::Lp,
                ..CheckOptions::default()
            },
            &mut Silent,
        )
        .unwrap();
        if reduced.verdict != Verdict::Inconclusive {
            assert_eq!(
                oracle.verdict, reduced.verdict,
                "a wrong answer, reduced, on {net:?}"
            );
        }
    }
    assert!(compared > 500, "only {compared} nets compared");
    assert!(proved >= 5, "only {proved} proofs");
    assert!(fired >= 5, "only {fired} dead solutions fired");
}

/// The shipped MCC nets with their published answers: the state equation (after the
/// reductions) proves deadlock freedom only where the contest's answer says there is no
/// deadlock, and it proves most of those; a deadlock it shows is one the contest found.
/// Needs the `lp` engine (Z3).
#[cfg(feature = "lp")]
#[test]
fn the_state_equation_agrees_with_the_contest_on_the_shipped_nets() {
    let verdicts = std::fs::read_to_string("models/mcc2023/verdicts.tsv").unwrap();
    let (mut free, mut proved) = (0, 0);
    for line in verdicts.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (name, deadlock) = (fields[0], fields[1] == "TRUE");
        let path = format!("models/mcc2023/{name}.pnml");
        let model = qpor::load(Path::new(&path), &Default::default()).unwrap().model;
        let opts = CheckOptions {
            engine: EngineChoice::Lp,
            ..CheckOptions::default()
        };
        let r = check(&model, &opts, &mut Silent).unwrap();
        if r.verdict == Verdict::Deadlock {
            assert!(deadlock, "{name}: a deadlock shown, but the contest found none");
        }
        if r.verdict == Verdict::NoDeadlock {
            assert!(
                !deadlock,
                "{name}: a proof of deadlock freedom, but the net deadlocks"
            );
            proved += 1;
        }
        free += usize::from(!deadlock);
        assert!(r.reduction.is_some(), "{name}: lp reduces by default");
    }
    assert!(
        proved * 4 >= free * 3,
        "{proved} of {free} deadlock-free nets proved"
    );
}
