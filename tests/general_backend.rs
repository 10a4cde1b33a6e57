//! The general backend (branching processes with individual tokens) against the
//! program-like backend and the explicit-state oracle:
//! - on random safe nets (products of state machines, each machine a 1-token invariant),
//!   the two backends give prefixes of the same size under the ERV order (events, cutoffs,
//!   and token conditions), QPOR gives the same verdicts and dead states on both, the same
//!   number of maximal configurations on acyclic nets without cutoffs, and no SSB in
//!   optimal mode;
//! - on random non-safe and weighted nets, QPOR over the general backend gives the verdicts
//!   and `--all` dead-state sets of the explicit engine, for several alternative modes and
//!   both cutoff orders.

mod net_support;

mod engine_support;
use engine_support::{assert_qpor_agrees, check_general, check_qpor, dead_states, explicit_check};
use net_support::{random_net, safe_net, NetSpec};
use proptest::prelude::*;
use qpor::engines::explicit::ExplicitOptions;
use qpor::engines::qpor::AltMode;
use qpor::engines::qpor::QporOptions;
use qpor::net::{Decomposition, Net, NetSystem};
use qpor::unfolding::prefix::{build_general, build_program, PrefixOptions};
use qpor::unfolding::CutoffMode;
use qpor::{Report, Silent, Verdict};
use std::time::Duration;

const MODES: [AltMode; 4] = [
    AltMode::KPartial(1),
    AltMode::KPartial(2),
    AltMode::Optimal,
    AltMode::Sdpor,
];

/// The general backend's QPOR against the oracle; returns the oracle's report, or None
/// when the oracle did not finish (an unbounded net).
/// The time one QPOR run of a property case may take.
const BUDGET: Duration = Duration::from_secs(2);

