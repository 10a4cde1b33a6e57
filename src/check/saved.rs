//! Witnesses saved as JSON (`qpor check --witness-file`, or the `--json` report), read back
//! and replayed on a model: `qpor replay` checks them, `qpor dot --highlight witness=FILE`
//! draws them. A step names its action by the file's id (a net transition's PNML id) or,
//! for programs, by its statement and process, never by a number of qpor's own, so a
//! witness stays valid across runs and versions.

use crate::engine::FindingKind;
use crate::system::{classify_dead, find_fault, Local, Step, System};
use serde_json::Value;

/// One step of a saved witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedStep {
    /// The action's id (a transition's PNML id), or its name where the model has no ids.
    pub id: String,
    /// The process that takes the step, for programs.
    pub process: Option<String>,
}

/// A saved witness: its steps, and what it claims to reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedWitness {
    /// The steps, in order.
    pub steps: Vec<SavedStep>,
    /// What the witness ends in, when the file says (`deadlock`, `fault`, `termination`).
    pub kind: Option<FindingKind>,
}

/// Reads a saved witness from the JSON `text`: a witness file (`{"kind": …, "witness":
/// […]}`), a `--json` report (its `witness`), or a bare list of steps. A step is an object
/// with `id` (and `process` for programs), or a string (the id).
pub fn read_saved_witness(text: &str) -> Result<SavedWitness, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let (list, kind) = match &v {
        Value::Array(_) => (&v, None),
        Value::Object(m) => {
            let list = m
                .get("witness")
                .ok_or("no `witness` field (expected a witness file or a `--json` report)")?;
            if list.is_null() {
                return Err(
                    "the file holds no witness (`\"witness\": null`: the check found no deadlock)".into(),
                );
            }
            // A report names the verdict; a witness file names the finding's kind.
            let kind = m.get("kind").or_else(|| m.get("verdict")).and_then(Value::as_str);
            (list, kind.and_then(kind_named))
        }
        _ => return Err("expected a JSON object or list".into()),
    };
    let items = list.as_array().ok_or("`witness` is not a list")?;
    let mut steps = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let step = match item {
            Value::String(id) => SavedStep {
                id: id.clone(),
                process: None,
            },
            Value::Object(m) => SavedStep {
                id: m
                    .get("id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("step {}: no `id`", i + 1))?
                    .to_string(),
                process: m.get("process").and_then(Value::as_str).map(str::to_string),
            },
            _ => {
                return Err(format!(
                    "step {}: expected an object with `id`, or a string",
                    i + 1
                ))
            }
        };
        steps.push(step);
    }
    Ok(SavedWitness { steps, kind })
}

fn kind_named(name: &str) -> Option<FindingKind> {
    match name {
        "deadlock" => Some(FindingKind::Deadlock),
        "fault" => Some(FindingKind::Fault),
        "termination" => Some(FindingKind::Termination),
        _ => None,
    }
}

/// Where a saved witness stopped doing what it claims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayFailure {
    /// The step that failed (1-based), or `None` when the steps fired but the end state is
    /// not what the witness claims.
    pub step: Option<usize>,
    /// What went wrong, with the state it happened in.
    pub message: String,
}

/// The outcome of a replay that fired every step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The state reached.
    pub state: Vec<Local>,
    /// What the state is: a deadlock, a termination, a fault, or `None` when steps are
    /// still enabled there.
    pub kind: Option<FindingKind>,
}

