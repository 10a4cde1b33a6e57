//! The command line says one thing per word: each test reproduces one of the confusions a
//! new user met (issue "The front door") and holds the command to what it should do.

mod cli_support;

use cli_support::{qpor, qpor_exits, qpor_line_exits};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", out(o)))
}

/// p → t1 → q → t2 → r, both transitions named `go`: dead in r after two steps.
const TWINS: &str = r#"<?xml version="1.0"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
<net id="twins" type="http://www.pnml.org/version-2009/grammar/ptnet"><page id="pg">
<place id="p"><initialMarking><text>1</text></initialMarking></place>
<place id="q"/><place id="r"/>
<transition id="t1"><name><text>go</text></name></transition>
<transition id="t2"><name><text>go</text></name></transition>
<arc id="a1" source="p" target="t1"/><arc id="a2" source="t1" target="q"/>
<arc id="a3" source="q" target="t2"/><arc id="a4" source="t2" target="r"/>
</page></net></pnml>
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn format_is_the_input_format_everywhere_and_to_the_output_format() {
    // `qpor dot - --format pnml` reads a net from standard input.
    let mut child = Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args(["dot", "-", "--format", "pnml"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let net = std::fs::read("models/nets/philosophers-5.pnml").unwrap();
    child.stdin.take().unwrap().write_all(&net).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).starts_with("digraph"), "{}", out(&o));
    // The picture's format is --to; an image format given to --format is refused.
    let o = qpor_line_exits("dot models/nets/philosophers-5.pnml --format svg", 2);
    assert!(
        err(&o).contains("possible values: pnml, llnet, proc"),
        "{}",
        err(&o)
    );
}

#[test]
fn unfold_offers_only_the_cutoffs_a_complete_prefix_takes() {
    for cutoff in ["causal", "distance", "canonical", "none"] {
        let o = qpor_exits(&["unfold", "models/nets/dekker.pnml", "--cutoff", cutoff], 2);
        assert!(
            err(&o).contains("[possible values: erv, mcmillan]"),
            "{cutoff}: {}",
            err(&o)
        );
    }
    let help = out(&qpor(&["unfold", "--help"]));
    assert!(!help.contains("canonical"), "{help}");
    qpor_exits(&["unfold", "models/nets/dekker.pnml", "--cutoff", "mcmillan"], 0);
}

#[test]
fn options_the_engine_or_the_model_would_ignore_are_refused() {
    for (line, says) in [
        (
            "check -k 3 --engine stubborn models/nets/dekker.pnml",
            "-k applies to --engine auto, qpor",
        ),
        (
            "check --cutoff none --engine explicit models/nets/dekker.pnml",
            "--cutoff applies to",
        ),
        (
            "check --seed 5 --engine explicit models/nets/dekker.pnml",
            "--seed applies to --engine auto, walk",
        ),
        (
            "check --max-states 9 --engine qpor models/nets/dekker.pnml",
            "--max-states applies to",
        ),
        (
            "check --order best --engine qpor models/nets/dekker.pnml",
            "--order applies to",
        ),
        (
            "check --unfolding general --engine walk models/nets/dekker.pnml",
            "--unfolding applies to",
        ),
        (
            "check --jobs 2 --engine stubborn models/nets/dekker.pnml",
            "--jobs applies to",
        ),
        (
            "check --jobs 2 --engine qpor models/nets/dekker.pnml",
            "its exploration's threads: use --threads",
        ),
        (
            "check --threads 2 models/nets/dekker.pnml",
            "--threads applies to --engine qpor",
        ),
        (
            "check --distance-states 9 --engine qpor models/nets/dekker.pnml",
            "give --cutoff distance",
        ),
        ("check --every-access models/nets/dekker.pnml", "is a net"),
        ("check --reduce on models/proc/pi.proc", "is a program"),
        (
            "check --witness process models/nets/dekker.pnml",
            "applies to programs",
        ),
        ("check --components places models/proc/pi.proc", "is a program"),
        ("check -D N=3 models/nets/dekker.pnml", "is a net"),
    ] {
        let o = qpor_line_exits(line, 2);
        assert!(err(&o).contains(says), "{line}: {}", err(&o));
    }
    // Given where they apply, the same options are taken.
    qpor_line_exits("check -k 3 --engine qpor models/nets/philosophers-5.pnml", 1);
    qpor_line_exits("check --seed 5 --engine walk models/nets/philosophers-5.pnml", 1);
    qpor_line_exits("check --witness process models/proc/pi.proc -D T=2", 0);
}

