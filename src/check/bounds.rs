//! Bounds through the portfolio (`--engine auto`): a first round asks the engines the
//! bounds themselves (the walk raises lower bounds, the state equation's maxima bound them
//! from above, the explicit search settles them on small nets); then, while some bound is
//! open, each open bound with lower value `l` becomes the reachability property
//! `EF l + 1 <= Σ places`, and, when its upper value `u` is known and above `l + 1`, also
//! `EF u <= Σ places`, asked of the portfolio with every reachability engine and the
//! reductions that keep the places: FALSE proves `l` (or `u − 1`) an upper bound, TRUE
//! comes with a replayed marking whose sum is the new lower value. So the stubborn searches, the state
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

/// The share of the time limit kept for finishing after the rounds, at most
/// [`FINISH_MAX`].
const FINISH_SHARE: f64 = 0.2;

/// The most time kept for finishing after the rounds.
const FINISH_MAX: Duration = Duration::from_secs(2);

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
    observer.bounds_known(&report.bounds);
    // The rounds end before the limit: the replay of the bounds' witnesses and the
    // lifting of a reduced net's witnesses come after them, and a walk's witnesses can
    // be hundreds of thousands of steps long (0.4 s to lift 16 of them on PGCD-D04N025).
    let rounds_end = opts
        .limits
        .time_limit
        .zip(deadline)
        .map(|(limit, d)| d - limit.mul_f64(FINISH_SHARE).min(FINISH_MAX));
    let mut rounds = 0;
    while report.bounds.iter().any(|b| b.value().is_none())
        && rounds < MAX_ROUNDS
        && rounds_end.is_none_or(|d| Instant::now() < d)
        && !opts.limits.interrupt.as_ref().is_some_and(|t| t.is_cancelled())
    {
        rounds += 1;
        // Per open bound the next value, `EF l + 1 <= Σ`, and, when an upper bound `u`
        // is known above it, the top, `EF u <= Σ`: a bound that needs a long run to reach
        // (a large `u`) would otherwise take one round per value.
        let mut asks: Vec<(usize, u64)> = Vec::new();
        for (i, known) in report.bounds.iter().enumerate() {
            if known.value().is_some() {
                continue;
            }
            asks.push((i, known.lower + 1));
            if let Some(top) = known.upper.filter(|&u| u > known.lower + 1) {
                asks.push((i, top));
            }
        }
        let properties: Vec<Property> = asks
            .iter()
            .map(|&(i, value)| Property {
                // Ids tell a property's answer and witness apart: the top gets its own.
                id: match report.bounds[i].lower + 1 == value {
                    true => asked[i].id.clone(),
                    false => format!("{} (top {value})", asked[i].id),
                },
                quantifier: Quantifier::Ef,
                formula: Formula::Le(Sum::constant(value), asked[i].sum()),
            })
            .collect();
        let inner = CheckOptions {
            question: Question::Reachability(properties.into()),
            limits: super::Limits {
                time_limit: rounds_end.map(|end| end.saturating_duration_since(started)),
                started: Some(started),
                ..opts.limits.clone()
            },
            ..opts.clone()
        };
        let answered = check_once(model, &inner, Aim::Every, observer)?;
        let mut progress = false;
        for (&(i, value), p) in asks.iter().zip(&answered.properties) {
            let known = &mut report.bounds[i];
            match (p.value, &p.reached) {
                // No reachable marking puts `value` tokens on the places.
                (Some(false), _) if known.upper.is_none_or(|u| u >= value) => {
                    known.upper = Some(value - 1);
                    known.upper_by = p.decided_by;
                    if known.lower > value - 1 {
                        return Err(crate::engine::EngineError::Internal(format!(
                            "bound {}: {} tokens reached, yet {value} proved unreachable",
                            known.id, known.lower
                        )));
                    }
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
                    progress |= better.lower > known.lower;
                    known
                        .narrow(better)
                        .map_err(crate::engine::EngineError::Internal)?;
                }
                _ => {}
            }
        }
        observer.bounds_known(&report.bounds);
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
