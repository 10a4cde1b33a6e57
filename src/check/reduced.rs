//! Checking a net through its structural reduction (`--reduce on`): the engines run on
//! the reduced net, and every finding is lifted back to a firing sequence of the original
//! net, whose end state is the finding's state (the replay of `check` then checks it like
//! any other witness). For reachability properties the reduction keeps what the
//! properties read, the properties are renamed onto the reduced net, and each witness is
//! lifted and replayed against the original property.

use super::global::Aim;
#[cfg(feature = "lp")]
use super::portfolio::Refined;
use super::portfolio::Refinement;
use super::{check_planned, replay, CheckOptions, EngineChoice};
use crate::engine::{
    Budget, EngineError, Finding, FindingKind, Observer, PropertyAnswer, Question, Report, RunResult,
    StepNames,
};
#[cfg(feature = "lp")]
use crate::structural::{disconnect_implicit_places, implicit_time_share};
use crate::structural::{reduce_cheaply, reduce_keeping, Keep, ReducedNet};
use crate::system::model::Model;
use crate::system::net::{Net, TransId};
use crate::system::property::Property;
use crate::system::{classify_dead, state_after, ActionId, FiringError, System};
use std::sync::Arc;
use std::time::Instant;

/// How long the portfolio's first members run before the implicit-place programs take a
/// core: the quick stubborn search's slice, in which most small nets are answered.
#[cfg(feature = "lp")]
const REFINE_AFTER: std::time::Duration = std::time::Duration::from_millis(20);

/// Whether a check with `opts` on `model` runs on the reduced net: nets only, when asked
/// (by default with the portfolio), for deadlocks and reachability properties; never for
/// `--all` (the reduced net keeps whether a deadlock exists, not every dead marking) nor
/// for the OneSafe view (which asks about markings that are not dead).
pub(super) fn applies<'m>(model: &'m Model, opts: &CheckOptions) -> Option<&'m Net> {
    let asked = opts.reduce.unwrap_or(opts.engine.name().reduces_by_default());
    let question = matches!(opts.question, Question::Deadlock | Question::Reachability(_));
    match model {
        Model::Net(net) if asked && !opts.all && question => Some(net),
        _ => None,
    }
}

/// Checks `net`, the net of `model`, through its reduction: the engines of `opts` run on
/// the reduced net, within the same time limit, and every finding is lifted and replayed
/// on `model`.
pub(super) fn check(
    model: &Model,
    net: &Net,
    opts: &CheckOptions,
    aim: Aim,
    observer: &mut dyn Observer,
) -> RunResult {
    let mut opts = opts.clone();
    let started = *opts.limits.started.get_or_insert_with(Instant::now);
    let deadline = opts.limits.time_limit.and_then(|l| started.checked_add(l));
    let budget = Budget::until(deadline, opts.limits.time_limit);
    let properties = match &opts.question {
        Question::Reachability(properties) => Some(properties.clone()),
        _ => None,
    };
    let keep = properties.as_ref().map_or_else(Keep::default, |properties| {
        Keep::read_by(net, properties.iter().map(|p| &p.formula))
    });
    // The portfolio's first members start after the cheap rules; the implicit places are
    // worked out beside them. One engine alone waits for every rule.
    let portfolio = matches!(opts.engine, EngineChoice::Auto(_));
    let reduction = if portfolio {
        reduce_cheaply(net, &budget, &keep)
    } else {
        reduce_keeping(net, &budget, &keep)
    };
    let question = match &properties {
        Some(properties) => Question::Reachability(renamed(&reduction, properties)?.into()),
        None => opts.question.clone(),
    };
    let reduced = Arc::new(Model::Net(reduction.net.clone()));
    let refinement = portfolio
        .then(|| refinement(&reduced, &question, &budget))
        .flatten();
    let inner = CheckOptions {
        reduce: Some(false),
        question,
        // The states along a witness are those of the original net, listed below.
        witness_states: false,
        ..opts.clone()
    };
    let mut report = check_planned(&reduced, &inner, aim, refinement, observer)?;
    let mut summary = reduction.summary.clone();
    if let Some(beside) = report.reduction.take() {
        summary.merge_beside(beside);
    }
    report.reduce_seconds = Some(summary.seconds);
    if let Some(properties) = &properties {
        lift_answers(&reduction, net, properties, &mut report)?;
    }
    let sys = model.system(&opts.system)?;
    let mut names = StepNames::default();
    for finding in &mut report.findings {
        let mut lifted = lift_finding(&reduction, net, &*sys, finding, &mut names)?;
        replay::replay(&*sys, &mut lifted, opts.witness_states).map_err(|e| {
            let engine = report.answered_by.unwrap_or(report.engine);
            EngineError::Internal(format!("{engine} engine, lifted witness: {e}"))
        })?;
        *finding = lifted;
    }
    report.reduction = Some(summary);
    Ok(report)
}