#[test]
fn check_groups_its_options_by_engine() {
    let help = out(&qpor(&["check", "--help"]));
    for heading in [
        "Model:",
        "Engine:",
        "Limits:",
        "Output:",
        "QPOR and prefix-sat:",
        "Stubborn and walk:",
    ] {
        assert!(help.lines().any(|l| l == heading), "{heading} missing:\n{help}");
    }
}

#[test]
fn witness_steps_name_the_pnml_id_and_the_name_when_it_differs() {
    let dir = tempfile::tempdir().unwrap();
    let net = write(dir.path(), "twins.pnml", TWINS);
    let net = net.to_str().unwrap();
    let o = qpor_exits(&["check", net, "--engine", "explicit"], 1);
    let text = out(&o);
    assert!(
        text.contains("1. t1 (go)") && text.contains("2. t2 (go)"),
        "{text}"
    );
    let v = json(&qpor_exits(&["check", net, "--engine", "explicit", "--json"], 1));
    assert_eq!(v["witness"][0]["id"], "t1", "{v}");
    assert_eq!(v["witness"][0]["name"], "go", "{v}");
    assert_eq!(v["witness"][1]["id"], "t2", "{v}");
    // A transition without a name is shown by its id alone, in text and JSON.
    let unnamed = write(
        dir.path(),
        "unnamed.pnml",
        &TWINS.replace("<name><text>go</text></name>", ""),
    );
    let unnamed = unnamed.to_str().unwrap();
    let text = out(&qpor_exits(&["check", unnamed, "--engine", "explicit"], 1));
    assert!(text.contains("1. t1\n"), "{text}");
    let v = json(&qpor_exits(
        &["check", unnamed, "--engine", "explicit", "--json"],
        1,
    ));
    assert_eq!(v["witness"][0], serde_json::json!({"id": "t1"}), "{v}");
}

