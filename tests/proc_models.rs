//! The models of `models/proc/` through the public API: explicit-engine verdicts, the
//! number of terminal states at small parameters against hand counts, the number of
//! Mazurkiewicz traces against the paper's (docs/paper.md#table-1), agreement of each program with its
//! exported net, loading at the sizes of the paper's Table 1, and the program as a component
//! system (folding of local code, interning, touch sets, firing, names and faults).

mod engine_support;
use engine_support::{explore_all, explore_states};
use qpor::net::{Decomposition, NetSystem};
use qpor::program::parse;
use qpor::program::{to_net, Program, ProgramSystem, ToNetOptions};
use qpor::Verdict;
use qpor::{ActionId, CompId, Local, Step, System, TouchSet};
use std::collections::{HashMap, HashSet, VecDeque};

/// Parameter values of a model, as `-D` would give them.
type Defines = &'static [(&'static str, i64)];

const MODELS: &[&str] = &[
    "boundedbuffer",
    "dispatcher",
    "mpat",
    "multiprodcon",
    "philosophers",
    "philosophers-ordered",
    "pi",
    "pipeline",
    "poke",
    "rwlock",
    "spat",
    "ssb3",
    "ssbexp",
    "ssbsimple",
];

fn load(name: &str, defines: &[(&str, i64)]) -> Program {
    let path = format!("models/proc/{name}.proc");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let defines: Vec<(String, i64)> = defines.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    match parse(&text, &path, &defines) {
        Ok((p, warnings)) => {
            assert!(warnings.is_empty(), "{path}: {warnings:?}");
            p
        }
        Err(e) => panic!("{e}"),
    }
}

fn explicit_all(p: &Program) -> qpor::Report {
    let sys = p.system().unwrap();
    explore_all(&sys)
}

#[test]
fn every_model_file_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir("models/proc")
        .unwrap()
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_suffix(".proc").map(str::to_string)
        })
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, MODELS, "update MODELS (and models/proc/README.md)");
}

#[test]
fn verdicts_at_default_parameters() {
    for name in MODELS {
        let p = load(name, &[]);
        let sys = p.system().unwrap();
        let r = explore_states(&sys);
        if *name == "philosophers" {
            assert_eq!(r.verdict, Verdict::Deadlock, "{name}");
            let w = r.witness().unwrap();
            // The shortest deadlock: every philosopher takes its left fork.
            assert_eq!(w.steps.len(), 5, "{:?}", w.actions());
            for (k, s) in w.steps.iter().enumerate() {
                assert_eq!(s.owner.as_deref(), Some(format!("phil[{k}]").as_str()));
                assert!(s.action.starts_with(&format!("lock fork[{k}]")), "{}", s.action);
            }
        } else {
            assert_eq!(r.verdict, Verdict::NoDeadlock, "{name}: {:?}", r.findings.first());
        }
    }
}

#[test]
fn cyclic_models_never_terminate_and_acyclic_ones_always_do() {
    for name in MODELS {
        let r = explicit_all(&load(name, &[]));
        let terminations = r.stats.get("terminations").unwrap();
        let dead = r.stats.get("dead_states").unwrap();
        if name.starts_with("philosophers") {
            assert_eq!(terminations, 0, "{name}");
        } else {
            assert!(terminations >= 1, "{name}");
            assert_eq!(dead, terminations, "{name}: every dead state is a termination");
        }
    }
}

