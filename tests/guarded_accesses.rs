//! Folding the accesses to mutex-guarded variables into the step that takes the mutex
//! (`system::program`, `guards.rs`), and those to exclusive variables into the step
//! before them (`exclusive.rs`): which variables the analyses find, and that the folded
//! system keeps every dead state and every fault of the one where each access is a step
//! (explicit search on both), on random programs built around critical sections, on
//! random programs whose first process spawns and joins the others, and on every shipped
//! program; QPOR on the folded system agrees with the oracle on the unfolded one, and
//! explores as many maximal configurations on both.

mod engine_support;
use engine_support::{check_qpor, dead_states, explore_within};
use proptest::prelude::*;
use qpor::engines::qpor::AltMode;
use qpor::engines::qpor::QporOptions;
use qpor::program::{parse, Program};
use qpor::unfolding::CutoffMode;
use qpor::{FindingKind, Report, Silent};
use std::collections::BTreeSet;
use std::fmt::Write;

fn program(text: &str) -> Program {
    parse(text, "test.proc", &[])
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .0
}

/// The guarded cells of `text`, as `cell by mutex`.
fn guards(text: &str) -> Vec<String> {
    program(text)
        .guards()
        .into_iter()
        .map(|(cell, mutex)| format!("{cell} by {mutex}"))
        .collect()
}

#[test]
fn the_analysis_finds_the_variables_one_mutex_guards_everywhere() {
    // Every access under m: guarded, even through a branch and a loop.
    let text = "mutex m; var v: 0..=9 = 0;
        process p[i in 0..2] { for k in 0..2 { lock m; if v < 9 { v += 1; } unlock m; } }
        init p;";
    assert_eq!(guards(text), ["v by m"]);
    // One access outside: not guarded.
    let text = "mutex m; var v: 0..=9 = 0;
        process p { lock m; v = 1; unlock m; }
        process q { v = 2; }
        init p, q;";
    assert!(guards(text).is_empty());
    // Held on one branch only: not guarded where the branches meet.
    let text = "mutex m; var v: 0..=9 = 0; var c: bool = false;
        process p { var b: bool = false; if b { lock m; } v = 1; if b { unlock m; } }
        init p;";
    assert!(guards(text).is_empty());
    // Unlocked before the access.
    let text = "mutex m; var v: 0..=9 = 0;
        process p { lock m; unlock m; v = 1; }
        init p;";
    assert!(guards(text).is_empty());
    // Arrays element for element, with the same index; not when the index changed.
    let text = "mutex m[2]; var a[2]: 0..=1 = 0;
        process p[i in 0..2] { lock m[i]; a[i] = 1; unlock m[i]; }
        process q { var l: 0..=1 = 1; lock m[l]; a[l] = 0; unlock m[l]; }
        init p, q;";
    assert_eq!(guards(text), ["a[0] by m[0]", "a[1] by m[1]"]);
    let text = "mutex m[2]; var a[2]: 0..=1 = 0;
        process q { var l: 0..=1 = 1; lock m[l]; l = 0; a[l] = 0; unlock m[l]; }
        init q;";
    assert!(guards(text).is_empty());
    // A mutex that guards two variables folds neither.
    let text = "mutex m; var v, w: 0..=1 = 0;
        process p { lock m; v = 1; w = 1; unlock m; }
        init p;";
    assert!(guards(text).is_empty());
}

/// The exclusive variables of `text`.
fn exclusives(text: &str) -> Vec<String> {
    program(text).exclusives()
}