#[test]
fn the_dead_marking_and_a_saved_witness_are_drawn_on_the_net() {
    let dir = tempfile::tempdir().unwrap();
    let o = qpor_exits(
        &[
            "dot",
            "models/nets/philosophers-5.pnml",
            "--view",
            "net",
            "--highlight",
            "deadlock",
        ],
        0,
    );
    let dot = out(&o);
    assert!(dot.contains("filled: the dead marking"), "{dot}");
    // The five places of the dead marking, and the transitions fired on the way: the five
    // first takes at least (the walk's witness may take detours).
    assert_eq!(dot.matches("lightgoldenrod1").count(), 5, "{dot}");
    assert!(dot.matches('×').count() >= 5, "{dot}");
    let net = write(dir.path(), "twins.pnml", TWINS);
    let witness = write(dir.path(), "w.json", r#"{"witness": [{"id": "t1"}]}"#);
    let spec = format!("witness={}", witness.display());
    let dot = out(&qpor_exits(
        &["dot", net.to_str().unwrap(), "--highlight", &spec],
        0,
    ));
    assert!(
        dot.contains("filled: the marking the saved witness ends in"),
        "{dot}"
    );
    let bad = write(dir.path(), "bad.json", r#"{"witness": [{"id": "t2"}]}"#);
    let spec = format!("witness={}", bad.display());
    let o = qpor_exits(&["dot", net.to_str().unwrap(), "--highlight", &spec], 2);
    assert!(err(&o).contains("fails at step 1"), "{}", err(&o));
}

#[test]
fn hardness_is_the_np_hardness_command_and_points_nets_at_reduce_net() {
    let o = qpor_line_exits("hardness models/nets/philosophers-5.pnml --to net", 2);
    assert!(err(&o).contains("qpor reduce-net"), "{}", err(&o));
    let o = qpor_line_exits("reduce models/cnf/three-vars.cnf --to net", 2);
    assert!(err(&o).contains("unrecognized subcommand"), "{}", err(&o));
    qpor_line_exits("hardness models/cnf/three-vars.cnf --to net", 0);
}

#[test]
fn json_is_data_errors_included() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.pnml",
        "<pnml><net id=\"x\">\n<place id=\"p\"></net>",
    );
    let o = qpor_exits(&["check", bad.to_str().unwrap(), "--json"], 2);
    let v = json(&o);
    assert_eq!(v["error"]["line"], 2, "{v}");
    assert!(v["error"]["column"].as_u64().is_some(), "{v}");
    assert_eq!(v["error"]["file"], bad.to_str().unwrap(), "{v}");
    assert!(err(&o).contains("error: "), "{}", err(&o));
    // No deadlock: the witness is null in the report as in the witness file.
    let file = dir.path().join("w.json");
    let v = json(&qpor_exits(
        &[
            "check",
            "models/nets/token-ring-5.pnml",
            "--json",
            "--witness-file",
            file.to_str().unwrap(),
        ],
        0,
    ));
    assert!(v["witness"].is_null(), "{v}");
    let w: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(w["witness"].is_null(), "{w}");
    // The state is an object of marked places; the stop reason names its limit.
    let v = json(&qpor_line_exits(
        "check --engine explicit --json models/nets/philosophers-5.pnml",
        1,
    ));
    let state = v["findings"][0]["state"].as_object().unwrap();
    assert_eq!(state.len(), 5, "{v}");
    assert!(state.values().all(|n| n == 1), "{v}");
    assert!(
        v["findings"][0]["state_text"]
            .as_str()
            .unwrap()
            .contains("has_first_0"),
        "{v}"
    );
    let v = json(&qpor_line_exits(
        "check --engine explicit --json --max-states 100 models/nets/philosophers-ordered-10.pnml",
        3,
    ));
    assert_eq!(v["stopped"]["reason"], "state-limit", "{v}");
    assert_eq!(v["stopped"]["limit"], 100.0, "{v}");
}

#[test]
fn directories_contest_names_and_pes_files_are_met_with_a_way_forward() {
    let o = qpor_line_exits("check models", 2);
    assert!(err(&o).contains("qpor mcc models"), "{}", err(&o));
    let o = qpor_line_exits("mcc /nonexistent-qpor-dir --examination ReachabilityDeadlock", 2);
    assert!(err(&o).contains("no such directory"), "{}", err(&o));
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy("models/mcc2023/Dekker-PT-010.pnml", dir.path().join("model.pnml")).unwrap();
    let d = dir.path().to_str().unwrap();
    let o = qpor_exits(&["mcc", d, "--examination", "reachabilitydeadlock"], 2);
    assert!(
        err(&o).contains("did you mean ReachabilityDeadlock"),
        "{}",
        err(&o)
    );
    let o = qpor_exits(&["mcc", d, "--examination", "Deadlocks"], 2);
    assert!(err(&o).contains("not an examination"), "{}", err(&o));
    // An examination of the contest that qpor does not answer: as the contest expects.
    let o = qpor_exits(&["mcc", d, "--examination", "CTLCardinality"], 0);
    assert_eq!(out(&o).trim(), "DO_NOT_COMPETE");
    // A .pes file is drawn as an event structure without being told.
    let pes = write(dir.path(), "tv.pes", "");
    qpor_exits(
        &[
            "hardness",
            "models/cnf/three-vars.cnf",
            "--to",
            "pes",
            "-o",
            pes.to_str().unwrap(),
        ],
        0,
    );
    let o = qpor_exits(&["dot", pes.to_str().unwrap()], 0);
    assert!(out(&o).starts_with("digraph"), "{}", out(&o));
}

