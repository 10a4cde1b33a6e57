//! The stubborn-set engine against the explicit-state oracle: the same verdict, with
//! `--all` the same dead markings, in the three orders, on random nets (safe and not, weighted,
//! with read arcs) and on every shipped net; breadth first gives shortest witnesses.

mod net_support;

mod engine_support;
use engine_support::{explicit_check, explore_within};
use net_support::{random_net, NetSpec};
use proptest::prelude::*;
use qpor::engines::explicit::ExplicitOptions;
use qpor::engines::stubborn::{search_net, SearchOrder, StubbornOptions};
use qpor::net::{Decomposition, Net, NetSystem, PlaceId, TransId};
use qpor::{check, Budget, CheckOptions, EngineChoice, EngineName, Limits, Model, Report, Silent, Verdict};
use std::collections::BTreeSet;
use std::path::Path;

fn dead_states(r: &Report) -> BTreeSet<String> {
    r.findings.iter().map(|f| f.state.clone()).collect()
}

fn stubborn(sys: &NetSystem<'_>, all: bool, order: SearchOrder) -> Report {
    let opts = StubbornOptions {
        all,
        order,
        ..StubbornOptions::default()
    };
    search_net(sys, &opts, &Budget::unlimited(), &mut Silent).unwrap()
}

/// `spec` with read arcs added: each (t, p) makes transition t read place p.
fn with_reads(spec: &NetSpec, reads: &[(usize, usize)]) -> Net {
    let mut net = spec.build();
    for &(t, p) in reads {
        let (t, p) = (t % net.transitions.len(), p % net.places.len());
        if !net.transitions[t].reads(PlaceId(p as u32)) {
            net.add_read(TransId(t as u32), PlaceId(p as u32));
        }
    }
    net
}

/// Checks the stubborn engine against the oracle on `net` with the place decomposition.
fn agrees_with_the_oracle(net: &Net) -> Result<(), TestCaseError> {
    let sys = NetSystem::new(net, Decomposition::Places).unwrap();
    let oracle = explore_within(&sys, true, Some(5_000));
    prop_assume!(oracle.stopped.is_none());
    let first = explicit_check(&sys, &ExplicitOptions::default(), &mut Silent).unwrap();
    for order in [SearchOrder::Depth, SearchOrder::Breadth, SearchOrder::Best] {
        let all = stubborn(&sys, true, order);
        prop_assert_eq!(all.stopped, None);
        prop_assert_eq!(dead_states(&all), dead_states(&oracle), "{:?}", order);
        prop_assert!(all.stats.get("states").unwrap() <= oracle.stats.get("states").unwrap());
        let one = stubborn(&sys, false, order);
        prop_assert_eq!(one.verdict, oracle.verdict);
        if let Some(f) = one.findings.first() {
            prop_assert!(dead_states(&oracle).contains(&f.state));
            if order == SearchOrder::Breadth {
                // The oracle's first deadlock has a shortest witness; so has this one.
                prop_assert_eq!(f.witness.steps.len(), first.findings[0].witness.steps.len());
            }
        }
    }
    Ok(())
}

proptest! {
    // Unbounded random nets are skipped: up to a third of the weighted ones.
    #![proptest_config(ProptestConfig { cases: 2000, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    /// Weighted nets with several tokens per place.
    #[test]
    fn weighted_nets_keep_every_dead_marking(spec in random_net(2..=8, 1..=12, false, 3, 3)) {
        agrees_with_the_oracle(&spec.build())?;
    }

    /// Ordinary nets with at most one initial token per place, and read arcs.
    #[test]
    fn ordinary_nets_with_read_arcs_keep_every_dead_marking(
        spec in random_net(2..=10, 1..=14, false, 1, 1),
        reads in prop::collection::vec((0usize..14, 0usize..10), 0..=4),
    ) {
        agrees_with_the_oracle(&with_reads(&spec, &reads))?;
    }
}

fn shipped_nets() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["models/nets", "models/ll_net", "models/mcc2023"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "pnml" || e == "ll_net") {
                files.push(path.display().to_string());
            }
        }
    }
    files.sort();
    files
}

/// Every shipped net whose full state space the oracle stores in a few seconds: the same
/// dead markings with `--all`, cut into places and, for NUPN nets, into units.
#[test]
fn shipped_nets_keep_every_dead_marking() {
    let mut compared = 0;
    for file in shipped_nets() {
        let net = match qpor::load(Path::new(&file), &Default::default()).unwrap().model {
            Model::Net(net) => net,
            Model::Program(_) => unreachable!("{file} is a net"),
        };
        let mut cuts = vec![Decomposition::Places];
        if net.nupn.is_some() {
            cuts.push(Decomposition::Units);
        }
        for cut in cuts {
            let sys = NetSystem::new(&net, cut).unwrap();
            let oracle = explore_within(&sys, true, Some(300_000));
            if oracle.stopped.is_some() {
                continue;
            }
            for order in [SearchOrder::Depth, SearchOrder::Best] {
                let r = stubborn(&sys, true, order);
                assert_eq!(dead_states(&r), dead_states(&oracle), "{file} {cut:?} {order:?}");
            }
            compared += 1;
        }
    }
    assert!(compared >= 30, "only {compared} nets compared");
}