/// The portfolio's refinement of `reduced`: its implicit places disconnected, keeping
/// what the properties of `question` read, started after the quick members' slice.
#[cfg(feature = "lp")]
fn refinement(reduced: &Arc<Model>, question: &Question, budget: &Budget) -> Option<Refinement> {
    let Model::Net(net) = &**reduced else {
        return None;
    };
    let keep = match question {
        Question::Reachability(properties) => Keep::read_by(net, properties.iter().map(|p| &p.formula)),
        _ => Keep::default(),
    };
    let reduced = Arc::clone(reduced);
    Some(Refinement {
        after: REFINE_AFTER,
        wait: implicit_time_share(budget),
        work: Box::new(move |budget| {
            let Model::Net(net) = &*reduced else {
                unreachable!("checked above")
            };
            let disconnected = disconnect_implicit_places(net, budget, &keep);
            Refined {
                model: (disconnected.removed > 0).then(|| Arc::new(Model::Net(disconnected.net))),
                removed: disconnected.removed,
                seconds: disconnected.seconds,
            }
        }),
    })
}

/// Without `lp` there are no implicit-place programs: nothing to refine.
#[cfg(not(feature = "lp"))]
fn refinement(_: &Arc<Model>, _: &Question, _: &Budget) -> Option<Refinement> {
    None
}

/// `properties` over the reduced net (every place and transition they read was kept).
fn renamed(reduction: &ReducedNet, properties: &[Property]) -> Result<Vec<Property>, EngineError> {
    properties
        .iter()
        .map(|p| {
            let formula = p
                .formula
                .renamed(&|q| reduction.place(q), &|t| reduction.transition(t))
                .ok_or_else(|| {
                    EngineError::Internal(format!("the reduction removed something property {} reads", p.id))
                })?;
            Ok(Property { formula, ..p.clone() })
        })
        .collect()
}

/// The answers of the reduced net as answers of `original`: each witness lifted, and
/// replayed against the original property.
fn lift_answers(
    reduction: &ReducedNet,
    original: &Net,
    properties: &[Property],
    report: &mut Report,
) -> Result<(), EngineError> {
    let engine = report.answered_by.unwrap_or(report.engine);
    let mut names = StepNames::default();
    for (property, answer) in properties.iter().zip(&mut report.properties) {
        let PropertyAnswer {
            reached: Some(reached),
            ..
        } = answer
        else {
            continue;
        };
        let steps: Vec<TransId> = reached.witness.steps.iter().map(|s| TransId(s.id.0)).collect();
        let (lifted, marking) = reduction
            .lift_path(original, &steps)
            .map_err(|e| EngineError::Internal(format!("lifting a witness of the reduced net: {e}")))?;
        reached.witness = names.net_witness(original, lifted);
        reached.state_text = original.marking_text(&marking);
        replay::replay_property(original, property, answer)
            .map_err(|e| EngineError::Internal(format!("{engine} engine, lifted witness: {e}")))?;
    }
    Ok(())
}

/// The finding of the reduced net, `finding`, as a finding of `original` (viewed as `sys`):
/// its witness lifted, its state recomputed on the original.
fn lift_finding<S: System + ?Sized>(
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
    let state = state_after(sys, lifted.iter().map(|t| ActionId(t.0))).map_err(|e| match e {
        FiringError::Model(e) => EngineError::Model(e),
        e => EngineError::Internal(format!("lifted {e} in the original net")),
    })?;
    let mut enabled = Vec::new();
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
