//! QPOR on several threads (`--jobs`) against the sequential run: the same maximal
//! configurations, deadlocks and terminations, and the same dead states, on random nets,
//! on the shipped programs and on the Table 1 families at small sizes, for 2 and 4 workers,
//! without cutoffs and with causal ones (cyclic random nets and programs too);
//! in optimal mode neither run meets a sleep-set-blocked leaf. Small runs end before any
//! worker is idle, so the runs here also split every few nodes (`SplitPolicy::Every`), which
//! exercises the splits, the reports and the continuations far more than idle workers do.
//! The SSB counts of every mode are those of the same splits on one thread
//! (`SplitPolicy::Fixed`): with k-partial alternatives they differ from Algorithm 1's single
//! tree, but never with the number of workers.

mod net_support;

mod engine_support;
use engine_support::{dead_states, explore_within, program, shipped_programs, TABLE_1_SMALL};
use net_support::random_net;
use proptest::prelude::*;
use qpor::engines::qpor::{check_system, AltMode, Exploration, NoTree, QporOptions, SplitPolicy};
use qpor::net::{Decomposition, NetSystem};
use qpor::unfolding::CutoffMode;
use qpor::{Budget, Report, Silent, System, SystemOptions, Verdict};

/// The alternative modes compared: optimal and k-partial.
const MODES: [AltMode; 3] = [AltMode::Optimal, AltMode::KPartial(1), AltMode::KPartial(2)];

/// The sequential runs compared stay within this many events; the parallel ones get the
/// default limit, since replaying tasks creates events again.
const SEQUENTIAL_EVENTS: u64 = 50_000;

/// QPOR with `cutoff` on the program-like unfolding of `sys`, collecting everything
/// unless `first` (stop at the first deadlock).
fn run<S: System + Sync + ?Sized>(
    sys: &S,
    alt: AltMode,
    cutoff: CutoffMode,
    jobs: usize,
    split_every: Option<u32>,
    first: bool,
) -> Report {
    check(sys, &options(alt, cutoff, jobs, split_every, first))
}

/// The options [`run`] uses.
fn options(
    alt: AltMode,
    cutoff: CutoffMode,
    jobs: usize,
    split_every: Option<u32>,
    first: bool,
) -> QporOptions {
    QporOptions {
        alt,
        all: !first,
        cutoff,
        max_events: (jobs == 1).then_some(SEQUENTIAL_EVENTS),
        exploration: if jobs > 1 {
            Exploration::Split {
                workers: jobs,
                policy: split_every.map_or(SplitPolicy::for_alt(alt), SplitPolicy::Every),
            }
        } else {
            Exploration::SingleTree
        },
        ..QporOptions::default()
    }
}

fn check<S: System + Sync + ?Sized>(sys: &S, opts: &QporOptions) -> Report {
    check_system(sys, opts, &Budget::unlimited(), &mut Silent, &mut NoTree).unwrap()
}

fn count(r: &Report, name: &str) -> u64 {
    r.stats.get(name).unwrap_or_else(|| panic!("no counter {name}"))
}

