//! The questions about a whole net and its bounds (`--quasi-liveness`, `--stable-marking`,
//! `--liveness`, `BOUND(…)`): every engine that claims one against an independent search
//! of the markings on random nets with weights and read arcs — exact where the engine is
//! complete, never contradicting where it is not — and the command line's and `qpor
//! mcc`'s output.

mod net_support;

use net_support::random_net;
use proptest::prelude::*;
use qpor::engines::stubborn::SearchOrder;
use qpor::net::{Net, PlaceId, TransId};
use qpor::properties::BoundQuery;
use qpor::{check, CheckOptions, EngineChoice, Limits, Model, Question, Report, Silent, Verdict};
use std::collections::{HashMap, HashSet, VecDeque};
use std::process::Command;
use std::time::Duration;

/// The reachability graph of `net` by a plain breadth-first search of its own: the
/// markings in discovery order and each one's successors by index (`None` beyond `max`
/// markings).
/// Markings in discovery order, and each one's successors by index.
type Graph = (Vec<Vec<u32>>, Vec<Vec<usize>>);

fn graph(net: &Net, max: usize) -> Option<Graph> {
    let m0 = net.initial_marking();
    let mut index = HashMap::from([(m0.clone(), 0usize)]);
    let mut markings = vec![m0];
    let mut succ: Vec<Vec<usize>> = Vec::new();
    let mut at = 0;
    while at < markings.len() {
        let mut out = Vec::new();
        for t in 0..net.transitions.len() {
            let mut next = markings[at].clone();
            if net.fire(&mut next, TransId(t as u32)) {
                let n = markings.len();
                let id = *index.entry(next.clone()).or_insert(n);
                if id == n {
                    markings.push(next);
                    if markings.len() > max {
                        return None;
                    }
                }
                out.push(id);
            }
        }
        succ.push(out);
        at += 1;
    }
    Some((markings, succ))
}

fn enabled(net: &Net, m: &[u32], t: usize) -> bool {
    let mut next = m.to_vec();
    net.fire(&mut next, TransId(t as u32))
}

/// The truth of the four questions on the graph: (bounds of `sums`, quasi-live, some
/// place stable, live).
fn truth(
    net: &Net,
    markings: &[Vec<u32>],
    succ: &[Vec<usize>],
    sums: &[BoundQuery],
) -> (Vec<u64>, bool, bool, bool) {
    let bounds = sums
        .iter()
        .map(|b| markings.iter().map(|m| b.value(m)).max().unwrap_or(0))
        .collect();
    let nt = net.transitions.len();
    let quasi = (0..nt).all(|t| markings.iter().any(|m| enabled(net, m, t)));
    let stable = (0..net.places.len()).any(|p| markings.iter().all(|m| m[p] == markings[0][p]));
    // Live: from every marking, every transition is enabled at some marking it reaches.
    let live = (0..markings.len()).all(|start| {
        let mut seen = HashSet::from([start]);
        let mut todo = VecDeque::from([start]);
        while let Some(i) = todo.pop_front() {
            for &j in &succ[i] {
                if seen.insert(j) {
                    todo.push_back(j);
                }
            }
        }
        (0..nt).all(|t| seen.iter().any(|&i| enabled(net, &markings[i], t)))
    });
    (bounds, quasi, stable, live)
}

