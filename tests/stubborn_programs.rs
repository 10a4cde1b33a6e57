//! The stubborn-set engine on programs against the explicit-state oracle, in the three orders:
//! with `--all` exactly the oracle's dead states (deadlocks and terminations), a fault iff
//! the oracle has one (and only faults the oracle has), a first finding the oracle also
//! has, and breadth first a shortest witness to the nearest dead state. On random programs
//! that use every kind of statement (mutexes, semaphores, shared cells with computed
//! indices, channels, spawn and join, choices, loops, assertions that fail) and on every
//! shipped program at several sizes.

mod engine_support;
use engine_support::explore_within;
use proptest::prelude::*;
use qpor::engines::stubborn::{search_program, SearchOrder, StubbornOptions};
use qpor::program::{parse, Program};
use qpor::{Budget, FindingKind, Report, Silent};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The findings of `r` of the given kinds, as (kind, state).
fn findings(r: &Report, kinds: &[FindingKind]) -> BTreeSet<(String, String)> {
    r.findings
        .iter()
        .filter(|f| kinds.contains(&f.kind))
        .map(|f| (format!("{:?}", f.kind), f.state.clone()))
        .collect()
}

const DEAD: [FindingKind; 2] = [FindingKind::Deadlock, FindingKind::Termination];

fn stubborn(prog: &Program, all: bool, order: SearchOrder) -> Report {
    let sys = prog.system().unwrap();
    let opts = StubbornOptions {
        all,
        order,
        ..StubbornOptions::default()
    };
    search_program(&sys, &opts, &Budget::unlimited(), &mut Silent).unwrap()
}

/// The shortest witness among the findings of `kind` (the oracle lists them in
/// breadth-first order, so it is the first).
fn first_length(r: &Report, kind: FindingKind) -> Option<usize> {
    r.findings
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.witness.steps.len())
        .min()
}

/// Compares the stubborn engine with the oracle on `prog`; `Ok(false)` when the oracle
/// needs more than `max_states` states.
fn agrees_with_the_oracle(prog: &Program, what: &str, max_states: u64) -> Result<bool, TestCaseError> {
    let sys = prog.system().unwrap();
    let oracle = explore_within(&sys, true, Some(max_states));
    if oracle.stopped.is_some() {
        return Ok(false);
    }
    let oracle_faults = findings(&oracle, &[FindingKind::Fault]);
    let every = findings(
        &oracle,
        &[
            FindingKind::Deadlock,
            FindingKind::Termination,
            FindingKind::Fault,
        ],
    );
    for order in [SearchOrder::Depth, SearchOrder::Breadth, SearchOrder::Best] {
        let all = stubborn(prog, true, order);
        prop_assert_eq!(all.stopped, None);
        prop_assert_eq!(
            findings(&all, &DEAD),
            findings(&oracle, &DEAD),
            "{} {:?}",
            what,
            order
        );
        let faults = findings(&all, &[FindingKind::Fault]);
        prop_assert_eq!(
            faults.is_empty(),
            oracle_faults.is_empty(),
            "{} {:?}",
            what,
            order
        );
        prop_assert!(faults.is_subset(&oracle_faults), "{} {:?}", what, order);
        prop_assert!(all.stats.get("states").unwrap() <= oracle.stats.get("states").unwrap());
        if order == SearchOrder::Breadth {
            for kind in DEAD {
                prop_assert_eq!(
                    first_length(&all, kind),
                    first_length(&oracle, kind),
                    "{} {:?}",
                    what,
                    kind
                );
            }
        }
        let one = stubborn(prog, false, order);
        match one.findings.first() {
            Some(f) => {
                let key = (format!("{:?}", f.kind), f.state.clone());
                prop_assert!(every.contains(&key), "{} {:?}: {:?}", what, order, key);
            }
            None => prop_assert!(
                oracle.findings.iter().all(|f| f.kind == FindingKind::Termination),
                "{} {:?} found nothing",
                what,
                order
            ),
        }
    }
    Ok(true)
}

/// A random program: per process, a list of statement codes (kind, a, b) rendered by
/// [`render`]; the first `started` processes start at `init`, the others wait for a spawn.
#[derive(Clone, Debug)]
struct ProgramSpec {
    processes: Vec<Vec<(u8, u8, u8)>>,
    started: usize,
    sem_init: u8,
}

fn program_spec() -> impl Strategy<Value = ProgramSpec> {
    (2usize..=4)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(prop::collection::vec((0u8..32, 0u8..4, 0u8..4), 2..=8), n),
                (n / 2).max(1)..=n,
                0u8..=1,
            )
        })
        .prop_map(|(processes, started, sem_init)| ProgramSpec {
            processes,
            started,
            sem_init,
        })
}

/// The source text of `spec`. Statements that the front end would reject (an unlock no
/// lock precedes, a spawn of a started process, a join of one nothing starts) are not
/// produced; everything that faults at run time is.
fn render(spec: &ProgramSpec) -> String {
    let mut out = String::new();
    writeln!(out, "mutex m0, m1;\nsem s = {};", spec.sem_init).unwrap();
    writeln!(
        out,
        "var x: 0..=2 = 0;\nvar y[2]: 0..=1 = 0;\nchan c: 0..=2;\nchan g;"
    )
    .unwrap();
    for (p, code) in spec.processes.iter().enumerate() {
        writeln!(out, "process p{p} {{\n    var l: 0..=2 = 0;").unwrap();
        let mut at = 0;
        while at < code.len() {
            at = statement(spec, p, code, at, 1, &mut out);
        }
        writeln!(out, "}}").unwrap();
    }
    let init: Vec<String> = (0..spec.started).map(|p| format!("p{p}")).collect();
    writeln!(out, "init {};", init.join(", ")).unwrap();
    out
}

