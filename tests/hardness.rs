//! The NP-hardness reductions (docs/paper.md#np-hardness, issue 7) against an independent SAT solver
//! (batsat): for every formula of a fixed-seed set of random 3-CNF formulas and of
//! hand-made edge cases, the three deciders — optimal Alt on the Theorem 4.1 PES, optimal
//! Alt on the Theorem 4.2 program, the general backend's cex search on the Theorem 4.3 net
//! — give the solver's answer, and every witness is checked here, without the library's
//! own relations: the assignment satisfies φ, J is a clue conflicting with all of D, the
//! co-set is a co-set of the occurrence net of C whose marking enables t*.
//!
//! The instances go through their text form (`qpor hardness` output read back by the
//! instance reader), so the generators, writers and readers are tested too.

mod sat_support;
use qpor::formats::dimacs::{self, Cnf};
use qpor::hardness::random_cnf;
use qpor::hardness::WitnessEvent;
use qpor::hardness::{self, Instance};
use qpor::hardness::{decide_alt, decide_cex, AltAnswer, CexAnswer, CexOptions, DecideOptions};
use qpor::{CompId, System};
use sat_support::solver_says_sat;
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------
// The oracle and independent checks.

/// Whether `a` (`a[v-1]` is xᵥ; undecided variables are false) satisfies every clause.
fn satisfies(cnf: &Cnf, a: &[Option<bool>]) -> bool {
    cnf.clauses.iter().all(|c| {
        c.iter().any(|&l| {
            let v = a
                .get(l.unsigned_abs() as usize - 1)
                .copied()
                .flatten()
                .unwrap_or(false);
            v == (l > 0)
        })
    })
}

