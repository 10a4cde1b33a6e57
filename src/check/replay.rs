//! Every witness is replayed on the model before it is reported, whatever engine found it
//! (docs/design.md#witnesses-and-replay): a deadlock is only a verdict when its firing sequence can be fired from
//! the initial state and ends in the reported dead state. An engine bug then shows as an
//! internal error instead of a wrong answer.

use crate::engine::{Finding, FindingKind, PropertyAnswer, StateEntries, WitnessStep};
use crate::system::net::{Net, TransId};
use crate::system::property::Property;
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

/// Replays on `net` itself the witness of `answer`, a property decided by a reached
/// marking: every transition (by PNML id) must be enabled where it fires, and the marking
/// reached must satisfy the property's target, which is what decides it. The replay
/// reads the net, not the engine's component system, and fills in the marking as data.
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
    let ids: HashMap<&str, TransId> = net
        .transitions
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), TransId(i as u32)))
        .collect();
    let mut marking = net.initial_marking();
    for (i, step) in reached.witness.steps.iter().enumerate() {
        let Some(&t) = ids.get(step.ident()) else {
            return Err(refused(format!(
                "step {} ({}) is no transition of the net",
                i + 1,
                step.shown()
            )));
        };
        if !net.fire(&mut marking, t) {
            return Err(refused(format!(
                "step {} ({}) is not enabled in {}",
                i + 1,
                step.shown(),
                net.marking_text(&marking)
            )));
        }
    }
    if !property.target().holds(net, &marking) {
        return Err(refused(format!(
            "the marking reached, {}, does not satisfy {}",
            net.marking_text(&marking),
            property.target().shown(net)
        )));
    }
    reached.state = StateEntries(
        net.places
            .iter()
            .zip(&marking)
            .filter(|(_, n)| **n > 0)
            .map(|(p, n)| (p.id.clone(), StateValue::Tokens(*n)))
            .collect(),
    );
    Ok(())
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
