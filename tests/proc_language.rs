//! The process language through the public API: the examples of `docs/language.md`,
//! malformed programs (message and exact position), run-time faults and their witnesses,
//! and a no-panic property test over mutated programs.

mod engine_support;
use engine_support::{explore_states, explore_within};
use proptest::prelude::*;
use qpor::program::parse;
use qpor::System;
use qpor::{FindingKind, Verdict};

fn proc_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut current {
            None => {
                if line.trim() == "```proc" {
                    current = Some((i + 1, String::new()));
                }
            }
            Some((_, text)) => {
                if line.trim() == "```" {
                    blocks.push(current.take().unwrap());
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    assert!(current.is_none(), "unterminated code block");
    blocks
}

#[test]
fn every_example_of_the_reference_parses_and_runs() {
    let doc = std::fs::read_to_string("docs/language.md").unwrap();
    let blocks = proc_blocks(&doc);
    assert!(blocks.len() >= 10, "found only {} examples", blocks.len());
    for (line, text) in &blocks {
        let name = format!("docs/language.md:{line}");
        let (program, warnings) = parse(text, &name, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        let sys = program.system().unwrap();
        let r = explore_within(&sys, false, Some(100_000));
        assert_ne!(r.verdict, Verdict::Inconclusive, "{name}");
        let expected = if text.contains("assert x == 1") {
            Verdict::Fault
        } else if text.contains("lock fork[(i + 1) % N]") {
            Verdict::Deadlock
        } else {
            Verdict::NoDeadlock
        };
        assert_eq!(r.verdict, expected, "{name}: {:?}", r.findings.first());
    }
}

/// `(program, line, column, part of the message)`.
const MALFORMED: &[(&str, usize, usize, &str)] = &[
    // 1. syntax: a missing semicolon is found at the next token
    ("process main {\n    skip\n}\ninit main;\n", 3, 1, "expected `;`"),
    // 2. syntax: a truncated file
    ("process main {\n    skip;\n", 3, 1, "found end of file"),
    // 3. unknown name
    ("process main {\n    lock m;\n}\ninit main;\n", 2, 10, "unknown name `m`"),
    // 4. duplicate declaration
    ("mutex m;\nvar m: bool;\nprocess main { skip; }\ninit main;\n", 2, 5, "`m` is already declared at 1:7"),
    // 5. a local hiding a global
    ("var x: bool;\nprocess main {\n    var x: int = 0;\n}\ninit main;\n", 3, 9, "`x` is already declared at 1:5"),
    // 6. type error in an assignment
    ("var x: 0..3;\nprocess main {\n    x = true;\n}\ninit main;\n", 3, 9, "`x` holds int values; this is a bool"),
    // 7. a condition that is not a bool
    ("var x: 0..3;\nprocess main {\n    if x + 1 { skip; }\n}\ninit main;\n", 3, 8, "must be a bool"),
    // 8. an array without index
    ("mutex f[2];\nprocess main {\n    lock f;\n}\ninit main;\n", 3, 10, "`f` is an array; write `f[index]`"),
    // 9. a scalar with an index
    ("mutex m;\nprocess main {\n    lock m[0];\n}\ninit main;\n", 3, 12, "`m` is not an array"),
    // 10. a constant index out of range
    ("mutex f[2];\nprocess main {\n    lock f[2];\n}\ninit main;\n", 3, 12, "index 2 is out of range for `f` (size 2)"),
    // 11. unlocking a mutex the process cannot hold
    ("mutex m;\nprocess main {\n    unlock m;\n}\ninit main;\n", 3, 5, "unlock of `m`, which this process cannot hold here"),
    // 12. ... also after it was released on every path
    (
        "mutex m;\nprocess main {\n    lock m;\n    unlock m;\n    unlock m;\n}\ninit main;\n",
        5,
        5,
        "cannot hold here",
    ),
    // 13. a join of an instance nothing starts
    ("process w { skip; }\nprocess main {\n    join w;\n}\ninit main;\n", 3, 10, "join of `w`, which is never started"),
    // 14. a spawn of an instance init starts
    ("process w { skip; }\nprocess main {\n    spawn w;\n}\ninit main, w;\n", 3, 11, "spawn of `w`, which `init` already starts"),
    // 15. a component index reading a shared variable
    (
        "var k: 0..2;\nmutex f[2];\nprocess main {\n    lock f[k];\n}\ninit main;\n",
        4,
        12,
        "the index of `f` reads a shared variable",
    ),
    // 16. break outside a loop
    ("process main {\n    break;\n}\ninit main;\n", 2, 5, "`break` outside a loop"),
    // 17. no init
    ("process main { skip; }\n", 2, 1, "no `init` line"),
    // 18. a constant used before its declaration
    ("const A = B + 1;\nconst B = 2;\nprocess main { skip; }\ninit main;\n", 1, 11, "used before its declaration at 2:7"),
    // 19. chained comparisons
    ("process main {\n    assert 1 < 2 < 3;\n}\ninit main;\n", 2, 18, "comparisons do not chain"),
    // 20. an initial value out of range
    ("var x: 0..=3 = 5;\nprocess main { skip; }\ninit main;\n", 1, 16, "the initial value 5 of `x` is outside its range 0..=3"),
    // 21. an empty range
    ("var x: 3..3;\nprocess main { skip; }\ninit main;\n", 1, 8, "the range 3..=2 is empty"),
    // 22. assigning to a constant
    ("const N = 1;\nprocess main {\n    N = 2;\n}\ninit main;\n", 3, 5, "cannot assign to `N`, a constant"),
    // 23. init of an instance that does not exist
    ("process p[i in 0..2] { skip; }\ninit p[2];\n", 2, 8, "process `p` has no instance 2 (its instances are 0..=1)"),
    // 24. a value on a channel that carries none
    ("chan c;\nprocess main {\n    c!1;\n}\ninit main;\n", 3, 7, "channel `c` carries no value"),
    // 25. a constant division by zero
    ("const Z = 1 / 0;\nprocess main { skip; }\ninit main;\n", 1, 11, "division by zero"),
    // 26. comparing an int with a bool
    ("process main {\n    assert 1 == true;\n}\ninit main;\n", 2, 17, "`==` compares an int with a bool"),
    // 27. a mutex used as a value
    ("mutex m;\nprocess main {\n    var b: bool = m;\n}\ninit main;\n", 3, 19, "`m` is a mutex, not a value"),
    // 28. assigning to a for variable
    ("process main {\n    for k in 0..3 {\n        k = 1;\n    }\n}\ninit main;\n", 3, 9, "cannot assign to `k`"),
    // 29. a keyword used as a name
    ("var in: bool;\nprocess main { skip; }\ninit main;\n", 1, 5, "expected a name"),
    // 30. brackets nested too deep
    (
        "process main {\n    assert ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))) == 1;\n}\ninit main;\n",
        2,
        75,
        "nested more than 64 levels deep",
    ),
];

#[test]
fn malformed_programs_are_reported_where_they_are_wrong() {
    assert!(MALFORMED.len() >= 15);
    for (k, (text, line, col, part)) in MALFORMED.iter().enumerate() {
        let err = match parse(text, "bad.proc", &[]) {
            Err(e) => e,
            Ok(_) => panic!("case {}: accepted:\n{text}", k + 1),
        };
        assert_eq!(err.file, "bad.proc");
        assert!(
            err.message.contains(part),
            "case {}: message {:?} lacks {part:?}",
            k + 1,
            err.message
        );
        assert_eq!(
            (err.pos.line, err.pos.col),
            (*line, *col),
            "case {}: {} at the wrong place",
            k + 1,
            err
        );
    }
}

#[test]
fn defines_set_params_only() {
    let text = "const N = 1;\nparam M = 2;\nprocess main { assert M == 5; }\ninit main;\n";
    let err = parse(text, "d.proc", &[("N".into(), 3)]).unwrap_err();
    assert_eq!((err.pos.line, err.pos.col), (1, 7));
    assert!(err.message.contains("`N` is a `const`"), "{err}");
    let (p, warnings) = parse(text, "d.proc", &[("M".into(), 5), ("X".into(), 1)]).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("-D X=1: the program has no parameter `X`"),
        "{warnings:?}"
    );
    let sys = p.system().unwrap();
    let r = explore_states(&sys);
    assert_eq!(r.verdict, Verdict::NoDeadlock, "M was set to 5");
    let err = parse(
        "param B = false;\nprocess main { skip; }\ninit main;\n",
        "d.proc",
        &[("B".into(), 2)],
    )
    .unwrap_err();
    assert!(err.message.contains("bool parameter"), "{err}");
}

#[test]
fn warnings_name_processes_never_started() {
    let (_, w) = parse(
        "process a { skip; }\nprocess b { skip; }\ninit a;\n",
        "w.proc",
        &[],
    )
    .unwrap();
    assert_eq!(
        w,
        ["w.proc:2:9: process `b` is never started: not in `init` and never spawned"]
    );
}

/// Runs the explicit engine and returns the fault's message and the witness owners.
fn fault_of(text: &str) -> (String, Vec<(String, String)>) {
    let (p, _) = parse(text, "f.proc", &[]).unwrap_or_else(|e| panic!("{e}"));
    let sys = p.system().unwrap();
    let r = explore_states(&sys);
    assert_eq!(r.verdict, Verdict::Fault, "{text}\n{:?}", r.findings);
    let f = r.findings.iter().find(|f| f.kind == FindingKind::Fault).unwrap();
    let steps = f
        .witness
        .steps
        .iter()
        .map(|s| {
            (
                s.owner.as_deref().unwrap_or_default().to_string(),
                s.action.to_string(),
            )
        })
        .collect();
    (f.message.clone().unwrap_or_default(), steps)
}

#[test]
fn an_index_out_of_range_is_a_fault_of_the_process() {
    let (msg, steps) = fault_of(
        "mutex g;\nmutex m[2];\nprocess main {\n    lock g;\n    var k: int = 2;\n    lock m[k];\n}\ninit main;\n",
    );
    assert_eq!(msg, "main: f.proc:6:5: index 2 is out of range for `m` (size 2)");
    assert_eq!(steps, [("main".to_string(), "lock g at 4:5".to_string())]);
}

#[test]
fn a_failed_assertion_is_a_fault_with_a_witness() {
    let (msg, steps) = fault_of(
        "var x: 0..=1 = 0;\nmutex m;\nprocess writer {\n    lock m;\n    x = 1;\n    unlock m;\n}\nprocess reader {\n    lock m;\n    assert x == 1;\n    unlock m;\n}\ninit writer, reader;\n",
    );
    assert_eq!(msg, "reader: f.proc:10:5: assertion failed: `assert x == 1;`");
    // m guards x, so the assertion runs in the step that takes m.
    let owners: Vec<&str> = steps.iter().map(|(o, _)| o.as_str()).collect();
    assert_eq!(owners, ["reader"], "{steps:?}");
    assert_eq!(steps[0].1, "lock m at 9:5");
}

#[test]
fn unlocking_a_free_mutex_is_a_fault() {
    let (msg, steps) = fault_of(
        "mutex m[2];\nprocess main {\n    lock m[0];\n    unlock m[0];\n    var k: int = 0;\n    unlock m[k];\n}\ninit main;\n",
    );
    assert_eq!(msg, "main: f.proc:6:5: unlock of `m[0]`, which is not locked");
    assert_eq!(steps.len(), 3);
    assert!(steps.iter().all(|(o, _)| o == "main"));
}

#[test]
fn unlocking_a_mutex_held_by_another_process_is_a_fault() {
    // b unlocks a mutex it never locks; a fault either way, with two different messages.
    let text = "mutex m[1];\nprocess a {\n    lock m[0];\n}\nprocess b {\n    if false {\n        lock m[0];\n    }\n    unlock m[0];\n}\ninit a, b;\n";
    let (p, _) = parse(text, "f.proc", &[]).unwrap();
    let sys = p.system().unwrap();
    let r = explore_within(&sys, true, None);
    assert_eq!(r.verdict, Verdict::Fault);
    let faults: Vec<_> = r.findings_of(FindingKind::Fault).collect();
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert_eq!(
        faults[0].message.as_deref(),
        Some("b: f.proc:9:5: unlock of `m[0]`, which is not locked")
    );
    assert_eq!(
        faults[1].message.as_deref(),
        Some("b: f.proc:9:5: unlock of `m[0]`, which is held by a, not by this process")
    );
    let owners: Vec<_> = faults[1]
        .witness
        .steps
        .iter()
        .map(|s| s.owner.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(owners, ["a", "b"]);
}

#[test]
fn a_value_out_of_range_is_a_fault() {
    let (msg, steps) = fault_of(
        "var x: 0..=2 = 0;\nmutex m;\nprocess main {\n    var t: int = 3;\n    lock m;\n    x = t;\n}\ninit main;\n",
    );
    assert_eq!(
        msg,
        "main: f.proc:6:5: the value 3 is outside the range 0..=2 of `x`"
    );
    // m guards x: the faulty write is part of the step that takes m.
    assert_eq!(steps, [("main".into(), "lock m at 5:5".into())]);
}

#[test]
fn other_run_time_faults() {
    let cases: &[(&str, &str)] = &[
        (
            "mutex m;\nprocess main {\n    var z: int = 0;\n    lock m;\n    var y: int = 10 / z;\n}\ninit main;\n",
            "f.proc:5:5: division by zero",
        ),
        (
            "mutex m;\nprocess main {\n    lock m;\n    while true {\n        skip;\n    }\n}\ninit main;\n",
            "local steps without reaching a statement that touches a shared component",
        ),
        (
            "mutex m;\nprocess main {\n    lock m;\n    lock m;\n}\ninit main;\n",
            "f.proc:4:5: lock of `m`, which this process already holds",
        ),
        (
            "process w { skip; }\nprocess main {\n    spawn w;\n    spawn w;\n}\ninit main;\n",
            "f.proc:4:5: spawn of `w`, which was already started",
        ),
        (
            "chan c: 0..=1;\nprocess s {\n    var v: int = 5;\n    c!v;\n}\nprocess r {\n    var x: 0..=1;\n    c?x;\n}\ninit s, r;\n",
            "f.proc:4:5: the value 5 sent on `c` is outside its range 0..=1",
        ),
        (
            "var big: int = 2147483647;\nprocess main {\n    big += 1;\n}\ninit main;\n",
            "the value 2147483648 is outside the range int of `big`",
        ),
        (
            "var a[2]: int;\nprocess main {\n    var k: int = 3;\n    a[0] = 1;\n    if k < 2 && a[k] == 1 { skip; }\n    a[1] = a[k];\n}\ninit main;\n",
            "f.proc:6:5: index 3 is out of range for `a` (size 2)",
        ),
    ];
    for (text, part) in cases {
        let (msg, _) = fault_of(text);
        assert!(msg.contains(part), "{msg:?} lacks {part:?}");
    }
}

#[test]
fn deadlocks_and_terminations_are_told_apart() {
    // A join of an instance that never ends is a deadlock, not a termination.
    let text = "mutex m;\nprocess w {\n    lock m;\n    lock m;\n}\nprocess main {\n    lock m;\n    spawn w;\n    join w;\n}\ninit main;\n";
    let (p, _) = parse(text, "d.proc", &[]).unwrap();
    let sys = p.system().unwrap();
    let r = explore_states(&sys);
    assert_eq!(r.verdict, Verdict::Deadlock);
    assert!(
        r.findings[0].state.contains("main=at 9:5"),
        "{}",
        r.findings[0].state
    );
    // A process never started is final.
    let (p, w) = parse(
        "process a { skip; }\nprocess b { skip; }\ninit a;\n",
        "t.proc",
        &[],
    )
    .unwrap();
    assert_eq!(w.len(), 1);
    let sys = p.system().unwrap();
    let r = explore_within(&sys, true, None);
    assert_eq!(r.verdict, Verdict::NoDeadlock);
    assert_eq!(r.stats.get("terminations"), Some(1));
}

const SEED: &str = r#"param N = 3;
const M = N * 2;
mutex m[N], g;
sem s = 1;
chan c: 0..4;
var x: 0..=M = 0;
var a[N]: bool = false;

process w[i in 0..N] {
    var t: 0..=M = 0;
    lock m[i];
    t = x + i;
    if t < M && !a[i] {
        a[i] = true;
    } else {
        t -= 1;
    }
    unlock m[i];
    wait s;
    signal s;
}

process sender {
    for k in 0..4 {
        c!k;
    }
}

process main {
    var v: 0..4;
    for i in 0..N {
        spawn w[i];
    }
    loop {
        choose {
            c?v;
        } or {
            break;
        }
    }
    for i in 0..N {
        join w[i];
    }
    lock g;
    x = (x + 1) % M;
    assert x >= 0;
    unlock g;
}

init main, sender;
"#;

/// Runs a mutated program all the way, so that the interpreter sees it too.
fn exercise(text: &str) {
    if let Ok((p, _)) = parse(text, "m.proc", &[]) {
        let sys = p.system().unwrap();
        let r = explore_within(&sys, true, Some(3000));
        for f in &r.findings {
            let m = f.message.as_deref().unwrap_or("");
            assert!(!m.contains("internal bug"), "{m}\n{text}");
        }
        let s0 = sys.initial_state();
        for (c, l) in s0.iter().enumerate() {
            let _ = sys.local_name(qpor::CompId(c as u32), *l);
        }
    }
}

#[test]
fn the_seed_program_is_valid() {
    let (p, w) = parse(SEED, "seed.proc", &[]).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let sys = p.system().unwrap();
    let r = explore_states(&sys);
    assert_eq!(r.verdict, Verdict::Deadlock, "the sender can be left waiting");
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    "=",
    "==",
    "!",
    "?",
    "..",
    "..=",
    "+",
    "-",
    "*",
    "**",
    "/",
    "%",
    "&&",
    "||",
    "<",
    ">",
    "0",
    "1",
    "99999999999999999999",
    "x",
    "m",
    "i",
    "N",
    "lock ",
    "unlock ",
    "spawn ",
    "join ",
    "var ",
    "if ",
    "else ",
    "while ",
    "loop ",
    "break;",
    "choose ",
    "or ",
    "\n",
    " ",
    "//",
    "/*",
    "é",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn truncated_programs_never_panic(cut in 0usize..SEED.len()) {
        let mut cut = cut;
        while !SEED.is_char_boundary(cut) {
            cut -= 1;
        }
        exercise(&SEED[..cut]);
    }

    #[test]
    fn mutated_programs_never_panic(
        edits in proptest::collection::vec((0usize..SEED.len(), 0usize..PIECES.len(), 0u8..3), 1..6)
    ) {
        let mut text = SEED.to_string();
        for (at, piece, how) in edits {
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            match how {
                0 => text.insert_str(at, PIECES[piece]),
                1 => {
                    let end = text[at..].char_indices().nth(1).map(|(i, _)| at + i).unwrap_or(text.len());
                    text.replace_range(at..end, PIECES[piece]);
                }
                _ => {
                    let end = text[at..].char_indices().nth(3).map(|(i, _)| at + i).unwrap_or(text.len());
                    text.replace_range(at..end, "");
                }
            }
        }
        exercise(&text);
    }

    #[test]
    fn byte_flips_never_panic(at in 0usize..SEED.len(), bit in 0u8..8) {
        let mut bytes = SEED.as_bytes().to_vec();
        bytes[at] ^= 1 << bit;
        exercise(&String::from_utf8_lossy(&bytes));
    }
}

// ------------------------------------------------------------ operators and nesting limits

/// The explicit engine's verdict on a program that must parse.
fn verdict(text: &str) -> Verdict {
    let (p, _) = parse(text, "t.proc", &[]).unwrap_or_else(|e| panic!("{e}"));
    let sys = p.system().unwrap();
    explore_states(&sys).verdict
}

#[test]
fn operators_bind_as_documented() {
    let text = "const A = 1 + 2 * 3 ** 2;\nconst B = 2 ** 3 ** 2;\nconst C = 10 - 2 - 3;\n\
        process main {\n    assert A == 19 && B == 512 && C == 5;\n    assert -7 % 3 == 2 && -7 / 3 == -3 && 7 / -2 == -3;\n    \
        assert !(1 > 2) || false && false;\n}\ninit main;\n";
    assert_eq!(verdict(text), Verdict::NoDeadlock);
}

#[test]
fn expression_depth_is_bounded() {
    let sum = |n: usize| vec!["1"; n].join(" + ");
    let ok = format!("process main {{\n    assert {} > 0;\n}}\ninit main;\n", sum(150));
    assert_eq!(verdict(&ok), Verdict::NoDeadlock);
    let deep = format!("process main {{\n    assert {} > 0;\n}}\ninit main;\n", sum(400));
    let err = parse(&deep, "t.proc", &[]).unwrap_err();
    assert!(err.message.contains("nested more than 200 levels"), "{err}");
    let nots = format!(
        "process main {{\n    assert {}true;\n}}\ninit main;\n",
        "!".repeat(1000)
    );
    assert!(parse(&nots, "t.proc", &[])
        .unwrap_err()
        .message
        .contains("nested more than"));
}

#[test]
fn nesting_is_bounded_before_parsing() {
    let body = |n: usize| format!("{}skip;{}", "if true { ".repeat(n), " }".repeat(n));
    let ok = format!("process main {{\n{}\n}}\ninit main;\n", body(60));
    assert_eq!(verdict(&ok), Verdict::NoDeadlock);
    let deep = format!("process main {{\n{}\n}}\ninit main;\n", body(100));
    let err = parse(&deep, "t.proc", &[]).unwrap_err();
    assert_eq!(
        (err.pos.line, err.message.contains("64 levels")),
        (2, true),
        "{err}"
    );
    let parens = format!(
        "process main {{\n    assert {}1{} == 1;\n}}\ninit main;\n",
        "(".repeat(63),
        ")".repeat(63)
    );
    assert_eq!(verdict(&parens), Verdict::NoDeadlock);
    // Brackets in comments do not count.
    let commented = format!("// {}\nprocess main {{ skip; }}\ninit main;\n", "(".repeat(100));
    assert!(parse(&commented, "t.proc", &[]).is_ok());
}

#[test]
fn long_else_if_chains_need_no_recursion() {
    let mut text = String::from("process main {\n    var k: int = 7;\n    if k == 0 { skip; }");
    for i in 1..2000 {
        text.push_str(&format!(" else if k == {i} {{ skip; }}"));
    }
    text.push_str(" else { assert false; }\n}\ninit main;\n");
    assert_eq!(verdict(&text), Verdict::NoDeadlock);
}