#[test]
fn counts_of_one_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    // The twins without t2: dead in q after one step.
    let one = TWINS
        .replace(
            "<transition id=\"t2\"><name><text>go</text></name></transition>",
            "",
        )
        .replace(
            "<arc id=\"a3\" source=\"q\" target=\"t2\"/><arc id=\"a4\" source=\"t2\" target=\"r\"/>",
            "",
        );
    let w = write(dir.path(), "one.pnml", &one);
    let text = out(&qpor_exits(
        &["check", w.to_str().unwrap(), "--engine", "explicit"],
        1,
    ));
    assert!(text.contains("witness (1 step):"), "{text}");
    let text = out(&qpor_line_exits(
        "info models/mcc2023/Philosophers-PT-000005.pnml",
        0,
    ));
    assert!(text.contains("(10 units)"), "{text}");
}

#[test]
fn the_default_report_is_short_and_verbose_lists_the_portfolio() {
    // Every deadlock-free shipped net, in both formats: at most ten lines.
    let answers = std::fs::read_to_string("models/nets/answers.tsv").unwrap();
    let free: Vec<&str> = answers
        .lines()
        .skip(1)
        .filter(|l| l.split('\t').nth(1) == Some("NO"))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert!(free.len() >= 3, "{free:?}");
    for name in free {
        for ext in ["pnml", "ll_net"] {
            let o = qpor_exits(&["check", &format!("models/nets/{name}.{ext}")], 0);
            let text = out(&o);
            assert!(text.lines().count() <= 10, "{name}.{ext}: {text}");
        }
    }
    let text = out(&qpor_line_exits("check models/nets/token-ring-5.pnml", 0));
    assert!(
        !text.contains("not-started") && !text.contains("portfolio:"),
        "{text}"
    );
    let text = out(&qpor_line_exits("check -v models/nets/token-ring-5.pnml", 0));
    assert!(text.contains("portfolio:"), "{text}");
    assert!(text.contains("explicit: "), "{text}");
}