/// Terminal states (dead and final) found by the explicit engine, against a count by hand.
/// The final state is fixed by the shared variables only: processes are done or idle (their
/// locals are dropped), mutexes are free.
#[test]
fn terminal_states_match_hand_counts() {
    let cases: &[(&str, Defines, u64, &str)] = &[
        // No shared variable, or one whose last value is fixed (ssbexp: i = K-1, pi: the sum
        // of all partial sums, spat and mpat: none): one terminal state.
        ("mpat", &[("K", 3)], 1, "no variables"),
        ("ssbexp", &[("K", 3)], 1, "i ends at K-1"),
        (
            "pi",
            &[("T", 3), ("TERMS", 30)],
            1,
            "the sum does not depend on the order",
        ),
        ("spat", &[("T", 3), ("K", 3)], 1, "no variables"),
        ("ssbsimple", &[], 1, "x ends true"),
        ("rwlock", &[("R", 2), ("W", 2)], 1, "data = copy = W"),
        ("pipeline", &[], 1, "no variables"),
        (
            "boundedbuffer",
            &[],
            1,
            "head = tail = ITEMS mod SIZE, buf holds the last items",
        ),
        // dispatcher(S,R): request r goes to any server s (main reads sid before the picker
        // writes, or after one of its S writes: S distinct values); with n_s requests to s,
        // the server copies ins[s] into outs[s] at some moment: n_s + 1 values. Summing
        // prod (n_s + 1) over compositions n of R into S parts gives C(R + 2S - 1, R):
        // (2,2) -> C(5,2) = 10, (3,2) -> C(7,2) = 21. sid ends at S-1.
        ("dispatcher", &[("S", 2), ("R", 2)], 10, "C(R+2S-1, R)"),
        ("dispatcher", &[("S", 3), ("R", 2)], 21, "C(R+2S-1, R)"),
        // multiprodcon(2,2): prodbuff ends with one of the C(4,2) = 6 interleavings of the
        // producers' digits; producer id sends to worker (prodbuff mod 2) = id, its last
        // digit; each worker consumes its one request or not (both polls before it): 2 x 2.
        ("multiprodcon", &[("P", 2), ("W", 2)], 24, "6 x 2 x 2"),
        // multiprodcon(2,1): 6 orders; worker 0 consumes 0, 1 or 2 of the two requests.
        ("multiprodcon", &[("P", 2), ("W", 1)], 18, "6 x 3"),
        // poke(N,K): a[x] ends 0 iff some reader consumed it; d ends at N; i at N-1. Reader 0
        // may read any index, later ones any but 0 (i is never reset); each reader consumes
        // at most one flag and may consume none (its writer not yet run). So the consumed
        // sets are the subsets of size <= K: sum_{m<=K} C(N,m) = 1 + 3 + 3 = 7 for (3,2).
        ("poke", &[("N", 3), ("K", 2)], 7, "sum C(N,m), m <= K"),
        ("poke", &[("N", 2), ("K", 1)], 3, "1 + 2"),
        // ssb3(NUM,LEN): if thread_rz sees z = 1, it overwrites tab[i] for the i it reads
        // (any of NUM), before or after thread1[i] writes: all-123 or one cell 8899, x = 0,
        // thread2 never started: NUM + 1. Else it runs main2: x ends 10 or 20, tab all 123,
        // thread2 done: 2. Total NUM + 3.
        ("ssb3", &[("NUM", 2), ("LEN", 2)], 5, "NUM + 3"),
        ("ssb3", &[("NUM", 3), ("LEN", 2)], 6, "NUM + 3"),
    ];
    for (name, defines, expected, why) in cases {
        let r = explicit_all(&load(name, defines));
        assert_eq!(r.verdict, Verdict::NoDeadlock, "{name} {defines:?}");
        assert_eq!(
            r.stats.get("terminations"),
            Some(*expected),
            "{name} {defines:?}: expected {expected} ({why})"
        );
    }
}

/// Counts the maximal Mazurkiewicz traces of an acyclic system (independence: disjoint
/// touch sets) by enumerating the executions in lexicographic normal form (Anisimov and
/// Knuth): an execution is the least of its trace iff no step could be moved before an
/// earlier, larger step it is independent of together with everything in between. Every
/// prefix of a normal form is one, so a depth-first search over normal-form prefixes meets
/// each maximal trace exactly once, at a dead state.
fn count_traces(sys: &dyn System) -> u64 {
    struct Frame {
        state: Vec<qpor::Local>,
        steps: Vec<Step>,
        next: usize,
    }
    let init = sys.initial_state();
    let steps = enabled(sys, &init);
    if steps.is_empty() {
        return 1;
    }
    let mut stack = vec![Frame {
        state: init,
        steps,
        next: 0,
    }];
    let mut word: Vec<Step> = Vec::new();
    let mut count = 0;
    while let Some(top) = stack.last_mut() {
        if top.next >= top.steps.len() {
            stack.pop();
            word.pop();
            continue;
        }
        let s = top.steps[top.next].clone();
        top.next += 1;
        let normal = word
            .iter()
            .rev()
            .take_while(|w| !w.touched.iter().any(|c| s.touched.contains(c)))
            .all(|w| w.action < s.action);
        if !normal {
            continue;
        }
        let mut next = Vec::new();
        assert!(sys.successor(&top.state, &s, &mut next).unwrap());
        let after = enabled(sys, &next);
        if after.is_empty() {
            count += 1;
            continue;
        }
        word.push(s);
        stack.push(Frame {
            state: next,
            steps: after,
            next: 0,
        });
    }
    count
}

