//! QPOR on several processes (`--distributed`) against the sequential run, with the ranks
//! as threads passing messages through channels ([`ChannelTransport`]): the protocol is
//! the one MPI carries (tests/cli.rs runs it under `mpirun` when the `mpi` feature is on).
//! Each rank loads the model itself, so the programs' actions are numbered differently in
//! each and the messages must name them by key. Compared: maximal configurations,
//! deadlocks, terminations and dead states, for 2 and 3 ranks, splitting every few nodes
//! (small runs end before a rank is idle) or as the mode does by default; the SSBs, with
//! those of the same splits on one thread (`SplitPolicy::Fixed`); in optimal mode no SSB; and
//! the verdict when stopping at the first deadlock. Without cutoffs, and with
//! causal ones on the shipped programs and on cyclic random nets.

mod net_support;

mod engine_support;
use engine_support::{dead_states, explore_within, program, shipped_programs, TABLE_1_SMALL};
use net_support::random_net;
use proptest::prelude::*;
use qpor::engines::qpor::{
    check_system, check_system_distributed, AltMode, ChannelTransport, Exploration, NoTree, QporOptions,
    SplitPolicy,
};
use qpor::net::{Decomposition, Net, NetSystem};
use qpor::unfolding::CutoffMode;
use qpor::{Budget, Report, Silent, System, SystemOptions, Verdict};

/// The alternative modes compared: optimal and k-partial.
const MODES: [AltMode; 2] = [AltMode::Optimal, AltMode::KPartial(1)];

/// The sequential runs compared stay within this many events.
const SEQUENTIAL_EVENTS: u64 = 50_000;

fn options(
    alt: AltMode,
    cutoff: CutoffMode,
    first: bool,
    split_every: Option<u32>,
    sequential: bool,
) -> QporOptions {
    QporOptions {
        alt,
        all: !first,
        cutoff,
        max_events: sequential.then_some(SEQUENTIAL_EVENTS),
        exploration: if sequential {
            Exploration::SingleTree
        } else {
            Exploration::Split {
                workers: 1,
                policy: split_every.map_or(SplitPolicy::for_alt(alt), SplitPolicy::Every),
            }
        },
        ..QporOptions::default()
    }
}