#[test]
fn the_analysis_finds_the_variables_whose_accesses_never_race() {
    // Poke: main reads the flags and the counter only after joining every process that
    // touches them, and the readers run one at a time.
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/proc/poke.proc")).unwrap();
    assert_eq!(program(&text).exclusives(), ["a", "d"]);
    // Written before the spawn, read after the join.
    let text = "var v: 0..=9 = 0;
        process w { v += 1; }
        process main { v = 1; spawn w; join w; assert v == 2; }
        init main;";
    assert_eq!(exclusives(text), ["v"]);
    // Read while the writer may still run.
    let text = "var v: 0..=9 = 0;
        process w { v += 1; }
        process main { spawn w; assert v < 2; join w; }
        init main;";
    assert!(exclusives(text).is_empty());
    // Workers one at a time in a loop; all at once.
    let text = "var v: 0..=9 = 0;
        process w[i in 0..3] { v += 1; }
        process main { for k in 0..3 { spawn w[k]; join w[k]; } assert v == 3; }
        init main;";
    assert_eq!(exclusives(text), ["v"]);
    let text = "var v: 0..=9 = 0;
        process w[i in 0..3] { v += 1; }
        process main { for k in 0..3 { spawn w[k]; } for k in 0..3 { join w[k]; } assert v == 3; }
        init main;";
    assert!(exclusives(text).is_empty());
    // A join on one branch only: the worker may still run after the branches meet.
    let text = "var v: 0..=9 = 0; var c: bool = false;
        process w { v += 1; }
        process main { spawn w; if c { join w; } v = 5; }
        init main;";
    assert_eq!(exclusives(text), ["c"], "only main reads c");
    // A worker that another worker may spawn is not followed: it may run any time.
    let text = "var v: 0..=9 = 0;
        process w { v += 1; }
        process s { spawn w; }
        process main { spawn s; join s; v = 2; }
        init main;";
    assert!(exclusives(text).is_empty());
    // Two variables under one mutex (neither guarded: a mutex folds one variable into
    // its lock) are exclusive, with one process or several at the start.
    let text = "mutex m; var v, u: 0..=1 = 0;
        process p[i in 0..2] { lock m; v = 1 - u; u = v; unlock m; }
        init p;";
    assert_eq!(exclusives(text), ["v", "u"]);
    // Array cells under the mutex of their own index; not under another's.
    let text = "mutex m[2]; var a[2], b[2]: 0..=1 = 0;
        process p[i in 0..2] { lock m[i]; a[i] = b[i]; b[i] = 1; unlock m[i]; }
        init p;";
    assert_eq!(exclusives(text), ["a", "b"]);
    let text = "mutex m[2]; var a[2], b[2]: 0..=1 = 0;
        process p[i in 0..2] { lock m[i]; a[i] = b[1 - i]; b[i] = 1; unlock m[i]; }
        init p;";
    assert!(exclusives(text).is_empty());
    assert_eq!(guards(text), ["a[0] by m[0]", "a[1] by m[1]"], "m guards a alone");
}

#[test]
fn exclusive_accesses_are_folded_into_the_step_before_them() {
    // Main's reads after the join fold into it; with every access a step, they are steps.
    let text = "var v: 0..=9 = 0; var u: 0..=9 = 0;
        process w[i in 0..2] { v += 1; }
        process main { for k in 0..2 { spawn w[k]; join w[k]; u = v; } assert u == 2; }
        init main;";
    let prog = program(text);
    assert_eq!(prog.exclusives(), ["v", "u"]);
    assert_folding_keeps_dead_states_in_fewer_states(&prog);
}

#[test]
fn guarded_accesses_are_folded_into_the_lock() {
    let text = "mutex m; var v: 0..=9 = 0;
        process p[i in 0..2] { lock m; v += 1; v += 1; unlock m; }
        init p;";
    let prog = program(text);
    // Per process: before the lock, holding it, done; against four points with the
    // accesses as steps.
    assert_folding_keeps_dead_states_in_fewer_states(&prog);
}

/// The explicit search finds the same dead states on the folded system as on the one
/// where every access is a step, and stores fewer states.
fn assert_folding_keeps_dead_states_in_fewer_states(prog: &Program) {
    let folded = explore_within(&prog.system().unwrap(), true, None);
    let every = explore_within(&prog.system_every_access().unwrap(), true, None);
    assert_eq!(dead_states(&folded), dead_states(&every));
    let states = |r: &Report| r.stats.get("states").unwrap();
    assert!(
        states(&folded) < states(&every),
        "{} states folded, {} not",
        states(&folded),
        states(&every)
    );
}

