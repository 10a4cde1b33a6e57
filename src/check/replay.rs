//! Every witness is replayed on the model before it is reported, whatever engine found it
//! (docs/design.md#witnesses-and-replay): a deadlock is only a verdict when its firing sequence can be fired from
//! the initial state and ends in the reported dead state. An engine bug then shows as an
//! internal error instead of a wrong answer.

use crate::engine::{
    BoundAnswer, Finding, FindingKind, GlobalAnswer, PropertyAnswer, Reached, StateEntries, WitnessStep,
};
use crate::system::net::{Net, TransId};
use crate::system::property::{BoundQuery, Property};
use crate::system::{classify_dead, find_fault, CompId, Local, StateValue, Step, System};
use hashbrown::HashMap;
use std::fmt;

/// A witness that does not do what its finding claims: an engine bug.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct ReplayError {
    /// What went wrong, naming the step or the state.
    pub message: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ReplayError {}

fn rejected(kind: FindingKind, message: String) -> ReplayError {
    ReplayError {
        message: format!("the {} witness was refused by the replay: {message}", kind.name()),
    }
}

/// Replays `finding`'s witness on `sys`: every step must be enabled where it is fired, the
/// last state must be the reported one, and it must be what the finding says (dead and not
/// final for a deadlock, dead and final for a termination, faulty for a fault). With
/// `keep_states`, the states passed through are stored in `finding.states`.
pub(crate) fn replay<S: System + ?Sized>(
    sys: &S,
    finding: &mut Finding,
    keep_states: bool,
) -> Result<(), ReplayError> {
    let kind = finding.kind;
    let mut state = sys.initial_state();
    let mut next = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut states = Vec::new();
    let mut states_entries = Vec::new();
    if keep_states {
        states.push(sys.describe_state(&state));
        states_entries.push(StateEntries(sys.state_entries(&state)));
    }
    for (i, ws) in finding.witness.steps.iter().enumerate() {
        let name = ws.shown();
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        let Some(step) =
            matching_step(sys, &steps, ws).map_err(|m| rejected(kind, format!("step {}: {m}", i + 1)))?
        else {
            let msg = format!(
                "step {} ({name}) is not enabled in {{{}}}",
                i + 1,
                sys.describe_state(&state)
            );
            return Err(rejected(kind, msg));
        };
        let fired = sys
            .successor(&state, step, &mut next)
            .map_err(|e| rejected(kind, format!("step {} ({name}): {e}", i + 1)))?;
        if !fired {
            return Err(rejected(kind, format!("step {} ({name}) does not fire", i + 1)));
        }
        std::mem::swap(&mut state, &mut next);
        if keep_states {
            states.push(sys.describe_state(&state));
            states_entries.push(StateEntries(sys.state_entries(&state)));
        }
    }
    let reached = sys.describe_state(&state);
    if reached != finding.state {
        let msg = format!(
            "it ends in {{{reached}}}, not in the reported {{{}}}",
            finding.state
        );
        return Err(rejected(kind, msg));
    }
    check_end(sys, &state, finding).map_err(|m| rejected(kind, m))?;
    finding.states = states;
    finding.states_entries = states_entries;
    finding.entries = StateEntries(sys.state_entries(&state));
    Ok(())
}

/// The enabled step that witness step `ws` fires. Programs number their actions as they
/// meet them, so the id an engine saw may mean another action in this system: the step is
/// the enabled one with the same id, name and owner, or else the only enabled one with the
/// same name and owner. A step that carries the file's id of its action (a net's
/// transition) is matched by that id, since names need not be unique.
fn matching_step<'s, S: System + ?Sized>(
    sys: &S,
    enabled: &'s [Step],
    ws: &WitnessStep,
) -> Result<Option<&'s Step>, String> {
    let named = |s: &&Step| match &ws.file_id {
        Some(id) => sys.action_file_id(s.action).as_deref() == Some(&**id),
        None => sys.action_name(s.action) == *ws.action,
    };
    let owner = |s: &&Step| {
        sys.action_owner(s.action)
            .map(|c| sys.component_name(c))
            .as_deref()
            == ws.owner.as_deref()
    };
    // Two processes may offer actions of the same name (`lock m[2] at 15:9`): the id alone
    // may point at the other one's in this system.
    if let Some(s) = enabled
        .iter()
        .filter(named)
        .filter(owner)
        .find(|s| s.action == ws.id)
    {
        return Ok(Some(s));
    }
    let mut candidates = enabled.iter().filter(named).filter(owner);
    match (candidates.next(), candidates.next()) {
        (Some(_), Some(_)) => Err(format!("several enabled actions are called {}", ws.shown())),
        (s, _) => Ok(s),
    }
}

