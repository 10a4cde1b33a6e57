//! The explicit engine against the known answers of every net shipped in `models/`:
//! our own nets (answers computed by `models/generate.py`, an independent Python search)
//! and the third-party nets (published verdicts and reachable-marking counts).

use qpor::net::Decomposition;
use qpor::{check, CheckOptions, EngineChoice, FindingKind, Limits, Report, Silent, Verdict};
use qpor::{load, LoadOptions};
use qpor::{Model, SystemOptions};
use std::collections::BTreeSet;
use std::path::Path;

fn tsv(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn load_model(path: &str) -> Model {
    load(Path::new(path), &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .model
}

/// The explicit engine's report on `model`, with every dead state (`--all`).
fn every_dead_state(model: &Model) -> Report {
    let opts = CheckOptions {
        engine: EngineChoice::Explicit,
        all: true,
        ..CheckOptions::default()
    };
    check(model, &opts, &mut Silent).unwrap()
}

#[test]
fn own_nets_match_the_independent_answers_in_both_formats() {
    let rows = tsv("models/nets/answers.tsv");
    assert!(rows.len() >= 9, "answers.tsv lists every generated net");
    for row in rows {
        let (name, deadlock, states, dead) = (&row[0], &row[1], &row[2], &row[3]);
        for ext in ["pnml", "ll_net"] {
            let path = format!("models/nets/{name}.{ext}");
            let model = load_model(&path);
            let r = every_dead_state(&model);
            let expected = if deadlock == "YES" {
                Verdict::Deadlock
            } else {
                Verdict::NoDeadlock
            };
            assert_eq!(r.verdict, expected, "{path}");
            assert_eq!(
                r.stats.get("states").unwrap().to_string(),
                *states,
                "{path}: reachable markings"
            );
            assert_eq!(
                r.findings_of(FindingKind::Deadlock).count().to_string(),
                *dead,
                "{path}: dead markings"
            );
        }
    }
}

#[test]
fn philosophers_deadlock_exactly_when_everyone_holds_a_fork() {
    let model = load_model("models/nets/philosophers-5.pnml");
    let r = every_dead_state(&model);
    let dead: Vec<&str> = r.findings.iter().map(|f| f.state.as_str()).collect();
    assert_eq!(
        dead,
        ["has_first_0, has_first_1, has_first_2, has_first_3, has_first_4"]
    );
    let w = r.witness().unwrap().actions();
    assert_eq!(w.len(), 5, "shortest witness: each philosopher takes one fork");
    let mut sorted = w.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "take_first_0",
            "take_first_1",
            "take_first_2",
            "take_first_3",
            "take_first_4"
        ]
    );
}

#[test]
fn the_acyclic_net_has_its_six_dead_markings() {
    let model = load_model("models/nets/acyclic-choices.ll_net");
    let r = every_dead_state(&model);
    let dead: BTreeSet<String> = r
        .findings_of(FindingKind::Deadlock)
        .map(|f| f.state.clone())
        .collect();
    let mut expected = BTreeSet::new();
    for r_holder in 0..3 {
        for s_holder in 0..3 {
            if r_holder == s_holder {
                continue;
            }
            let stuck = 3 - r_holder - s_holder;
            // Places are listed in file order: start_*, r, s, then took_r_i, took_s_i per i.
            let mut parts = vec![format!("start_{stuck}")];
            for i in 0..3 {
                if i == r_holder {
                    parts.push(format!("took_r_{i}"));
                }
                if i == s_holder {
                    parts.push(format!("took_s_{i}"));
                }
            }
            expected.insert(parts.join(", "));
        }
    }
    assert_eq!(dead, expected);
    for f in r.findings_of(FindingKind::Deadlock) {
        assert_eq!(f.witness.steps.len(), 2, "two takes reach every dead marking");
    }
}

/// The third-party ll_net nets whose state space the engine finishes quickly: verdict and
/// exact number of reachable markings from `verdicts.tsv`.
#[test]
fn classic_ll_nets_match_published_counts() {
    let mut checked = 0;
    for row in tsv("models/ll_net/verdicts.tsv") {
        let (file, markings, deadlock) = (&row[0], &row[6], &row[7]);
        let Ok(markings) = markings.parse::<u64>() else {
            continue; // ">300000": not finished by the reference either
        };
        let path = format!("models/ll_net/{file}");
        let model = load_model(&path);
        let r = every_dead_state(&model);
        assert_eq!(
            r.stats.get("states"),
            Some(markings),
            "{path}: reachable markings"
        );
        let expected = if deadlock == "YES" {
            Verdict::Deadlock
        } else {
            Verdict::NoDeadlock
        };
        assert_eq!(r.verdict, expected, "{path}");
        checked += 1;
    }
    assert!(
        checked >= 18,
        "every net with a published count was checked ({checked})"
    );
}

/// MCC nets whose state spaces are small enough for a test: the published
/// ReachabilityDeadlock answer, with one component per place and with NUPN units where the
/// file has them (both cuts must give the same state count).
#[test]
fn small_mcc_nets_match_published_verdicts() {
    let small = [
        "Philosophers-PT-000005",
        "Philosophers-PT-000010",
        "Dekker-PT-010",
        "Peterson-PT-2",
        "TokenRing-PT-005",
        "SharedMemory-PT-000005",
        "Kanban-PT-00005",
        "FMS-PT-00002",
        "Referendum-PT-0010",
        "ResAllocation-PT-R002C002",
        "HouseConstruction-PT-00002",
        "SwimmingPool-PT-01",
        "RwMutex-PT-r0010w0010",
        "LamportFastMutEx-PT-2",
        "Eratosthenes-PT-010",
        "Raft-PT-02",
        "CircularTrains-PT-012",
        "Railroad-PT-005",
    ];
    let verdicts = tsv("models/mcc2023/verdicts.tsv");
    for name in small {
        let row = verdicts.iter().find(|r| r[0] == name).expect(name);
        let model = load_model(&format!("models/mcc2023/{name}.pnml"));
        let expected = if row[1] == "TRUE" {
            Verdict::Deadlock
        } else {
            Verdict::NoDeadlock
        };
        let mut counts = Vec::new();
        let cuts: &[Decomposition] = if model.as_net().unwrap().nupn.is_some() {
            &[Decomposition::Places, Decomposition::Units]
        } else {
            &[Decomposition::Places]
        };
        for &d in cuts {
            let opts = CheckOptions {
                engine: EngineChoice::Explicit,
                system: SystemOptions {
                    decomposition: Some(d),
                    ..SystemOptions::default()
                },
                limits: Limits {
                    max_states: Some(3_000_000),
                    ..Limits::default()
                },
                all: true,
                ..CheckOptions::default()
            };
            let r = check(&model, &opts, &mut Silent).unwrap();
            assert_eq!(r.verdict, expected, "{name} ({d:?})");
            counts.push(r.stats.get("states"));
        }
        counts.dedup();
        assert_eq!(
            counts.len(),
            1,
            "{name}: place and unit cuts reach the same markings"
        );
    }
}