/// The fault messages of `r` and its dead states.
fn outcome(r: &Report) -> (BTreeSet<(FindingKind, String)>, BTreeSet<String>) {
    let dead = dead_states(r)
        .into_iter()
        .filter(|(k, _)| *k != FindingKind::Fault)
        .collect();
    let faults = r.findings.iter().filter_map(|f| f.message.clone()).collect();
    (dead, faults)
}

/// Compares the folded system with the one where every access is a step; `Ok(false)`
/// when the unfolded one has more than `max_states` states. With `traces` (for acyclic
/// programs), also their maximal configurations.
fn folding_agrees(prog: &Program, what: &str, max_states: u64, traces: bool) -> Result<bool, TestCaseError> {
    let every = explore_within(&prog.system_every_access().unwrap(), true, Some(max_states));
    if every.stopped.is_some() {
        return Ok(false);
    }
    let folded_sys = prog.system().unwrap();
    let folded = explore_within(&folded_sys, true, None);
    prop_assert_eq!(folded.stopped, None);
    prop_assert_eq!(outcome(&folded), outcome(&every), "{}", what);
    prop_assert!(folded.stats.get("states").unwrap() <= every.stats.get("states").unwrap());
    // QPOR on the folded system finds the unfolded system's dead states, and one fault
    // iff there is one.
    let opts = QporOptions {
        all: true,
        alt: AltMode::Optimal,
        cutoff: CutoffMode::Erv,
        ..QporOptions::default()
    };
    let por = check_qpor(&folded_sys, &opts, &mut Silent).unwrap();
    let (dead, faults) = outcome(&every);
    prop_assert_eq!(outcome(&por).0, dead, "{}", what);
    prop_assert_eq!(outcome(&por).1.is_empty(), faults.is_empty(), "{}", what);
    if traces && faults.is_empty() {
        prop_assert_eq!(
            traces_of(&folded_sys),
            traces_of(&prog.system_every_access().unwrap()),
            "{}",
            what
        );
    }
    Ok(true)
}

/// The maximal configurations (Mazurkiewicz traces) of an acyclic program's system, by
/// QPOR without cutoffs. Folded or not, they are as many when nothing faults: the folded
/// accesses were ordered with every access of the others anyway. QPOR skips the folded
/// cells' trees when it looks for immediate conflicts; a conflict missed there would lose
/// maximal configurations.
fn traces_of(sys: &qpor::program::ProgramSystem<'_>) -> u64 {
    let opts = QporOptions {
        all: true,
        alt: AltMode::Optimal,
        cutoff: CutoffMode::None,
        ..QporOptions::default()
    };
    check_qpor(sys, &opts, &mut Silent)
        .unwrap()
        .stats
        .get("max_configurations")
        .unwrap()
}

/// A random program: per process, statement codes rendered by [`statement`].
#[derive(Clone, Debug)]
struct ProgramSpec {
    processes: Vec<Vec<(u8, u8)>>,
}

fn program_spec() -> impl Strategy<Value = ProgramSpec> {
    prop::collection::vec(prop::collection::vec((0u8..24, 0u8..4), 1..=4), 2..=3)
        .prop_map(|processes| ProgramSpec { processes })
}

