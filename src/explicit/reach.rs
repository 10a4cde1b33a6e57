//! The explicit engine on reachability properties: one breadth-first search over the
//! markings of a net evaluates every open property's target ([`Property::target`]) on
//! each marking it stores, and closes a property the first time its target holds (with
//! the path the search took there, a shortest witness). The search stops when every
//! property is closed; a complete search closes the rest the other way (no reachable
//! marking satisfies their target); a search stopped by a limit leaves them unknown.

use super::{ExplicitCounters, ExplicitOptions};
use crate::engine::{
    Budget, Counters, Observer, Pacer, Progress, PropertyAnswer, Reached, Report, Settings, StateEntries,
    Stats, StepNames, StopReason,
};
use crate::space::SearchTree;
use crate::system::net::NetSystem;
use crate::system::property::{Formula, Property};
use crate::system::{ModelError, Step, System};
use std::time::Instant;

/// Answers `properties` on `sys` by a breadth-first search of its markings.
pub(crate) fn search_properties(
    sys: &NetSystem<'_>,
    properties: &[Property],
    opts: &ExplicitOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let start = Instant::now();
    let net = sys.net();
    let targets: Vec<Formula> = properties.iter().map(Property::target).collect();
    // Per property: the id of the first stored marking satisfying its target.
    let mut reached: Vec<Option<u32>> = vec![None; properties.len()];
    let mut open = properties.len();
    let mut tree = SearchTree::new(&sys.initial_state());
    let mut counters = ExplicitCounters::default();
    let mut pacer = Pacer::default();
    let mut marking = Vec::new();
    let mut state = Vec::new();
    let mut next = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut check =
        |id: u32, state: &[crate::system::Local], reached: &mut [Option<u32>], open: &mut usize| {
            sys.marking_into(state, &mut marking);
            for (i, target) in targets.iter().enumerate() {
                if reached[i].is_none() && target.holds(net, &marking) {
                    reached[i] = Some(id);
                    *open -= 1;
                }
            }
        };
    check(0, &sys.initial_state(), &mut reached, &mut open);
    let mut stopped = None;
    let mut at = 0u32;
    while open > 0 && (at as usize) < tree.states.len() {
        match pacer.tick(1 + state.len() + steps.len(), budget) {
            Err(why) => {
                stopped = Some(why);
                break;
            }
            Ok(Some(seconds)) => observer.progress(&Progress {
                engine: "explicit",
                seconds,
                counters: vec![
                    ("states", tree.states.len() as u64),
                    ("open properties", open as u64),
                ],
            }),
            Ok(None) => {}
        }
        tree.states.get(at, &mut state);
        counters.expanded += 1;
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        for step in &steps {
            if !sys.successor(&state, step, &mut next)? {
                return Err(ModelError::new(format!(
                    "[qpor internal bug] step {} listed as enabled does not fire",
                    sys.action_name(step.action)
                )));
            }
            counters.edges += 1;
            let (id, new) = tree.add(&next, at, step.action);
            if new {
                check(id, &next, &mut reached, &mut open);
                if let Some(max) = opts.max_states.filter(|&max| tree.states.len() as u64 > max) {
                    stopped = Some(StopReason::StateLimit(max));
                }
            }
        }
        if stopped.is_some() && open > 0 {
            break;
        }
        at += 1;
    }
    // Every stored marking was expanded unless the run stopped with properties open.
    let complete = open == 0 || stopped.is_none();
    let mut names = StepNames::default();
    let answers = properties
        .iter()
        .zip(&reached)
        .map(|(p, found)| match found {
            Some(id) => {
                tree.states.get(*id, &mut state);
                PropertyAnswer {
                    id: p.id.clone(),
                    value: Some(p.value_when_reached(true)),
                    decided_by: Some("explicit"),
                    reached: Some(Reached {
                        state: StateEntries::default(),
                        state_text: sys.describe_state(&state),
                        witness: names.witness(sys, tree.path(*id)),
                    }),
                }
            }
            None => PropertyAnswer {
                id: p.id.clone(),
                value: complete.then(|| p.value_when_reached(false)),
                decided_by: complete.then_some("explicit"),
                reached: None,
            },
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    counters.store = tree.store_counters(seconds);
    Ok(Report::of_properties(
        "explicit",
        answers,
        if complete { None } else { stopped },
        Stats::new(Counters::of(&counters), seconds),
        Settings::default(),
    ))
}