/// Whether the last state of a replay is what `finding` says it is.
fn check_end<S: System + ?Sized>(sys: &S, state: &[Local], finding: &Finding) -> Result<(), String> {
    if finding.kind == FindingKind::Fault {
        let faults: Vec<String> = (0..state.len())
            .filter_map(|i| {
                let c = CompId(i as u32);
                sys.fault(c, state[i])
                    .map(|m| format!("{}: {m}", sys.component_name(c)))
            })
            .collect();
        return match &finding.message {
            Some(m) if faults.contains(m) => Ok(()),
            _ if faults.is_empty() => Err("its last state has no fault".into()),
            _ => Err(format!(
                "its last state's faults are {faults:?}, not {:?}",
                finding.message
            )),
        };
    }
    if find_fault(sys, state).is_some() {
        return Err("its last state is a fault state".into());
    }
    let mut steps = Vec::new();
    sys.enabled_steps(state, &mut steps);
    if let Some(s) = steps.first() {
        return Err(format!("its last state enables {}", sys.action_name(s.action)));
    }
    let dead = FindingKind::from(classify_dead(sys, state));
    if dead != finding.kind {
        return Err(format!("its last state is a {}", dead.name()));
    }
    Ok(())
}

/// Replays the witness of a property's answer on `net`: it must fire from the initial
/// marking and end in a marking satisfying the property's target, and the answer must be
/// the one such a marking gives. Fills the reached state's entries.
pub(crate) fn replay_property(
    net: &Net,
    property: &Property,
    answer: &mut PropertyAnswer,
) -> Result<(), ReplayError> {
    let refused = |message: String| ReplayError {
        message: format!(
            "the witness of property {} was refused by the replay: {message}",
            property.id
        ),
    };
    let Some(reached) = &mut answer.reached else {
        return Ok(());
    };
    if answer.value != Some(property.value_when_reached(true)) {
        return Err(refused(format!(
            "a reached marking makes {} {}, not {:?}",
            property.quantifier.name(),
            property.value_when_reached(true),
            answer.value
        )));
    }
    let marking = replay_net_witness(net, reached).map_err(refused)?;
    if !property.target().holds(net, &marking) {
        return Err(refused(format!(
            "the marking reached, {}, does not satisfy {}",
            net.marking_text(&marking),
            property.target().shown(net)
        )));
    }
    Ok(())
}

/// Replays the witness of a bound's lower value on `net`: it must fire and reach a
/// marking whose sum over the bound's places is that value.
pub(crate) fn replay_bound(
    net: &Net,
    bound: &BoundQuery,
    answer: &mut BoundAnswer,
) -> Result<(), ReplayError> {
    let refused = |message: String| ReplayError {
        message: format!(
            "the witness of bound {} was refused by the replay: {message}",
            bound.id
        ),
    };
    let marking = match &mut answer.reached {
        Some(reached) => replay_net_witness(net, reached).map_err(refused)?,
        None => net.initial_marking(),
    };
    let sum = bound.value(&marking);
    if sum != answer.lower {
        return Err(refused(format!(
            "the marking reached, {}, puts {sum} tokens on the places, not {}",
            net.marking_text(&marking),
            answer.lower
        )));
    }
    Ok(())
}

/// Replays the witness of a net question's answer, when it has one: a FALSE liveness
/// must reach a dead marking or, when it names `missing` transitions, a marking from which
/// none of them is ever enabled again, which a search of every marking reachable from it
/// confirms (at most `max_states` of them: beyond, the replay refuses to vouch).
pub(crate) fn replay_global(
    net: &Net,
    answer: &mut GlobalAnswer,
    max_states: usize,
) -> Result<(), ReplayError> {
    let refused = |message: String| ReplayError {
        message: format!(
            "the {} witness was refused by the replay: {message}",
            answer.question
        ),
    };
    let Some(reached) = &mut answer.reached else {
        return Ok(());
    };
    let marking = replay_net_witness(net, reached).map_err(refused)?;
    if answer.missing.is_empty() {
        let dead = (0..net.transitions.len()).all(|t| {
            let mut m = marking.clone();
            !net.fire(&mut m, TransId(t as u32))
        });
        if !dead {
            return Err(refused(format!(
                "the marking reached, {}, is not dead",
                net.marking_text(&marking)
            )));
        }
        return Ok(());
    }
    let ids: HashMap<&str, TransId> = transition_ids(net);
    let mut missing = Vec::new();
    for id in &answer.missing {
        missing.push(
            *ids.get(id.as_str())
                .ok_or_else(|| refused(format!("{id} is no transition of the net")))?,
        );
    }
    // What can never be marked again is confirmed without a search.
    let may_fire = net.may_fire_from(&marking);
    if missing.iter().all(|t| !may_fire[t.index()]) {
        return Ok(());
    }
    let mut seen: hashbrown::HashSet<Vec<u32>> = std::iter::once(marking.clone()).collect();
    let mut todo = vec![marking];
    while let Some(m) = todo.pop() {
        for t in 0..net.transitions.len() {
            let t = TransId(t as u32);
            let mut next = m.clone();
            if !net.fire(&mut next, t) {
                continue;
            }
            if missing.contains(&t) {
                return Err(refused(format!(
                    "{} is enabled at {}, reachable from the witness's marking",
                    net.transitions[t.index()].id,
                    net.marking_text(&m)
                )));
            }
            if seen.insert(next.clone()) {
                if seen.len() > max_states {
                    return Err(refused(format!(
                        "more than {max_states} markings are reachable from the witness's marking"
                    )));
                }
                todo.push(next);
            }
        }
    }
    Ok(())
}