/// Runs `sys` sequentially and in parallel (2 and 4 workers, splitting every 1, 3 and 17
/// nodes or as the mode does by default) and compares them, and the SSBs with the same
/// splits on one thread; then, stopping at the first deadlock, compares the verdicts.
fn assert_parallel_agrees<S: System + Sync + ?Sized>(sys: &S, cutoff: CutoffMode, what: &str) {
    let what = format!("{what}, {cutoff:?} cutoffs");
    for alt in MODES {
        let seq = run(sys, alt, cutoff, 1, None, false);
        if seq.stopped.is_some() {
            // A cyclic model, or too big for the event budget: nothing exact to compare.
            continue;
        }
        for (jobs, split_every) in [(2, Some(1)), (2, Some(3)), (4, Some(17)), (2, None)] {
            let first = run(sys, alt, cutoff, jobs, split_every, true);
            let how = format!("{what}, {alt:?}, {jobs} jobs, split every {split_every:?}");
            assert_eq!(first.verdict, seq.verdict, "{how}: first deadlock");
            if first.verdict == Verdict::Deadlock {
                assert_eq!(first.stopped, None, "{how}");
                assert!(dead_states(&seq).contains(&dead_states(&first).into_iter().next().unwrap()));
            }
            let par = run(sys, alt, cutoff, jobs, split_every, false);
            let how = format!("{what}, {alt:?}, {jobs} jobs, split every {split_every:?}");
            assert_eq!(par.stopped, None, "{how}");
            assert_eq!(par.verdict, seq.verdict, "{how}");
            for name in ["max_configurations", "deadlocks", "terminations", "cutoff_leaves"] {
                assert_eq!(count(&par, name), count(&seq, name), "{how}: {name}");
            }
            assert_eq!(dead_states(&par), dead_states(&seq), "{how}: dead states");
            let one = QporOptions {
                exploration: Exploration::Split {
                    workers: 1,
                    policy: split_every.map_or(SplitPolicy::FIXED, SplitPolicy::Every),
                },
                ..options(alt, cutoff, 1, split_every, false)
            };
            let one = check(sys, &one);
            assert_eq!(one.stopped, None, "{how}, on one thread");
            for name in ["max_configurations", "ssbs", "deadlocks", "cutoff_leaves"] {
                assert_eq!(
                    count(&par, name),
                    count(&one, name),
                    "{how}: {name} against one thread"
                );
            }
            if alt == AltMode::Optimal {
                assert_eq!(count(&par, "ssbs"), 0, "{how}: an SSB in optimal mode");
                assert_eq!(count(&seq, "ssbs"), 0, "{what}: an SSB in optimal mode");
            }
        }
    }
}

fn assert_program_agrees(model: &str, params: &[(&str, i64)], cutoff: CutoffMode) {
    let m = program(model, params);
    let sys = m.system(&SystemOptions::default()).unwrap();
    assert_parallel_agrees(&*sys, cutoff, &format!("{model} {params:?}"));
}

fn cases() -> u32 {
    std::env::var("QPOR_PARALLEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_acyclic_nets_explore_alike_on_several_threads(spec in random_net(2..=8, 1..=12, true, 2, 2)) {
        let net = spec.build();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        assert_parallel_agrees(&sys, CutoffMode::None, &format!("{spec:?}"));
    }

    /// Causal, distance and canonical cutoffs are decided by each event's history (and a
    /// table made up front: distances, or the complete ERV prefix), so every replica cuts
    /// the same events, and cyclic nets compare
    /// too: those with a finite state space (an unbounded net's truncation is infinite,
    /// and its configurations within the event limit can be too many to list).
    #[test]
    fn random_cyclic_nets_with_history_decided_cutoffs_explore_alike_on_several_threads(spec in random_net(2..=8, 1..=12, false, 1, 1)) {
        let net = spec.build();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        prop_assume!(explore_within(&sys, true, Some(5_000)).stopped.is_none());
        for cutoff in [CutoffMode::Causal, CutoffMode::Distance, CutoffMode::Canonical] {
            assert_parallel_agrees(&sys, cutoff, &format!("{spec:?}"));
        }
    }
}

#[test]
fn the_table_1_families_explore_alike_on_several_threads() {
    for (model, params) in TABLE_1_SMALL {
        assert_program_agrees(model, params, CutoffMode::None);
    }
}

#[test]
fn the_shipped_programs_explore_alike_on_several_threads() {
    for name in shipped_programs() {
        for cutoff in [
            CutoffMode::None,
            CutoffMode::Causal,
            CutoffMode::Distance,
            CutoffMode::Canonical,
        ] {
            assert_program_agrees(&name, &[], cutoff);
        }
    }
}

/// Mpat(5) is the smallest row whose unfolding is pruned (more than 4 096 live events):
/// a continuation resumed in its owner's replica needs what the explorations in between
/// kept through pruning (a bug found this way lost up to 40 % of the configurations).
#[test]
fn a_pruned_unfolding_keeps_what_waiting_continuations_need() {
    let m = program("mpat", &[("K", 5)]);
    let sys = m.system(&SystemOptions::default()).unwrap();
    for split_every in [1, 7, 50] {
        let r = run(
            &*sys,
            AltMode::Optimal,
            CutoffMode::None,
            2,
            Some(split_every),
            false,
        );
        assert_eq!(count(&r, "max_configurations"), 3840, "split every {split_every}");
        assert!(
            count(&r, "prunes") > 0,
            "the run must prune for this test to mean anything"
        );
    }
}