/// The number of Mazurkiewicz traces (maximal configurations of the unfolding) equals
/// Dpu's counts (docs/paper.md#table-1,
/// docs/paper.md#reference-counts): the models synchronise exactly like the C programs.
#[test]
fn trace_counts_match_the_paper() {
    let cases: &[(&str, Defines, u64)] = &[
        ("mpat", &[("K", 2)], 8),
        ("mpat", &[("K", 3)], 48),
        ("ssbexp", &[("K", 3)], 6),
        ("ssbexp", &[("K", 4)], 8),
        ("pi", &[("T", 3), ("TERMS", 30)], 6),
        ("pi", &[("T", 4), ("TERMS", 40)], 24),
        ("ssbsimple", &[], 6),
        ("spat", &[("T", 3), ("K", 3)], 4),
        ("spat", &[("T", 4), ("K", 4)], 18),
        ("spat", &[("T", 3), ("K", 5)], 6),
        ("ssb3", &[("NUM", 2), ("LEN", 2)], 10),
        ("ssb3", &[("NUM", 2), ("LEN", 4)], 74),
        ("poke", &[("N", 2), ("K", 1)], 4),
        ("poke", &[("N", 2), ("K", 2)], 14),
        ("poke", &[("N", 3), ("K", 3)], 160),
        ("dispatcher", &[("S", 1), ("R", 4)], 80),
        ("dispatcher", &[("S", 2), ("R", 3)], 150),
    ];
    for (name, defines, expected) in cases {
        let p = load(name, defines);
        let sys = p.system().unwrap();
        assert_eq!(count_traces(&sys), *expected, "{name} {defines:?}");
    }
}

/// Program and exported net agree: same verdict, same number of reachable states, same
/// number of dead states (terminations of the program are live markings of the net thanks
/// to its `terminated` loop, so both have no deadlock).
#[test]
fn exported_nets_agree_with_their_programs() {
    let mut by_fixpoint = Vec::new();
    for name in MODELS {
        let p = load(name, &[]);
        let exact = to_net(&p, &ToNetOptions::default().reachable_only(100_000)).unwrap();
        let net = match to_net(&p, &ToNetOptions::default()) {
            Ok(n) => {
                by_fixpoint.push(*name);
                // The fixpoint over-approximates the local states; the reachable ones are a
                // subset, with the same places where it is exact.
                assert!(n.places.len() >= exact.places.len(), "{name}");
                n
            }
            Err(e) => {
                // Counters bounded only by the interplay of processes (semaphores, sums).
                assert!(
                    e.message.contains("more than 64 local states") || e.message.contains("transitions"),
                    "{name}: {e}"
                );
                exact
            }
        };
        let rp = explicit_all(&p);
        let sys = NetSystem::new(&net, Decomposition::Units).unwrap();
        assert_eq!(
            sys.num_components(),
            p.system().unwrap().num_components() + p.num_instances()
        );
        let rn = explore_all(&sys);
        assert_eq!(rp.verdict, rn.verdict, "{name}");
        assert_eq!(rp.stats.get("states"), rn.stats.get("states"), "{name}");
        assert_eq!(
            rp.stats.get("dead_states").unwrap() - rp.stats.get("terminations").unwrap(),
            rn.stats.get("dead_states").unwrap(),
            "{name}"
        );
        // Through the PNML writer and reader, and the ll_net writer and reader.
        let mut pnml = Vec::new();
        qpor::formats::pnml::write(&net, &mut pnml).unwrap();
        let (back, _) = qpor::formats::pnml::read(pnml.as_slice(), "export.pnml").unwrap();
        let sys = NetSystem::new(&back, Decomposition::Units).unwrap();
        let rb = explore_all(&sys);
        assert_eq!(
            (rb.verdict, rb.stats.get("states")),
            (rn.verdict, rn.stats.get("states")),
            "{name} pnml"
        );
        let mut ll = Vec::new();
        qpor::formats::llnet::write(&net, &mut ll).unwrap();
        let text = String::from_utf8(ll).unwrap();
        let (back, _) = qpor::formats::llnet::parse(&text, "export.ll_net").unwrap();
        let sys = NetSystem::new(&back, Decomposition::Places).unwrap();
        let rb = explore_all(&sys);
        assert_eq!(
            (rb.verdict, rb.stats.get("states")),
            (rn.verdict, rn.stats.get("states")),
            "{name} ll_net"
        );
    }
    assert!(
        by_fixpoint.len() >= 10,
        "only {by_fixpoint:?} were exported by the local fixpoint"
    );
}