fn general_agrees_with_oracle(net: &Net, what: &str) -> Option<Report> {
    let sys = NetSystem::new(net, Decomposition::Places).unwrap();
    let all = ExplicitOptions {
        all: true,
        max_states: Some(400),
        ..ExplicitOptions::default()
    };
    let oracle = explicit_check(&sys, &all, &mut Silent).unwrap();
    if oracle.stopped.is_some() {
        return None;
    }
    let expected = dead_states(&oracle);
    for cutoff in [CutoffMode::Erv, CutoffMode::McMillan] {
        for alt in MODES {
            let opts = QporOptions {
                all: true,
                alt,
                cutoff,
                max_events: Some(20_000),
                ..QporOptions::default()
            };
            let r = check_general(net, &opts, Some(BUDGET), &mut Silent).unwrap();
            if r.verdict == Verdict::Inconclusive || r.stopped.is_some() {
                // Individual tokens multiply events on non-safe nets (k tokens, weight w:
                // C(k, w) events per firing), and the optimal comb over their conflicts is
                // an NP-complete search; the limits are the only way out here. A
                // run stopped after finding deadlocks says "deadlock" and lists only some:
                // those must be real.
                assert!(
                    r.stopped.is_some_and(|s| s.to_string().contains("limit")),
                    "{what}: {alt:?} {cutoff:?} inconclusive without reaching a limit"
                );
                assert!(
                    dead_states(&r).is_subset(&expected),
                    "{what}: {alt:?} {cutoff:?}: a stopped run reported a state that is not dead"
                );
                return None;
            }
            assert_qpor_agrees(&r, &oracle, what, alt, cutoff);
            let first = QporOptions { all: false, ..opts };
            let first = check_general(net, &first, Some(BUDGET), &mut Silent).unwrap();
            if first.stopped.is_none() {
                assert_eq!(
                    first.verdict, oracle.verdict,
                    "{what}: first deadlock, {alt:?} {cutoff:?}"
                );
            }
        }
    }
    Some(oracle)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn safe_nets_give_isomorphic_prefixes_and_explorations(spec in safe_net(false)) {
        let net = spec.build();
        let what = format!("{spec:?}");
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let opts = PrefixOptions { max_events: Some(20_000), ..PrefixOptions::default() };
        let g = build_general(&net, &opts).unwrap();
        let p = build_program(&sys, &opts).unwrap();
        prop_assert!(g.stopped.is_none() && p.stopped.is_none(), "{}: prefix too large", what);
        prop_assert_eq!(g.stats.events, p.stats.events, "{}: events", &what);
        prop_assert_eq!(g.stats.cutoffs, p.stats.cutoffs, "{}: cutoffs", &what);
        // A program-like condition of a safe net is a place holding 0 or 1 token; the
        // 1-token ones are the general backend's conditions.
        let tokens = p.prefix.conditions.iter().filter(|c| !c.label.ends_with("=0")).count() as u64;
        prop_assert_eq!(g.stats.conditions, tokens, "{}: token conditions", &what);
        let labels = |x: &qpor::unfolding::prefix::Prefix| {
            let mut v: Vec<(String, bool)> =
                x.events.iter().map(|e| (e.label.clone(), e.cutoff.is_some())).collect();
            v.sort();
            v
        };
        prop_assert_eq!(labels(&g.prefix), labels(&p.prefix), "{}: event labels", &what);

        let oracle = general_agrees_with_oracle(&net, &what).expect("safe nets are small and bounded");
        // ERV is total on safe nets: non-cutoff events have pairwise distinct markings,
        // none of them the initial one.
        let states = oracle.stats.get("states").expect("the explicit engine counts states");
        prop_assert!(g.stats.events - g.stats.cutoffs < states, "{}: more non-cutoff events than markings", &what);
        let all = QporOptions { all: true, alt: AltMode::Optimal, ..QporOptions::default() };
        let r = check_qpor(&sys, &all, &mut Silent).unwrap();
        prop_assert_eq!(dead_states(&r), dead_states(&oracle), "{}: program backend", &what);
    }

    #[test]
    fn acyclic_safe_nets_have_the_same_maximal_configurations(spec in safe_net(true)) {
        let net = spec.build();
        let what = format!("{spec:?}");
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        for alt in MODES {
            let opts = QporOptions { all: true, alt, cutoff: CutoffMode::None, ..QporOptions::default() };
            let g = check_general(&net, &opts, None, &mut Silent).unwrap();
            let p = check_qpor(&sys, &opts, &mut Silent).unwrap();
            prop_assert_eq!(
                g.stats.get("max_configurations"),
                p.stats.get("max_configurations"),
                "{}: maximal configurations with {:?}", &what, alt
            );
            prop_assert_eq!(dead_states(&g), dead_states(&p), "{}: {:?}", &what, alt);
            if alt == AltMode::Optimal {
                prop_assert_eq!(g.stats.get("ssbs"), Some(0), "{}: SSB in optimal mode", &what);
            }
        }
        let opts = PrefixOptions { cutoff: CutoffMode::None, ..PrefixOptions::default() };
        let g = build_general(&net, &opts).unwrap();
        let p = build_program(&sys, &opts).unwrap();
        prop_assert_eq!(g.stats.events, p.stats.events, "{}: unfolding events", &what);
    }

    #[test]
    fn non_safe_and_weighted_nets_agree_with_the_oracle(spec in random_net(2..=4, 1..=5, false, 2, 2)) {
        let net = spec.build();
        general_agrees_with_oracle(&net, &format!("{spec:?}"));
    }
}

#[test]
fn the_general_backend_finds_the_deadlock_of_the_lock_net_and_says_so() {
    // Two processes taking two locks in opposite orders (docs/paper.md#the-pep-low-level-net-format).
    let spec = NetSpec {
        marking: vec![1, 0, 0, 1, 0, 0, 1, 1],
        transitions: vec![
            (vec![(0, 1), (6, 1)], vec![(1, 1)]),
            (vec![(1, 1), (7, 1)], vec![(2, 1)]),
            (vec![(2, 1)], vec![(0, 1), (6, 1), (7, 1)]),
            (vec![(3, 1), (7, 1)], vec![(4, 1)]),
            (vec![(4, 1), (6, 1)], vec![(5, 1)]),
            (vec![(5, 1)], vec![(3, 1), (6, 1), (7, 1)]),
        ],
    };
    let net = spec.build();
    let r = check_general(&net, &QporOptions::default(), None, &mut Silent).unwrap();
    assert_eq!(r.verdict, Verdict::Deadlock);
    assert_eq!(r.witness().map(|w| w.steps.len()), Some(2));
    let settings: qpor::engines::qpor::QporSettings = r.settings.typed().expect("QPOR's settings");
    assert_eq!(settings.unfolding, "general");
    let out = build_general(&net, &PrefixOptions::default()).unwrap();
    // Cunf: 6 events, 14 conditions, 2 cutoffs (the two releases).
    assert_eq!(
        (out.stats.events, out.stats.conditions, out.stats.cutoffs),
        (6, 14, 2)
    );
}