/// Runs `ranks` ranks on threads, each on the system `system` builds for it; rank 0's
/// report.
fn distributed<F>(ranks: usize, opts: &QporOptions, system: F) -> Report
where
    F: Fn(&mut dyn FnMut(&(dyn System + Sync)) -> Option<Report>) -> Option<Report> + Sync,
{
    let transports = ChannelTransport::group(ranks);
    let reports: Vec<Option<Report>> = std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .into_iter()
            .map(|t| {
                let system = &system;
                s.spawn(move || {
                    system(&mut |sys| {
                        check_system_distributed(sys, opts, &Budget::unlimited(), &mut Silent, &t).unwrap()
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut reports = reports.into_iter();
    let first = reports.next().unwrap().expect("rank 0 reports");
    assert!(reports.all(|r| r.is_none()), "only rank 0 reports");
    first
}

fn count(r: &Report, name: &str) -> u64 {
    r.stats.get(name).unwrap_or_else(|| panic!("no counter {name}"))
}

/// Compares the distributed runs of the system `system` builds (once per rank) with the
/// sequential run of `seq_sys`.
fn assert_distributed_agrees<F>(seq_sys: &(dyn System + Sync), cutoff: CutoffMode, what: &str, system: F)
where
    F: Fn(&mut dyn FnMut(&(dyn System + Sync)) -> Option<Report>) -> Option<Report> + Sync,
{
    let what = format!("{what}, {cutoff:?} cutoffs");
    for alt in MODES {
        let seq = check_system(
            seq_sys,
            &options(alt, cutoff, false, None, true),
            &Budget::unlimited(),
            &mut Silent,
            &mut NoTree,
        )
        .unwrap();
        if seq.stopped.is_some() {
            // A cyclic model, or too big for the event budget: nothing exact to compare.
            continue;
        }
        for (ranks, split_every) in [(2, Some(1)), (3, Some(5)), (2, None)] {
            let how = format!("{what}, {alt:?}, {ranks} ranks, split every {split_every:?}");
            let first = distributed(ranks, &options(alt, cutoff, true, split_every, false), &system);
            assert_eq!(first.verdict, seq.verdict, "{how}: first deadlock");
            if first.verdict == Verdict::Deadlock {
                assert_eq!(first.stopped, None, "{how}");
                let found = dead_states(&first).into_iter().next().unwrap();
                assert!(dead_states(&seq).contains(&found), "{how}: {found:?}");
            }
            let par = distributed(ranks, &options(alt, cutoff, false, split_every, false), &system);
            assert_eq!(par.stopped, None, "{how}");
            assert_eq!(par.verdict, seq.verdict, "{how}");
            for name in ["max_configurations", "deadlocks", "terminations"] {
                assert_eq!(count(&par, name), count(&seq, name), "{how}: {name}");
            }
            assert_eq!(dead_states(&par), dead_states(&seq), "{how}: dead states");
            let one = QporOptions {
                exploration: Exploration::Split {
                    workers: 1,
                    policy: split_every.map_or(SplitPolicy::FIXED, SplitPolicy::Every),
                },
                ..options(alt, cutoff, false, split_every, false)
            };
            let one = check_system(seq_sys, &one, &Budget::unlimited(), &mut Silent, &mut NoTree).unwrap();
            let same: &[&str] = if alt != AltMode::Optimal || split_every.is_some() {
                // Split at the same nodes: the same tasks, which create the same events.
                &["ssbs", "events", "tasks"]
            } else {
                &["ssbs"]
            };
            for &name in same {
                assert_eq!(
                    count(&par, name),
                    count(&one, name),
                    "{how}: {name} against one thread"
                );
            }
            if alt == AltMode::Optimal {
                assert_eq!(count(&par, "ssbs"), 0, "{how}: an SSB in optimal mode");
            }
            assert!(count(&par, "messages") > 0 || ranks == 1, "{how}: no message");
        }
    }
}

/// Each rank loads the program itself, as the processes of an MPI run do.
fn assert_program_agrees(model: &str, params: &[(&str, i64)], cutoff: CutoffMode) {
    let m = program(model, params);
    let sys = m.system(&SystemOptions::default()).unwrap();
    assert_distributed_agrees(&*sys, cutoff, &format!("{model} {params:?}"), |run| {
        let m = program(model, params);
        let sys = m.system(&SystemOptions::default()).unwrap();
        run(&*sys)
    });
}

fn assert_net_agrees(net: &Net, what: &str, cutoff: CutoffMode) {
    let sys = NetSystem::new(net, Decomposition::Places).unwrap();
    assert_distributed_agrees(&sys, cutoff, what, |run| {
        let sys = NetSystem::new(net, Decomposition::Places).unwrap();
        run(&sys)
    });
}

fn cases() -> u32 {
    std::env::var("QPOR_DISTRIBUTED_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_acyclic_nets_explore_alike_on_several_ranks(spec in random_net(2..=8, 1..=12, true, 2, 2)) {
        assert_net_agrees(&spec.build(), &format!("{spec:?}"), CutoffMode::None);
    }

    /// Causal, distance and canonical cutoffs (each rank makes its own table), on cyclic nets with
    /// a finite state space.
    #[test]
    fn random_cyclic_nets_with_history_decided_cutoffs_explore_alike_on_several_ranks(spec in random_net(2..=8, 1..=12, false, 1, 1)) {
        let net = spec.build();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        prop_assume!(explore_within(&sys, true, Some(5_000)).stopped.is_none());
        for cutoff in [CutoffMode::Causal, CutoffMode::Distance, CutoffMode::Canonical] {
            assert_net_agrees(&net, &format!("{spec:?}"), cutoff);
        }
    }
}

#[test]
fn the_table_1_families_explore_alike_on_several_ranks() {
    for (model, params) in TABLE_1_SMALL {
        assert_program_agrees(model, params, CutoffMode::None);
    }
}

#[test]
fn the_shipped_programs_explore_alike_on_several_ranks() {
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

/// Mpat(5) is pruned: a continuation resumed in its owner's replica needs what the
/// explorations in between kept.
#[test]
fn a_pruned_unfolding_keeps_what_waiting_continuations_need_across_ranks() {
    for split_every in [1, 50] {
        let opts = options(
            AltMode::Optimal,
            CutoffMode::None,
            false,
            Some(split_every),
            false,
        );
        let r = distributed(2, &opts, |run| {
            let m = program("mpat", &[("K", 5)]);
            let sys = m.system(&SystemOptions::default()).unwrap();
            run(&*sys)
        });
        assert_eq!(count(&r, "max_configurations"), 3840, "split every {split_every}");
        assert!(
            count(&r, "prunes") > 0,
            "the run must prune for this test to mean anything"
        );
    }
}

/// Ranks must cut alike: when one runs out of time while it builds the canonical prefix
/// and another does not, none explores, none is left waiting, and rank 0 (which had no
/// limit) reports the run inconclusive.
#[test]
fn a_rank_out_of_time_in_the_canonical_prefix_leaves_no_rank_waiting() {
    let m = program("rwlock", &[("R", 3), ("W", 2), ("ROUNDS", 2)]);
    let opts = options(AltMode::Optimal, CutoffMode::Canonical, false, Some(4), false);
    let transports = ChannelTransport::group(2);
    let spent = Budget::until(Some(std::time::Instant::now()), Some(std::time::Duration::ZERO));
    let reports: Vec<Option<Report>> = std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .into_iter()
            .enumerate()
            .map(|(rank, t)| {
                let (m, opts, spent) = (&m, &opts, &spent);
                s.spawn(move || {
                    let budget = if rank == 0 {
                        Budget::unlimited()
                    } else {
                        spent.clone()
                    };
                    let sys = m.system(&SystemOptions::default()).unwrap();
                    check_system_distributed(&*sys, opts, &budget, &mut Silent, &t).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(reports[1].is_none(), "only rank 0 reports");
    let r = reports[0].as_ref().expect("rank 0 reports");
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert_eq!(count(r, "max_configurations"), 0);
    assert!(count(r, "canonical_prefix_events") > 0);
}
