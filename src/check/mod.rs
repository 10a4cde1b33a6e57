//! The dispatcher behind `qpor check`: the one place that knows every engine. It turns the
//! user's [`CheckOptions`] into engines with their own options ([`schedule`]), runs them on
//! threads with one deadline and one cancel flag ([`portfolio`]), and replays every witness
//! on the model before the report leaves ([`replay`]). The engines below it know nothing
//! of each other or of this module.

mod bounds;
mod global;
mod options;
mod portfolio;
pub use options::{
    CheckOptions, EngineChoice, EngineName, Limits, PortfolioChoice, QporChoice, UnfoldingChoice,
};
pub use portfolio::PortfolioCounters;
mod reduced;
pub(crate) mod replay;
pub(crate) mod saved;
mod schedule;
mod shortest;
pub(crate) mod validate;

use crate::engine::{Budget, EngineError, Observer, Question, Report, RunResult};
use crate::system::model::Model;
use crate::unfold::Backend;
use std::sync::Arc;

use global::Aim;
use schedule::{plan, Shape};

/// Most markings the replay of a FALSE liveness visits to confirm that the witness's
/// component never enables its missing transitions.
const REPLAY_COMPONENT_STATES: usize = 2_000_000;

/// Why `--engine lp` is refused by a build without Z3.
#[cfg(not(feature = "lp"))]
pub(crate) const LP_MISSING: &str =
    "--engine lp: this qpor was built without the `lp` feature (Z3); build it with the default features to use the state equation";

/// The number of cores, or 1 when it cannot be known.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Checks `model` with QPOR on the processes of `transport` (`--distributed`): every
/// process calls it with the same model and options. Rank 0 returns the report, its
/// witnesses replayed on the model as [`check`] does; the others return `None`. Needs
/// `--engine qpor`, `--cutoff none`, `causal` or `distance`, and the program-like unfolding.
pub fn check_distributed<T: crate::qpor::Transport + ?Sized>(
    model: &Model,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
    transport: &T,
) -> Result<Option<Report>, EngineError> {
    let refuse = |why: &str| Err(EngineError::from(crate::system::ModelError::new(why)));
    let EngineChoice::Qpor(q) = opts.engine else {
        return refuse("--distributed runs the qpor engine: give --engine qpor");
    };
    opts.validate().map_err(|e| EngineError::Options(e.message))?;
    if let Some(e) = validate::split_refusal("--distributed", q.unfolding.cutoff) {
        return refuse(&e.message);
    }
    if let Some(why) = validate::distributed_refusal(&q) {
        return Err(EngineError::Options(why.message));
    }
    if q.unfolding.backend.resolve(model, &opts.system) == Backend::General {
        return refuse(
            "--distributed explores the program-like unfolding, and this net needs the general one (a net with NUPN units or --components units has the program-like one)",
        );
    }
    let budget = Budget::until(opts.limits.deadline(), opts.limits.time_limit);
    let sys = model.system(&opts.system)?;
    let qpor = opts.qpor();
    let Some(mut report) = crate::qpor::check_system_distributed(&*sys, &qpor, &budget, observer, transport)?
    else {
        return Ok(None);
    };
    for finding in &mut report.findings {
        replay::replay(&*sys, finding, opts.witness_states)
            .map_err(|e| EngineError::Internal(format!("qpor engine, distributed: {e}")))?;
    }
    Ok(Some(report))
}

/// Checks `model` for deadlocks with the engine (or the portfolio) of `opts`, within its
/// limits. Every finding's witness has been replayed on the model; a witness the replay
/// refuses is an [`EngineError::Internal`], never a verdict.
///
/// The engines run on threads that may outlive the call (one that does not stop when told
/// is left behind, see `portfolio`), so they get their own copy of the model; use
/// [`check_shared`] to lend them yours instead.
pub fn check(model: &Model, opts: &CheckOptions, observer: &mut dyn Observer) -> RunResult {
    check_shared(&Arc::new(model.clone()), opts, observer)
}