#[test]
fn a_weighted_net_needs_two_tokens_at_once() {
    // t needs 2 tokens of p; u puts one back after taking one. Dead states: p = 0 or 1
    // after t; the oracle and both cutoff orders agree.
    let spec = NetSpec {
        marking: vec![3, 0],
        transitions: vec![(vec![(0, 2)], vec![(1, 1)]), (vec![(1, 1)], vec![])],
    };
    let net = spec.build();
    let oracle = general_agrees_with_oracle(&net, "weighted").unwrap();
    assert_eq!(oracle.verdict, Verdict::Deadlock);
}

/// The Theorem 4.3 net (src/hardness/net.rs) of a formula over 20 variables with two
/// clauses: t* has a co-set for every assignment and every choice of a true literal per
/// clause — 2 359 296 of them, far over 2^15 — and cex(C) holds one t*-event per co-set.
/// The general backend makes each event as soon as the co-set search finds its co-set, so
/// a small event limit stops the search at once, with only the events made in memory (the
/// search used to gather every co-set first, here about 130 MB, and 2 GB with 24
/// variables, before the limit could act).
#[test]
fn the_cex_search_stops_at_the_event_limit_before_gathering_every_coset() {
    use qpor::formats::dimacs::Cnf;
    use qpor::hardness::{decide_cex, CexOptions};
    use qpor::hardness::{Instance, NetInstance};
    use qpor::unfolding::GeneralOptions;
    use qpor::unfolding::{UnfoldError, Unfolding};
    use qpor::ActionId;

    const LIMIT: u64 = 2_000;
    let cnf = Cnf::new(20, vec![vec![1, 2, 3], vec![-4, 5, -6]]);
    let r = qpor::hardness::net_instance(&cnf);

    // The backend alone: C by its firing sequence, then the whole cex(C).
    let opts = GeneralOptions {
        cutoff: CutoffMode::None,
        max_events: Some(LIMIT),
        erv_ties: false,
    };
    let mut unf = unfolding_at_config(&r, opts, "C and its enabled events fit under the limit");
    let built = unf.stats().events_created;
    assert!(built < LIMIT / 4, "C and en(C) made {built} events");
    match unf.add_conflicting_extensions(0) {
        Err(UnfoldError::EventLimit(n)) => assert_eq!(n, LIMIT),
        other => panic!("cex(C) of 2^20-odd events under a limit of {LIMIT}: {other:?}"),
    }
    let s = unf.stats();
    assert!(s.events_created <= LIMIT, "{} events made", s.events_created);
    assert!(s.events_alive <= LIMIT, "{} events alive", s.events_alive);
    let stars = unf
        .live_events()
        .filter(|&e| unf.action(e) == ActionId(r.target.0))
        .count() as u64;
    assert_eq!(stars, LIMIT - built, "the events past C are t*-events of cex(C)");

    // The decider asking the backend for the whole cex(C) with no co-set gate: the answer
    // comes from its own search, the backend's cross-check stops at the event limit.
    let inst = Instance::Net(NetInstance {
        net: r.net.clone(),
        config: r.config.clone(),
        target: r.target,
        means: r.means.clone(),
    });
    let copts = CexOptions {
        max_events: Some(LIMIT),
        backend_limit: None,
    };
    let a = decide_cex(&inst, &copts).expect("the limit drops the cross-check, not the answer");
    assert!(a.exists && a.witness.is_some(), "the formula is satisfiable");
    assert!(a.backend.is_none(), "cex(C) does not fit under {LIMIT} events");
    assert!(a.events <= LIMIT, "{} events", a.events);
}

