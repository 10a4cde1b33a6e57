//! The questions about a whole net that the engines are asked as reachability
//! properties: quasi-liveness (one `EF FIREABLE(t)` per transition: every one must hold)
//! and a stable place (one `AG p = m0(p)` per place: one must hold). The answers of the
//! properties decide the question; the run ends as soon as they do, not when every
//! property is decided. With a time limit the portfolio runs twice: on every property with
//! half of the limit, then on the properties still open, with the reductions.
//!
//! Before any engine, the structure answers what it can in microseconds: a place no
//! transition changes is stable; a transition needing more tokens on a place than it holds
//! initially, when no transition adds tokens to that place, never fires; a net the siphon
//! theorems prove live (`structural::siphon_trap`) is quasi-live.

use super::{check_once, CheckOptions};
use crate::engine::{
    Budget, Counters, GlobalAnswer, Observer, PropertyAnswer, Question, Report, RunResult, Settings, Stats,
};
use crate::structural::siphon_trap::{self, StructuralLiveness};
use crate::system::model::Model;
use crate::system::net::{Net, PlaceId, TransId};
use crate::system::property::{Formula, Property, Quantifier, Sum};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When the answers of a question's properties decide it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Aim {
    /// Every property must be decided (reachability properties).
    Every,
    /// Decided by the first FALSE, or once every property is TRUE (quasi-liveness).
    AllTrue,
    /// Decided by the first TRUE, or once every property is FALSE (a stable place).
    SomeTrue,
}

impl Aim {
    /// The question's value from the answers so far, when they decide it.
    pub(crate) fn value(self, answers: impl Iterator<Item = Option<bool>>) -> Option<bool> {
        let (mut trues, mut falses, mut all) = (0usize, 0usize, 0usize);
        for a in answers {
            all += 1;
            match a {
                Some(true) => trues += 1,
                Some(false) => falses += 1,
                None => {}
            }
        }
        match self {
            Aim::Every => (trues + falses == all).then_some(true),
            Aim::AllTrue if falses > 0 => Some(false),
            Aim::AllTrue => (trues == all).then_some(true),
            Aim::SomeTrue if trues > 0 => Some(true),
            Aim::SomeTrue => (falses == all).then_some(false),
        }
    }
}

/// The property "transition `t` can fire" of quasi-liveness, named by the transition.
fn fires(net: &Net, t: TransId) -> Property {
    Property {
        id: net.transitions[t.index()].id.clone(),
        quantifier: Quantifier::Ef,
        formula: Formula::Fireable(vec![t]),
    }
}

/// The property "place `p` keeps its initial tokens" of a stable place, named by the place.
fn keeps(net: &Net, p: PlaceId) -> Property {
    let tokens = Sum {
        places: vec![p],
        constant: 0,
    };
    let initial = Sum::constant(u64::from(net.places[p.index()].initial));
    Property {
        id: net.places[p.index()].id.clone(),
        quantifier: Quantifier::Ag,
        formula: Formula::And(vec![
            Formula::Le(tokens.clone(), initial.clone()),
            Formula::Le(initial, tokens),
        ]),
    }
}

/// Transitions that need more tokens on some place than it holds initially while no
/// transition adds tokens to that place, or that need a place nothing can ever mark
/// ([`Net::may_fire_from`]): they never fire.
pub(crate) fn structurally_dead(net: &Net) -> Vec<TransId> {
    let mut grows = vec![false; net.places.len()];
    for t in &net.transitions {
        for &(p, w) in &t.post {
            if w > t.pre_weight(p) {
                grows[p.index()] = true;
            }
        }
    }
    let may_fire = net.may_fire_from(&net.initial_marking());
    (0..net.transitions.len() as u32)
        .map(TransId)
        .filter(|&t| {
            !may_fire[t.index()]
                || net.transitions[t.index()]
                    .needs()
                    .iter()
                    .any(|&(p, w)| !grows[p.index()] && net.places[p.index()].initial < w)
        })
        .collect()
}

