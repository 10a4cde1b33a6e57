//! The `lp` engine: the state-equation proofs of `state_equation` behind the [`Engine`]
//! trait. It proves deadlock freedom, or shows a deadlock when the solver's dead solution
//! can be fired, or says nothing; on reachability properties it proves a target
//! unreachable, or fires a solution that reaches it.

use super::state_equation::bounds;
use super::state_equation::deadlock::{self, Answer};
use super::state_equation::property::{self, Decision};
use super::state_equation::Work;
use crate::engine::Question;
use crate::engine::{
    Asked, BoundAnswer, Budget, Counters, Engine, Finding, FindingKind, GlobalAnswer, Observer,
    PropertyAnswer, Reached, Report, RunResult, Settings, StateEntries, Stats, StepNames, StopReason,
};
use crate::system::model::{Model, ModelKind, SystemOptions};
use crate::system::net::{Net, PlaceId, TransId};
use crate::system::property::{BoundQuery, Formula, Property, Quantifier};
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

    /// The state equation speaks of nets' markings: its dead solutions of deadlocks, its
    /// solutions satisfying a target of reachability properties.
    /// On bound questions its maximum over the equation's solutions proves upper bounds;
    /// on liveness, a transition no solution enables, or a dead solution it can fire,
    /// refutes it.
    fn answers(&self, question: &Question, kind: ModelKind) -> bool {
        matches!(
            question,
            Question::Deadlock | Question::Reachability(_) | Question::Bounds(_) | Question::Liveness
        ) && kind == ModelKind::Net
    }

    fn run(&self, asked: Asked<'_>, _observer: &mut dyn Observer) -> RunResult {
        if let Some((net, properties)) = asked.net_properties() {
            return Ok(self.answer_properties(asked.model, net, properties, asked.budget)?);
        }
        if let Some((net, asked_bounds)) = asked.net_bounds() {
            return Ok(self.answer_bounds(net, asked_bounds, asked.budget));
        }
        if let Some(net) = asked.net_liveness() {
            return Ok(self.answer_liveness(asked.model, net, asked.budget)?);
        }
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
        let outcome = deadlock::check(net, budget);
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
        let stats = Stats::new(counters(net, &outcome.work), start.elapsed().as_secs_f64());
        Ok(Report::new(
            self.name(),
            findings,
            stopped,
            stats,
            Settings::default(),
        ))
    }
}

impl LpOptions {
    /// Each property decided from the state equation of `net` (the model), with the
    /// firing sequence of a solution that reaches its target as the witness.
    /// Upper bounds of `asked` from the state equation's maxima.
    fn answer_bounds(&self, net: &Net, asked: &[BoundQuery], budget: &Budget) -> Report {
        let start = Instant::now();
        let sums: Vec<Vec<PlaceId>> = asked.iter().map(|b| b.places.clone()).collect();
        let outcome = bounds::upper_bounds(net, &sums, budget);
        let initial = net.initial_marking();
        let mut names = StepNames::default();
        let answers = asked
            .iter()
            .zip(&outcome.bounds)
            .zip(&outcome.reached)
            .map(|((b, upper), reached)| {
                let mut answer = BoundAnswer {
                    upper: *upper,
                    upper_by: upper.map(|_| "lp"),
                    ..BoundAnswer::initial(&b.id, b.value(&initial))
                };
                let path = reached.as_ref().map(|r| r.iter().map(|&t| TransId(t as u32)));
                if let Some(marking) = path.clone().and_then(|p| net.marking_after(p)) {
                    answer.lower = b.value(&marking);
                    answer.lower_by = Some("lp");
                    answer.reached = Some(Reached {
                        state: StateEntries::default(),
                        state_text: net.marking_text(&marking),
                        witness: names.net_witness(net, path.into_iter().flatten()),
                    });
                }
                answer
            })
            .collect();
        let stats = Stats::new(counters(net, &Work::default()), start.elapsed().as_secs_f64());
        let stopped = outcome.stopped.or(Some(StopReason::OpenSolution));
        Report::of_bounds(self.name(), answers, stopped, stats, Settings::default())
    }