/// The general unfolding of the reduction's net with C its firing sequence (`why`: why
/// en(C) must be computable along the way).
fn unfolding_at_config(
    r: &qpor::hardness::HardnessNet,
    opts: qpor::unfolding::GeneralOptions,
    why: &str,
) -> qpor::unfolding::GeneralUnfolding {
    use qpor::unfolding::GeneralUnfolding;
    use qpor::unfolding::Unfolding;
    use qpor::ActionId;

    let mut unf = GeneralUnfolding::new(&r.net, opts);
    let mut en = Vec::new();
    for t in &r.config {
        en.clear();
        unf.enabled(&mut en).expect(why);
        let e = *en
            .iter()
            .find(|&&e| unf.action(e) == ActionId(t.0))
            .expect("C's next firing is enabled");
        unf.push(e);
    }
    unf
}

/// The same cex(C) of 2^20-odd events with no event limit but a deadline that has passed:
/// the backend reads the clock inside the co-set search and gives up with
/// `UnfoldError::TimeLimit` long before it has made every event.
#[test]
fn the_cex_search_stops_at_the_deadline() {
    use qpor::formats::dimacs::Cnf;
    use qpor::unfolding::GeneralOptions;
    use qpor::unfolding::{UnfoldError, Unfolding};

    let cnf = Cnf::new(20, vec![vec![1, 2, 3], vec![-4, 5, -6]]);
    let r = qpor::hardness::net_instance(&cnf);
    let opts = GeneralOptions {
        cutoff: CutoffMode::None,
        max_events: None,
        erv_ties: false,
    };
    let mut unf = unfolding_at_config(&r, opts, "no deadline yet");
    let mut en = Vec::new();
    unf.set_deadline(Some(std::time::Instant::now()));
    match unf.add_conflicting_extensions(0) {
        Err(UnfoldError::TimeLimit) => {}
        other => panic!("cex(C) of 2^20-odd events past the deadline: {other:?}"),
    }
    let s = unf.stats();
    assert!(s.events_created < 100_000, "{} events made", s.events_created);
    unf.set_deadline(None);
    en.clear();
    unf.enabled(&mut en).expect("no deadline any more");
}

/// ERV's tie-break between histories of equal size decides QPOR's cutoffs only on nets
/// proven safe: on the non-safe net CI found (`tests/prefix.rs`), where the ERV prefix had
/// missed the dead empty marking, ERV cuts exactly where McMillan does; on the safe dph_4,
/// McMillan explores about four times as many events as ERV.
#[test]
fn erv_ties_cut_only_on_nets_proven_safe() {
    let non_safe = NetSpec {
        marking: vec![1, 1, 1, 0, 0],
        transitions: vec![
            (vec![(0, 1), (4, 1)], vec![]),
            (vec![(1, 1)], vec![(4, 1)]),
            (vec![(2, 1)], vec![(0, 1), (1, 1)]),
        ],
    }
    .build();
    let loaded = qpor::load(
        std::path::Path::new("models/ll_net/dph_4.fsa.ll_net"),
        &qpor::LoadOptions::default(),
    )
    .unwrap();
    let qpor::Model::Net(safe) = loaded.model else {
        panic!("dph_4 is a net")
    };
    let events = |net: &Net, cutoff| {
        let opts = QporOptions {
            all: true,
            cutoff,
            ..QporOptions::default()
        };
        let r = check_general(net, &opts, None, &mut Silent).unwrap();
        assert!(r.stopped.is_none());
        (
            r.stats.get("events").unwrap(),
            r.stats.get("cutoff_events").unwrap(),
        )
    };
    assert_eq!(
        events(&non_safe, CutoffMode::Erv),
        events(&non_safe, CutoffMode::McMillan)
    );
    let (erv, mcmillan) = (
        events(&safe, CutoffMode::Erv),
        events(&safe, CutoffMode::McMillan),
    );
    assert!(
        3 * erv.0 < mcmillan.0,
        "dph_4: ERV {erv:?}, McMillan {mcmillan:?}"
    );
}
