//! The search of a net's markings that answers reachability properties,
//! shared by the explicit engine (which fires every enabled transition) and the stubborn
//! one (which fires those of a set that keeps every open property's target reachable).
//!
//! One search evaluates every open property's target ([`Property::target`]) on each
//! marking it stores, and closes a property the first time its target holds, with the
//! path the search took there: breadth first, a shortest path of the graph it explores;
//! depth first, the path it was following, which reaches deep markings sooner; closest
//! first, the path of the markings that looked nearest to an open target
//! ([`Formula::distance`]).
//! The search stops when every property is closed; a complete search closes the rest the
//! other way (no marking it can reach satisfies their target); a search stopped by a limit
//! leaves them unknown.

use super::store::{SearchTree, StoreCounters};
use crate::engine::{
    Budget, Counters, Observer, Pacer, Progress, PropertyAnswer, Reached, Report, Settings, StateEntries,
    Stats, StepNames, StopReason,
};
use crate::system::net::NetSystem;
use crate::system::property::{Formula, Property};
use crate::system::{fire_listed, Local, ModelError, Step, System};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// What a property search found and what it took.
#[derive(Clone, Debug)]
pub(crate) struct Explored {
    /// The engine that answers.
    pub engine: &'static str,
    /// One answer per property, in the order asked.
    pub answers: Vec<PropertyAnswer>,
    /// Why the search stopped with properties open, if it did.
    pub stopped: Option<StopReason>,
    /// States whose successors were computed.
    pub expanded: u64,
    /// Transitions fired (with repeats).
    pub edges: u64,
    /// Transitions enabled at the expanded states, fired or not.
    pub enabled: u64,
    /// The state store.
    pub store: StoreCounters,
    /// How long it took.
    pub seconds: f64,
}

impl Explored {
    /// Nothing explored yet by `engine`.
    pub(crate) fn empty(engine: &'static str) -> Explored {
        Explored {
            engine,
            answers: Vec::new(),
            stopped: None,
            expanded: 0,
            edges: 0,
            enabled: 0,
            store: StoreCounters::default(),
            seconds: 0.0,
        }
    }

    /// The work of this search and `other` together: counts added, the store's states
    /// added and its other figures the larger search's; the answers are this one's.
    pub(crate) fn add(mut self, other: Explored) -> Explored {
        self.expanded += other.expanded;
        self.edges += other.edges;
        self.enabled += other.enabled;
        let states = self.store.states + other.store.states;
        if other.store.states > self.store.states {
            self.store = other.store;
        }
        self.store.states = states;
        self.seconds += other.seconds;
        self
    }

    /// The engine's report of the answers, with its `counters` and `settings`.
    pub(crate) fn report(self, counters: Counters, settings: Settings) -> Report {
        let stats = Stats::new(counters, self.seconds);
        Report::of_properties(self.engine, self.answers, self.stopped, stats, settings)
    }
}

/// How a search chooses which enabled steps to fire at a marking: given the marking, the
/// targets of the open properties and the enabled steps, it marks in the last argument
/// (cleared first, then parallel to the steps) the ones to fire.
pub(crate) trait Expansion {
    /// Marks the steps to fire at `marking`.
    fn choose(&mut self, marking: &[u32], open: &[&Formula], steps: &[Step], chosen: &mut Vec<bool>);
}

/// Every enabled step: the full graph.
pub(crate) struct FireAll;

impl Expansion for FireAll {
    fn choose(&mut self, _: &[u32], _: &[&Formula], steps: &[Step], chosen: &mut Vec<bool>) {
        chosen.clear();
        chosen.resize(steps.len(), true);
    }
}

/// The order in which a property search expands the states it stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Oldest first: shortest witnesses.
    Breadth,
    /// Newest first.
    Depth,
    /// The one nearest an open target first (ties: oldest first).
    Closest,
}

/// How a property search runs: which steps it fires, in what order it expands states,
/// how many it may store, and the engine whose answers they are.
pub(crate) struct PropertySearch<'e> {
    /// Chooses the steps fired at each marking.
    pub expansion: &'e mut dyn Expansion,
    /// The order states are expanded in.
    pub order: Order,
    /// Stop after storing this many states.
    pub max_states: Option<u64>,
    /// The engine that answers.
    pub engine: &'static str,
}