/// Critical sections over `x` (guarded by `g` unless codes 15 or 16 occur), `a[k]` (by
/// `m[k]`) and the unguarded `z`, nested locks, a semaphore, failing assertions and
/// overflows.
fn statement(code: u8, b: u8, p: usize, out: &mut String) {
    let k = b % 2;
    // A read and a write under g, and an unguarded write, come more often: together they
    // tell a sound analysis from an eager one.
    let code = match code {
        18..=20 => 1,
        21..=23 => 15,
        c => c,
    };
    let line = match code {
        0 => "lock g; x = (x + 1) % 3; unlock g;".to_string(),
        1 => format!("lock g; if x == {k} {{ x = 2; }} unlock g;"),
        2 => "lock g; l = x; unlock g;".to_string(),
        3 => format!("lock g; assert x != {}; unlock g;", b % 3),
        4 => "lock h; lock g; x = 0; unlock g; unlock h;".to_string(),
        // The access after `lock h` is not folded into it: h guards nothing of x.
        5 => "lock g; lock h; x = (x + 2) % 3; unlock h; unlock g;".to_string(),
        6 => format!("lock m[{k}]; a[{k}] = 1 - a[{k}]; unlock m[{k}];"),
        7 => format!("l = {k}; lock m[l]; if a[l] == 1 {{ z = l; }} unlock m[l];"),
        8 => format!("z = {};", b % 3),
        9 => "lock g; l = x; unlock g; z = l;".to_string(),
        10 => "wait s; lock g; x = x + 1; unlock g; signal s;".to_string(),
        11 => "lock h; unlock h;".to_string(),
        12 => format!("lock g; x = x + {}; unlock g;", b % 2 + 1),
        13 => format!(
            "while z != {} {{ lock g; x = (x + 1) % 3; unlock g; z = (z + 1) % 3; }}",
            b % 3
        ),
        14 => format!("lock m[{k}]; lock g; a[{k}] = x % 2; unlock g; unlock m[{k}];"),
        // Accesses that leave x unguarded, for an analysis too eager to see a guard.
        15 => format!("lock g; unlock g; x = {};", b % 3),
        16 => format!("if x == {} {{ z = 1; }}", b % 3),
        _ => format!("lock g; lock m[{k}]; assert a[{k}] + x < 3; unlock m[{k}]; unlock g; // p{p}"),
    };
    writeln!(out, "    {line}").unwrap();
}

fn render(spec: &ProgramSpec) -> String {
    let mut out = String::from(
        "mutex g, h, m[2];\nsem s = 1;\nvar x: 0..=2 = 0;\nvar z: 0..=2 = 0;\nvar a[2]: 0..=1 = 0;\n",
    );
    for (p, code) in spec.processes.iter().enumerate() {
        writeln!(out, "process p{p} {{\n    var l: 0..=2 = 0;").unwrap();
        for &(c, b) in code {
            statement(c, b, p, &mut out);
        }
        writeln!(out, "}}").unwrap();
    }
    let init: Vec<String> = (0..spec.processes.len()).map(|p| format!("p{p}")).collect();
    writeln!(out, "init {};", init.join(", ")).unwrap();
    out
}

/// A random program whose first process spawns and joins the others: main's statement
/// codes, and per worker (two instances of `w`, one `v`) its statement codes.
#[derive(Clone, Debug)]
struct ControlSpec {
    main: Vec<(u8, u8)>,
    w: Vec<(u8, u8)>,
    v: Vec<(u8, u8)>,
}

fn control_spec() -> impl Strategy<Value = ControlSpec> {
    let body = || prop::collection::vec((0u8..9, 0u8..4), 1..=3);
    (prop::collection::vec((0u8..16, 0u8..4), 2..=8), body(), body()).prop_map(|(main, w, v)| ControlSpec {
        main,
        w,
        v,
    })
}

/// A worker statement: accesses to x, y and a[] with and without their locks, a failing
/// assertion. `me` is the worker's index expression.
fn worker_statement(code: u8, b: u8, me: &str, out: &mut String) {
    let line = match code {
        0 => "x = (x + 1) % 3;".to_string(),
        1 => "lock g; x = (x + 1) % 3; unlock g;".to_string(),
        2 => "y = (y + 1) % 3;".to_string(),
        3 => format!("lock m[{me}]; a[{me}] = 1 - a[{me}]; unlock m[{me}];"),
        4 => "l = x; if l == 1 { y = 2; }".to_string(),
        5 => format!("lock g; lock m[{me}]; a[{me}] = x % 2; unlock m[{me}]; unlock g;"),
        6 => format!("assert y != {};", b % 3 + 1),
        7 => "lock g; unlock g;".to_string(),
        _ => format!("lock g; y = {}; unlock g;", b % 3),
    };
    writeln!(out, "    {line}").unwrap();
}