/// Places that no transition changes: each transition puts back what it takes.
fn structurally_stable(net: &Net) -> Option<PlaceId> {
    let mut changed = vec![false; net.places.len()];
    for t in &net.transitions {
        for &(p, _) in t.pre.iter().chain(&t.post) {
            if t.pre_weight(p) != t.post_weight(p) {
                changed[p.index()] = true;
            }
        }
    }
    changed.iter().position(|c| !c).map(|p| PlaceId(p as u32))
}

/// Answers quasi-liveness or a stable place of `net`, the net of `model`.
pub(super) fn check(
    model: &Arc<Model>,
    net: &Net,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
) -> RunResult {
    let started = Instant::now();
    let (name, aim) = match opts.question {
        Question::QuasiLiveness => ("quasi-liveness", Aim::AllTrue),
        _ => ("stable-marking", Aim::SomeTrue),
    };
    let structural = |value: bool, reason: String| {
        let stats = Stats::new(Counters::default(), started.elapsed().as_secs_f64());
        let global = GlobalAnswer {
            value: Some(value),
            decided_by: Some("structural"),
            reason,
            ..GlobalAnswer::unknown(name)
        };
        Ok(Report::of_global(
            "structural",
            global,
            None,
            stats,
            Settings::default(),
        ))
    };
    let properties: Vec<Property> = if aim == Aim::AllTrue {
        if let Some(&t) = structurally_dead(net).first() {
            let t = &net.transitions[t.index()];
            return structural(
                false,
                format!(
                    "transition {} never fires: it needs tokens on a place no transition fills",
                    t.id
                ),
            );
        }
        let budget = structural_budget(opts);
        let mut never_empties = |siphon: &[usize]| never_empties(net, siphon, &budget);
        if let StructuralLiveness::Live(why) = siphon_trap::liveness(net, &budget, &mut never_empties) {
            return structural(true, format!("{why}; so every transition fires"));
        }
        (0..net.transitions.len() as u32)
            .map(|t| fires(net, TransId(t)))
            .collect()
    } else {
        if let Some(p) = structurally_stable(net) {
            let place = &net.places[p.index()];
            return structural(
                true,
                format!(
                    "place {} keeps its {} tokens: every transition puts back what it takes",
                    place.id, place.initial
                ),
            );
        }
        (0..net.places.len() as u32)
            .map(|p| keeps(net, PlaceId(p)))
            .collect()
    };
    if properties.is_empty() {
        // No transition: every one fires (there is none); no place: none is stable.
        return structural(
            aim == Aim::AllTrue,
            match aim {
                Aim::AllTrue => "the net has no transition".into(),
                _ => "the net has no place".into(),
            },
        );
    }
    // Two rounds of the portfolio when there is a time limit: the first with half of it,
    // the second on the properties still open. A member is handed the properties open when
    // it starts, so the state equation, which settles hundreds of them one by one, spends
    // its second slice on the few rare transitions or places the walks did not reach, and
    // on a net reduced to what these read.
    let started = opts.limits.started.unwrap_or_else(Instant::now);
    let limits = |time_limit| super::Limits {
        time_limit,
        started: Some(started),
        ..opts.limits.clone()
    };
    // One engine alone runs once: a complete search would start again from nothing.
    let portfolio = matches!(opts.engine, super::EngineChoice::Auto(_));
    let first_limit = opts
        .limits
        .time_limit
        .filter(|_| portfolio)
        .map(|l| l.mul_f64(FIRST_ROUND_SHARE));
    let inner = CheckOptions {
        question: Question::Reachability(properties.clone().into()),
        // The properties read every transition (or every place): a reduction keeping them
        // would remove next to nothing.
        reduce: Some(false),
        limits: limits(first_limit.or(opts.limits.time_limit)),
        ..opts.clone()
    };
    let mut report = check_once(model, &inner, aim, observer)?;
    let deadline = opts.limits.time_limit.and_then(|l| started.checked_add(l));
    let undecided = |r: &Report| aim.value(r.properties.iter().map(|a| a.value)).is_none();
    if undecided(&report) && deadline.is_some_and(|d| Instant::now() < d) && first_limit.is_some() {
        let open: Vec<Property> = properties
            .iter()
            .zip(&report.properties)
            .filter(|(_, a)| a.value.is_none())
            .map(|(p, _)| p.clone())
            .collect();
        // The few open properties read little of the net: the reductions pay again.
        let second = CheckOptions {
            question: Question::Reachability(open.into()),
            limits: limits(opts.limits.time_limit),
            reduce: opts.reduce,
            ..inner.clone()
        };
        let answered = check_once(model, &second, aim, observer)?;
        for answer in answered.properties {
            if answer.value.is_some() {
                if let Some(known) = report.properties.iter_mut().find(|a| a.id == answer.id) {
                    *known = answer;
                }
            }
        }
        report.engines.extend(answered.engines);
        report.stopped = answered.stopped;
    }
    report.global = Some(decide(net, name, aim, &report.properties));
    report.verdict = match report.global.as_ref().and_then(|g| g.value) {
        Some(_) => crate::engine::Verdict::Answered,
        None => crate::engine::Verdict::Inconclusive,
    };
    if report.verdict == crate::engine::Verdict::Answered {
        report.stopped = None;
    }
    Ok(report)
}

