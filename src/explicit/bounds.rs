//! The explicit engine on bound questions: a breadth-first search of every reachable
//! marking, keeping per bound the largest sum met and the first marking that met it.
//! Each largest sum is witnessed by the search tree's path to that marking; a complete
//! search also proves it an upper bound, so every bound is then known exactly. A search
//! stopped by a limit keeps its lower bounds and proves no upper one.

use super::{ExplicitCounters, ExplicitOptions};
use crate::engine::{
    BoundAnswer, Budget, Counters, Observer, Pacer, Progress, Reached, Report, Settings, StateEntries, Stats,
    StepNames, StopReason,
};
use crate::space::SearchTree;
use crate::system::net::NetSystem;
use crate::system::property::BoundQuery;
use crate::system::{fire_listed, ModelError, Step, System};
use std::time::Instant;

/// Answers `bounds` on `sys` by a breadth-first search of its markings.
pub(crate) fn answer_bounds(
    sys: &NetSystem<'_>,
    bounds: &[BoundQuery],
    opts: &ExplicitOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let start = Instant::now();
    let mut tree = SearchTree::new(&sys.initial_state());
    let mut marking = sys.marking(&sys.initial_state());
    // Per bound: the largest sum met and the id of the first marking meeting it.
    let mut best: Vec<(u64, u32)> = bounds.iter().map(|b| (b.value(&marking), 0)).collect();
    let (mut expanded, mut edges) = (0u64, 0u64);
    let mut pacer = Pacer::default();
    let (mut state, mut next) = (Vec::new(), Vec::new());
    let mut steps: Vec<Step> = Vec::new();
    let mut stopped: Option<StopReason> = None;
    let mut at = 0u32;
    while (at as usize) < tree.states.len() {
        match pacer.tick(1 + state.len() + steps.len(), budget) {
            Err(why) => {
                stopped = Some(why);
                break;
            }
            Ok(Some(seconds)) => observer.progress(&Progress {
                engine: "explicit",
                seconds,
                counters: vec![("states", tree.states.len() as u64)],
            }),
            Ok(None) => {}
        }
        tree.states.get(at, &mut state);
        expanded += 1;
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        for step in &steps {
            fire_listed(sys, &state, step, &mut next)?;
            edges += 1;
            let (id, new) = tree.add(&next, at, step.action);
            if !new {
                continue;
            }
            sys.marking_into(&next, &mut marking);
            for (b, (value, where_)) in bounds.iter().zip(&mut best) {
                let v = b.value(&marking);
                if v > *value {
                    *value = v;
                    *where_ = id;
                }
            }
            if let Some(max) = opts.max_states.filter(|&max| tree.states.len() as u64 > max) {
                stopped = Some(StopReason::StateLimit(max));
            }
        }
        if stopped.is_some() {
            break;
        }
        at += 1;
    }
    let complete = stopped.is_none();
    let mut names = StepNames::default();
    let answers = bounds
        .iter()
        .zip(&best)
        .map(|(b, &(value, id))| {
            let reached = (id != 0).then(|| {
                tree.states.get(id, &mut state);
                Reached {
                    state: StateEntries::default(),
                    state_text: sys.describe_state(&state),
                    witness: names.witness(sys, tree.path(id)),
                }
            });
            BoundAnswer {
                id: b.id.clone(),
                lower: value,
                upper: complete.then_some(value),
                lower_by: reached.is_some().then_some("explicit"),
                upper_by: complete.then_some("explicit"),
                reached,
            }
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    let counters = ExplicitCounters {
        store: tree.store_counters(seconds),
        expanded,
        edges,
        ..ExplicitCounters::default()
    };
    Ok(Report::of_bounds(
        "explicit",
        answers,
        stopped,
        Stats::new(Counters::of(&counters), seconds),
        Settings::default(),
    ))
}