/// A statement of main: spawns and joins one by one, in loops and under conditions on
/// shared values, and accesses between them.
fn main_statement(code: u8, b: u8, out: &mut String) {
    let k = b % 2;
    let line = match code {
        0 | 1 => format!("spawn w[{k}];"),
        2 | 3 => format!("join w[{k}];"),
        4 => "spawn v;".to_string(),
        5 => "join v;".to_string(),
        6 => format!("x = {};", b % 3),
        7 => "y = (y + 1) % 3;".to_string(),
        8 => format!("if x == 0 {{ join w[{k}]; }}"),
        9 => "for j in 0..2 { spawn w[j]; join w[j]; }".to_string(),
        10 => "for j in 0..2 { spawn w[j]; }".to_string(),
        11 => "for j in 0..2 { join w[j]; }".to_string(),
        12 => format!("l = a[{k}]; a[{k}] = 1 - l;"),
        13 => format!("lock g; x = {}; unlock g;", b % 3),
        14 => "assert y + x < 4;".to_string(),
        _ => "l = y; if l == 2 { spawn v; }".to_string(),
    };
    writeln!(out, "    {line}").unwrap();
}

fn render_control(spec: &ControlSpec) -> String {
    let mut out =
        String::from("mutex g, m[2];\nvar x: 0..=2 = 0;\nvar y: 0..=2 = 0;\nvar a[2]: 0..=1 = 0;\n");
    out.push_str("process w[i in 0..2] {\n    var l: 0..=2 = 0;\n");
    for &(c, b) in &spec.w {
        worker_statement(c, b, "i", &mut out);
    }
    out.push_str("}\nprocess v {\n    var l: 0..=2 = 0;\n");
    for &(c, b) in &spec.v {
        worker_statement(c, b, "0", &mut out);
    }
    out.push_str("}\nprocess main {\n    var l: 0..=2 = 0;\n");
    for &(c, b) in &spec.main {
        main_statement(c, b, &mut out);
    }
    out.push_str("}\ninit main;\n");
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn folding_keeps_every_dead_state_and_fault(spec in program_spec()) {
        let text = render(&spec);
        let prog = program(&text);
        let compared = folding_agrees(&prog, &text, 50_000, false)?;
        prop_assume!(compared);
    }

    #[test]
    fn folding_exclusive_accesses_keeps_every_dead_state_and_fault(spec in control_spec()) {
        let text = render_control(&spec);
        // Some programs join an instance that nothing starts, which the front end rejects.
        let parsed = parse(&text, "test.proc", &[]);
        prop_assume!(parsed.is_ok());
        let compared = folding_agrees(&parsed.unwrap().0, &text, 50_000, true)?;
        prop_assume!(compared);
    }
}

/// Every shipped program at its default size and a smaller one; the Table 1 families
/// also have as many maximal configurations folded as not (the Mazurkiewicz traces of
/// the other steps are kept).
#[test]
fn shipped_programs_keep_every_dead_state_when_folded() {
    let mut compared = 0;
    for (file, text) in engine_support::shipped_program_texts() {
        let first = engine_support::param_names(&text).into_iter().next();
        let mut sizes = vec![Vec::new()];
        if let Some(first) = first {
            sizes.push(vec![(first, 2)]);
        }
        for defines in sizes {
            let Ok((prog, _)) = parse(&text, &file, &defines) else {
                continue;
            };
            let what = format!("{file} {defines:?}");
            if folding_agrees(&prog, &what, 200_000, false).unwrap() {
                compared += 1;
            }
        }
    }
    assert!(compared >= 20, "only {compared} programs compared");
    let opts = QporOptions {
        all: true,
        alt: AltMode::Optimal,
        cutoff: CutoffMode::None,
        ..QporOptions::default()
    };
    for (name, params) in engine_support::TABLE_1_SMALL {
        let model = engine_support::program(name, params);
        let qpor::Model::Program(prog) = &model else {
            unreachable!()
        };
        let configs = |sys: &qpor::program::ProgramSystem<'_>| {
            check_qpor(sys, &opts, &mut Silent)
                .unwrap()
                .stats
                .get("max_configurations")
                .unwrap()
        };
        assert_eq!(
            configs(&prog.system().unwrap()),
            configs(&prog.system_every_access().unwrap()),
            "{name} {params:?}"
        );
    }
}
