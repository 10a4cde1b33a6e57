//! Long configurations. Algorithm 1, the conflicting-extension search and the freeing of
//! events must not recurse along a configuration: each run here is made on a thread with a
//! small stack, so a recursion whose depth follows the length of C (exploring, dropping a
//! history) overflows it and fails the test.

use qpor::engines::qpor::QporOptions;
use qpor::program::parse;
use qpor::unfolding::CutoffMode;
use qpor::Model;
use qpor::{Asked, Budget, Engine, FindingKind, Report, Silent, Verdict};

/// 256 KiB: a few thousand frames at most, far fewer than the configurations below.
const SMALL_STACK: usize = 256 * 1024;

fn program(text: &str, defines: &[(&str, i64)]) -> Model {
    let defines: Vec<(String, i64)> = defines.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let (p, warnings) = parse(text, "long.proc", &defines).unwrap_or_else(|e| panic!("{e}"));
    assert!(warnings.is_empty(), "{warnings:?}");
    Model::Program(Box::new(p))
}

fn check_on_small_stack(model: Model, qpor: QporOptions) -> Report {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            // The engine itself, on this thread: the dispatcher would run it on its own.
            let asked = Asked {
                question: &qpor::Question::Deadlock,
                model: &model,
                budget: &Budget::unlimited(),
            };
            let report = qpor.run(asked, &mut Silent).unwrap();
            // The unfolding is dropped inside `run`; dropping the report and the model
            // here must not recurse either.
            drop(model);
            report
        })
        .unwrap()
        .join()
        .expect("the run finishes without overflowing a small stack")
}

/// A thread takes and releases m N times while main takes it once and never releases it:
/// if main takes m after i rounds, the run deadlocks after 2i + 2 events, up to 2N.
const DEEP_DEADLOCK: &str = "
param N = 3;
mutex m;
process a { for i in 0..N { lock m; unlock m; } }
process main { spawn a; lock m; }
init main;
";

#[test]
fn deadlocks_after_long_runs_are_found_on_a_small_stack() {
    // Small N: every deadlock, one per iteration of a before which main can take m (if
    // main takes it after the last one, both processes finish).
    let report = check_on_small_stack(
        program(DEEP_DEADLOCK, &[("N", 3)]),
        QporOptions {
            cutoff: CutoffMode::None,
            all: true,
            ..QporOptions::default()
        },
    );
    assert_eq!(report.verdict, Verdict::Deadlock);
    assert_eq!(report.findings_of(FindingKind::Deadlock).count(), 3);

    // Large N: the first deadlock found, whatever it is, ends with main taking m, after a
    // run at most 2N + 1 steps long; the exploration went 2N events deep.
    let n = 50_000;
    let report = check_on_small_stack(
        program(DEEP_DEADLOCK, &[("N", n)]),
        QporOptions {
            cutoff: CutoffMode::None,
            ..QporOptions::default()
        },
    );
    assert_eq!(report.verdict, Verdict::Deadlock);
    let witness = report.witness().expect("a witness");
    assert!(witness.steps.len() as i64 <= 2 * n + 1);
    let last = witness.steps.last().unwrap();
    assert_eq!(
        (last.owner.as_deref(), &*last.action),
        (Some("main"), "lock m at 5:25")
    );
    assert!(report.stats.get("max_depth").unwrap() >= 2 * n as u64);
}

#[test]
fn a_long_cyclic_run_stops_at_the_event_limit_on_a_small_stack() {
    let model = program(
        "
mutex m;
process a { loop { lock m; unlock m; } }
process b { loop { lock m; unlock m; } }
process main { spawn a; spawn b; }
init main;
",
        &[],
    );
    let limit = 200_000;
    let report = check_on_small_stack(
        model,
        QporOptions {
            cutoff: CutoffMode::None,
            max_events: Some(limit),
            ..QporOptions::default()
        },
    );
    assert_eq!(report.verdict, Verdict::Inconclusive);
    assert!(report.stopped.is_some());
    assert_eq!(report.stats.get("events"), Some(limit));
}
