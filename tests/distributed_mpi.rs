//! `mpirun -np 2 qpor check --distributed` against the run on one process: the same
//! counts, verdict, dead states and exit status, rank 0 alone printing. Built only with
//! the `mpi` feature; needs Open MPI's `mpirun` (`.ci/run` installs it).
#![cfg(feature = "mpi")]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

/// Runs qpor with `args`, under `mpirun -np ranks` when `ranks` is given.
fn qpor(ranks: Option<usize>, args: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_qpor");
    let mut cmd = match ranks {
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.args(["--oversubscribe", "-np", &n.to_string(), bin]);
            // CI runs as root, which Open MPI refuses unless told.
            c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            c
        }
        None => Command::new(bin),
    };
    cmd.args(args).output().expect("mpirun and qpor run")
}

/// The JSON report of a run, and its exit status.
fn report(ranks: Option<usize>, args: &[&str]) -> (Value, i32) {
    let out = qpor(ranks, args);
    let text = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "{args:?} on {ranks:?} ranks: one JSON report expected ({e}):\n{text}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (json, out.status.code().unwrap_or(-1))
}

/// The dead states a report lists, with their kind.
fn dead_states(r: &Value) -> BTreeSet<(String, String)> {
    r["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| (f["kind"].to_string(), f["state"].to_string()))
        .collect()
}

/// Checks `model` on 2 ranks and on one process, with `--cutoff cutoff` and `extra`
/// options, and compares.
fn assert_two_ranks_agree(model: &str, cutoff: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "check", model, "--engine", "qpor", "--cutoff", cutoff, "--json", "-q",
    ];
    args.extend_from_slice(extra);
    let (seq, seq_status) = report(None, &args);
    args.push("--distributed");
    let (dist, dist_status) = report(Some(2), &args);
    let how = format!("{model} {extra:?}");
    assert_eq!(dist_status, seq_status, "{how}: exit status");
    assert_eq!(dist["verdict"], seq["verdict"], "{how}");
    assert_eq!(dist["ranks"], 2, "{how}: {dist}");
    for name in ["max_configurations", "deadlocks", "terminations"] {
        assert_eq!(dist["stats"][name], seq["stats"][name], "{how}: {name}");
    }
    if extra.contains(&"--all") {
        // Explored to the end, the runs split alike (k-partial at nodes fixed by the
        // model; optimal runs meet no SSB).
        assert_eq!(dist["stats"]["ssbs"], seq["stats"]["ssbs"], "{how}: ssbs");
    }
    assert_eq!(dead_states(&dist), dead_states(&seq), "{how}: dead states");
    dist
}

#[test]
fn two_ranks_count_the_paper_rows_as_one_process_does() {
    let poke = assert_two_ranks_agree(
        "models/proc/poke.proc",
        "none",
        // Pol(5,3) now ends before the second rank asks for work (folded accesses).
        &["-D", "N=7", "-D", "K=3", "--optimal", "--all"],
    );
    assert_eq!(poke["stats"]["max_configurations"], 2440, "Pol(7,3)'s traces");
    assert_eq!(poke["stats"]["ssbs"], 0, "an SSB in optimal mode");
    assert!(
        poke["stats"]["tasks"].as_u64().unwrap() > 1,
        "the run never split: {poke}"
    );
    assert!(poke["stats"]["messages"].as_u64().unwrap() > 0);
    let k1 = ["-D", "S=5", "-D", "R=3", "-k", "1", "--all"];
    let dist = assert_two_ranks_agree("models/proc/dispatcher.proc", "none", &k1);
    // k-partial runs split at nodes fixed by the model alone: the same tasks, SSBs and
    // events in one process on any number of threads.
    let mut args = vec![
        "check",
        "models/proc/dispatcher.proc",
        "--engine",
        "qpor",
        "--cutoff",
        "none",
        "--json",
        "-q",
        "--threads",
        "1",
    ];
    args.extend_from_slice(&k1);
    let (one, _) = report(None, &args);
    assert!(one["stats"]["tasks"].as_u64().unwrap() > 1, "never split: {one}");
    assert_eq!(dist["splits"], "fixed", "{dist}");
    for name in ["ssbs", "events", "tasks"] {
        assert_eq!(dist["stats"][name], one["stats"][name], "{name}: {dist} {one}");
    }
    assert_two_ranks_agree(
        "models/proc/mpat.proc",
        "none",
        &["-D", "K=4", "--optimal", "--all"],
    );
}

/// Two ranks on the deadlocking philosophers with `cutoff`, which must meet cutoffs.
fn assert_two_ranks_cut_alike(cutoff: &str) {
    let r = assert_two_ranks_agree("models/proc/philosophers.proc", cutoff, &["--optimal", "--all"]);
    assert!(
        r["stats"]["cutoff_leaves"].as_u64().unwrap() > 0,
        "{cutoff}: no cutoff met, nothing shown: {r}"
    );
}

/// Causal cutoffs are decided by each event's history, so two processes cut alike.
#[test]
fn two_ranks_cut_causally_as_one_process_does() {
    assert_two_ranks_cut_alike("causal");
}

/// Distance cutoffs are decided by each event's history and a table every process
/// searches alike.
#[test]
fn two_ranks_cut_by_distance_as_one_process_does() {
    assert_two_ranks_cut_alike("distance");
}

/// Canonical cutoffs are decided by each event's history and the complete ERV prefix,
/// which every process builds alike.
#[test]
fn two_ranks_cut_canonically_as_one_process_does() {
    assert_two_ranks_cut_alike("canonical");
}

#[test]
fn two_ranks_find_a_deadlock_and_exit_as_one_process_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two-locks.proc");
    std::fs::write(
        &path,
        "mutex a;\nmutex b;\n\
         process p { lock a; lock b; unlock b; unlock a; }\n\
         process q { lock b; lock a; unlock a; unlock b; }\n\
         init p; init q;\n",
    )
    .unwrap();
    let model = path.to_str().unwrap();
    for extra in [&["--all"][..], &[]] {
        let r = assert_two_ranks_agree(model, "none", extra);
        assert_eq!(r["verdict"], "deadlock");
        let witness = r["witness"].as_array().unwrap();
        assert_eq!(witness.len(), 2, "{r}");
    }
}

#[test]
fn a_distributed_run_needs_cutoffs_every_rank_decides_alike_and_says_so_once() {
    let model = Path::new("models/proc/pi.proc").to_str().unwrap();
    let out = qpor(
        Some(2),
        &["check", model, "--engine", "qpor", "--distributed", "-q"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .matches("--distributed with --cutoff erv: under an adequate order")
            .count(),
        1,
        "only rank 0 reports the error: {stderr}"
    );
}