/// Renders the statement at `code[at]` (and the ones a compound statement takes as its
/// body) at nesting `depth`; returns the index after them.
fn statement(
    spec: &ProgramSpec,
    p: usize,
    code: &[(u8, u8, u8)],
    at: usize,
    depth: usize,
    out: &mut String,
) -> usize {
    let (kind, a, b) = code[at];
    // Codes past 19 repeat the statements that do not block (data, critical sections,
    // loops, conditionals), so that most programs run for a while.
    let kind = match kind {
        20..=23 => 5 + kind % 5,
        24..=26 => 0,
        27..=28 => 17,
        29..=31 => 10,
        k => k,
    };
    let pad = "    ".repeat(depth);
    let m = a % 2;
    let v = b % 3;
    let n = spec.processes.len();
    let other = other_process(p, a, n);
    let mut next = at + 1;
    let body = |out: &mut String, next: &mut usize| {
        if *next < code.len() && depth < 3 {
            *next = statement(spec, p, code, *next, depth + 1, out);
        } else {
            writeln!(out, "{pad}    skip;").unwrap();
        }
    };
    // `open`, a nested statement, `close`.
    let block = |out: &mut String, next: &mut usize, open: String, close: &str| {
        writeln!(out, "{pad}{open}").unwrap();
        body(out, next);
        writeln!(out, "{pad}{close}").unwrap();
    };
    match kind {
        0 | 1 => block(out, &mut next, format!("lock m{m};"), &format!("unlock m{m};")),
        2 => writeln!(out, "{pad}lock m{m};").unwrap(),
        3 => writeln!(out, "{pad}wait s;").unwrap(),
        4 => writeln!(out, "{pad}signal s;").unwrap(),
        5 => writeln!(out, "{pad}x = x + {};", b % 2).unwrap(),
        6 => writeln!(out, "{pad}x = {v};").unwrap(),
        7 => writeln!(out, "{pad}y[{}] = {};", a % 2, b % 2).unwrap(),
        8 => writeln!(out, "{pad}l = x; y[l] = {};", b % 2).unwrap(),
        9 => writeln!(out, "{pad}l = x; x = (l + {}) % 3;", b % 2 + 1).unwrap(),
        10 => block(out, &mut next, format!("if x == {v} {{"), "}"),
        11 => writeln!(out, "{pad}assert x != {v};").unwrap(),
        12 => writeln!(out, "{pad}c!{v};").unwrap(),
        13 => writeln!(out, "{pad}c?x;").unwrap(),
        14 => writeln!(out, "{pad}g!;").unwrap(),
        15 => writeln!(out, "{pad}g?;").unwrap(),
        16 => {
            writeln!(out, "{pad}choose {{").unwrap();
            body(out, &mut next);
            writeln!(out, "{pad}}} or {{").unwrap();
            body(out, &mut next);
            writeln!(out, "{pad}}}").unwrap();
        }
        // A loop that may run forever: cycles in the state space.
        17 => block(out, &mut next, format!("while x != {v} {{"), "}"),
        18 if other >= spec.started => writeln!(out, "{pad}spawn p{other};").unwrap(),
        18 | 19 if other != p && (other < spec.started || spawned(spec, other)) => {
            writeln!(out, "{pad}join p{other};").unwrap()
        }
        _ => writeln!(out, "{pad}y[{}] = y[{}];", a % 2, b % 2).unwrap(),
    }
    next
}

/// The process other than `p` (of `n`) that code argument `a` names in a spawn or join.
fn other_process(p: usize, a: u8, n: usize) -> usize {
    (p + 1 + a as usize % (n - 1).max(1)) % n
}

/// Whether some statement of `spec` spawns process `q` (as [`statement`] renders them).
fn spawned(spec: &ProgramSpec, q: usize) -> bool {
    let n = spec.processes.len();
    spec.processes.iter().enumerate().any(|(p, code)| {
        code.iter()
            .any(|&(kind, a, _)| kind == 18 && other_process(p, a, n) == q && q >= spec.started)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    /// Random programs with every kind of statement.
    #[test]
    fn random_programs_keep_every_dead_state_and_some_fault(spec in program_spec()) {
        let text = render(&spec);
        let parsed = parse(&text, "random.proc", &[]);
        prop_assume!(parsed.is_ok());
        let (prog, _) = parsed.unwrap();
        let compared = agrees_with_the_oracle(&prog, &text, 20_000)?;
        prop_assume!(compared);
    }
}

/// Every shipped program at its default size and at a few others.
#[test]
fn shipped_programs_keep_every_dead_state() {
    let mut compared = 0;
    for (file, text) in engine_support::shipped_program_texts() {
        let params = engine_support::param_names(&text);
        let mut sizes = vec![Vec::new()];
        if let Some(first) = params.first() {
            sizes.push(vec![(first.clone(), 1)]);
            sizes.push(vec![(first.clone(), 3)]);
        }
        for defines in sizes {
            let Ok((prog, _)) = parse(&text, &file, &defines) else {
                continue;
            };
            let what = format!("{file} {defines:?}");
            if agrees_with_the_oracle(&prog, &what, 200_000).unwrap() {
                compared += 1;
            }
        }
    }
    assert!(compared >= 20, "only {compared} programs compared");
}