fn transition_ids(net: &Net) -> HashMap<&str, TransId> {
    net.transitions
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), TransId(i as u32)))
        .collect()
}

/// The marking the witness of `reached` leads to on `net`, if it fires.
pub(crate) fn witness_marking(net: &Net, reached: &Reached) -> Option<Vec<u32>> {
    let ids = transition_ids(net);
    let steps: Option<Vec<TransId>> = reached
        .witness
        .steps
        .iter()
        .map(|s| ids.get(s.ident()).copied())
        .collect();
    net.marking_after(steps?)
}

/// Fires the witness of `reached` on `net` from its initial marking and fills the reached
/// state's entries; the marking reached, or what went wrong.
fn replay_net_witness(net: &Net, reached: &mut Reached) -> Result<Vec<u32>, String> {
    let ids = transition_ids(net);
    let mut marking = net.initial_marking();
    for (i, step) in reached.witness.steps.iter().enumerate() {
        let Some(&t) = ids.get(step.ident()) else {
            return Err(format!(
                "step {} ({}) is no transition of the net",
                i + 1,
                step.shown()
            ));
        };
        if !net.fire(&mut marking, t) {
            return Err(format!(
                "step {} ({}) is not enabled in {}",
                i + 1,
                step.shown(),
                net.marking_text(&marking)
            ));
        }
    }
    reached.state = StateEntries(
        net.places
            .iter()
            .zip(&marking)
            .filter(|(_, n)| **n > 0)
            .map(|(p, n)| (p.id.clone(), StateValue::Tokens(*n)))
            .collect(),
    );
    Ok(marking)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StepNames, Witness};
    use crate::system::net::{Decomposition, Net, NetSystem};
    use crate::system::ActionId;

    /// p → t → q → u → r: one run, dead in r.
    fn chain() -> Net {
        let (mut net, [p, q, r]) = Net::with_places([("p", 1), ("q", 0), ("r", 0)]);
        net.add_transition_between("t", &[p], &[q]);
        net.add_transition_between("u", &[q], &[r]);
        net
    }

    fn finding(sys: &NetSystem, actions: &[u32], state: &str) -> Finding {
        let witness: Witness = StepNames::default().witness(sys, actions.iter().map(|a| ActionId(*a)));
        Finding::new(FindingKind::Deadlock, state.into(), None, witness)
    }

    /// Replays on the chain the deadlock finding of `actions` ending in `state`, changed
    /// by `edit`, without listing states: the message of the replay's refusal.
    fn refusal(actions: &[u32], state: &str, edit: impl FnOnce(&mut Finding)) -> String {
        let net = chain();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let mut f = finding(&sys, actions, state);
        edit(&mut f);
        replay(&sys, &mut f, false).unwrap_err().message
    }

    #[test]
    fn a_true_witness_replays_and_lists_its_states() {
        let net = chain();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let mut f = finding(&sys, &[0, 1], "r");
        replay(&sys, &mut f, true).unwrap();
        assert_eq!(f.states, ["p", "q", "r"]);
    }

    #[test]
    fn a_step_that_is_not_enabled_is_refused() {
        let err = refusal(&[1], "r", |_| {});
        assert!(err.contains("step 1 (u) is not enabled in {p}"), "{err}");
    }

    #[test]
    fn a_witness_ending_elsewhere_or_alive_is_refused() {
        let err = refusal(&[0, 1], "q", |_| {});
        assert!(err.contains("ends in {r}, not in the reported {q}"), "{err}");
        let err = refusal(&[0], "q", |_| {});
        assert!(err.contains("its last state enables u"), "{err}");
    }

    #[test]
    fn a_step_whose_name_is_not_its_action_is_refused() {
        let err = refusal(&[0, 1], "r", |f| {
            f.witness.steps[1].action = "t".into();
            f.witness.steps[1].file_id = Some("t".into());
        });
        assert!(err.contains("step 2 (t) is not enabled in {q}"), "{err}");
    }
}