#[test]
fn ctrl_c_prints_what_was_done_and_exits_3() {
    // The explicit search of 14 deadlock-free philosophers stores millions of states: it
    // is still running when the interrupt comes.
    let child = Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args([
            "check",
            "models/proc/philosophers-ordered.proc",
            "-D",
            "N=14",
            "--engine",
            "explicit",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    let v = json(&o);
    assert_eq!(v["verdict"], "inconclusive", "{v}");
    assert_eq!(v["stopped"]["reason"], "interrupted", "{v}");
    assert!(v["stats"]["states"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn a_shortest_witness_is_asked_for_and_replayed() {
    // The depth-first stubborn search's witness on 10 philosophers, against a shortest one
    // to the same dead state.
    let model = "models/nets/philosophers-10.pnml";
    let long = json(&qpor_exits(
        &["check", model, "--engine", "stubborn", "--json"],
        1,
    ));
    let short = json(&qpor_exits(
        &[
            "check",
            model,
            "--engine",
            "stubborn",
            "--json",
            "--witness",
            "shortest",
        ],
        1,
    ));
    let (l, s) = (
        long["witness"].as_array().unwrap().len(),
        short["witness"].as_array().unwrap().len(),
    );
    assert!(s <= l, "{s} > {l}");
    assert_eq!(short["findings"][0]["state"], long["findings"][0]["state"]);
    // The dead state has one token per philosopher, each taken in one step: ten steps.
    assert_eq!(s, 10, "{short}");
    assert!(
        short["notes"][0].as_str().unwrap().contains("--witness shortest"),
        "{short}"
    );
}

#[test]
fn a_saved_witness_replays_and_a_broken_one_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.json");
    let f = file.to_str().unwrap();
    qpor_exits(
        &["check", "models/nets/philosophers-5.pnml", "--witness-file", f],
        1,
    );
    let o = qpor_exits(&["replay", "models/nets/philosophers-5.pnml", f], 0);
    assert!(
        out(&o).contains("the witness replays: ") && out(&o).contains(" steps to a deadlock"),
        "{}",
        out(&o)
    );
    // The report of --json replays too, and so does a program's witness.
    let report = dir.path().join("r.json");
    let o = qpor(&["check", "models/proc/philosophers.proc", "-D", "N=3", "--json"]);
    std::fs::write(&report, &o.stdout).unwrap();
    qpor_exits(
        &[
            "replay",
            "models/proc/philosophers.proc",
            "-D",
            "N=3",
            report.to_str().unwrap(),
        ],
        0,
    );
    // A step dropped: the next one is not enabled, or the end is not dead.
    let mut w: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    w["witness"].as_array_mut().unwrap().pop();
    std::fs::write(&file, w.to_string()).unwrap();
    let o = qpor_exits(&["replay", "models/nets/philosophers-5.pnml", f, "--json"], 1);
    let v = json(&o);
    assert_eq!(v["replays"], false, "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("claims a deadlock"),
        "{v}"
    );
    w["witness"][0]["id"] = "no-such-transition".into();
    let steps = w["witness"].as_array().unwrap().len();
    std::fs::write(&file, w.to_string()).unwrap();
    let o = qpor_exits(&["replay", "models/nets/philosophers-5.pnml", f], 1);
    assert!(
        out(&o).contains(&format!("fails at step 1 of {steps}")),
        "{}",
        out(&o)
    );
}

#[test]
fn the_library_refuses_contradictory_options_with_the_words_the_cli_prints() {
    use qpor::unfolding::CutoffMode;
    use qpor::{CheckOptions, EngineChoice, Limits, QporChoice, UnfoldingChoice};
    let cutoff = |cutoff| UnfoldingChoice {
        cutoff,
        ..UnfoldingChoice::default()
    };
    for (opts, line) in [
        (
            CheckOptions {
                engine: EngineChoice::Qpor(QporChoice {
                    threads: Some(4),
                    unfolding: cutoff(CutoffMode::McMillan),
                    ..QporChoice::default()
                }),
                ..CheckOptions::default()
            },
            "check --engine qpor --threads 4 --cutoff mcmillan models/proc/pi.proc",
        ),
        (
            CheckOptions {
                engine: EngineChoice::Walk { seed: 5 },
                limits: Limits {
                    max_events: Some(100),
                    ..Limits::default()
                },
                ..CheckOptions::default()
            },
            "check --engine walk --seed 5 --max-events 100 models/proc/pi.proc",
        ),
        (
            CheckOptions {
                engine: EngineChoice::PrefixSat {
                    unfolding: cutoff(CutoffMode::Causal),
                },
                ..CheckOptions::default()
            },
            "check --engine prefix-sat --cutoff causal models/nets/dekker.pnml",
        ),
        (
            CheckOptions {
                engine: EngineChoice::Qpor(QporChoice {
                    threads: Some(0),
                    ..QporChoice::default()
                }),
                ..CheckOptions::default()
            },
            "check --engine qpor --threads 0 models/proc/pi.proc",
        ),
    ] {
        let message = opts.validate().unwrap_err().message;
        let o = qpor_line_exits(line, 2);
        assert_eq!(err(&o), format!("error: {message}\n"), "{line}");
        // A library caller that runs the check anyway gets the same refusal.
        let model = qpor::load(Path::new("models/proc/pi.proc"), &qpor::LoadOptions::default()).unwrap();
        let e = qpor::check(&model.model, &opts, &mut qpor::Silent).unwrap_err();
        assert_eq!(e.to_string(), message);
    }
}