/// Answers `properties` on `sys` by a search that runs as `how` says.
pub(crate) fn search_properties(
    sys: &NetSystem<'_>,
    properties: &[Property],
    how: PropertySearch<'_>,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Explored, ModelError> {
    let PropertySearch {
        expansion,
        order,
        max_states,
        engine,
    } = how;
    let start = Instant::now();
    let net = sys.net();
    let targets: Vec<Formula> = properties.iter().map(Property::target).collect();
    // Per property: the id of the first stored marking satisfying its target.
    let mut reached: Vec<Option<u32>> = vec![None; properties.len()];
    let mut open = properties.len();
    let mut tree = SearchTree::new(&sys.initial_state());
    let (mut expanded, mut edges, mut enabled) = (0u64, 0u64, 0u64);
    let mut pacer = Pacer::default();
    let mut marking = Vec::new();
    let mut state = Vec::new();
    let mut next = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut chosen: Vec<bool> = Vec::new();
    let mut open_targets: Vec<&Formula> = Vec::new();
    let mut check = |id: u32, state: &[Local], reached: &mut [Option<u32>], open: &mut usize| {
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
    // Breadth first: every state from `next_in_order` on, in the order stored. Depth
    // first: the stored states not yet expanded, newest last. Closest first: the same,
    // by distance to the nearest open target.
    let mut next_in_order = 0u32;
    let mut stack: Vec<u32> = vec![0];
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::from([Reverse((0, 0))]);
    let mut current = Vec::new();
    let mut reached_marking = Vec::new();
    while open > 0 {
        let at = match order {
            Order::Breadth if (next_in_order as usize) < tree.states.len() => {
                next_in_order += 1;
                next_in_order - 1
            }
            Order::Depth => match stack.pop() {
                Some(at) => at,
                None => break,
            },
            Order::Closest => match heap.pop() {
                Some(Reverse((_, at))) => at,
                None => break,
            },
            Order::Breadth => break,
        };
        match pacer.tick(1 + state.len() + steps.len(), budget) {
            Err(why) => {
                stopped = Some(why);
                break;
            }
            Ok(Some(seconds)) => observer.progress(&Progress {
                engine,
                seconds,
                counters: vec![
                    ("states", tree.states.len() as u64),
                    ("open properties", open as u64),
                ],
            }),
            Ok(None) => {}
        }
        tree.states.get(at, &mut state);
        expanded += 1;
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        enabled += steps.len() as u64;
        open_targets.clear();
        open_targets.extend(
            targets
                .iter()
                .zip(&reached)
                .filter(|(_, r)| r.is_none())
                .map(|(t, _)| t),
        );
        sys.marking_into(&state, &mut current);
        expansion.choose(&current, &open_targets, &steps, &mut chosen);
        for (step, _) in steps.iter().zip(&chosen).filter(|(_, &c)| c) {
            fire_listed(sys, &state, step, &mut next)?;
            edges += 1;
            let (id, new) = tree.add(&next, at, step.action);
            if new {
                check(id, &next, &mut reached, &mut open);
                match order {
                    Order::Breadth => {}
                    Order::Depth => stack.push(id),
                    Order::Closest => {
                        sys.marking_into(&next, &mut reached_marking);
                        let distance = targets
                            .iter()
                            .zip(&reached)
                            .filter(|(_, r)| r.is_none())
                            .map(|(t, _)| t.distance(net, &reached_marking, true))
                            .min()
                            .unwrap_or(0);
                        heap.push(Reverse((distance, id)));
                    }
                }
                if let Some(max) = max_states.filter(|&max| tree.states.len() as u64 > max) {
                    stopped = Some(StopReason::StateLimit(max));
                }
            }
        }
        if stopped.is_some() && open > 0 {
            break;
        }
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
                    decided_by: Some(engine),
                    reached: Some(Reached {
                        state: StateEntries::default(),
                        state_text: sys.describe_state(&state),
                        witness: names.witness(sys, tree.path(*id)),
                    }),
                    simplified: None,
                }
            }
            None => PropertyAnswer {
                id: p.id.clone(),
                value: complete.then(|| p.value_when_reached(false)),
                decided_by: complete.then_some(engine),
                reached: None,
                simplified: None,
            },
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    Ok(Explored {
        engine,
        answers,
        stopped: if complete { None } else { stopped },
        expanded,
        edges,
        enabled,
        store: tree.store_counters(seconds),
        seconds,
    })
}
