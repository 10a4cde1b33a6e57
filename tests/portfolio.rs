//! The `auto` portfolio and the random walk against the explicit-state oracle on random
//! nets, the OneSafe view of a net, and cancellation of a run that explodes.

mod net_support;

mod engine_support;
use engine_support::{dead_states, explore_within};
use net_support::random_net;
use proptest::prelude::*;
use qpor::engines::walk::{walk, WalkOptions};
use qpor::net::{Decomposition, NetSystem};
use qpor::{
    check, Budget, CheckOptions, EngineChoice, Limits, Model, PortfolioChoice, RunEnd, Silent, Verdict,
};
use std::process::Command;
use std::time::{Duration, Instant};

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Whatever engine answers, the portfolio's verdict is the oracle's, and with `--all`
    /// its dead states are the oracle's; every witness was replayed by `check`.
    #[test]
    fn the_portfolio_answers_as_the_oracle(spec in random_net(2..=7, 1..=10, false, 2, 2), all in any::<bool>(), jobs in 2usize..=3) {
        let net = spec.build();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let oracle = explore_within(&sys, true, Some(5_000));
        prop_assume!(oracle.stopped.is_none());
        let opts = CheckOptions {
            all,
            engine: EngineChoice::Auto(PortfolioChoice {
                jobs: Some(jobs),
                ..PortfolioChoice::default()
            }),
            limits: Limits {
                max_events: Some(200_000),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let r = check(&Model::Net(net), &opts, &mut Silent).unwrap();
        prop_assert_eq!(r.engine, "auto");
        // prefix-sat joins on nets with unit weights and at most one token per place; the
        // net the engines see without `--all` is the reduced one. Without `--all` the walk
        // and the best-first stubborn search join. A build without `lp` (Z3) has no state
        // equation, nor the quick stubborn search that starts before it.
        let prefix_sat = r.engines.iter().any(|e| e.engine == "prefix-sat");
        let lp = 2 * usize::from(cfg!(feature = "lp"));
        prop_assert_eq!(r.engines.len(), if all { 3 } else { 5 } + lp + usize::from(prefix_sat));
        if all {
            let unit = spec.marking.iter().all(|&m| m <= 1)
                && spec.transitions.iter().all(|(pre, post)| pre.iter().chain(post).all(|&(_, w)| w == 1));
            prop_assert_eq!(prefix_sat, unit);
        }
        // The explicit member has no state limit here, so the portfolio always decides.
        prop_assert_eq!(r.verdict, oracle.verdict);
        let by = r.answered_by.expect("a conclusive portfolio names the engine that answered");
        let winner = r.engines.iter().find(|e| e.engine == by).unwrap();
        prop_assert_eq!(winner.ended, RunEnd::Answered);
        if all {
            prop_assert_eq!(dead_states(&r), dead_states(&oracle));
        } else if r.verdict == Verdict::Deadlock {
            let f = &r.findings[0];
            prop_assert!(dead_states(&oracle).contains(&(f.kind, f.state.clone())));
        }
    }

    /// The walk never claims absence, and every dead state it reports is one of the oracle's.
    #[test]
    fn the_walk_reports_only_true_dead_states(spec in random_net(2..=7, 1..=10, false, 2, 2), seed in any::<u64>()) {
        let net = spec.build();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let oracle = explore_within(&sys, true, Some(5_000));
        prop_assume!(oracle.stopped.is_none());
        let opts = WalkOptions { seed, all: true, ..WalkOptions::default() };
        let r = walk(&sys, &opts, &Budget::new(Some(Duration::from_millis(20))), &mut Silent).unwrap();
        prop_assert_ne!(r.verdict, Verdict::NoDeadlock);
        prop_assert!(dead_states(&r).is_subset(&dead_states(&oracle)));
        if !oracle.findings.is_empty() && oracle.findings.iter().all(|f| f.witness.steps.is_empty()) {
            // A dead initial state is the first step of every walk.
            prop_assert!(!r.findings.is_empty());
        }
    }
}

/// With one job the engines take turns (the walk's slice first) and still decide every
/// shipped net, as `models/nets/answers.tsv` says.
#[test]
fn one_job_takes_turns_and_decides_the_shipped_nets() {
    let answers = std::fs::read_to_string("models/nets/answers.tsv").unwrap();
    for line in answers.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let file = format!("models/nets/{}.pnml", cols[0]);
        let model = qpor::load(std::path::Path::new(&file), &Default::default())
            .unwrap()
            .model;
        let opts = CheckOptions {
            engine: EngineChoice::Auto(PortfolioChoice {
                jobs: Some(1),
                ..PortfolioChoice::default()
            }),
            limits: Limits {
                time_limit: Some(Duration::from_secs(3)),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let r = check(&model, &opts, &mut Silent).unwrap();
        let expected = if cols[1] == "YES" {
            Verdict::Deadlock
        } else {
            Verdict::NoDeadlock
        };
        assert_eq!(r.verdict, expected, "{file}: {:?}", r.engines);
    }
}

/// The same seed, the same walks: a step budget instead of a clock keeps it exact.
#[test]
fn the_walk_is_repeatable_from_its_seed() {
    let model = qpor::load(
        std::path::Path::new("models/nets/philosophers-10.pnml"),
        &Default::default(),
    )
    .unwrap();
    let opts = CheckOptions {
        engine: EngineChoice::Walk { seed: 7 },
        ..CheckOptions::default()
    };
    let a = check(&model.model, &opts, &mut Silent).unwrap();
    let b = check(&model.model, &opts, &mut Silent).unwrap();
    assert_eq!(a.verdict, Verdict::Deadlock);
    assert_eq!(a.findings[0].witness, b.findings[0].witness);
}

/// OneSafe as faults: a place with two tokens is a fault found with a replayed witness;
/// a safe net explored completely has none.
#[test]
fn the_one_safe_view_finds_two_tokens_on_a_place() {
    for (file, safe) in [
        ("models/nets/producer-consumer-4.pnml", false),
        ("models/nets/philosophers-ordered-5.pnml", true),
    ] {
        let model = qpor::load(std::path::Path::new(file), &Default::default())
            .unwrap()
            .model;
        for engine in [EngineChoice::default(), EngineChoice::Explicit] {
            let opts = CheckOptions {
                engine,
                question: qpor::Question::OneSafe,
                ..CheckOptions::default()
            };
            let r = check(&model, &opts, &mut Silent).unwrap();
            if safe {
                assert_eq!(r.verdict, Verdict::NoDeadlock, "{file}");
            } else {
                assert_eq!(r.verdict, Verdict::Fault, "{file}");
                let m = r.findings[0].message.as_deref().unwrap();
                assert!(m.contains("tokens"), "{file}: {m}");
            }
        }
    }
}

/// A model whose state space and unfolding explode, under a 1 s limit on two jobs: the
/// process ends (well within the watchdog below) and says inconclusive.
#[test]
fn cancellation_ends_every_engine() {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args([
            "check",
            "--json",
            "-q",
            "--time-limit",
            "1",
            "--jobs",
            "2",
            "models/proc/philosophers-ordered.proc",
            "-D",
            "N=40",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    // A watchdog for a broken build, not a timing claim: kill the run if it hangs.
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(60));
        let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
    });
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the run was killed by the watchdog"
    );
    drop(watchdog);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(3), "{v}");
    assert_eq!(v["verdict"], "inconclusive");
    assert!(
        v["stopped"]["message"].as_str().unwrap().contains("time limit"),
        "{v}"
    );
    for e in v["engines"].as_array().unwrap() {
        assert_ne!(e["ended"], "abandoned", "every engine stopped when told: {v}");
    }
}