/// Through `check`: every witness replayed, the engine named, and a reduction that pays on
/// a net with much concurrency.
#[test]
fn check_runs_the_stubborn_engine_and_replays_its_witness() {
    let model = qpor::load(Path::new("models/nets/philosophers-10.pnml"), &Default::default())
        .unwrap()
        .model;
    let opts = CheckOptions {
        engine: EngineName::Stubborn.with_defaults(),
        ..CheckOptions::default()
    };
    let r = check(&model, &opts, &mut Silent).unwrap();
    assert_eq!(r.engine, "stubborn");
    assert_eq!(r.verdict, Verdict::Deadlock);
    let all = check(
        &model,
        &CheckOptions {
            all: true,
            ..opts.clone()
        },
        &mut Silent,
    )
    .unwrap();
    let explicit = check(
        &model,
        &CheckOptions {
            engine: EngineChoice::Explicit,
            all: true,
            ..opts
        },
        &mut Silent,
    )
    .unwrap();
    assert_eq!(dead_states(&all), dead_states(&explicit));
    let (reduced, full) = (
        all.stats.get("states").unwrap(),
        explicit.stats.get("states").unwrap(),
    );
    assert!(reduced * 10 < full, "{reduced} states against {full}");
}

/// Through `check` on a program with a race: the lost update makes the assertion fail,
/// and the fault's witness is replayed; the OneSafe view of a net is refused.
#[test]
fn check_finds_a_fault_in_a_program_and_refuses_the_one_safe_view() {
    let text = "var count: 0..=3 = 0;\n\
        process worker[i in 0..2] { var l: 0..=3 = count; count = l + 1; }\n\
        process main { spawn worker[0]; spawn worker[1]; join worker[0]; join worker[1]; assert count == 2; }\n\
        init main;\n";
    let (prog, _) = qpor::program::parse(text, "race.proc", &[]).unwrap();
    let model = Model::Program(Box::new(prog));
    for order in [SearchOrder::Depth, SearchOrder::Breadth, SearchOrder::Best] {
        let r = check(
            &model,
            &CheckOptions {
                engine: EngineChoice::Stubborn { order },
                ..CheckOptions::default()
            },
            &mut Silent,
        )
        .unwrap();
        assert_eq!(r.engine, "stubborn");
        assert_eq!(r.verdict, Verdict::Fault, "{order:?}");
        let message = r.findings[0].message.clone().unwrap_or_default();
        assert!(message.contains("assert"), "{message}");
    }
    let net = qpor::load(Path::new("models/nets/philosophers-5.pnml"), &Default::default())
        .unwrap()
        .model;
    let watch = CheckOptions {
        engine: EngineName::Stubborn.with_defaults(),
        question: qpor::Question::OneSafe,
        ..CheckOptions::default()
    };
    let e = check(&net, &watch, &mut Silent).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the stubborn engine does not answer the OneSafe question on a net"
    );
}

/// The state limit makes a run inconclusive.
#[test]
fn the_state_limit_stops_the_search() {
    let model = qpor::load(
        Path::new("models/mcc2023/Dekker-PT-010.pnml"),
        &Default::default(),
    )
    .unwrap()
    .model;
    let opts = CheckOptions {
        engine: EngineName::Stubborn.with_defaults(),
        limits: Limits {
            max_states: Some(50),
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let r = check(&model, &opts, &mut Silent).unwrap();
    assert_eq!(r.verdict, Verdict::Inconclusive);
}

/// Best first expands the state closest to dead next. Transition `a` opens a ring where 30
/// tokens circulate forever; `b`, in conflict with it, leads to a dead state at once.
/// Best first stores the initial state and its two successors, expands the dead one
/// second and stops; depth and breadth first both expand the ring's side first.
#[test]
fn best_first_goes_to_the_state_closest_to_dead() {
    let (mut net, [s, go, stop, p1, p2, p3, p4]) = Net::with_places([
        ("s", 1),
        ("go", 0),
        ("stop", 0),
        ("p1", 30),
        ("p2", 0),
        ("p3", 0),
        ("p4", 0),
    ]);
    net.add_transition_between("a", &[s], &[go]);
    net.add_transition_between("b", &[s], &[stop]);
    let ring = [p1, p2, p3, p4];
    for i in 0..4 {
        let t = net.add_transition_between(format!("r{i}"), &[ring[i]], &[ring[(i + 1) % 4]]);
        net.add_read(t, go);
    }
    let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
    let states = |r: &Report| r.stats.get("states").unwrap();
    let best = stubborn(&sys, false, SearchOrder::Best);
    assert_eq!(best.verdict, Verdict::Deadlock);
    assert_eq!(best.findings[0].witness.steps.len(), 1);
    assert_eq!(states(&best), 3);
    for order in [SearchOrder::Depth, SearchOrder::Breadth] {
        let r = stubborn(&sys, false, order);
        assert_eq!(r.verdict, Verdict::Deadlock);
        assert!(states(&r) > 3, "{order:?} stored {}", states(&r));
    }
}
