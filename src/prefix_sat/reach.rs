//! Reachability properties over the complete prefix: every reachable marking is the
//! marking of a cutoff-free configuration (completeness), so a property's target is
//! reachable exactly when the solver finds such a configuration whose cut satisfies it
//! ([`PrefixFormula::target`]). A model is fired on the net in prefix order and its
//! marking checked against the target before it decides the property (TRUE `EF`, FALSE
//! `AG`) with that witness; UNSAT decides it the other way. One solver holds the prefix's
//! clauses once; each property adds its target and is asked by assumption.

use super::formula::{CutTokens, PrefixFormula};
use super::PrefixSatCounters;
use crate::engine::sat::{Sat, Solved};
use crate::engine::{
    Budget, EngineError, Observer, Progress, PropertyAnswer, Reached, StateEntries, StepNames, StopReason,
};
use crate::system::net::{Net, TransId};
use crate::system::property::Property;
use crate::system::{Local, StateValue, System};
use crate::unfold::prefix::Prefix;
use crate::unfold::Backend;
use rustc_hash::FxHashMap;
use std::time::Instant;

/// The answers to `properties` of `net` from its complete `prefix`, whose conditions
/// stand for `tokens`, and why the search stopped early, if it did (the rest stay
/// unknown).
pub(super) fn answer(
    net: &Net,
    properties: &[Property],
    prefix: &Prefix,
    tokens: &CutTokens,
    budget: &Budget,
    counters: &mut PrefixSatCounters,
    observer: &mut dyn Observer,
) -> Result<(Vec<PropertyAnswer>, Option<StopReason>), EngineError> {
    let start = Instant::now();
    let mut formula = PrefixFormula::reachability(prefix);
    let mut solver = Sat::new(budget);
    let mut names = StepNames::default();
    let mut answers: Vec<PropertyAnswer> = properties
        .iter()
        .map(|p| PropertyAnswer::unknown(&p.id))
        .collect();
    let mut stopped = None;
    for (property, answer) in properties.iter().zip(&mut answers) {
        if let Some(why) = budget.exhausted() {
            stopped = Some(why);
            break;
        }
        let target = property.target();
        let Some(lit) = formula.target(prefix, &target, tokens) else {
            counters.targets_too_large += 1;
            continue;
        };
        match solver.solve(formula.cnf(), &[lit]) {
            Solved::Stopped => {
                stopped = Some(budget.exhausted().unwrap_or(StopReason::Cancelled));
                break;
            }
            Solved::Unsat => {
                answer.value = Some(property.value_when_reached(false));
                answer.decided_by = Some("prefix-sat");
            }
            Solved::Sat => {
                let value = |l| solver.value(l);
                let steps: Vec<TransId> = formula
                    .configuration(&value)
                    .iter()
                    .map(|&e| TransId(prefix.events[e as usize].action))
                    .collect();
                let marking = net.marking_after(steps.iter().copied()).ok_or_else(|| {
                    EngineError::Internal("prefix-sat: a configuration does not fire in prefix order".into())
                })?;
                if !target.holds(net, &marking) {
                    return Err(EngineError::Internal(format!(
                        "prefix-sat: the marking of a model of property {}'s target, {}, does not satisfy it",
                        property.id,
                        net.marking_text(&marking)
                    )));
                }
                answer.value = Some(property.value_when_reached(true));
                answer.decided_by = Some("prefix-sat");
                answer.reached = Some(Reached {
                    state: StateEntries::default(),
                    state_text: net.marking_text(&marking),
                    witness: names.net_witness(net, steps),
                });
            }
        }
        counters.solver_calls = solver.calls;
        observer.progress(&Progress {
            engine: "prefix-sat",
            seconds: counters.prefix_ms as f64 / 1000.0 + start.elapsed().as_secs_f64(),
            counters: vec![("properties", solver.calls), ("events", counters.events)],
        });
    }
    counters.variables = u64::from(formula.cnf().num_vars);
    counters.clauses = formula.cnf().clauses.len() as u64;
    counters.solver_calls = solver.calls;
    Ok((answers, stopped))
}

/// The tokens each condition stands for. The general backend's conditions are tokens of
/// their place (the places past the net's are the virtual places of source transitions:
/// none). The program backend's stand for a component's local state, whose tokens are
/// those of the marking of the state where every other component is empty.
pub(super) fn cut_tokens(net: &Net, sys: &dyn System, prefix: &Prefix, backend: Backend) -> CutTokens {
    let places = net.places.len();
    if backend == Backend::General {
        let pairs = prefix
            .conditions
            .iter()
            .enumerate()
            .filter(|(_, c)| (c.place as usize) < places)
            .map(|(i, c)| (i as u32, vec![(c.place, 1)]));
        return CutTokens::new(places, pairs);
    }
    let index: FxHashMap<&str, u32> = net
        .places
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i as u32))
        .collect();
    let empty = vec![Local(0); sys.initial_state().len()];
    let mut of_label: FxHashMap<(u32, u32), Vec<(u32, u32)>> = FxHashMap::default();
    let mut pairs = Vec::with_capacity(prefix.conditions.len());
    for (i, c) in prefix.conditions.iter().enumerate() {
        let tokens = of_label.entry((c.place, c.local)).or_insert_with(|| {
            let mut state = empty.clone();
            state[c.place as usize] = Local(c.local);
            sys.state_entries(&state)
                .into_iter()
                .filter_map(|(id, value)| match value {
                    StateValue::Tokens(n) if n > 0 => Some((*index.get(id.as_str())?, n)),
                    _ => None,
                })
                .collect()
        });
        pairs.push((i as u32, tokens.clone()));
    }
    CutTokens::new(places, pairs)
}