/// The first round's share of the time limit for quasi-liveness and a stable place.
const FIRST_ROUND_SHARE: f64 = 0.5;

/// The budget of a structural check run before the engines: a tenth of the time limit
/// (a second without one), ended by an interrupt too.
pub(super) fn structural_budget(opts: &CheckOptions) -> Budget {
    let share = opts.limits.time_limit.map_or(Duration::from_secs(1), |l| l / 10);
    let budget = Budget::new(Some(share));
    match &opts.limits.interrupt {
        Some(token) => budget.with_cancel(token.clone()),
        None => budget,
    }
}

/// Liveness decided by the structure alone, if it is: TRUE for a net without
/// transitions (there is none to lose), FALSE when a transition never fires, and either
/// from the siphon-trap property of an ordinary asymmetric-choice net (TRUE) or
/// free-choice net (TRUE or FALSE), by the theorems in [`siphon_trap`].
pub(super) fn structural_liveness(net: &Net, budget: &Budget) -> Option<Report> {
    let started = Instant::now();
    let answer = |value: bool, reason: String| GlobalAnswer {
        value: Some(value),
        decided_by: Some("structural"),
        reason,
        ..GlobalAnswer::unknown("liveness")
    };
    let global = match structurally_dead(net).first() {
        _ if net.transitions.is_empty() => answer(true, "the net has no transition".into()),
        Some(&t) => answer(
            false,
            format!(
                "transition {} never fires: it needs tokens on a place nothing can fill",
                net.transitions[t.index()].id
            ),
        ),
        None => match siphon_trap::liveness(net, budget, &mut |siphon| never_empties(net, siphon, budget)) {
            StructuralLiveness::Live(why) => answer(true, why.to_string()),
            StructuralLiveness::NotLive(siphon) => answer(
                false,
                format!(
                    "siphon {} holds no initially marked trap: not live by Commoner's theorem \
                     for free-choice nets",
                    place_list(net, &siphon)
                ),
            ),
            StructuralLiveness::Unknown => return None,
        },
    };
    let stats = Stats::new(Counters::default(), started.elapsed().as_secs_f64());
    Some(Report::of_global(
        "structural",
        global,
        None,
        stats,
        Settings::default(),
    ))
}

/// Whether the state equation proves that no reachable marking empties `siphon` (places
/// by index): no solution puts zero tokens on it.
#[cfg(feature = "lp")]
fn never_empties(net: &Net, siphon: &[usize], budget: &Budget) -> bool {
    use crate::structural::state_equation::property::{check, Decision};
    let places = siphon.iter().map(|&p| PlaceId(p as u32)).collect();
    let empty = Formula::Le(Sum { places, constant: 0 }, Sum::constant(0));
    check(net, &[empty], budget).decisions[0] == Some(Decision::Unreachable)
}