fn read_instance(text: &str, file: &str) -> Instance {
    let (inst, _) =
        hardness::read_instance(text, file, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    inst
}

/// Theorem 4.1: J must be a clue (no clause event, never both a<i> and b<i>) that
/// conflicts with every d<j> (holds the event of one of its literals) — the relations are
/// rebuilt here from the formula, not taken from the PES.
fn check_pes_witness(cnf: &Cnf, a: &AltAnswer, what: &str) {
    assert!(a.config.is_empty(), "{what}: C = ∅");
    assert_eq!(a.d.len(), cnf.clauses.len(), "{what}: D is the clause events");
    let names: Vec<&str> = a.alternative.iter().map(|e| e.name.as_str()).collect();
    for n in &names {
        assert!(
            n.starts_with('a') || n.starts_with('b'),
            "{what}: J holds {n}, not a literal event"
        );
    }
    for i in 1..=cnf.num_vars {
        let (p, q) = (format!("a{i}"), format!("b{i}"));
        assert!(
            !(names.contains(&p.as_str()) && names.contains(&q.as_str())),
            "{what}: J holds a{i} # b{i}"
        );
    }
    for (j, c) in cnf.clauses.iter().enumerate() {
        let killed = c.iter().any(|&l| {
            let e = if l > 0 {
                format!("a{l}")
            } else {
                format!("b{}", -l)
            };
            names.contains(&e.as_str())
        });
        assert!(killed, "{what}: no event of J conflicts with d{}", j + 1);
    }
}

/// Theorem 4.2: C ∪ J replays as a run of the program, each event with exactly the
/// predecessors it claims (so it is a configuration of the unfolding); J avoids D; and for
/// every d of D some event of J has d's predecessor on a component both touch (siblings in
/// that component's tree: in conflict).
fn check_program_witness(text: &str, a: &AltAnswer, what: &str) {
    let Instance::Program(p) = read_instance(text, "t.proc") else {
        panic!("{what}: not a program instance")
    };
    let sys = p.program.system().unwrap();
    let all: Vec<&WitnessEvent> = a.config.iter().chain(&a.alternative).collect();
    let mut state = sys.initial_state();
    let mut next = Vec::new();
    let mut last: HashMap<CompId, usize> = HashMap::new();
    for (pos, e) in all.iter().enumerate() {
        let step = e.step.as_ref().expect("program events carry their step");
        assert_eq!(e.preds.len(), step.touched.len());
        for (k, c) in step.touched.iter().enumerate() {
            assert_eq!(
                e.preds[k],
                last.get(c).copied(),
                "{what}: event {} claims a wrong predecessor",
                e.name
            );
        }
        // Actions are interned lazily, per system: find the enabled step of that name.
        let mut steps = Vec::new();
        sys.enabled_steps(&state, &mut steps);
        let named = |s: &qpor::Step| {
            let owner = sys
                .action_owner(s.action)
                .map(|c| format!("{}: ", sys.component_name(c)));
            format!("{}{}", owner.unwrap_or_default(), sys.action_name(s.action))
        };
        let here = steps
            .iter()
            .find(|s| s.touched == step.touched && named(s) == e.name)
            .unwrap_or_else(|| panic!("{what}: {} is not enabled", e.name));
        assert!(
            sys.successor(&state, here, &mut next).unwrap(),
            "{what}: {} does not fire",
            e.name
        );
        std::mem::swap(&mut state, &mut next);
        for c in &step.touched {
            last.insert(*c, pos);
        }
    }
    let same = |x: &WitnessEvent, y: &WitnessEvent| x.step == y.step && x.preds == y.preds;
    for d in &a.d {
        let ds = d.step.as_ref().unwrap();
        assert!(!a.alternative.iter().any(|e| same(e, d)), "{what}: J ∩ D ≠ ∅");
        let conflicting = a.alternative.iter().any(|e| {
            let es = e.step.as_ref().unwrap();
            !same(e, d)
                && es.touched.iter().enumerate().any(|(k, c)| {
                    ds.touched
                        .iter()
                        .position(|x| x == c)
                        .is_some_and(|kd| d.preds[kd] == e.preds[k])
                })
        });
        assert!(conflicting, "{what}: no event of J conflicts with {}", d.name);
    }
}

/// Theorem 4.3: the co-set names conditions of the occurrence net of C (replayed here with
/// individual tokens), they are pairwise concurrent, their places are •t* with its
/// weights, and one of them is consumed in C.
fn check_net_witness(text: &str, c: &CexAnswer, what: &str) {
    let Instance::Net(inst) = read_instance(text, "t.pnml") else {
        panic!("{what}: not a net instance")
    };
    let net = &inst.net;
    let w = c.witness.as_ref().expect("a yes has a witness");
    // Conditions (place, producer, consumer) and the causes of every firing.
    let mut conds: Vec<(usize, Option<usize>, Option<usize>)> = Vec::new();
    let mut tokens: Vec<Vec<usize>> = net.places.iter().map(|_| Vec::new()).collect();
    for (p, place) in net.places.iter().enumerate() {
        for _ in 0..place.initial {
            tokens[p].push(conds.len());
            conds.push((p, None, None));
        }
    }
    let mut below: Vec<Vec<bool>> = Vec::new();
    for (k, t) in inst.config.iter().enumerate() {
        let tr = &net.transitions[t.index()];
        let mut b = vec![false; inst.config.len()];
        for (p, wt) in &tr.pre {
            for _ in 0..*wt {
                let x = tokens[p.index()].remove(0);
                conds[x].2 = Some(k);
                if let Some(q) = conds[x].1 {
                    b[q] = true;
                    for (i, v) in below[q].clone().into_iter().enumerate() {
                        b[i] |= v;
                    }
                }
            }
        }
        below.push(b);
        for (p, wt) in &tr.post {
            for _ in 0..*wt {
                tokens[p.index()].push(conds.len());
                conds.push((p.index(), Some(k), None));
            }
        }
    }
    let place_of = |name: &str| net.places.iter().position(|p| p.label() == name || p.id == name);
    let mut used = vec![false; conds.len()];
    let mut xs = Vec::new();
    for x in &w.coset {
        let p = place_of(&x.place).unwrap_or_else(|| panic!("{what}: unknown place {}", x.place));
        let i = (0..conds.len())
            .find(|&i| !used[i] && conds[i] == (p, x.producer, x.consumer))
            .unwrap_or_else(|| panic!("{what}: {x:?} is no condition of C"));
        used[i] = true;
        xs.push(i);
    }
    let precedes = |x: usize, y: usize| match (conds[x].2, conds[y].1) {
        (Some(c), Some(p)) => c == p || below[p][c],
        _ => false,
    };
    for &x in &xs {
        for &y in &xs {
            assert!(
                x == y || !precedes(x, y),
                "{what}: {:?} and {:?} are not concurrent",
                conds[x],
                conds[y]
            );
        }
    }
    let target = &net.transitions[inst.target.index()];
    let mut need: HashMap<usize, u32> = target.pre.iter().map(|(p, w)| (p.index(), *w)).collect();
    for &x in &xs {
        *need.entry(conds[x].0).or_default() -= 1;
    }
    assert!(
        need.values().all(|&v| v == 0),
        "{what}: the co-set's marking is not •t*"
    );
    assert!(
        xs.iter().any(|&x| conds[x].2.is_some()),
        "{what}: nothing of the co-set is consumed in C"
    );
}

/// The cex decider cross-checks its answer with the general backend's whole cex(C) when
/// that has at most this many events (cex(C) has one t*-event per co-set, so only small or
/// unsatisfiable formulas get there).
const CEX_OPTIONS: CexOptions = CexOptions {
    max_events: None,
    backend_limit: Some(20_000),
};

/// Runs the three deciders on `cnf`, compares them with the solver and checks the
/// witnesses; returns the solver's answer.
fn check_formula(cnf: &Cnf, what: &str) -> bool {
    let sat = solver_says_sat(cnf);
    let opts = DecideOptions::default();
    check_pes(cnf, what, sat, &opts);
    check_program(cnf, what, sat, &opts);
    check_net(cnf, what, sat);
    sat
}

fn check_pes(cnf: &Cnf, what: &str, sat: bool, opts: &DecideOptions) {
    let text = qpor::hardness::pes_instance_text(cnf, "f.cnf");
    let a = decide_alt(&read_instance(&text, "t.pes"), opts).unwrap();
    assert_eq!(a.exists, sat, "{what}: pes decider vs solver");
    if sat {
        check_pes_witness(cnf, &a, what);
        assert!(
            satisfies(cnf, a.assignment.as_ref().unwrap()),
            "{what}: pes assignment"
        );
    } else {
        assert!(a.assignment.is_none() && a.alternative.is_empty());
    }
}

fn check_program(cnf: &Cnf, what: &str, sat: bool, opts: &DecideOptions) {
    let text = qpor::hardness::program_instance_text(cnf, "f.cnf");
    let a = decide_alt(&read_instance(&text, "t.proc"), opts).unwrap();
    assert_eq!(a.exists, sat, "{what}: program decider vs solver");
    if sat {
        check_program_witness(&text, &a, what);
        assert!(
            satisfies(cnf, a.assignment.as_ref().unwrap()),
            "{what}: program assignment"
        );
    }
}

fn check_net(cnf: &Cnf, what: &str, sat: bool) {
    let bytes = qpor::hardness::net_instance_pnml(cnf, "f.cnf").unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let c = decide_cex(&read_instance(&text, "t.pnml"), &CEX_OPTIONS).unwrap();
    assert_eq!(c.exists, sat, "{what}: cex decider vs solver");
    assert!(
        c.matched_backend,
        "{what}: C in the backend differs from the occurrence net of C"
    );
    if let Some(b) = c.backend {
        // The backend's whole cex(C) fitted under the limit: it agrees.
        assert_eq!(b.target_events > 0, sat, "{what}: the backend's cex(C) vs solver");
    }
    if sat {
        check_net_witness(&text, &c, what);
        assert!(
            satisfies(cnf, c.assignment.as_ref().unwrap()),
            "{what}: net assignment"
        );
    } else {
        assert!(c.witness.is_none());
    }
}

// ---------------------------------------------------------------------------------------
// The formula sets.

#[test]
fn random_3cnf_agree_with_the_solver() {
    let sizes = [5u32, 8, 10, 12, 15, 20, 25, 30, 35, 40];
    let ratios = [3.0f64, 3.5, 4.0, 4.26, 4.5, 5.0, 5.5];
    let seeds_per_cell = 4u64;
    let (mut sat, mut unsat) = (0, 0);
    let mut by_size: Vec<(u32, u32, u32)> = Vec::new();
    for &n in &sizes {
        let started = std::time::Instant::now();
        let (mut s_n, mut u_n) = (0, 0);
        for &r in &ratios {
            let m = (n as f64 * r).round() as usize;
            for k in 0..seeds_per_cell {
                let seed = 0x7e57 + 1000 * n as u64 + 10 * (r * 100.0) as u64 + k;
                let cnf = random_cnf(n, m, 3, seed);
                let what = format!("n={n} m={m} seed={seed}");
                if check_formula(&cnf, &what) {
                    s_n += 1;
                } else {
                    u_n += 1;
                }
            }
        }
        println!(
            "n = {n}: {s_n} sat, {u_n} unsat, {:.2} s",
            started.elapsed().as_secs_f64()
        );
        by_size.push((n, s_n, u_n));
        sat += s_n;
        unsat += u_n;
    }
    let total = sizes.len() * ratios.len() * seeds_per_cell as usize;
    assert_eq!((sat + unsat) as usize, total);
    assert!(total >= 280);
    // Both answers are well represented, for small and for large formulas.
    assert!(sat >= 60 && unsat >= 60, "sat {sat}, unsat {unsat}: {by_size:?}");
    assert!(by_size.iter().all(|&(_, s, u)| s > 0 && u > 0), "{by_size:?}");
}

#[test]
fn edge_cases_agree_with_the_solver() {
    let cases: &[(&str, &str, bool)] = &[
        ("empty formula, no variables", "p cnf 0 0\n", true),
        ("empty formula over 3 variables", "p cnf 3 0\n", true),
        ("the empty clause alone", "p cnf 0 1\n0\n", false),
        (
            "the empty clause among others",
            "p cnf 2 3\n1 2 0\n0\n-1 0\n",
            false,
        ),
        ("unit clauses", "p cnf 3 3\n1 0\n-2 0\n3 0\n", true),
        ("contradictory units", "p cnf 1 2\n1 0\n-1 0\n", false),
        (
            "unit propagation chain",
            "p cnf 3 4\n1 0\n-1 2 0\n-2 3 0\n-3 -1 0\n",
            false,
        ),
        ("duplicate literals", "p cnf 2 2\n1 1 -2 0\n-1 -1 0\n", true),
        (
            "duplicate literals, unsat",
            "p cnf 1 2\n1 1 1 0\n-1 -1 0\n",
            false,
        ),
        ("a tautology", "p cnf 2 1\n1 -1 0\n", true),
        (
            "tautologies and a contradiction",
            "p cnf 2 4\n1 -1 0\n2 -2 1 0\n2 0\n-2 0\n",
            false,
        ),
        (
            "a tautology with duplicates",
            "p cnf 2 2\n-2 2 -2 0\n-1 0\n",
            true,
        ),
        ("the same clause twice", "p cnf 2 2\n1 -2 0\n1 -2 0\n", true),
        (
            "pigeonhole 3 into 2",
            include_str!("../models/cnf/pigeonhole-3-2.cnf"),
            false,
        ),
        (
            "the paper's example",
            include_str!("../models/cnf/paper-3.2.cnf"),
            true,
        ),
        (
            "the worked example",
            include_str!("../models/cnf/three-vars.cnf"),
            true,
        ),
        (
            "the worked example, unsat",
            include_str!("../models/cnf/three-vars-unsat.cnf"),
            false,
        ),
        (
            "contradiction",
            include_str!("../models/cnf/contradiction.cnf"),
            false,
        ),
    ];
    for &(what, text, expected) in cases {
        let (cnf, _) = dimacs::parse(text, what).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            solver_says_sat(&cnf),
            expected,
            "{what}: the expectation is wrong"
        );
        assert_eq!(check_formula(&cnf, what), expected, "{what}");
    }
}

