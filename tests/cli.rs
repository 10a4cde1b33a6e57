//! The `qpor` binary: exit codes, human output, `--json` shape, errors.

use serde_json::Value;
use std::process::{Command, Output};

mod cli_support;
use cli_support::{qpor, qpor_exits, qpor_line, qpor_line_exits};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON report of the `--json` command `line`, which must end inconclusive (exit 3).
fn inconclusive(line: &str) -> Value {
    let v = json(&qpor_line_exits(line, 3));
    assert_eq!(v["verdict"], "inconclusive", "{line}");
    v
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

#[test]
fn deadlocking_philosophers_exit_1_with_a_named_witness() {
    let o = qpor_exits(&["check", "models/nets/philosophers-5.pnml"], 1);
    let out = stdout(&o);
    assert!(out.contains("deadlock found"), "{out}");
    // Every philosopher takes a first fork: five steps at least (the walk's witness may
    // take detours; it is replayed either way).
    let steps: usize = out
        .split_once("witness (")
        .and_then(|(_, rest)| rest.split_once(" steps)"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no witness length: {out}"));
    assert!(steps >= 5, "{out}");
    for i in 0..5 {
        assert!(out.contains(&format!("take_first_{i}")), "{out}");
    }
    assert!(out.contains("state: has_first_0, has_first_1"), "{out}");
}

#[test]
fn a_reader_that_goes_away_ends_nothing_but_the_output() {
    // `qpor check … | head`: the pipe is closed before the report (megabytes of
    // witnesses) is written. No panic, and the exit status still gives the verdict.
    let mut child = Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args([
            "check",
            "models/proc/poke.proc",
            "-D",
            "N=7",
            "-D",
            "K=3",
            "--all",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn ordered_philosophers_exit_0() {
    let o = qpor_exits(&["check", "models/nets/philosophers-ordered-5.pnml"], 0);
    assert!(stdout(&o).contains("no deadlock"));
}

#[test]
fn check_json_has_the_documented_shape() {
    let o = qpor_line_exits(
        "check --engine explicit --json models/nets/philosophers-5.ll_net",
        1,
    );
    let v = json(&o);
    assert_eq!(v["verdict"], "deadlock");
    assert_eq!(v["engine"], "explicit");
    assert_eq!(v["witness"].as_array().unwrap().len(), 5);
    assert!(v["witness"][0]["name"]
        .as_str()
        .unwrap()
        .starts_with("take_first_"));
    // An ll_net numbers its transitions: the id is the number, the name follows.
    let id = v["witness"][0]["id"].as_str().unwrap();
    assert!(id.chars().all(|c| c.is_ascii_digit()), "{v}");
    assert_eq!(v["stats"]["states"].as_u64(), Some(82));
    assert!(v["stats"]["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["stats"]["peak_rss_bytes"].as_u64().unwrap() > 0);
    assert_eq!(v["findings"][0]["kind"], "deadlock");

    let o = qpor_line_exits("check --engine explicit --json models/nets/token-ring-5.pnml", 0);
    let v = json(&o);
    assert_eq!(v["verdict"], "no-deadlock");
    assert!(v["witness"].is_null(), "{v}");
    assert_eq!(v["stats"]["states"].as_u64(), Some(10));
}

#[test]
fn qpor_explores_on_two_threads_when_asked_and_counts_alike() {
    let line = "check --engine qpor --json --optimal --cutoff none --all models/proc/poke.proc -D N=5 -D K=3";
    let seq = json(&qpor_line_exits(&format!("{line} --threads 1"), 0));
    let par = json(&qpor_line_exits(&format!("{line} --threads 2"), 0));
    assert_eq!(par["threads"], 2);
    assert!(seq.get("threads").is_none(), "one job is the sequential run");
    assert!(par["stats"]["tasks"].as_u64().unwrap() >= 1);
    for field in ["max_configurations", "ssbs", "terminations", "deadlocks"] {
        assert_eq!(par["stats"][field], seq["stats"][field], "{field}");
    }
    assert_eq!(seq["stats"]["max_configurations"], 844);
}

/// A k-partial run without cutoffs splits its work at nodes fixed by the model alone: its
/// counts, SSBs and events included, are the same on one thread and two, and the report
/// says why its SSBs differ from those of Algorithm 1's single tree (`--single-tree`,
/// one thread only, and QPOR's only).
#[test]
fn a_k_partial_run_counts_alike_on_any_number_of_threads_and_says_why() {
    let line =
        "check --engine qpor --cutoff none --all --json models/proc/dispatcher.proc -D S=5 -D R=3 -k 2";
    let two = json(&qpor_line_exits(&format!("{line} --threads 2"), 0));
    let one = json(&qpor_line_exits(&format!("{line} --threads 1"), 0));
    assert_eq!(two["splits"], "fixed");
    assert_eq!(one["splits"], "fixed");
    assert!(one["stats"]["tasks"].as_u64().unwrap() > 1, "{one}");
    for field in ["max_configurations", "ssbs", "terminations", "events", "tasks"] {
        assert_eq!(two["stats"][field], one["stats"][field], "{field}");
    }
    let single = json(&qpor_line_exits(&format!("{line} --single-tree"), 0));
    assert!(single.get("splits").is_none(), "{single}");
    assert!(single["stats"].get("tasks").is_none(), "{single}");
    assert_eq!(
        single["stats"]["max_configurations"],
        two["stats"]["max_configurations"]
    );

    let text = "check --engine qpor --cutoff none --all models/proc/dispatcher.proc -D S=3 -D R=2";
    let note = "the SSBs are those of the tasks' tree";
    let split = stdout(&qpor_line_exits(&format!("{text} -k 2 -v"), 0));
    assert!(split.contains(note), "{split}");
    for quiet in [
        format!("{text} -k 2 --single-tree -v"),
        format!("{text} --optimal --threads 2 -v"),
    ] {
        let out = stdout(&qpor_line_exits(&quiet, 0));
        assert!(!out.contains("note: the work was split"), "{quiet}: {out}");
    }

    for (refused, says) in [
        ("check --single-tree models/proc/pi.proc", "--engine qpor"),
        (
            "check --engine qpor --cutoff none --single-tree --threads 2 models/proc/pi.proc",
            "one thread",
        ),
    ] {
        let o = qpor_line_exits(refused, 2);
        assert!(stderr(&o).contains(says), "{refused}: {}", stderr(&o));
    }
}

/// Without the `mpi` feature, `--distributed` says how to get it (tests/distributed_mpi.rs
/// runs it under mpirun when the feature is on).
#[cfg(not(feature = "mpi"))]
#[test]
fn distributed_runs_need_a_build_with_mpi_and_say_how() {
    let o = qpor_line_exits(
        "check --engine qpor --cutoff none --distributed models/proc/pi.proc",
        2,
    );
    assert!(stderr(&o).contains("--features mpi"), "{}", stderr(&o));
}

#[test]
fn distributed_runs_take_no_threads() {
    let o = qpor_line_exits(
        "check --engine qpor --cutoff none --distributed --threads 2 models/proc/pi.proc",
        2,
    );
    assert!(stderr(&o).contains("mpirun -np"), "{}", stderr(&o));
}

/// With cutoffs under an adequate order QPOR cannot share its work, and says which cutoffs
/// it can share it with: asked for ERV explicitly, it refuses the threads; with ERV by
/// default, it explores on one thread and warns. Causal, distance and canonical cutoffs run
/// on two threads with the one-thread counts (canonical ones, here, with no more events
/// than ERV); neither a complete prefix nor the general unfolding takes them.
#[test]
fn only_cutoffs_decided_by_the_history_run_on_several_threads() {
    let o = qpor_line_exits(
        "check --engine qpor --optimal --cutoff erv --threads 2 models/proc/philosophers.proc",
        2,
    );
    assert!(stderr(&o).contains("--cutoff canonical"), "{}", stderr(&o));
    let line = "check --engine qpor --optimal --all --json models/proc/philosophers.proc";
    let by_default = qpor_line_exits(&format!("{line} --threads 2"), 1);
    assert!(
        stderr(&by_default).contains("explores on one thread"),
        "{}",
        stderr(&by_default)
    );
    let (by_default, one) = (
        json(&by_default),
        json(&qpor_line_exits(&format!("{line} --threads 1"), 1)),
    );
    assert_eq!(by_default["cutoff"], "erv");
    assert!(by_default.get("threads").is_none_or(|j| j == 1), "{by_default}");
    assert_eq!(by_default["stats"]["events"], one["stats"]["events"]);
    for cutoff in ["causal", "distance", "distance --distance-states 3", "canonical"] {
        let line = format!(
            "check --engine qpor --optimal --all --cutoff {cutoff} --json models/proc/philosophers.proc"
        );
        let seq = json(&qpor_line_exits(&format!("{line} --threads 1"), 1));
        let par = json(&qpor_line_exits(&format!("{line} --threads 2"), 1));
        assert_eq!(par["threads"], 2);
        assert_eq!(par["cutoff"], cutoff.split(' ').next().unwrap());
        for field in ["max_configurations", "cutoff_leaves", "deadlocks", "ssbs"] {
            assert_eq!(par["stats"][field], seq["stats"][field], "{cutoff}: {field}");
        }
        if cutoff == "canonical" {
            let prefix = json(&qpor_line_exits(
                "unfold --cutoff erv --json models/proc/philosophers.proc",
                0,
            ));
            assert_eq!(
                par["stats"]["canonical_prefix_events"], prefix["events"],
                "{prefix}"
            );
            let erv = json(&qpor_line_exits(
                &format!("{line} --cutoff erv --threads 1").replace("--cutoff canonical ", ""),
                1,
            ));
            assert!(
                seq["stats"]["events"].as_u64() <= erv["stats"]["events"].as_u64(),
                "canonical {seq}, erv {erv}"
            );
        }
    }
    for cutoff in ["causal", "distance", "canonical"] {
        for line in [
            format!("unfold --cutoff {cutoff} models/proc/philosophers.proc"),
            format!("check --engine prefix-sat --cutoff {cutoff} models/proc/philosophers.proc"),
            format!("check --engine qpor --cutoff {cutoff} models/nets/philosophers-5.pnml"),
        ] {
            let o = qpor_line_exits(&line, 2);
            assert!(stderr(&o).contains(cutoff), "{line}: {}", stderr(&o));
        }
    }
}

/// A canonical run whose prefix does not fit the time limit ends inconclusive, having
/// explored nothing, and says how far the prefix got (DLCround's has millions of events).
#[test]
fn a_canonical_prefix_out_of_time_is_inconclusive() {
    let o = qpor_line_exits(
        "check --engine qpor --cutoff canonical --time-limit 0.5 --json models/mcc2023/DLCround-PT-03a.pnml",
        3,
    );
    let v = json(&o);
    assert_eq!(v["verdict"], "inconclusive", "{v}");
    assert_eq!(v["stats"]["max_configurations"], 0, "{v}");
    assert!(v["stats"]["canonical_prefix_events"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn qpor_alone_reports_its_own_statistics() {
    let o = qpor_line_exits("check --engine qpor --json models/nets/philosophers-5.pnml", 1);
    let v = json(&o);
    assert_eq!(v["engine"], "qpor");
    assert_eq!(v["verdict"], "deadlock");
    assert_eq!(v["cutoff"], "erv");
    assert_eq!(v["witness"].as_array().unwrap().len(), 5);
    for field in [
        "max_configurations",
        "ssbs",
        "cutoff_leaves",
        "deadlocks",
        "events",
        "peak_live_events",
        "comb_calls",
        "seconds",
        "peak_rss_bytes",
    ] {
        assert!(v["stats"].get(field).is_some(), "stats.{field} missing");
    }
    let o = qpor_line_exits(
        "check --engine qpor --json --optimal --cutoff none --all models/proc/ssbexp.proc -D K=4",
        0,
    );
    let v = json(&o);
    assert_eq!(v["k"], "optimal");
    assert_eq!(v["cutoff"], "none");
    assert_eq!(v["stats"]["max_configurations"], 8);
    assert_eq!(v["stats"]["ssbs"], 0);
    let o = qpor_line("check --engine qpor --json -k 3 models/nets/peterson.pnml");
    assert_eq!(json(&o)["k"], 3);
    qpor_exits(&["check", "-k", "0", "models/nets/peterson.pnml"], 2);
    // Conflicting options.
    qpor_exits(&["check", "-k", "2", "--optimal", "models/nets/peterson.pnml"], 2);
}

#[test]
fn cyclic_models_without_cutoffs_hit_the_event_limit() {
    let v = inconclusive(
        "check --engine qpor --json --cutoff none --max-events 500 models/nets/token-ring-5.pnml",
    );
    assert!(v["stopped"]["message"]
        .as_str()
        .unwrap()
        .contains("event limit of 500"));
}

#[test]
fn programs_get_per_process_witnesses() {
    let o = qpor_line_exits("check --witness process models/proc/philosophers.proc -D N=3", 1);
    let out = stdout(&o);
    assert!(out.contains("per process:"), "{out}");
    assert!(out.contains("phil[0]: lock fork[0]"), "{out}");
    let o = qpor_exits(&["info", "models/proc/philosophers.proc", "-D", "N=3"], 0);
    let out = stdout(&o);
    assert!(out.contains("process phil[1]"), "{out}");
    assert!(out.contains("mutex fork[2]"), "{out}");
}

#[test]
fn all_lists_every_deadlock() {
    let o = qpor_exits(
        &["check", "--all", "--json", "models/nets/acyclic-choices.pnml"],
        1,
    );
    let v = json(&o);
    assert_eq!(v["findings"].as_array().unwrap().len(), 6);
    let o = qpor(&["check", "--all", "models/nets/acyclic-choices.pnml"]);
    assert!(stdout(&o).contains("deadlock 6 of 6"), "{}", stdout(&o));
}

#[test]
fn limits_make_the_run_inconclusive_with_exit_3() {
    let v = inconclusive(
        "check --engine explicit --json --max-states 100 models/nets/philosophers-ordered-10.pnml",
    );
    assert!(v["stopped"]["message"].as_str().unwrap().contains("state limit"));
    let o = qpor_line("check --engine explicit --max-states 100 models/nets/philosophers-ordered-10.pnml");
    assert!(stdout(&o).contains("inconclusive"));
    // --max-states is an option of the explicit engine.
    let o = qpor_line_exits(
        "check --engine qpor --max-states 100 models/nets/philosophers-ordered-10.pnml",
        2,
    );
    assert!(stderr(&o).contains("--max-events"), "{}", stderr(&o));
    let o = qpor_exits(
        &["check", "--time-limit", "-1", "models/nets/token-ring-5.pnml"],
        2,
    );
    assert!(stderr(&o).contains("--time-limit"));
}

#[test]
fn bad_input_exits_2_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ll_net");
    std::fs::write(
        &bad,
        "PEP\nPTNet\nFORMAT_N\nPL\n1\"p\"M1\nTR\n1\"t\"\nTP\n1<7\nPT\n",
    )
    .unwrap();
    let o = qpor_exits(&["check", bad.to_str().unwrap()], 2);
    let err = stderr(&o);
    assert!(err.contains("bad.ll_net:9:"), "{err}");

    let o = qpor_exits(&["check", "no/such/file.pnml"], 2);
    assert!(stderr(&o).contains("cannot read"));

    let unknown = dir.path().join("net.txt");
    std::fs::write(&unknown, "hello").unwrap();
    let o = qpor_exits(&["check", unknown.to_str().unwrap()], 2);
    assert!(stderr(&o).contains("unknown format"));
    // Read as ll_net, the text is malformed.
    qpor_exits(&["check", "--format", "llnet", unknown.to_str().unwrap()], 2);

    // Usage error.
    qpor_exits(&["check"], 2);
    // Unknown subcommand.
    qpor_exits(&["frobnicate"], 2);
}

#[test]
fn info_reports_sizes() {
    let o = qpor_exits(&["info", "--json", "models/nets/producer-consumer-4.pnml"], 0);
    let v = json(&o);
    assert_eq!(v["kind"], "net");
    assert_eq!(v["places"], 6);
    assert_eq!(v["transitions"], 4);
    assert_eq!(v["arcs"], 12);
    assert_eq!(v["max_arc_weight"], 3);
    assert_eq!(v["initially_one_bounded"], false);
    assert_eq!(v["nupn"], false);
    assert_eq!(v["components"].as_array().unwrap().len(), 6);

    let o = qpor_exits(&["info", "models/mcc2023/Philosophers-PT-000005.pnml"], 0);
    let out = stdout(&o);
    assert!(out.contains("places: 25"), "{out}");
    assert!(out.contains("NUPN: 11 units"), "{out}");
    assert!(out.contains("components: 10 (10 units)"), "{out}");
    let o = qpor_line("info --components places models/mcc2023/Philosophers-PT-000005.pnml");
    assert!(
        stdout(&o).contains("components: 25 (25 places)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn info_lists_a_programs_parameters_and_their_values() {
    let o = qpor_exits(&["info", "models/proc/dispatcher.proc"], 0);
    let out = stdout(&o);
    assert!(
        out.contains("\n  parameters (set with -D NAME=VALUE): S = 3, R = 2\n"),
        "{out}"
    );
    let o = qpor_line_exits("info --json -D R=4 models/proc/dispatcher.proc", 0);
    let v = json(&o);
    assert_eq!(
        v["parameters"],
        serde_json::json!([
            {"name": "S", "type": "int", "value": 3, "default": 3, "set": false},
            {"name": "R", "type": "int", "value": 4, "default": 2, "set": true},
        ])
    );
    let o = qpor_line_exits("info -D R=4 models/proc/dispatcher.proc", 0);
    assert!(
        stdout(&o).contains("S = 3, R = 4 (-D; default 2)\n"),
        "{}",
        stdout(&o)
    );

    // A bool parameter shows as the program writes it; a default may use an earlier
    // parameter's value as set.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.proc");
    std::fs::write(
        &file,
        "param N = 2;\nparam M = N * 2;\nparam FAIR = false;\nprocess main { }\ninit main;\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let o = qpor_exits(&["info", "-D", "N=3", "-D", "FAIR=1", file], 0);
    let out = stdout(&o);
    assert!(
        out.contains("N = 3 (-D; default 2), M = 6, FAIR = true (-D; default false)\n"),
        "{out}"
    );
    let o = qpor_exits(&["info", "--json", file], 0);
    assert_eq!(
        json(&o)["parameters"][2],
        serde_json::json!({"name": "FAIR", "type": "bool", "value": false, "default": false, "set": false})
    );
    let o = qpor_exits(&["info", "models/proc/ssbsimple.proc"], 0);
    assert!(
        stdout(&o).contains("  parameters (set with -D NAME=VALUE): none\n"),
        "{}",
        stdout(&o)
    );

    // A net has none, and no such field.
    let o = qpor_exits(&["info", "--json", "models/nets/dekker.pnml"], 0);
    assert!(json(&o).get("parameters").is_none());
}

#[test]
fn convert_keeps_the_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, ext) in [
        ("models/nets/dekker.ll_net", "pnml", "pnml"),
        ("models/nets/dekker.pnml", "llnet", "ll_net"),
    ] {
        let out = dir.path().join(format!("dekker.{ext}"));
        qpor_exits(&["convert", from, "--to", to, "-o", out.to_str().unwrap()], 0);
        let o = qpor_exits(
            &["check", "--engine", "explicit", "--json", out.to_str().unwrap()],
            0,
        );
        assert_eq!(json(&o)["stats"]["states"].as_u64(), Some(56));
    }
    let o = qpor_exits(&["convert", "models/nets/peterson.pnml", "--to", "llnet"], 0);
    assert!(stdout(&o).starts_with("PEP\n"));
}

#[test]
fn parallel_arcs_are_summed_with_one_warning() {
    // t consumes p twice and gives one token back: read as one arc of weight 2, t needs two
    // tokens and the initial marking (one token on p) is dead. Read as weight 1, t would be
    // a self-loop enabled for ever.
    let dir = tempfile::tempdir().unwrap();
    let llnet = dir.path().join("par.ll_net");
    std::fs::write(
        &llnet,
        "PEP\nPTNet\nFORMAT_N\nPL\n1\"p\"M1\nTR\n1\"t\"\nTP\n1<1\nPT\n1>1\n1>1\n",
    )
    .unwrap();
    let pnml = dir.path().join("par.pnml");
    std::fs::write(
        &pnml,
        "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
         <net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\"><page id=\"g\">\n\
         <place id=\"p\"><initialMarking><text>1</text></initialMarking></place>\n\
         <transition id=\"t\"/>\n\
         <arc id=\"a1\" source=\"p\" target=\"t\"/>\n\
         <arc id=\"a2\" source=\"t\" target=\"p\"/>\n\
         <arc id=\"a3\" source=\"p\" target=\"t\"/>\n\
         </page></net></pnml>\n",
    )
    .unwrap();
    for (file, warning) in [
        (&llnet, "par.ll_net:12:1: 2 parallel arcs summed into one weight (first: 1>1, here and at line 11)"),
        (&pnml, "par.pnml:7:1: 2 parallel arcs summed into one weight (first: p → t, here and at line 5, column 1)"),
    ] {
        let file = file.to_str().unwrap();
        for engine in ["explicit", "auto"] {
            let o = qpor_exits(&["check", "--engine", engine, "--json", file], 1);
            let v = json(&o);
            assert_eq!(v["verdict"], "deadlock", "{file} {engine}");
            assert_eq!(v["witness"].as_array().map(Vec::len), Some(0), "{file} {engine}");
            let err = stderr(&o);
            assert_eq!(err.matches("warning: ").count(), 1, "{err}");
            assert!(err.contains(&format!("warning: {}", dir.path().join(warning).display())), "{err}");
        }
        // Converted, the net has the one arc of weight 2, and reads without a warning.
        let o = qpor_exits(&["convert", file, "--to", "pnml"], 0);
        let out = stdout(&o);
        assert_eq!(out.matches("<arc ").count(), 2, "{out}");
        assert_eq!(out.matches("<inscription><text>2</text></inscription>").count(), 1, "{out}");
        let again = dir.path().join("again.pnml");
        std::fs::write(&again, out).unwrap();
        let o = qpor_exits(&["check", "--engine", "explicit", again.to_str().unwrap()], 1);
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    }
}

#[test]
fn a_converted_program_names_the_process_of_each_step() {
    let o = qpor_exits(
        &[
            "convert",
            "models/proc/philosophers.proc",
            "-D",
            "N=2",
            "--to",
            "pnml",
        ],
        0,
    );
    let out = stdout(&o);
    let names: Vec<&str> = out
        .split("<text>")
        .skip(1)
        .filter_map(|s| s.split("</text>").next())
        .collect();
    // The local fixpoint also finds the lock of a fork the process already holds (a fault
    // no reachable marking reaches): the fork's state tells the two transitions apart.
    assert!(
        names.contains(&"phil[0]: lock fork[0] at 10:9 when fork[0]=free"),
        "{names:?}"
    );
    assert!(
        names.contains(&"phil[1]: lock fork[0] at 11:9 when fork[0]=free"),
        "{names:?}"
    );
    assert!(
        names.contains(&"phil[0]: lock fork[0] at 10:9 when fork[0]=held by phil[0]"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| *n != "phil[0]: fault"), "{names:?}");
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    // Every name once, but for the initial markings (`1`).
    assert_eq!(
        unique.len() + names.iter().filter(|n| **n == "1").count() - 1,
        names.len(),
        "{names:?}"
    );
}

#[test]
fn general_backend_checks_stop_at_the_time_limit() {
    // A Theorem-4.3 net of a wide formula: its co-set searches have 2^40-odd answers, and
    // the backend watches the clock inside them. Only termination is asserted about time.
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("wide.cnf");
    std::fs::write(&cnf, "p cnf 40 2\n1 2 3 0\n-4 5 -6 0\n").unwrap();
    let net = dir.path().join("wide.pnml");
    qpor_exits(
        &[
            "hardness",
            cnf.to_str().unwrap(),
            "--to",
            "net",
            "-o",
            net.to_str().unwrap(),
        ],
        0,
    );
    let o = qpor(&[
        "check",
        "--engine",
        "qpor",
        "--unfolding",
        "general",
        "--time-limit",
        "0.5",
        "-q",
        net.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("inconclusive"), "{out}");
    assert!(out.contains("stopped: time limit of 0.5 s reached"), "{out}");
    let v = inconclusive(
        "check --engine qpor --unfolding general --time-limit 0.5 --json models/mcc2023/Kanban-PT-00005.pnml",
    );
    assert_eq!(v["unfolding"], "general");
    assert!(
        v["stopped"]["message"].as_str().unwrap().contains("time limit"),
        "{v}"
    );
}

#[test]
fn auto_names_the_engine_that_answered_and_lists_every_engine() {
    let o = qpor_line_exits("check --json models/nets/philosophers-5.pnml", 1);
    let v = json(&o);
    assert_eq!(v["engine"], "auto");
    let by = v["answered_by"].as_str().unwrap();
    let engines = v["engines"].as_array().unwrap();
    let names: Vec<&str> = engines.iter().map(|e| e["engine"].as_str().unwrap()).collect();
    // A build without `lp` (Z3) runs the same portfolio without the state equation.
    let expected: Vec<&str> = [
        "walk",
        "stubborn-quick",
        "lp",
        "stubborn",
        "stubborn-best",
        "prefix-sat",
        "qpor",
        "explicit",
    ]
    .into_iter()
    .filter(|&n| cfg!(feature = "lp") || !["lp", "stubborn-quick"].contains(&n))
    .collect();
    assert_eq!(names, expected);
    // Every member that ran says when; the state equation never started on a net the
    // first members answer at once (Z3's start-up is paid only when needed).
    let winner = engines.iter().find(|e| e["engine"] == by).unwrap();
    assert!(
        winner["start_seconds"].as_f64() <= winner["end_seconds"].as_f64(),
        "{v}"
    );
    assert!(
        v["read_seconds"].as_f64().is_some() && v["reduce_seconds"].as_f64().is_some(),
        "{v}"
    );
    // The portfolio ran on the reduced net, and says so; the witness is the original's.
    assert_eq!(v["reduction"]["places_before"], 20, "{v}");
    assert_eq!(v["reduction"]["rules"]["post-agglomeration"], 5, "{v}");
    assert!(v["witness"].as_array().unwrap().len() >= 5, "{v}");
    let winner = engines.iter().find(|e| e["engine"] == by).unwrap();
    assert_eq!(winner["ended"], "answered");
    assert_eq!(winner["verdict"], "deadlock");
    assert!(winner["stats"]["seconds"].as_f64().is_some());
    let out = stdout(&qpor_line("check -v models/nets/token-ring-5.pnml"));
    assert!(out.contains("answered by: "), "{out}");
    assert!(out.contains("portfolio: "), "{out}");
    // By default: the verdict, and one line of statistics naming the engine that answered.
    let out = stdout(&qpor_line("check models/nets/token-ring-5.pnml"));
    assert!(out.lines().count() <= 10, "{out}");
    assert!(!out.contains("not-started"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  answered by ")), "{out}");
}

#[test]
fn the_stubborn_engine_answers_on_nets_and_programs_in_both_orders() {
    for order in ["depth", "breadth"] {
        let o = qpor_line_exits(
            &format!("check --engine stubborn --order {order} --json models/nets/philosophers-10.pnml"),
            1,
        );
        let v = json(&o);
        assert_eq!(v["engine"], "stubborn");
        assert!(v["stats"]["states"].as_u64().unwrap() > 0, "{v}");
        if order == "breadth" {
            // Each philosopher takes a first fork: the shortest witness.
            assert_eq!(v["witness"].as_array().unwrap().len(), 10, "{v}");
        }
    }
    qpor_line_exits("check --engine stubborn models/nets/token-ring-5.pnml", 0);
    let o = qpor_line_exits("check --engine stubborn --json models/proc/philosophers.proc", 1);
    assert_eq!(json(&o)["verdict"], "deadlock");
    qpor_line_exits("check --engine stubborn -D R=3 models/proc/dispatcher.proc", 0);
    let o = qpor_line_exits(
        "check --engine qpor --order breadth models/nets/token-ring-5.pnml",
        2,
    );
    assert!(stderr(&o).contains("--order"), "{}", stderr(&o));
}

#[test]
fn the_walk_finds_deadlocks_and_never_claims_absence() {
    let o = qpor_line_exits(
        "check --engine walk --seed 3 --json models/nets/philosophers-10.pnml",
        1,
    );
    assert_eq!(json(&o)["engine"], "walk");
    let v = inconclusive("check --engine walk --time-limit 0.3 --json models/nets/token-ring-5.pnml");
    assert!(v["stats"]["walks"].as_u64().unwrap() > 0);
    qpor_line_exits(
        "check --engine walk --max-states 10 models/nets/token-ring-5.pnml",
        2,
    );
}

#[test]
fn witnesses_list_their_states_and_go_to_a_file() {
    let o = qpor_line("check --engine explicit --witness states models/nets/philosophers-5.pnml");
    let out = stdout(&o);
    assert_eq!(out.matches("-> ").count(), 5, "{out}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.json");
    let o = qpor_exits(
        &[
            "check",
            "--engine",
            "explicit",
            "--json",
            "--witness",
            "states",
            "--witness-file",
            file.to_str().unwrap(),
            "models/nets/philosophers-5.pnml",
        ],
        1,
    );
    let v = json(&o);
    let states = v["findings"][0]["states"].as_array().unwrap();
    assert_eq!(states.len(), 6, "the initial state and one per step");
    assert_eq!(states[5], v["findings"][0]["state"]);
    let w: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(w["verdict"], "deadlock");
    assert_eq!(w["kind"], "deadlock");
    assert_eq!(w["witness"], v["witness"]);
    assert_eq!(w["model"], "models/nets/philosophers-5.pnml");
}

#[test]
fn a_model_can_come_from_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qpor"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let text = std::fs::read("models/proc/philosophers.proc").unwrap();
        // Without --format qpor refuses before reading: the pipe may then be closed.
        let _ = child.stdin.take().unwrap().write_all(&text);
        child.wait_with_output().unwrap()
    };
    let o = run(&["check", "--json", "--format", "proc", "-D", "N=3", "-"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["model"], "<stdin>");
    assert_eq!(v["verdict"], "deadlock");
    let o = run(&["check", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs --format"), "{}", stderr(&o));
}

#[test]
fn the_memory_limit_ends_the_run_inconclusive() {
    let v = inconclusive("check --json --max-memory 1 models/proc/philosophers-ordered.proc -D N=30");
    assert!(
        v["stopped"]["message"]
            .as_str()
            .unwrap()
            .contains("memory limit of 1 MB"),
        "{v}"
    );
    qpor_line_exits("check --max-memory 0 models/nets/token-ring-5.pnml", 2);
}

/// Needs the `lp` engine (Z3); without it, see the next test.
#[cfg(feature = "lp")]
#[test]
fn the_state_equation_proves_fires_or_says_nothing() {
    let o = qpor_line_exits("check --engine lp --json models/mcc2023/Kanban-PT-00005.pnml", 0);
    let v = json(&o);
    assert_eq!(
        (v["engine"].as_str(), v["verdict"].as_str()),
        (Some("lp"), Some("no-deadlock"))
    );
    assert!(v["reduction"]["places_after"].as_u64() < v["reduction"]["places_before"].as_u64());
    assert_eq!(v["stats"]["solver_calls"], 1, "{v}");
    // A net that deadlocks: the dead solution is fired, and the firing sequence replayed.
    let o = qpor_line_exits("check --engine lp --json models/nets/philosophers-5.pnml", 1);
    let v = json(&o);
    assert_eq!(
        (v["engine"].as_str(), v["verdict"].as_str()),
        (Some("lp"), Some("deadlock"))
    );
    // Every philosopher holds a fork in the dead marking: five firings at least.
    let steps = v["findings"][0]["witness"].as_array().map_or(0, Vec::len);
    assert!(steps >= 5, "{v}");
    // Programs are not its business.
    let o = qpor_line_exits("check --engine lp models/proc/philosophers.proc", 2);
    assert!(
        stderr(&o).contains("does not answer the deadlock question on a program (it works on nets"),
        "{}",
        stderr(&o)
    );
}

/// A build without the `lp` feature refuses `--engine lp` and says why; `auto` runs without
/// the state equation.
#[cfg(not(feature = "lp"))]
#[test]
fn without_lp_the_state_equation_is_refused() {
    for model in ["models/nets/philosophers-5.pnml", "models/proc/philosophers.proc"] {
        let o = qpor_line_exits(&format!("check --engine lp {model}"), 2);
        assert!(
            stderr(&o).contains("this qpor was built without the `lp` feature"),
            "{}",
            stderr(&o)
        );
    }
    qpor_line_exits("check models/mcc2023/Kanban-PT-00005.pnml --time-limit 60", 0);
}

#[test]
fn reduce_net_writes_a_net_that_checks_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.pnml");
    let out = out.to_str().unwrap();
    // The implicit-place rule (Z3: the `lp` feature) removes ten places more.
    let places = if cfg!(feature = "lp") {
        "40 → 20 places"
    } else {
        "40 → 30 places"
    };
    let o = qpor_exits(&["reduce-net", "models/nets/philosophers-10.pnml", "-o", out], 0);
    assert!(
        stderr(&o).contains(&format!("{places}, 30 → 20 transitions")),
        "{}",
        stderr(&o)
    );
    let o = qpor(&["check", "--engine", "explicit", out]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let o = qpor_line("reduce-net --json models/nets/philosophers-ordered-5.pnml");
    let v = json(&o);
    assert_eq!(v["reduction"]["places_after"], 0, "{v}");
    let merged = v["merged"].as_array().unwrap();
    assert!(
        merged.iter().all(|m| m["fires"].as_array().unwrap().len() > 1),
        "{v}"
    );
    let info = stdout(&qpor_line("info models/nets/philosophers-10.pnml"));
    assert!(
        info.contains(&format!("structural reductions: {places}")),
        "{info}"
    );
    let o = qpor_line_exits("reduce-net models/proc/philosophers.proc", 2);
    assert!(stderr(&o).contains("reduce-net works on nets"), "{}", stderr(&o));
}

#[test]
fn prefix_sat_answers_from_the_prefix_and_unfold_writes_its_formula() {
    let o = qpor_line_exits(
        "check --engine prefix-sat --json models/nets/philosophers-5.pnml",
        1,
    );
    let v = json(&o);
    assert_eq!(v["verdict"], "deadlock", "{v}");
    assert_eq!(
        v["findings"][0]["witness"].as_array().map(Vec::len),
        Some(5),
        "{v}"
    );
    let o = qpor_line_exits("check --engine prefix-sat --json models/nets/dekker.pnml", 0);
    let v = json(&o);
    assert_eq!(v["verdict"], "no-deadlock", "{v}");
    assert_eq!(v["stats"]["solver_calls"], 1, "{v}");
    // `unfold --cnf` writes the formula the engine solved: the same size.
    let dir = tempfile::tempdir().unwrap();
    let cnf = dir.path().join("dekker.cnf");
    let cnf = cnf.to_str().unwrap();
    qpor_exits(&["unfold", "models/nets/dekker.pnml", "--cnf", cnf], 0);
    let text = std::fs::read_to_string(cnf).unwrap();
    let header = format!("p cnf {} {}", v["stats"]["variables"], v["stats"]["clauses"]);
    assert_eq!(text.lines().next(), Some(header.as_str()));
    // An incomplete prefix proves nothing: inconclusive, and no formula written.
    let v = inconclusive("check --engine prefix-sat --json --max-events 5 models/nets/dekker.pnml");
    assert!(
        v["stopped"]["message"]
            .as_str()
            .unwrap()
            .contains("event limit of 5"),
        "{v}"
    );
    let o = qpor_exits(
        &[
            "unfold",
            "models/nets/dekker.pnml",
            "--max-events",
            "5",
            "--cnf",
            cnf,
        ],
        2,
    );
    assert!(stderr(&o).contains("incomplete"), "{}", stderr(&o));
    // `--max-states` is not its limit.
    qpor_line_exits(
        "check --engine prefix-sat --max-states 5 models/nets/dekker.pnml",
        2,
    );
    // A net whose place holds two tokens: its token prefix takes no cutoff by ERV's
    // tie-break (see tests/prefix.rs), says so, and is complete enough for a formula.
    let net = dir.path().join("two-tokens.pnml");
    std::fs::write(
        &net,
        r#"<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml"><net id="n" type="http://www.pnml.org/version-2009/grammar/ptnet"><page id="g">
<place id="p"><initialMarking><text>2</text></initialMarking></place><place id="q"/>
<transition id="t"/><arc id="a" source="p" target="t"/><arc id="b" source="t" target="q"/>
</page></net></pnml>"#,
    )
    .unwrap();
    let o = qpor_exits(&["unfold", net.to_str().unwrap(), "--cnf", cnf], 0);
    assert!(stdout(&o).contains("a place holds two tokens"), "{}", stdout(&o));
    let o = qpor_exits(&["unfold", net.to_str().unwrap(), "--json"], 0);
    let v = json(&o);
    assert_eq!(
        (v["tokens_shared"].as_bool(), v["events"].as_u64()),
        (Some(true), Some(2)),
        "{v}"
    );
    let o = qpor_exits(&["unfold", net.to_str().unwrap(), "--unfolding", "program"], 0);
    assert!(!stdout(&o).contains("two tokens"), "{}", stdout(&o));
}

#[test]
fn every_access_keeps_guarded_accesses_as_steps_of_their_own() {
    // poke's `i` is guarded by `mi`: folded by default, a step of its own with the flag.
    let states = |extra: &str| {
        let o = qpor_line_exits(
            format!("check --engine explicit --all --json models/proc/poke.proc -D N=3 -D K=2 {extra}")
                .trim(),
            0,
        );
        let v = json(&o);
        assert_eq!(v["verdict"], "no-deadlock");
        (
            v["stats"]["states"].as_u64().unwrap(),
            v["stats"]["terminations"].as_u64().unwrap(),
        )
    };
    let (folded, folded_ends) = states("");
    let (every, every_ends) = states("--every-access");
    assert!(folded < every, "{folded} states folded, {every} not");
    assert_eq!(folded_ends, every_ends);
    let info = json(&qpor_line_exits("info --json models/proc/poke.proc", 0));
    assert_eq!(info["guarded"][0]["variable"], "i");
    assert_eq!(info["guarded"][0]["mutex"], "mi");
    let transitions = |extra: &str| {
        let o = qpor_line_exits(
            format!("convert models/proc/ssbexp.proc -D K=2 --to pnml {extra}").trim(),
            0,
        );
        stdout(&o).matches("<transition").count()
    };
    assert!(transitions("") < transitions("--every-access"));
}
