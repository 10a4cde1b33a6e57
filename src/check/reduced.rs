//! Checking a net through its structural reduction (`--reduce on`): the engines run on
//! the reduced net, and every finding is lifted back to a firing sequence of the original
//! net, whose end state is the finding's state (the replay of `check` then checks it like
//! any other witness).

use super::CheckOptions;
use crate::engine::{Budget, EngineError, Finding, FindingKind, StepNames};
use crate::structural::{reduce, ReducedNet};
use crate::system::model::Model;
use crate::system::net::{Net, TransId};
use crate::system::{classify_dead, ActionId, System};

/// Whether a check with `opts` on `model` runs on the reduced net: nets only, when asked
/// (by default with the portfolio), never for `--all` (the reduced net keeps whether a
/// deadlock exists, not every dead marking) nor for the OneSafe view (which asks about
/// markings that are not dead).
pub(super) fn applies<'m>(model: &'m Model, opts: &CheckOptions) -> Option<&'m Net> {
    let asked = opts.reduce.unwrap_or(opts.engine.reduces_by_default());
    match model {
        Model::Net(net) if asked && !opts.all && !opts.system.one_safe_watch => Some(net),
        _ => None,
    }
}

/// Reduces `net` within the check's time limit.
pub(super) fn reduce_for(net: &Net, opts: &CheckOptions) -> ReducedNet {
    let deadline = opts
        .time_limit
        .and_then(|l| opts.started.and_then(|s| s.checked_add(l)));
    reduce(net, &Budget::until(deadline, opts.time_limit))
}

/// The finding of the reduced net, `finding`, as a finding of `original` (viewed as `sys`):
/// its witness lifted, its state recomputed on the original.
pub(super) fn lift_finding<S: System + ?Sized>(
    reduced: &ReducedNet,
    original: &Net,
    sys: &S,
    finding: &Finding,
    names: &mut StepNames,
) -> Result<Finding, EngineError> {
    let steps: Vec<TransId> = finding.witness.steps.iter().map(|s| TransId(s.id.0)).collect();
    let lifted = reduced
        .lift(original, &steps)
        .map_err(|e| EngineError::Internal(format!("lifting a witness of the reduced net: {e}")))?;
    let mut state = sys.initial_state();
    let mut enabled = Vec::new();
    let mut next = Vec::new();
    for (i, &t) in lifted.iter().enumerate() {
        enabled.clear();
        sys.enabled_steps(&state, &mut enabled);
        let step = enabled
            .iter()
            .find(|s| s.action == ActionId(t.0))
            .ok_or_else(|| {
                EngineError::Internal(format!(
                    "lifted step {} is not enabled in the original net",
                    i + 1
                ))
            })?;
        sys.successor(&state, step, &mut next)?;
        std::mem::swap(&mut state, &mut next);
    }
    enabled.clear();
    sys.enabled_steps(&state, &mut enabled);
    let kind = if enabled.is_empty() {
        FindingKind::from(classify_dead(sys, &state))
    } else {
        return Err(EngineError::Internal(
            "a lifted deadlock of the reduced net is not dead in the original".into(),
        ));
    };
    let witness = names.witness(sys, lifted.iter().map(|t| ActionId(t.0)));
    Ok(Finding::new(kind, sys.describe_state(&state), None, witness))
}
