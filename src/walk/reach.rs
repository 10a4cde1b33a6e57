//! Random walks on reachability properties: walks over the markings of the net itself,
//! evaluating every open property's target ([`Property::target`]) on each marking met;
//! the first marking satisfying one decides that property (TRUE for `EF φ`, FALSE for
//! `AG φ`) with the walk so far as its witness. A walk proves nothing: the other answers
//! stay unknown, and the search ends when every property is decided or the budget runs
//! out. Walk lengths cycle through powers of two, as for deadlocks.

use super::{WalkCounters, WalkOptions, LONGEST_WALK_LOG2, SHORTEST_WALK_LOG2};
use crate::engine::{
    Budget, Counters, Observer, Pacer, Progress, PropertyAnswer, Reached, Report, Settings, StateEntries,
    Stats, StepNames,
};
use crate::system::net::{NetSystem, TransId};
use crate::system::property::{Formula, Property};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::time::Instant;

/// Walks the markings of `sys`'s net at random until every property of `properties` is
/// decided by a marking met, or the budget runs out.
pub(crate) fn walk_properties(
    sys: &NetSystem<'_>,
    properties: &[Property],
    opts: &WalkOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Report {
    let start = Instant::now();
    let net = sys.net();
    let targets: Vec<Formula> = properties.iter().map(Property::target).collect();
    let mut reached: Vec<Option<(Vec<u32>, Vec<TransId>)>> = vec![None; properties.len()];
    let mut open = properties.len();
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let mut counters = WalkCounters::default();
    let mut pacer = Pacer::default();
    let mut path: Vec<TransId> = Vec::new();
    let mut enabled: Vec<TransId> = Vec::new();
    let mut stopped = None;
    let check = |marking: &[u32], path: &[TransId], reached: &mut [Option<(Vec<u32>, Vec<TransId>)>]| {
        let mut closed = 0;
        for (i, target) in targets.iter().enumerate() {
            if reached[i].is_none() && target.holds(net, marking) {
                reached[i] = Some((marking.to_vec(), path.to_vec()));
                closed += 1;
            }
        }
        closed
    };
    let initial = net.initial_marking();
    open -= check(&initial, &[], &mut reached);
    let span = LONGEST_WALK_LOG2 - SHORTEST_WALK_LOG2 + 1;
    'walks: while open > 0 {
        let limit = 1u64 << (SHORTEST_WALK_LOG2 + (counters.walks % span as u64) as u32);
        counters.walks += 1;
        let mut marking = initial.clone();
        path.clear();
        while (path.len() as u64) < limit && open > 0 {
            match pacer.tick(net.transitions.len() + marking.len(), budget) {
                Err(why) => {
                    stopped = Some(why);
                    break 'walks;
                }
                Ok(Some(seconds)) => observer.progress(&Progress {
                    engine: "walk",
                    seconds,
                    counters: vec![("steps", counters.steps), ("open properties", open as u64)],
                }),
                Ok(None) => {}
            }
            enabled.clear();
            enabled.extend((0..net.transitions.len() as u32).map(TransId).filter(|t| {
                net.transitions[t.index()]
                    .needs()
                    .iter()
                    .all(|&(p, w)| marking[p.index()] >= w)
            }));
            if enabled.is_empty() {
                counters.dead_states += 1;
                break;
            }
            let t = enabled[rng.random_range(0..enabled.len())];
            net.fire(&mut marking, t);
            counters.steps += 1;
            path.push(t);
            open -= check(&marking, &path, &mut reached);
        }
    }
    let mut names = StepNames::default();
    let answers = properties
        .iter()
        .zip(reached)
        .map(|(p, found)| match found {
            Some((marking, path)) => PropertyAnswer {
                id: p.id.clone(),
                value: Some(p.value_when_reached(true)),
                decided_by: Some("walk"),
                reached: Some(Reached {
                    state: StateEntries::default(),
                    state_text: net.marking_text(&marking),
                    witness: names.witness(sys, path.iter().map(|&t| sys.step_of(t).action)),
                }),
            },
            None => PropertyAnswer {
                id: p.id.clone(),
                value: None,
                decided_by: None,
                reached: None,
            },
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    Report::of_properties(
        "walk",
        answers,
        stopped,
        Stats::new(Counters::of(&counters), seconds),
        Settings::default(),
    )
}