/// Fires the steps of `w` on `sys` from its initial state. Each step must match exactly one
/// enabled step: by id (and process); it fails at the first that does not, naming the
/// state. When all fire, the end state must be what the witness claims, if it claims.
pub fn replay_saved<S: System + ?Sized>(sys: &S, w: &SavedWitness) -> Result<Replayed, ReplayFailure> {
    let mut state = sys.initial_state();
    let mut next = Vec::new();
    let mut enabled: Vec<Step> = Vec::new();
    for (i, saved) in w.steps.iter().enumerate() {
        let fail = |message: String| ReplayFailure {
            step: Some(i + 1),
            message,
        };
        let shown = match &saved.process {
            Some(p) => format!("{p}: {}", saved.id),
            None => saved.id.clone(),
        };
        enabled.clear();
        sys.enabled_steps(&state, &mut enabled);
        let matches = |s: &&Step| {
            let id = sys
                .action_file_id(s.action)
                .unwrap_or_else(|| sys.action_name(s.action));
            let owner = sys.action_owner(s.action).map(|c| sys.component_name(c));
            id == saved.id && (saved.process.is_none() || owner == saved.process)
        };
        let mut candidates = enabled.iter().filter(matches);
        let step = match (candidates.next(), candidates.next()) {
            (Some(s), None) => s,
            (Some(_), Some(_)) => {
                return Err(fail(format!(
                    "{shown} matches several enabled steps (name the process)"
                )))
            }
            (None, _) => {
                return Err(fail(format!(
                    "{shown} is not enabled in {{{}}}",
                    sys.describe_state(&state)
                )))
            }
        };
        match sys.successor(&state, step, &mut next) {
            Ok(true) => std::mem::swap(&mut state, &mut next),
            Ok(false) => return Err(fail(format!("{shown} does not fire"))),
            Err(e) => return Err(fail(format!("{shown}: {e}"))),
        }
    }
    let kind = end_kind(sys, &state);
    if let Some(claimed) = w.kind {
        if kind != Some(claimed) {
            let is = kind.map_or("not dead (some step is enabled)", FindingKind::name);
            return Err(ReplayFailure {
                step: None,
                message: format!(
                    "the witness claims a {} but ends in {{{}}}, which is {is}",
                    claimed.name(),
                    sys.describe_state(&state)
                ),
            });
        }
    }
    Ok(Replayed { state, kind })
}

/// What `state` is: a fault, a dead state (deadlock or termination), or neither.
fn end_kind<S: System + ?Sized>(sys: &S, state: &[Local]) -> Option<FindingKind> {
    if find_fault(sys, state).is_some() {
        return Some(FindingKind::Fault);
    }
    let mut enabled = Vec::new();
    sys.enabled_steps(state, &mut enabled);
    enabled
        .is_empty()
        .then(|| FindingKind::from(classify_dead(sys, state)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::{Decomposition, Net, NetSystem};

    /// Two transitions of one name, `go`, told apart by their ids t1 and t2.
    fn twins() -> Net {
        let (mut net, [p, q, r]) = Net::with_places([("p", 1), ("q", 0), ("r", 0)]);
        let t1 = net.add_transition_between("t1", &[p], &[q]);
        let t2 = net.add_transition_between("t2", &[q], &[r]);
        net.transitions[t1.index()].name = Some("go".into());
        net.transitions[t2.index()].name = Some("go".into());
        net
    }

    #[test]
    fn steps_are_matched_by_id_and_a_wrong_one_is_named() {
        let net = twins();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let w = read_saved_witness(r#"{"kind": "deadlock", "witness": [{"id": "t1", "name": "go"}, "t2"]}"#)
            .unwrap();
        let done = replay_saved(&sys, &w).unwrap();
        assert_eq!(done.kind, Some(FindingKind::Deadlock));
        let w = read_saved_witness(r#"[{"id": "t2"}]"#).unwrap();
        let err = replay_saved(&sys, &w).unwrap_err();
        assert_eq!(err.step, Some(1));
        assert!(
            err.message.contains("t2 is not enabled in {p}"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_claim_the_end_state_does_not_keep_is_refused() {
        let net = twins();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let w = read_saved_witness(r#"{"kind": "deadlock", "witness": ["t1"]}"#).unwrap();
        let err = replay_saved(&sys, &w).unwrap_err();
        assert_eq!(err.step, None);
        assert!(err.message.contains("not dead"), "{}", err.message);
        assert!(read_saved_witness(r#"{"witness": null}"#).is_err());
        assert!(read_saved_witness("[1]").is_err());
    }
}