fn run(engine: EngineChoice, net: &Net, question: Question, millis: u64) -> Report {
    let opts = CheckOptions {
        engine,
        question,
        limits: Limits {
            time_limit: (millis > 0).then(|| Duration::from_millis(millis)),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    check(&Model::Net(net.clone()), &opts, &mut Silent).expect("the check runs and its witnesses replay")
}

fn global(report: &Report) -> Option<bool> {
    report.global.as_ref().and_then(|g| g.value)
}

fn engines_for(question: &Question) -> Vec<(EngineChoice, bool)> {
    // (engine, complete on a finite graph without a limit)
    let mut all = vec![
        (EngineChoice::Explicit, true),
        (EngineChoice::default(), true),
        (EngineChoice::Walk { seed: 3 }, false),
    ];
    if cfg!(feature = "lp") {
        all.push((EngineChoice::Lp, false));
    }
    if matches!(question, Question::QuasiLiveness | Question::StableMarking) {
        all.push((
            EngineChoice::Stubborn {
                order: SearchOrder::Depth,
            },
            true,
        ));
    }
    if *question == Question::Liveness {
        all.push((
            EngineChoice::Stubborn {
                order: SearchOrder::Depth,
            },
            false,
        ));
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Bounds equal the largest sums where the engine is complete, and every engine's lower
    /// bound is reached (replayed) and its upper bound never below the truth; the three
    /// questions about the whole net get the markings' answers from the complete engines
    /// and never the other one from the others. The nets have weights and read arcs.
    #[test]
    fn every_engine_answers_as_the_markings_say(
        (spec, reads, sums) in random_net(2..=5, 1..=6, false, 2, 2).prop_flat_map(|spec| {
            let (np, nt) = (spec.marking.len(), spec.transitions.len());
            (
                Just(spec),
                prop::collection::vec((0..nt as u32, 0..np as u32), 0..3),
                prop::collection::vec(prop::collection::vec(0..np as u32, 1..3), 1..4),
            )
        })
    ) {
        let mut net = spec.build();
        for (t, p) in reads {
            net.add_read(TransId(t), PlaceId(p));
        }
        let Some((markings, succ)) = graph(&net, 2_000) else { return Ok(()); };
        let sums: Vec<BoundQuery> = sums
            .into_iter()
            .enumerate()
            .map(|(i, ps)| BoundQuery { id: format!("b{i}"), places: ps.into_iter().map(PlaceId).collect() })
            .collect();
        let (bounds, quasi, stable, live) = truth(&net, &markings, &succ, &sums);

        let question = Question::Bounds(sums.clone().into());
        for (engine, complete) in engines_for(&question) {
            if matches!(engine, EngineChoice::Stubborn { .. }) {
                continue;
            }
            let millis = if complete { 0 } else { 50 };
            let r = run(engine, &net, question.clone(), millis);
            for (b, want) in r.bounds.iter().zip(&bounds) {
                prop_assert!(b.lower <= *want, "{:?}: {} reached {} above the bound {}", engine, b.id, b.lower, want);
                prop_assert!(b.upper.is_none_or(|u| u >= *want), "{:?}: {} proved {:?} below {}", engine, b.id, b.upper, want);
                if complete {
                    prop_assert_eq!(b.value(), Some(*want), "{:?}: {}", engine, b.id);
                }
            }
        }

        for (question, want) in [
            (Question::QuasiLiveness, quasi),
            (Question::StableMarking, stable),
            (Question::Liveness, live),
        ] {
            for (engine, complete) in engines_for(&question) {
                let millis = if complete { 0 } else { 50 };
                let r = run(engine, &net, question.clone(), millis);
                let got = global(&r);
                prop_assert!(got.is_none() || got == Some(want), "{:?} on {:?}: {:?}, truth {}", engine, question, got, want);
                if complete {
                    prop_assert_eq!(got, Some(want), "{:?} on {:?}", engine, question);
                    prop_assert_eq!(r.verdict, Verdict::Answered);
                }
            }
        }
    }
}

fn qpor() -> Command {
    Command::new(env!("CARGO_BIN_EXE_qpor"))
}

#[test]
fn the_command_line_asks_each_question_and_prints_the_answer() {
    let net = "models/nets/philosophers-5.pnml";
    let out = qpor()
        .args(["check", net, "--liveness", "--engine", "explicit"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("liveness FALSE"), "{text}");
    assert!(
        text.contains("witness ("),
        "a path into the dead component: {text}"
    );

    let out = qpor()
        .args(["check", net, "--property", "quasi-liveness", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["global"]["question"], "quasi-liveness");
    assert_eq!(json["global"]["value"], true);
    assert_eq!(
        json["properties"].as_array().map(|a| a.len()),
        Some(15),
        "one per transition"
    );

    let out = qpor()
        .args([
            "check",
            net,
            "--query",
            "BOUND(fork_0, fork_1)",
            "--engine",
            "explicit",
            "--json",
        ])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["bounds"][0]["lower"], 2);
    assert_eq!(json["bounds"][0]["upper"], 2);

    // The siphon theorems answer before any engine: the token ring is free-choice, the
    // ordered philosophers asymmetric-choice.
    let ordered = "asymmetric-choice";
    for (net, theorem) in [
        ("models/nets/token-ring-5.pnml", "Commoner's theorem"),
        ("models/nets/philosophers-ordered-5.pnml", ordered),
    ] {
        let out = qpor().args(["check", net, "--liveness"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(
            text.contains("liveness TRUE") && text.contains(theorem),
            "{net}: {text}"
        );
    }

    // One question per run; an unknown place is an error with its column.
    let out = qpor()
        .args(["check", net, "--liveness", "--stable-marking"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one question per run"));
    let out = qpor()
        .args(["check", net, "--query", "BOUND(fork_0, nope)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no place `nope`") && err.contains(":1:15"), "{err}");
}

#[test]
fn the_contest_lines_are_the_ones_it_expects() {
    let dir = tempfile_dir("qpor-net-questions");
    std::fs::copy("models/nets/philosophers-5.pnml", dir.join("model.pnml")).unwrap();
    std::fs::write(
        dir.join("UpperBounds.xml"),
        "<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n\
         <property><id>P-UpperBounds-00</id><description>d</description>\
         <formula><place-bound><place>fork_0</place><place>fork_1</place></place-bound></formula></property>\n\
         </property-set>\n",
    )
    .unwrap();
    let lines = |exam: &str| {
        let out = qpor()
            .args(["mcc", "-q", "--examination", exam, "--time-limit", "20"])
            .arg(&dir)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let bounds = lines("UpperBounds");
    assert!(
        bounds.starts_with("FORMULA P-UpperBounds-00 2 TECHNIQUES "),
        "{bounds}"
    );
    assert!(lines("QuasiLiveness").starts_with("FORMULA QuasiLiveness TRUE TECHNIQUES "));
    assert!(lines("StableMarking").starts_with("FORMULA StableMarking FALSE TECHNIQUES "));
    assert!(lines("Liveness").starts_with("FORMULA Liveness FALSE TECHNIQUES "));
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