/// Every place and every transition of an exported net has a name of its own that says
/// what it is: a place names its component and state (a fault its message), a transition
/// the process that takes the step.
#[test]
fn exported_nets_name_every_node_uniquely() {
    for name in MODELS {
        let p = load(name, &[]);
        let sys = p.system().unwrap();
        let processes: Vec<String> = (0..p.num_instances())
            .map(|i| sys.component_name(CompId(i as u32)))
            .collect();
        let mut nets = vec![(
            "reachable",
            to_net(&p, &ToNetOptions::default().reachable_only(100_000)).unwrap(),
        )];
        if let Ok(net) = to_net(&p, &ToNetOptions::default()) {
            nets.push(("fixpoint", net));
        }
        for (how, net) in nets {
            let mut seen = HashSet::new();
            for place in &net.places {
                let label = place.label();
                assert!(
                    seen.insert(label.to_string()),
                    "{name} ({how}): two places named {label}"
                );
                assert!(
                    !label.ends_with(": fault"),
                    "{name} ({how}): {label} does not say which fault"
                );
            }
            let mut seen = HashSet::new();
            for t in &net.transitions {
                let label = t.label();
                assert!(
                    seen.insert(label.to_string()),
                    "{name} ({how}): two transitions named {label}"
                );
                assert!(
                    !label.contains(" #"),
                    "{name} ({how}): {label} needed a number to be unique"
                );
                assert!(
                    label == "terminated" || processes.iter().any(|p| label.starts_with(&format!("{p}: "))),
                    "{name} ({how}): {label} does not say which process takes the step"
                );
            }
        }
    }
}

