//! The `lp` engine: the state-equation proof of `state_equation` behind the [`Engine`]
//! trait. It proves deadlock freedom or says nothing; it never reports a deadlock.

use super::state_equation::{self, Answer};
use crate::engine::{
    Budget, Counters, Engine, LpCounters, Observer, Report, RunResult, Settings, Stats, StopReason,
};
use crate::system::model::{Model, SystemOptions};
use crate::system::ModelError;
use std::time::Instant;

/// Options of the state-equation engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct LpOptions {
    /// How the model becomes a system (the OneSafe view is refused).
    pub system: SystemOptions,
}

/// The options are the state-equation engine.
impl Engine for LpOptions {
    fn name(&self) -> &'static str {
        "lp"
    }

    fn run(&self, model: &Model, budget: &Budget, _observer: &mut dyn Observer) -> RunResult {
        let start = Instant::now();
        let net = match model {
            Model::Net(_) if self.system.one_safe_watch => {
                return Err(ModelError::new(
                    "the lp engine proves deadlock freedom, not the OneSafe question".to_string(),
                )
                .into())
            }
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
        let stopped = match outcome.answer {
            Answer::NoDeadlock | Answer::AlwaysEnabled(_) => None,
            Answer::Candidate(_) => Some(StopReason::DeadSolution),
            Answer::Unknown(_) => Some(StopReason::SolverUnknown),
            Answer::Stopped => Some(budget.exhausted().unwrap_or(StopReason::Cancelled)),
        };
        let counters = Counters::Lp(LpCounters {
            places: net.places.len() as u64,
            transitions: net.transitions.len() as u64,
            solver_calls: outcome.solver_calls,
            trap_constraints: outcome.trap_constraints,
        });
        let stats = Stats::new(counters, start.elapsed().as_secs_f64());
        Ok(Report::new(
            self.name(),
            Vec::new(),
            stopped,
            stats,
            Settings::default(),
        ))
    }
}