#[test]
fn worked_example_has_its_only_model() {
    // (x1 | x2) & (-x1 | x3) & (-x2 | -x3) & (-x1 | -x3): only x1=0, x2=1, x3=0.
    let (cnf, _) = dimacs::parse(include_str!("../models/cnf/three-vars.cnf"), "three-vars.cnf").unwrap();
    let model = [Some(false), Some(true), Some(false)];
    let text = qpor::hardness::pes_instance_text(&cnf, "three-vars.cnf");
    let a = decide_alt(&read_instance(&text, "t.pes"), &DecideOptions::default()).unwrap();
    assert_eq!(a.assignment.as_deref(), Some(&model[..]));
    let text = qpor::hardness::program_instance_text(&cnf, "three-vars.cnf");
    let a = decide_alt(&read_instance(&text, "t.proc"), &DecideOptions::default()).unwrap();
    assert_eq!(a.assignment.as_deref(), Some(&model[..]));
    let text = String::from_utf8(qpor::hardness::net_instance_pnml(&cnf, "three-vars.cnf").unwrap()).unwrap();
    let c = decide_cex(&read_instance(&text, "t.pnml"), &Default::default()).unwrap();
    assert_eq!(c.assignment.as_deref(), Some(&model[..]));
    // Clause 4 (-x1 | -x3) has two true literals: two co-sets, two t*-events.
    assert_eq!(c.backend.map(|b| b.target_events), Some(2));
}