/// [`check`] on a model the engine threads share without copying it.
pub fn check_shared(model: &Arc<Model>, opts: &CheckOptions, observer: &mut dyn Observer) -> RunResult {
    opts.validate().map_err(|e| EngineError::Options(e.message))?;
    #[cfg(not(feature = "lp"))]
    if opts.engine == EngineChoice::Lp {
        return Err(EngineError::from(crate::system::ModelError::new(LP_MISSING)));
    }
    let mut report = match (&opts.question, &**model) {
        (Question::QuasiLiveness | Question::StableMarking, Model::Net(net)) => {
            global::check(model, net, opts, observer)?
        }
        (Question::Bounds(asked), Model::Net(net)) if matches!(opts.engine, EngineChoice::Auto(_)) => {
            bounds::check(model, net, asked, opts, observer)?
        }
        _ => check_once(model, opts, Aim::Every, observer)?,
    };
    if opts.shortest_witness {
        shorten_witnesses(model, opts, &mut report)?;
    }
    Ok(report)
}

/// `--witness shortest`: each finding's witness replaced by a shortest one to its state,
/// replayed like the engines' own; a note in the report says what the search did.
fn shorten_witnesses(model: &Model, opts: &CheckOptions, report: &mut Report) -> Result<(), EngineError> {
    if report.findings.is_empty() {
        return Ok(());
    }
    let sys = model.system(&opts.asked_system())?;
    let mut budget = Budget::until(opts.limits.deadline(), opts.limits.time_limit);
    if let Some(token) = &opts.limits.interrupt {
        budget = budget.with_cancel(token.clone());
    }
    for finding in &mut report.findings {
        let note = match shortest::shorten(&*sys, finding, &budget, opts.limits.max_states) {
            shortest::Shortening::Shortened { before } => {
                replay::replay(&*sys, finding, opts.witness_states).map_err(|e| {
                    EngineError::Internal(format!("breadth-first search for a shortest witness: {e}"))
                })?;
                format!(
                    "witness shortened from {before} to {} steps (--witness shortest)",
                    finding.witness.steps.len()
                )
            }
            shortest::Shortening::WasShortest => "the witness is a shortest one (--witness shortest)".into(),
            shortest::Shortening::Stopped(why) => {
                format!("--witness shortest: the breadth-first search stopped ({why}); the witness is the engine's")
            }
        };
        if !report.notes.contains(&note) {
            report.notes.push(note);
        }
    }
    Ok(())
}

/// One check, without the shortening of witnesses; a question of properties ends when
/// their answers decide it as `aim` says.
fn check_once(model: &Arc<Model>, opts: &CheckOptions, aim: Aim, observer: &mut dyn Observer) -> RunResult {
    if let Some(net) = reduced::applies(model, opts) {
        return reduced::check(model, net, opts, aim, observer);
    }
    if let (Question::Liveness, Model::Net(net)) = (&opts.question, &**model) {
        if let Some(report) = global::structural_liveness(net, &global::structural_budget(opts)) {
            return Ok(report);
        }
    }
    check_planned(model, opts, aim, None, observer)
}

/// [`check_once`] without the reduction: the engines of the schedule on `model`, the
/// refined members on `refinement`'s net when it is given and ready; every answer
/// replayed on `model`.
fn check_planned(
    model: &Arc<Model>,
    opts: &CheckOptions,
    aim: Aim,
    refinement: Option<portfolio::Refinement>,
    observer: &mut dyn Observer,
) -> RunResult {
    let planned = plan(opts, Shape::of(model));
    let mut report = portfolio::run(model, opts, &planned, aim, refinement, observer)?;
    let engine = report.answered_by.unwrap_or(report.engine);
    let replay_error = |e: replay::ReplayError| EngineError::Internal(format!("{engine} engine: {e}"));
    if let Model::Net(net) = &**model {
        if let Question::Reachability(properties) = &opts.question {
            for (property, answer) in properties.iter().zip(&mut report.properties) {
                replay::replay_property(net, property, answer).map_err(replay_error)?;
            }
        }
        if let Question::Bounds(asked) = &opts.question {
            for (bound, answer) in asked.iter().zip(&mut report.bounds) {
                replay::replay_bound(net, bound, answer).map_err(replay_error)?;
            }
        }
        if let Some(global) = &mut report.global {
            replay::replay_global(net, global, REPLAY_COMPONENT_STATES).map_err(replay_error)?;
        }
    }
    if report.findings.is_empty() {
        return Ok(report);
    }
    let sys = model.system(&opts.asked_system())?;
    for finding in &mut report.findings {
        replay::replay(&*sys, finding, opts.witness_states).map_err(|e| {
            EngineError::Internal(format!(
                "{} engine: {e}",
                report.answered_by.unwrap_or(report.engine)
            ))
        })?;
    }
    Ok(report)
}
