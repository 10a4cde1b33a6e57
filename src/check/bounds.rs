//! Bounds through the portfolio (`--engine auto`): a first round asks the engines the
//! bounds themselves (the walk raises lower bounds, the state equation's maxima bound them
//! from above, the explicit search settles them on small nets); then, while some bound is
//! open, each open bound with lower value `l` becomes the reachability property
//! `EF l + 1 <= Σ places`, asked of the portfolio with every reachability engine and the
//! reductions that keep the places: FALSE proves `l` the bound, TRUE comes with a
//! replayed marking whose sum is the new lower value. So the stubborn searches, the state
//! equation's refinements and the reductions, all built for reachability, prove bounds
//! too.

use super::{check_once, global::Aim, replay, CheckOptions};
use crate::engine::{BoundAnswer, Observer, Question, Report, RunResult, Verdict};
use crate::system::model::Model;
use crate::system::net::Net;
use crate::system::property::{BoundQuery, Formula, Property, Quantifier, Sum};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The first round's share of the time limit.
const FIRST_ROUND_SHARE: f64 = 0.15;

/// The first round's time without a time limit.
const FIRST_ROUND_UNLIMITED: Duration = Duration::from_secs(5);

/// Most rounds of reachability questions (each raises a lower bound or closes bounds).
const MAX_ROUNDS: usize = 64;

/// Answers the bounds `asked` of `net`, the net of `model`, with the portfolio of `opts`.
pub(super) fn check(
    model: &Arc<Model>,
    net: &Net,
    asked: &Arc<[BoundQuery]>,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
) -> RunResult {
    let started = opts.limits.started.unwrap_or_else(Instant::now);
    let deadline = opts.limits.time_limit.and_then(|l| started.checked_add(l));
    let first_limit = match opts.limits.time_limit {
        Some(l) => l.mul_f64(FIRST_ROUND_SHARE),
        None => FIRST_ROUND_UNLIMITED,
    };
    let first_end = Instant::now() + first_limit;
    let first_end = deadline.map_or(first_end, |d| d.min(first_end));
    let first = CheckOptions {
        limits: super::Limits {
            time_limit: Some(first_end.saturating_duration_since(started)),
            started: Some(started),
            ..opts.limits.clone()
        },
        ..opts.clone()
    };
    let mut report = check_once(model, &first, Aim::Every, observer)?;
    let mut rounds = 0;
    while report.bounds.iter().any(|b| b.value().is_none())
        && rounds < MAX_ROUNDS
        && deadline.is_none_or(|d| Instant::now() < d)
        && !opts.limits.interrupt.as_ref().is_some_and(|t| t.is_cancelled())
    {
        rounds += 1;
        let open: Vec<usize> = (0..asked.len())
            .filter(|&i| report.bounds[i].value().is_none())
            .collect();
        let properties: Vec<Property> = open
            .iter()
            .map(|&i| Property {
                id: asked[i].id.clone(),
                quantifier: Quantifier::Ef,
                formula: Formula::Le(Sum::constant(report.bounds[i].lower + 1), asked[i].sum()),
            })
            .collect();
        let inner = CheckOptions {
            question: Question::Reachability(properties.into()),
            ..opts.clone()
        };
        let answered = check_once(model, &inner, Aim::Every, observer)?;
        let mut progress = false;
        for (&i, p) in open.iter().zip(&answered.properties) {
            let known = &mut report.bounds[i];
            match (p.value, &p.reached) {
                (Some(false), _) => {
                    known.upper = Some(known.lower);
                    known.upper_by = p.decided_by;
                    progress = true;
                }
                (Some(true), Some(reached)) => {
                    let marking = replay::witness_marking(net, reached).ok_or_else(|| {
                        crate::engine::EngineError::Internal(format!(
                            "bound {}: a replayed witness does not fire",
                            known.id
                        ))
                    })?;
                    let better = BoundAnswer {
                        lower: asked[i].value(&marking),
                        lower_by: p.decided_by,
                        reached: Some(reached.clone()),
                        ..BoundAnswer::initial(&known.id, 0)
                    };
                    known
                        .narrow(better)
                        .map_err(crate::engine::EngineError::Internal)?;
                    progress = true;
                }
                _ => {}
            }
        }
        report.stopped = answered.stopped;
        if !progress {
            break;
        }
    }
    for (bound, answer) in asked.iter().zip(&mut report.bounds) {
        replay::replay_bound(net, bound, answer)
            .map_err(|e| crate::engine::EngineError::Internal(format!("bounds: {e}")))?;
    }
    finish(&mut report);
    Ok(report)
}

/// The verdict and stop reason of the merged bounds.
fn finish(report: &mut Report) {
    if report.bounds.iter().all(|b| b.value().is_some()) {
        report.verdict = Verdict::Answered;
        report.stopped = None;
    } else {
        report.verdict = Verdict::Inconclusive;
        report.stopped = report.stopped.or(Some(crate::engine::StopReason::Cancelled));
    }
}