#[test]
fn deciders_refuse_the_other_question() {
    let cnf = Cnf::new(1, vec![vec![1]]);
    let pes = read_instance(&qpor::hardness::pes_instance_text(&cnf, "f"), "t.pes");
    assert!(decide_cex(&pes, &Default::default()).is_err());
    let net = read_instance(
        &String::from_utf8(qpor::hardness::net_instance_pnml(&cnf, "f").unwrap()).unwrap(),
        "t.pnml",
    );
    assert!(decide_alt(&net, &DecideOptions::default()).is_err());
}

#[test]
fn command_line_generators_and_deciders() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let qpor = env!("CARGO_BIN_EXE_qpor");
    let run = |args: &[&str]| {
        let out = Command::new(qpor).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for (cnf, sat) in [("three-vars.cnf", true), ("three-vars-unsat.cnf", false)] {
        let formula = format!("{}/models/cnf/{cnf}", env!("CARGO_MANIFEST_DIR"));
        for (to, question) in [("pes", "alt"), ("program", "alt"), ("net", "cex")] {
            // Deliberately misleading names: the kind comes from the content.
            let file = dir.path().join(format!("{to}-{cnf}.txt"));
            let file = file.to_str().unwrap();
            let (code, _, err) = run(&["hardness", &formula, "--to", to, "-o", file]);
            assert_eq!(code, Some(0), "{err}");
            let (code, out, err) = run(&["decide", question, file]);
            assert_eq!(code, Some(if sat { 0 } else { 1 }), "{to} {cnf}: {out}{err}");
            assert!(out.contains(if sat { ": yes" } else { ": no" }), "{out}");
            if sat {
                assert!(out.contains("assignment: x1=0 x2=1 x3=0"), "{out}");
            }
            let (code, out, _) = run(&["decide", question, file, "--json"]);
            assert_eq!(code, Some(if sat { 0 } else { 1 }));
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["answer"], if sat { "yes" } else { "no" });
            assert_eq!(v["kind"], to);
            if sat {
                assert_eq!(v["assignment"], serde_json::json!([0, 1, 0]));
            }
            // The other question is refused as bad input.
            let other = if question == "alt" { "cex" } else { "alt" };
            let (code, _, err) = run(&["decide", other, file]);
            assert_eq!(code, Some(2), "{err}");
        }
    }
    // Bad input: a malformed formula, a file that is no instance.
    let bad = dir.path().join("bad.cnf");
    std::fs::write(&bad, "p cnf 2 1\n1 3 0\n").unwrap();
    let (code, _, err) = run(&["hardness", bad.to_str().unwrap(), "--to", "pes"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("bad.cnf:2:3: literal 3 is out of range"), "{err}");
    let (code, _, err) = run(&["decide", "alt", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a reduction instance"), "{err}");
}