/// Without the `lp` feature nothing proves it.
#[cfg(not(feature = "lp"))]
fn never_empties(_: &Net, _: &[usize], _: &Budget) -> bool {
    false
}

/// Places by index as `{p, q, …}`, the first few of a long list with the count of the rest.
fn place_list(net: &Net, places: &[usize]) -> String {
    const SHOWN: usize = 12;
    let names: Vec<&str> = places
        .iter()
        .take(SHOWN)
        .map(|&p| net.places[p].id.as_str())
        .collect();
    match places.len().saturating_sub(SHOWN) {
        0 => format!("{{{}}}", names.join(", ")),
        rest => format!("{{{}, … and {rest} more}}", names.join(", ")),
    }
}

/// The question's answer from its properties' answers.
fn decide(net: &Net, name: &'static str, aim: Aim, answers: &[PropertyAnswer]) -> GlobalAnswer {
    let Some(value) = aim.value(answers.iter().map(|a| a.value)) else {
        return GlobalAnswer::unknown(name);
    };
    let deciding = answers.iter().find(|a| a.value == Some(value));
    let by = deciding.and_then(|a| a.decided_by);
    let reason = match (aim, value, deciding) {
        (Aim::AllTrue, false, Some(a)) => format!("transition {} never fires", a.id),
        (Aim::AllTrue, _, _) => format!(
            "each of the {} transitions fires on some reachable marking",
            answers.len()
        ),
        (_, true, Some(a)) => {
            let initial = net.places.iter().find(|p| p.id == a.id).map_or(0, |p| p.initial);
            format!("place {} holds {initial} tokens in every reachable marking", a.id)
        }
        _ => format!(
            "each of the {} places changes on some reachable marking",
            answers.len()
        ),
    };
    GlobalAnswer {
        value: Some(value),
        decided_by: by,
        reason,
        ..GlobalAnswer::unknown(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aims_decide_as_soon_as_the_answers_do() {
        let v = |aim: Aim, a: &[Option<bool>]| aim.value(a.iter().copied());
        assert_eq!(v(Aim::AllTrue, &[Some(true), None, Some(false)]), Some(false));
        assert_eq!(v(Aim::AllTrue, &[Some(true), None]), None);
        assert_eq!(v(Aim::AllTrue, &[Some(true), Some(true)]), Some(true));
        assert_eq!(v(Aim::SomeTrue, &[Some(false), None, Some(true)]), Some(true));
        assert_eq!(v(Aim::SomeTrue, &[Some(false), None]), None);
        assert_eq!(v(Aim::SomeTrue, &[Some(false), Some(false)]), Some(false));
        assert_eq!(v(Aim::Every, &[Some(false), None]), None);
        assert_eq!(v(Aim::Every, &[Some(false), Some(true)]), Some(true));
    }

    #[test]
    fn the_structure_finds_dead_transitions_and_unchanged_places() {
        // p (1 token) → t → q; u needs 2 tokens on p, which nothing refills; r is only read.
        let (mut net, [p, q, r]) = Net::with_places([("p", 1), ("q", 0), ("r", 1)]);
        let t = net.add_transition_between("t", &[p], &[q]);
        let u = net.add_transition("u", None);
        net.add_pre(u, p, 2);
        net.add_read(t, r);
        assert_eq!(structurally_dead(&net), vec![u]);
        assert_eq!(structurally_stable(&net), Some(r));
        // v needs s, which nothing ever marks; w needs q, which t marks.
        let (s, z) = (net.add_place("s", None, 0), net.add_place("z", None, 0));
        let v = net.add_transition_between("v", &[s], &[z]);
        let w = net.add_transition_between("w", &[q], &[z]);
        assert_eq!(structurally_dead(&net), vec![u, v]);
        assert!(structural_liveness(&net, &Budget::new(None))
            .is_some_and(|r| r.global.is_some_and(|g| g.value == Some(false))));
        let _ = (t, w);
    }
}