    /// Liveness refuted by a transition no solution of the state equation enables (it
    /// never fires), or by a dead solution that fires (a reachable deadlock).
    fn answer_liveness(&self, model: &Model, net: &Net, budget: &Budget) -> Result<Report, ModelError> {
        let start = Instant::now();
        let targets: Vec<Formula> = (0..net.transitions.len() as u32)
            .map(|t| Formula::Fireable(vec![TransId(t)]))
            .collect();
        let outcome = property::check(net, &targets, budget);
        let mut work = outcome.work;
        let mut global = GlobalAnswer::unknown("liveness");
        let dead = outcome
            .decisions
            .iter()
            .position(|d| *d == Some(Decision::Unreachable));
        let mut stopped = outcome.stopped;
        if let Some(t) = dead {
            global.value = Some(false);
            global.decided_by = Some("lp");
            global.reason = format!(
                "transition {} never fires: no solution of the state equation enables it",
                net.transitions[t].id
            );
        } else if stopped.is_none() {
            let deadlocks = deadlock::check(net, budget);
            work = deadlocks.work;
            if let Answer::Deadlock(sequence) = &deadlocks.answer {
                let finding = deadlock_finding(model, &self.system, sequence)?;
                global.value = Some(false);
                global.decided_by = Some("lp");
                global.reason = "a dead marking is reachable".to_string();
                global.reached = Some(Reached {
                    state: StateEntries::default(),
                    state_text: finding.state,
                    witness: finding.witness,
                });
            } else if let Answer::Stopped = deadlocks.answer {
                stopped = Some(budget.exhausted().unwrap_or(StopReason::Cancelled));
            }
        }
        if global.value.is_some() {
            stopped = None;
        } else {
            stopped = stopped.or(Some(StopReason::OpenSolution));
        }
        let stats = Stats::new(counters(net, &work), start.elapsed().as_secs_f64());
        Ok(Report::of_global(
            self.name(),
            global,
            stopped,
            stats,
            Settings::default(),
        ))
    }

    fn answer_properties(
        &self,
        model: &Model,
        net: &Net,
        properties: &[Property],
        budget: &Budget,
    ) -> Result<Report, ModelError> {
        let start = Instant::now();
        let targets: Vec<Formula> = properties.iter().map(Property::target).collect();
        let outcome = property::check(net, &targets, budget);
        let sys = model.system(&self.system)?;
        let mut names = StepNames::default();
        let mut answers = Vec::with_capacity(properties.len());
        let decided = properties.iter().zip(&targets).zip(&outcome.decisions);
        for (((p, target), decision), simplified) in decided.zip(&outcome.simplified) {
            let mut answer = PropertyAnswer::unknown(&p.id);
            match decision {
                None => {
                    // The simplified target back as the property's formula.
                    answer.simplified = simplified.clone().map(|target| match p.quantifier {
                        Quantifier::Ef => target,
                        Quantifier::Ag => target.negated(),
                    });
                }
                Some(Decision::Unreachable) => {
                    answer.value = Some(p.value_when_reached(false));
                    answer.decided_by = Some("lp");
                }
                Some(Decision::Reached(sequence)) => {
                    let actions: Vec<ActionId> = sequence.iter().map(|&t| ActionId(t as u32)).collect();
                    let marking = net
                        .marking_after(sequence.iter().map(|&t| TransId(t as u32)))
                        .filter(|m| target.holds(net, m)).ok_or_else(|| {
                        ModelError::new(format!(
                            "[qpor internal bug] the state equation's solution for {} does not reach its target",
                            p.id
                        ))
                    })?;
                    answer.value = Some(p.value_when_reached(true));
                    answer.decided_by = Some("lp");
                    answer.reached = Some(Reached {
                        state: StateEntries::default(),
                        state_text: net.marking_text(&marking),
                        witness: names.witness(&*sys, actions),
                    });
                }
            }
            answers.push(answer);
        }
        let stats = Stats::new(counters(net, &outcome.work), start.elapsed().as_secs_f64());
        let stopped = match outcome.stopped {
            Some(why) => Some(why),
            None if answers.iter().any(|a| a.value.is_none()) => Some(StopReason::OpenSolution),
            None => None,
        };
        Ok(Report::of_properties(
            self.name(),
            answers,
            stopped,
            stats,
            Settings::default(),
        ))
    }
}

/// The engine's counters after `work` on `net`.
fn counters(net: &Net, work: &Work) -> Counters {
    Counters::of(&LpCounters {
        places: net.places.len() as u64,
        transitions: net.transitions.len() as u64,
        solver_calls: work.solver_calls,
        trap_constraints: work.trap_constraints,
        candidates_set_aside: work.set_aside,
    })
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
