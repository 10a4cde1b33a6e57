//! The `lp` engine: the state-equation proof of `state_equation` behind the [`Engine`]
//! trait. It proves deadlock freedom, or shows a deadlock when the solver's dead solution
//! can be fired, or says nothing.

use super::state_equation::{self, Answer};
use crate::engine::Question;
use crate::engine::{
    Asked, Counters, Engine, Finding, FindingKind, Observer, Report, RunResult, Settings, Stats, StepNames,
    StopReason,
};
use crate::system::model::{Model, ModelKind, SystemOptions};
use crate::system::{classify_dead, state_after, ActionId, DeadKind, ModelError, Step};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Options of the state-equation engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct LpOptions {
    /// How the model becomes a system (the OneSafe view is refused).
    pub system: SystemOptions,
    /// Asked for every dead state: the one this engine can show does not settle that.
    pub all: bool,
}

/// The options are the state-equation engine.
impl Engine for LpOptions {
    fn name(&self) -> &'static str {
        "lp"
    }

    /// The state equation speaks of nets' markings, and its dead solutions of deadlocks.
    fn answers(&self, question: &Question, kind: ModelKind) -> bool {
        *question == Question::Deadlock && kind == ModelKind::Net
    }

    fn run(&self, asked: Asked<'_>, _observer: &mut dyn Observer) -> RunResult {
        let Asked { model, budget, .. } = asked;
        let start = Instant::now();
        let net = match model {
            Model::Net(net) => net,
            Model::Program(_) => {
                return Err(ModelError::new(
                    "the lp engine works on nets (`qpor convert --to pnml` makes a net of a program)"
                        .to_string(),
                )
                .into())
            }
        };
        let outcome = state_equation::check(net, budget);
        let mut findings = Vec::new();
        let stopped = match &outcome.answer {
            Answer::NoDeadlock | Answer::AlwaysEnabled(_) => None,
            Answer::Deadlock(sequence) => {
                findings.push(deadlock_finding(model, &self.system, sequence)?);
                self.all.then_some(StopReason::OneDeadStateOnly)
            }
            Answer::Candidate(_) => Some(StopReason::DeadSolution),
            Answer::Unknown(_) => Some(StopReason::SolverUnknown),
            Answer::Stopped => Some(budget.exhausted().unwrap_or(StopReason::Cancelled)),
        };
        let counters = Counters::of(&LpCounters {
            places: net.places.len() as u64,
            transitions: net.transitions.len() as u64,
            solver_calls: outcome.solver_calls,
            trap_constraints: outcome.trap_constraints,
            candidates_set_aside: outcome.set_aside,
        });
        let stats = Stats::new(counters, start.elapsed().as_secs_f64());
        Ok(Report::new(
            self.name(),
            findings,
            stopped,
            stats,
            Settings::default(),
        ))
    }
}

/// The deadlock reached by firing `sequence` (transition indices) on the system the check
/// reports in, with its witness.
fn deadlock_finding(model: &Model, opts: &SystemOptions, sequence: &[usize]) -> Result<Finding, ModelError> {
    let sys = model.system(opts)?;
    let actions: Vec<ActionId> = sequence.iter().map(|&t| ActionId(t as u32)).collect();
    let state = state_after(&*sys, actions.iter().copied()).map_err(|e| {
        ModelError::new(format!(
            "[qpor internal bug] the state equation's firing sequence does not fire: {e}"
        ))
    })?;
    let mut steps: Vec<Step> = Vec::new();
    sys.enabled_steps(&state, &mut steps);
    if !steps.is_empty() || classify_dead(&*sys, &state) != DeadKind::Deadlock {
        return Err(ModelError::new(
            "[qpor internal bug] the state equation's dead solution is not a deadlock",
        ));
    }
    let witness = StepNames::default().witness(&*sys, actions);
    Ok(Finding::new(
        FindingKind::Deadlock,
        sys.describe_state(&state),
        None,
        witness,
    ))
}

/// Counters of the state-equation check.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct LpCounters {
    /// Places of the net it was given.
    pub places: u64,
    /// Transitions of the net it was given.
    pub transitions: u64,
    /// Calls of the solver.
    pub solver_calls: u64,
    /// Trap constraints added to rule out candidates.
    pub trap_constraints: u64,
    /// Dead solutions no firing order was found for, set aside to ask for another.
    pub candidates_set_aside: u64,
}