#[test]
fn locals_out_of_scope_are_not_shown() {
    // Two loops with a counter `i` each: a state shows the one in scope, and none after.
    let p = compile(
        "mutex m;\nprocess p {\n    for i in 0..2 {\n        lock m;\n        unlock m;\n    }\n    for i in 0..3 {\n        lock m;\n        unlock m;\n    }\n    lock m;\n}\ninit p;\n",
    );
    let sys = p.system().unwrap();
    let names: HashSet<String> = reachable(&sys, 100)
        .iter()
        .map(|s| sys.local_name(CompId(0), s[0]))
        .collect();
    let expected: HashSet<String> = [
        "at 4:9 `lock m;` with i=0",
        "at 5:9 `unlock m;` with i=0",
        "at 4:9 `lock m;` with i=1",
        "at 5:9 `unlock m;` with i=1",
        "at 8:9 `lock m;` with i=0",
        "at 9:9 `unlock m;` with i=0",
        "at 8:9 `lock m;` with i=1",
        "at 9:9 `unlock m;` with i=1",
        "at 8:9 `lock m;` with i=2",
        "at 9:9 `unlock m;` with i=2",
        "at 11:5 `lock m;`",
        "done",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(names, expected);
}

#[test]
fn the_deadlock_survives_the_export_and_termination_loops_can_be_left_out() {
    let p = load("philosophers", &[("N", 3)]);
    let net = to_net(&p, &ToNetOptions::default()).unwrap();
    let sys = NetSystem::new(&net, Decomposition::Units).unwrap();
    let r = explore_states(&sys);
    assert_eq!(r.verdict, Verdict::Deadlock);
    assert_eq!(r.witness().unwrap().steps.len(), 3);

    let p = load("mpat", &[("K", 2)]);
    let bare = to_net(&p, &ToNetOptions::default().termination_loop(false)).unwrap();
    let sys = NetSystem::new(&bare, Decomposition::Units).unwrap();
    let r = explore_states(&sys);
    assert_eq!(
        r.verdict,
        Verdict::Deadlock,
        "without the loop, termination is a dead marking"
    );
    assert_eq!(r.stats.get("states"), explicit_all(&p).stats.get("states"));
}

#[test]
fn large_domains_are_refused() {
    let p = load("pi", &[]);
    let err = to_net(&p, &ToNetOptions::default().max_local_states(4)).unwrap_err();
    assert!(err.message.contains("more than 4 local states"), "{err}");
    assert!(err.message.starts_with("component "), "{err}");
}

/// The Table-1 sizes load: parse, compile and build the initial state. (Their exploration
/// is for benches; only loading is checked here.)
#[test]
fn table_one_sizes_load() {
    let mut sizes: Vec<(&str, Vec<(&str, i64)>)> = Vec::new();
    for r in 2..=6 {
        sizes.push(("dispatcher", vec![("S", 5), ("R", r)]));
    }
    for k in 4..=8 {
        sizes.push(("mpat", vec![("K", k)]));
    }
    for p in 2..=5 {
        sizes.push(("multiprodcon", vec![("P", p), ("W", 5)]));
    }
    for t in 5..=8 {
        sizes.push(("pi", vec![("T", t), ("TERMS", 5000)]));
    }
    for n in 7..=12 {
        sizes.push(("poke", vec![("N", n), ("K", 3)]));
    }
    for (name, defines) in &sizes {
        let start = std::time::Instant::now();
        let p = load(name, defines);
        let sys = p.system().unwrap();
        let init = sys.initial_state();
        let steps = enabled(&sys, &init);
        assert!(!steps.is_empty(), "{name} {defines:?}");
        println!(
            "{name} {defines:?}: {} components, loaded in {:?}",
            init.len(),
            start.elapsed()
        );
    }
}

// ------------------------------------------------------------ the program as a system

/// The steps `sys` enables in `state`.
fn enabled<S: System + ?Sized>(sys: &S, state: &[Local]) -> Vec<Step> {
    let mut steps = Vec::new();
    sys.enabled_steps(state, &mut steps);
    steps
}

fn compile(text: &str) -> Program {
    match parse(text, "t.proc", &[]) {
        Ok((p, _)) => p,
        Err(e) => panic!("{e}"),
    }
}

fn states(p: &Program) -> u64 {
    explicit_all(p).stats.get("states").unwrap()
}

/// Every reachable state of `sys` (at most `max`), breadth first.
fn reachable(sys: &ProgramSystem<'_>, max: usize) -> Vec<Vec<Local>> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut queue = VecDeque::from([sys.initial_state()]);
    while let Some(s) = queue.pop_front() {
        if !seen.insert(s.clone()) || order.len() >= max {
            continue;
        }
        let steps = enabled(sys, &s);
        for st in &steps {
            let mut next = Vec::new();
            assert!(sys.successor(&s, st, &mut next).unwrap());
            queue.push_back(next);
        }
        order.push(s);
    }
    order
}

#[test]
fn local_code_is_folded_into_visible_steps() {
    let p = compile(
        "var x: 0..=5;\nmutex m;\nprocess p {\n    var t: int = 0;\n    for k in 0..100 {\n        t += k;\n    }\n    lock m;\n    x = 5;\n    unlock m;\n}\ninit p;\n",
    );
    let sys = p.system().unwrap();
    let s0 = sys.initial_state();
    // `k` is out of scope after its loop: not shown.
    assert_eq!(sys.local_name(CompId(0), s0[0]), "at 8:5 `lock m;` with t=4950");
    let steps = enabled(&sys, &s0);
    assert_eq!(steps.len(), 1);
    assert_eq!(sys.action_name(steps[0].action), "lock m at 8:5");
    // before the lock, before the unlock (m guards x: the write is part of the lock
    // step), done.
    assert_eq!(states(&p), 3);
}

#[test]
fn equal_local_states_are_interned_once() {
    let p = compile("mutex m;\nprocess p[i in 0..2] {\n    lock m;\n    unlock m;\n}\ninit p;\n");
    let sys = p.system().unwrap();
    let s0 = sys.initial_state();
    assert_eq!(
        s0[0], s0[1],
        "both instances stand before `lock m` with no locals"
    );
    let steps = enabled(&sys, &s0);
    let mut a = Vec::new();
    let mut b = Vec::new();
    assert!(sys.successor(&s0, &steps[0], &mut a).unwrap());
    let interned = sys.interned_states();
    assert!(sys.successor(&s0, &steps[0], &mut b).unwrap());
    assert_eq!(a, b);
    assert_eq!(
        sys.interned_states(),
        interned,
        "firing again interns nothing new"
    );
    // The two lock actions are different actions with different touch sets.
    assert_ne!(steps[0].action, steps[1].action);
    assert_eq!(steps[0].touched.as_slice(), &[CompId(0), CompId(2)]);
    assert_eq!(steps[1].touched.as_slice(), &[CompId(1), CompId(2)]);
}

#[test]
fn locals_are_reset_when_their_scope_ends() {
    // t has no initialiser: only the reset at the end of the loop body makes it 0 again
    // at the choice, so the choice is one state, not three.
    let p = compile(
        "mutex m;\nprocess p {\n    loop {\n        var t: 0..=3;\n        choose {\n            t = 1;\n        } or {\n            t = 2;\n        }\n        lock m;\n        unlock m;\n    }\n}\ninit p;\n",
    );
    // at the choice; before lock with t = 1 or 2; before unlock with t = 1 or 2.
    assert_eq!(states(&p), 5);
}

#[test]
fn a_fault_state_is_final_for_nothing_and_takes_no_step() {
    let p = compile("mutex m;\nprocess p {\n    lock m;\n    assert false;\n}\ninit p;\n");
    let sys = p.system().unwrap();
    let s0 = sys.initial_state();
    let steps = enabled(&sys, &s0);
    let mut s1 = Vec::new();
    assert!(sys.successor(&s0, &steps[0], &mut s1).unwrap());
    assert_eq!(
        sys.fault(CompId(0), s1[0]).as_deref(),
        Some("t.proc:4:5: assertion failed: `assert false;`")
    );
    assert!(!sys.is_final(CompId(0), s1[0]));
    assert_eq!(sys.local_name(CompId(0), s1[0]), "fault");
    let none = enabled(&sys, &s1);
    assert!(none.is_empty());
    let r = explore_states(&sys);
    assert_eq!(r.verdict, Verdict::Fault);
}

const MIXED: &str = "param N = 3;\nmutex m[N];\nsem s = 1;\nchan c: 0..3;\nvar a[N]: 0..=2;\nvar x: 0..=9;\n\
    process w[i in 0..N] {\n    var j: 0..N = (i + 1) % N;\n    lock m[j];\n    a[j] += 1;\n    unlock m[j];\n    wait s;\n    x += 1;\n    signal s;\n    c!j;\n}\n\
    process sink {\n    for k in 0..N {\n        var v: 0..3;\n        c?v;\n        a[v] -= 1;\n    }\n}\n\
    process main {\n    for i in 0..N {\n        spawn w[i];\n    }\n    for i in 0..N {\n        join w[i];\n    }\n}\n\
    init main, sink;\n";

#[test]
fn touching_index_agrees_with_the_filter_and_touch_sets_are_fixed() {
    let p = compile(MIXED);
    let sys = p.system().unwrap();
    let all = reachable(&sys, 20_000);
    assert!(all.len() > 100);
    let mut touch: HashMap<ActionId, TouchSet> = HashMap::new();
    for s in &all {
        let steps = enabled(&sys, s);
        for st in &steps {
            let prev = touch.entry(st.action).or_insert_with(|| st.touched.clone());
            assert_eq!(*prev, st.touched, "{}", sys.action_name(st.action));
            assert!(st.touched.windows(2).all(|w| w[0] < w[1]));
            assert!(st.touched.contains(&sys.action_owner(st.action).unwrap()));
        }
        for c in 0..sys.num_components() {
            let c = CompId(c as u32);
            let mut fast = Vec::new();
            sys.enabled_steps_touching(s, c, &mut fast);
            let mut slow: Vec<Step> = steps.iter().filter(|x| x.touched.contains(&c)).cloned().collect();
            fast.sort_by_key(|x| x.action);
            slow.sort_by_key(|x| x.action);
            assert_eq!(fast, slow, "component {}", sys.component_name(c));
        }
    }
}

#[test]
fn fire_only_depends_on_the_touched_states_and_refuses_other_control_points() {
    let p = compile(MIXED);
    let sys = p.system().unwrap();
    let all = reachable(&sys, 5_000);
    let mut results: HashMap<(ActionId, Vec<Local>), Vec<Local>> = HashMap::new();
    for s in &all {
        let steps = enabled(&sys, s);
        for st in &steps {
            let before: Vec<Local> = st.touched.iter().map(|c| s[c.index()]).collect();
            let mut after = vec![Local(0); before.len()];
            assert!(sys.fire(st, &before, &mut after).unwrap());
            let prev = results
                .entry((st.action, before))
                .or_insert_with(|| after.clone());
            assert_eq!(*prev, after);
        }
    }
    // The initial step of main (spawn w[0]) cannot fire once main has moved on.
    let s0 = sys.initial_state();
    let steps = enabled(&sys, &s0);
    let spawn = steps
        .iter()
        .find(|s| sys.action_name(s.action).starts_with("spawn w[0]"))
        .unwrap()
        .clone();
    let mut s1 = Vec::new();
    assert!(sys.successor(&s0, &spawn, &mut s1).unwrap());
    assert!(!sys.successor(&s1, &spawn, &mut Vec::new()).unwrap());
}

#[test]
fn components_are_named_and_kinded() {
    let p = compile(MIXED);
    let sys = p.system().unwrap();
    let names: Vec<String> = (0..sys.num_components())
        .map(|c| sys.component_name(CompId(c as u32)))
        .collect();
    assert_eq!(
        names,
        ["w[0]", "w[1]", "w[2]", "sink", "main", "m[0]", "m[1]", "m[2]", "s", "a[0]", "a[1]", "a[2]", "x"]
    );
    let kinds: Vec<&str> = (0..sys.num_components())
        .map(|c| sys.component_kind(CompId(c as u32)))
        .collect();
    assert_eq!(kinds[3], "process");
    assert_eq!(kinds[5], "mutex");
    assert_eq!(kinds[8], "semaphore");
    assert_eq!(kinds[12], "variable");
    let s0 = sys.initial_state();
    assert_eq!(sys.local_name(CompId(0), s0[0]), "idle");
    assert_eq!(sys.local_name(CompId(5), s0[5]), "free");
    assert_eq!(sys.local_name(CompId(8), s0[8]), "1");
    assert!(sys.is_final(CompId(0), s0[0]));
    assert!(!sys.is_final(CompId(4), s0[4]));
}

#[test]
fn wide_ranges_are_not_enumerated() {
    let p = compile(
        "var x: 0..=4294967295 = 4294967295;\nmutex m;\nprocess p {\n    lock m;\n    x -= 4294967295;\n    unlock m;\n}\ninit p;\n",
    );
    let sys = p.system().unwrap();
    assert_eq!(sys.local_name(CompId(1), sys.initial_state()[1]), "4294967295");
    assert_eq!(states(&p), 3);
}
