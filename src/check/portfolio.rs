//! Runs the engines of a schedule on their own threads with one deadline and one cancel
//! flag, and takes the first conclusive answer.
//!
//! Every engine runs on a detached thread sharing the model behind an `Arc`;
//! the calling thread only forwards progress, watches the memory limit and waits. When an
//! engine answers, the flag tells the others to stop; they poll it often (engines promise
//! to within a few milliseconds), and one that has not returned [`GRACE`] after being told
//! is abandoned: the report says so and the check returns without it. This is what bounds
//! the end of a check by its time limit even if an engine is caught in a long step.
//!
//! One engine alone (`--engine qpor`, …) runs the same way, so the same bound holds.
//!
//! A portfolio may be handed a [`Refinement`]: a net worked out on a thread of its own,
//! started once the first members had [`Refinement::after`] to answer, on which the
//! members marked `refined` run when they start after it is ready (they wait for it; the
//! others do not). The refined net has the given net's places and transitions, so the
//! members' witnesses fire on the given net; their findings' states are described again
//! on it before they are merged.
//!
//! On reachability properties the answers add up: a member started after others returned
//! is asked only the properties still open, and the run ends as soon as every property is
//! decided by some member, not only when one member decides them all.

use super::global::Aim;
use super::schedule::{Member, Planned};
use crate::engine::Question;
use crate::engine::{
    current_rss_bytes, Asked, BoundAnswer, Budget, CancelToken, Counters, EngineError, EngineRun, Observer,
    Progress, PropertyAnswer, ReductionSummary, Report, RunEnd, RunResult, Settings, Stats, StopReason,
    Verdict,
};
use crate::system::model::Model;
use crate::system::property::{Formula, Property};
use crate::system::state_after;
use hashbrown::HashMap;
use serde::{Deserialize, Serialize};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an engine may take to return once told to stop before it is abandoned.
pub(crate) const GRACE: Duration = Duration::from_millis(200);

/// How often the waiting thread looks at the memory and the clock.
const TICK: Duration = Duration::from_millis(20);

/// What an engine thread tells the waiting thread.
enum Message {
    Progress(Progress),
    Done(usize, Box<RunResult>),
    Refined(Refined),
}

/// A net for the portfolio's `refined` members, worked out beside the others.
pub(crate) struct Refinement {
    /// How long after the portfolio's start the work begins: the first members' chance
    /// to answer before it takes a core.
    pub after: Duration,
    /// How long, once started, the members that want the refined net wait for it: past
    /// that (and [`GRACE`]) they run on the given net, and the work, still on its thread,
    /// is no longer heard.
    pub wait: Duration,
    /// The work, within the budget it is given.
    pub work: Box<dyn FnOnce(&Budget) -> Refined + Send>,
}

/// What a [`Refinement`] made.
pub(crate) struct Refined {
    /// The refined model; `None` when it is the given one.
    pub model: Option<Arc<Model>>,
    /// How many places it disconnected.
    pub removed: u64,
    /// How long the work took, in seconds.
    pub seconds: f64,
}

/// Where the refinement of a run is.
enum Refining {
    /// None was asked.
    None,
    /// It starts at the given time, and may take the given time.
    Pending(Instant, Duration, Box<dyn FnOnce(&Budget) -> Refined + Send>),
    /// Its thread is working; it is given up at the given time.
    Running(Instant),
    /// It ended: the refined model, if any.
    Done(Option<Arc<Model>>),
}

impl Refining {
    /// Whether a member that runs on the refined net may start.
    fn ready(&self) -> bool {
        matches!(self, Refining::None | Refining::Done(_))
    }
}

/// Sends an engine's progress to the waiting thread.
struct ChannelObserver {
    engine: &'static str,
    tx: Sender<Message>,
}

impl Observer for ChannelObserver {
    fn progress(&mut self, p: &Progress) {
        let mut p = p.clone();
        p.engine = self.engine;
        let _ = self.tx.send(Message::Progress(p));
    }
}

/// Where one member of the schedule is.
enum Slot {
    Waiting,
    Running,
    Returned(Box<RunResult>),
    Abandoned,
}

/// Runs the schedule `planned` on `model`: the first conclusive report, or an inconclusive
/// one saying why none came. A single engine's report is returned as it is; the
/// portfolio's report is `auto`'s, with every member's ending in [`Report::engines`].
pub(crate) fn run(
    model: &Arc<Model>,
    opts: &super::CheckOptions,
    planned: &Planned,
    aim: Aim,
    refinement: Option<Refinement>,
    observer: &mut dyn Observer,
) -> RunResult {
    let started = opts.limits.started.unwrap_or_else(Instant::now);
    let deadline = opts.limits.time_limit.and_then(|l| started.checked_add(l));
    let token = CancelToken::default();
    let (tx, rx) = mpsc::channel();
    let mut slots: Vec<Slot> = planned.members.iter().map(|_| Slot::Waiting).collect();
    // When each member started and returned, and whether it ran on the refined net.
    let mut times: Vec<(Option<Instant>, Option<Instant>)> = vec![(None, None); slots.len()];
    let mut on_refined = vec![false; slots.len()];
    let mut refining = match refinement {
        Some(r) if planned.portfolio => Refining::Pending(Instant::now() + r.after, r.wait, r.work),
        _ => Refining::None,
    };
    let mut refined_summary: Option<(u64, f64)> = None;
    let mut winner: Option<usize> = None;
    // The ids of the properties some member decided, with their values.
    let mut decided: HashMap<String, bool> = HashMap::new();
    // What the members returned so far know of the bounds asked.
    let mut bounds: Vec<BoundAnswer> = match &opts.question {
        Question::Bounds(asked) => match &**model {
            Model::Net(net) => asked
                .iter()
                .map(|b| BoundAnswer::initial(&b.id, b.value(&net.initial_marking())))
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let initial_bounds = bounds.clone();
    // The formulas some member simplified, by property id, for the members after it.
    let mut simplified: HashMap<String, Formula> = HashMap::new();
    // When the waiting ends at the latest: a grace after the deadline, or after the stop.
    let mut give_up_at = deadline.and_then(|d| d.checked_add(GRACE));
    loop {
        let running = slots.iter().filter(|s| matches!(s, Slot::Running)).count();
        if !token.is_cancelled() {
            if let Refining::Running(give_up) = refining {
                if Instant::now() >= give_up {
                    refining = Refining::Done(None);
                }
            }
            if let Refining::Pending(at, wait, _) = &refining {
                let now = Instant::now();
                if now >= *at {
                    let give_up = Refining::Running(now + *wait + GRACE);
                    if let Refining::Pending(.., work) = std::mem::replace(&mut refining, give_up) {
                        let budget =
                            Budget::until(deadline, opts.limits.time_limit).with_cancel(token.clone());
                        let tx = tx.clone();
                        std::thread::spawn(move || {
                            let _ = tx.send(Message::Refined(work(&budget)));
                        });
                    }
                }
            }
            let mut free = planned.jobs.saturating_sub(running);
            for (i, member) in planned.members.iter().enumerate() {
                if free == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                if matches!(slots[i], Slot::Waiting) && (!member.refined || refining.ready()) {
                    let question = open_question(&member.options.question, &decided, &simplified);
                    let on = match &refining {
                        Refining::Done(Some(refined)) if member.refined => refined,
                        _ => model,
                    };
                    on_refined[i] = !Arc::ptr_eq(on, model);
                    spawn(
                        i,
                        member,
                        question,
                        on,
                        deadline,
                        opts.limits.time_limit,
                        &token,
                        &tx,
                    );
                    slots[i] = Slot::Running;
                    times[i].0 = Some(Instant::now());
                    free -= 1;
                }
            }
        }
        let running = slots.iter().filter(|s| matches!(s, Slot::Running)).count();
        let waiting = slots.iter().any(|s| matches!(s, Slot::Waiting));
        // Members waiting for the refined net keep the run going while it is worked out.
        if running == 0 && !(waiting && !refining.ready() && !token.is_cancelled()) {
            break;
        }
        if give_up_at.is_some_and(|t| Instant::now() >= t) {
            for s in &mut slots {
                if matches!(s, Slot::Running) {
                    *s = Slot::Abandoned;
                }
            }
            break;
        }
        // Wake for the refinement's start as well as for the members.
        let wait = match &refining {
            Refining::Pending(at, ..) => TICK.min(at.saturating_duration_since(Instant::now())),
            _ => TICK,
        };
        match rx.recv_timeout(wait) {
            Ok(Message::Progress(p)) => observer.progress(&p),
            // A refinement given up on is not heard any more.
            Ok(Message::Refined(refined)) if matches!(refining, Refining::Running(_)) => {
                refined_summary = Some((refined.removed, refined.seconds));
                refining = Refining::Done(refined.model);
            }
            Ok(Message::Refined(_)) => {}
            Ok(Message::Done(i, mut result)) => {
                times[i].1 = Some(Instant::now());
                if on_refined[i] {
                    if let Ok(r) = result.as_mut() {
                        if let Err(e) = restate(model, &planned.members[i].options, r) {
                            *result = Err(e);
                        }
                    }
                }
                if let Ok(r) = result.as_ref() {
                    decided.extend(r.properties.iter().filter_map(|p| Some((p.id.clone(), p.value?))));
                    for (known, b) in bounds.iter_mut().zip(&r.bounds) {
                        // A contradiction is reported with the merged answers.
                        let _ = known.narrow(b.clone());
                    }
                    simplified.extend(
                        r.properties
                            .iter()
                            .filter_map(|p| Some((p.id.clone(), p.simplified.clone()?))),
                    );
                }
                let conclusive = match &opts.question {
                    Question::Reachability(all) => aim
                        .value(all.iter().map(|p| decided.get(&p.id).copied()))
                        .is_some(),
                    Question::Bounds(_) => bounds.iter().all(|b| b.value().is_some()),
                    _ => result.as_ref().as_ref().is_ok_and(|r| conclusive(r, opts.all)),
                };
                slots[i] = Slot::Returned(result);
                if conclusive && winner.is_none() && !token.is_cancelled() {
                    winner = Some(i);
                    token.cancel();
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => unreachable!("the waiting thread holds a sender"),
        }
        if let Some(mb) = opts.limits.max_memory_mb {
            if current_rss_bytes() > mb.saturating_mul(1 << 20) {
                token.stop(StopReason::MemoryLimit(mb));
            }
        }
        if opts
            .limits
            .interrupt
            .as_ref()
            .is_some_and(CancelToken::is_cancelled)
        {
            token.stop(StopReason::Interrupted);
        }
        if token.is_cancelled() {
            let stop_by = Instant::now() + GRACE;
            give_up_at = Some(give_up_at.map_or(stop_by, |t| t.min(stop_by)));
        }
    }
    let overall_stop = token
        .reason()
        .filter(|r| *r != StopReason::Cancelled)
        .or_else(|| {
            deadline
                .filter(|d| Instant::now() >= *d)
                .map(|_| Budget::until(deadline, opts.limits.time_limit).time_limit_reached())
        });
    if !planned.portfolio {
        return single_report(planned, slots, overall_stop, started);
    }
    let mut report = portfolio_report(
        planned,
        slots,
        winner,
        overall_stop,
        opts.all,
        &initial_bounds,
        started,
    )?;
    let since = |t: Option<Instant>| t.map(|t| t.saturating_duration_since(started).as_secs_f64());
    for ((run, (start, end)), refined) in report.engines.iter_mut().zip(times).zip(on_refined) {
        run.start_seconds = since(start);
        run.end_seconds = since(end);
        run.refined = refined;
    }
    // What the refinement did, for the caller that reduced the net to merge into its own
    // summary: the places it disconnected count as removed.
    if let (Some((removed, seconds)), Model::Net(net)) = (refined_summary, &**model) {
        report.reduction = Some(ReductionSummary {
            places_before: net.places.len() as u64,
            places_after: (net.places.len() as u64).saturating_sub(removed),
            transitions_before: net.transitions.len() as u64,
            transitions_after: net.transitions.len() as u64,
            rules: if removed > 0 {
                vec![("implicit-place", removed)]
            } else {
                Vec::new()
            },
            seconds: 0.0,
            beside_seconds: Some(seconds),
        });
    }
    Ok(report)
}

/// `report`, of a member that ran on the refined net, with its findings' states described
/// on `model`, the given net, where the replay checks them: the two differ on the places
/// the refinement disconnected.
fn restate(model: &Model, opts: &super::CheckOptions, report: &mut Report) -> Result<(), EngineError> {
    if report.findings.is_empty() {
        return Ok(());
    }
    let sys = model.system(&opts.asked_system())?;
    for finding in &mut report.findings {
        let state = state_after(&*sys, finding.witness.steps.iter().map(|s| s.id)).map_err(|e| {
            EngineError::Internal(format!("a witness of the refined net on the given one: {e}"))
        })?;
        finding.state = sys.describe_state(&state);
    }
    Ok(())
}

/// Whether `report` settles the check: a deadlock or fault found (under `--all`, only when
/// the run also completed), or a complete exploration without one.
fn conclusive(report: &Report, all: bool) -> bool {
    match report.verdict {
        Verdict::Inconclusive => false,
        Verdict::NoDeadlock | Verdict::Answered => true,
        Verdict::Deadlock | Verdict::Fault => !all || report.stopped.is_none(),
    }
}

/// `question`, without the properties whose ids are in `decided` when it asks
/// reachability properties, and with the formulas of those in `simplified` replaced by
/// their simplified form (the same value on every reachable marking; the answers are
/// replayed against the original formulas).
fn open_question(
    question: &Question,
    decided: &HashMap<String, bool>,
    simplified: &HashMap<String, Formula>,
) -> Question {
    match question {
        Question::Reachability(all) if !decided.is_empty() || !simplified.is_empty() => {
            Question::Reachability(
                all.iter()
                    .filter(|p| !decided.contains_key(&p.id))
                    .map(|p| match simplified.get(&p.id) {
                        Some(formula) => Property {
                            formula: formula.clone(),
                            ..p.clone()
                        },
                        None => p.clone(),
                    })
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// Starts `member` on its own thread, asking it `question`.
#[allow(clippy::too_many_arguments)]
fn spawn(
    i: usize,
    member: &Member,
    question: Question,
    model: &Arc<Model>,
    deadline: Option<Instant>,
    time_limit: Option<Duration>,
    token: &CancelToken,
    tx: &Sender<Message>,
) {
    let engine = member
        .options
        .build_engine(member.choice)
        .expect("[qpor internal bug] a schedule member is one engine");
    let name = member.name();
    // A slice ends the member early; its report then names the slice as its limit.
    let (deadline, limit) = match member.slice.and_then(|s| Instant::now().checked_add(s)) {
        Some(end) if deadline.is_none_or(|d| end < d) => (Some(end), member.slice),
        _ => (deadline, time_limit),
    };
    let budget = Budget::until(deadline, limit).with_cancel(token.clone());
    let model = Arc::clone(model);
    let tx = tx.clone();
    std::thread::spawn(move || {
        let mut observer = ChannelObserver {
            engine: name,
            tx: tx.clone(),
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| {
            engine.ask(
                Asked {
                    question: &question,
                    model: &model,
                    budget: &budget,
                },
                &mut observer,
            )
        }))
        .unwrap_or_else(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(EngineError::Internal(format!("the {name} engine failed: {what}")))
        });
        let _ = tx.send(Message::Done(i, Box::new(result)));
    });
}

/// The report of one engine run alone.
fn single_report(
    planned: &Planned,
    mut slots: Vec<Slot>,
    overall_stop: Option<StopReason>,
    started: Instant,
) -> RunResult {
    let name = planned.members[0].choice.name();
    match slots.swap_remove(0) {
        Slot::Returned(result) => *result,
        _ => {
            // Left behind: the report says so, as the portfolio's would, and lists every
            // property asked as unknown.
            let why = Some(overall_stop.unwrap_or(StopReason::Cancelled));
            let mut report = match &planned.members[0].options.question {
                Question::Reachability(asked) => Report::of_properties(
                    name,
                    asked.iter().map(|p| PropertyAnswer::unknown(&p.id)).collect(),
                    why,
                    empty_stats(started),
                    Settings::default(),
                ),
                _ => Report::new(name, Vec::new(), why, empty_stats(started), Settings::default()),
            };
            report.engines.push(EngineRun {
                engine: name,
                ended: RunEnd::Abandoned,
                ..EngineRun::default()
            });
            Ok(report)
        }
    }
}

/// The portfolio's report: the winner's verdict and findings, or the best inconclusive
/// answer (a deadlock found by a run that stopped early under `--all`), and every member's
/// ending. When every engine that ran failed, the first failure is the result.
fn portfolio_report(
    planned: &Planned,
    slots: Vec<Slot>,
    winner: Option<usize>,
    overall_stop: Option<StopReason>,
    all: bool,
    initial_bounds: &[BoundAnswer],
    started: Instant,
) -> RunResult {
    let mut runs = Vec::new();
    let mut reports: Vec<Option<Report>> = Vec::new();
    let mut first_error = None;
    for (i, (member, slot)) in planned.members.iter().zip(slots).enumerate() {
        let name = member.name();
        let mut run = EngineRun {
            engine: name,
            ended: RunEnd::NotStarted,
            ..EngineRun::default()
        };
        let mut report = None;
        let slot = match slot {
            Slot::Returned(result) => Ok(*result),
            other => Err(other),
        };
        match slot {
            Err(Slot::Waiting) => {}
            Err(_) => run.ended = RunEnd::Abandoned,
            Ok(Err(e)) => {
                run.ended = RunEnd::Failed;
                run.error = Some(e.to_string());
                first_error.get_or_insert(e);
            }
            Ok(Ok(r)) => {
                run.ended = if winner == Some(i) {
                    RunEnd::Answered
                } else if conclusive(&r, all) {
                    RunEnd::AnsweredLate
                } else if r.stopped == Some(StopReason::Cancelled) {
                    RunEnd::Cancelled
                } else {
                    RunEnd::Inconclusive
                };
                run.verdict = Some(r.verdict);
                run.stopped = r.stopped;
                run.settings = r.settings.clone();
                run.stats = Some(r.stats.clone());
                report = Some(r);
            }
        }
        runs.push(run);
        reports.push(report);
    }
    let engines_started = runs.iter().filter(|r| r.ended != RunEnd::NotStarted).count() as u64;
    // Without a winner, a deadlock found by a run that could not finish its `--all` list
    // still answers the question; its list is reported as possibly incomplete.
    let answer = winner.or_else(|| {
        (all).then(|| {
            reports.iter().position(|r| {
                r.as_ref()
                    .is_some_and(|r| matches!(r.verdict, Verdict::Deadlock | Verdict::Fault))
            })
        })?
    });
    let stats = Stats::new(
        Counters::of(&PortfolioCounters { engines_started }),
        started.elapsed().as_secs_f64(),
    );
    if let Question::Reachability(asked) = &planned.members[0].options.question {
        let mut out = merged_properties(planned, asked, &mut reports, overall_stop, stats)?;
        out.engines = runs;
        return Ok(out);
    }
    if let Question::Bounds(_) = &planned.members[0].options.question {
        let mut out = merged_bounds(planned, initial_bounds, &mut reports, overall_stop, stats)?;
        out.engines = runs;
        return Ok(out);
    }
    let mut out = match answer.and_then(|i| reports[i].take().map(|r| (i, r))) {
        Some((i, r)) => {
            let mut out = match r.global {
                Some(global) => Report::of_global("auto", global, r.stopped, stats, Settings::default()),
                None if r.properties.is_empty() => {
                    Report::new("auto", r.findings, r.stopped, stats, Settings::default())
                }
                None => Report::of_properties("auto", r.properties, r.stopped, stats, Settings::default()),
            };
            out.answered_by = Some(planned.members[i].name());
            out
        }
        // Every engine that ran failed: the model, not the budget, is the problem.
        None if first_error.is_some()
            && runs
                .iter()
                .all(|r| matches!(r.ended, RunEnd::Failed | RunEnd::NotStarted)) =>
        {
            return Err(first_error.expect("checked just above"));
        }
        None => {
            let why = overall_stop
                .or_else(|| runs.iter().rev().find_map(|r| r.stopped))
                .unwrap_or(StopReason::Cancelled);
            Report::new("auto", Vec::new(), Some(why), stats, Settings::default())
        }
    };
    out.engines = runs;
    Ok(out)
}

/// The portfolio's answers to reachability properties: each property takes the answer of
/// the first member that decided it, so the walk's witnesses and a search's proofs add
/// up. Two members that decide a property differently are an engine bug, reported as an
/// internal error rather than either answer. `answered_by` names the member that decided
/// the most; the report stops with the first member's reason when some stay undecided.
fn merged_properties(
    planned: &Planned,
    asked: &[Property],
    reports: &mut [Option<Report>],
    overall_stop: Option<StopReason>,
    stats: Stats,
) -> RunResult {
    let mut merged: Vec<PropertyAnswer> = asked.iter().map(|p| PropertyAnswer::unknown(&p.id)).collect();
    let at: HashMap<&str, usize> = asked
        .iter()
        .enumerate()
        .map(|(k, p)| (p.id.as_str(), k))
        .collect();
    let mut decided_by: Vec<Option<usize>> = vec![None; asked.len()];
    let mut stopped = overall_stop;
    for (i, report) in reports.iter_mut().enumerate() {
        let Some(r) = report.as_mut() else {
            continue;
        };
        stopped = stopped.or(r.stopped);
        for p in std::mem::take(&mut r.properties) {
            let (Some(value), Some(&k)) = (p.value, at.get(p.id.as_str())) else {
                continue;
            };
            let into = &mut merged[k];
            match into.value {
                None => {
                    *into = p;
                    decided_by[k] = Some(i);
                }
                Some(v) if v != value => {
                    let other = decided_by[k].map_or("?", |j| planned.members[j].name());
                    return Err(EngineError::Internal(format!(
                        "the {} and {other} engines answer property {} differently ({value} and {v})",
                        planned.members[i].name(),
                        into.id
                    )));
                }
                Some(_) => {}
            }
        }
    }
    let mut count = vec![0usize; planned.members.len()];
    for i in decided_by.iter().flatten() {
        count[*i] += 1;
    }
    let best = (0..count.len())
        .filter(|&i| count[i] > 0)
        .max_by_key(|&i| count[i]);
    let complete = merged.iter().all(|p| p.value.is_some());
    let why = (!complete).then(|| stopped.unwrap_or(StopReason::Cancelled));
    let mut out = Report::of_properties("auto", merged, why, stats, Settings::default());
    out.answered_by = best.map(|i| planned.members[i].name());
    Ok(out)
}

/// The portfolio's answers to bound questions: the largest lower bound any member
/// witnessed and the smallest upper bound any proved, per bound. A lower bound above an
/// upper bound is an engine bug, reported as an internal error. `answered_by` names the
/// member that contributed the most.
fn merged_bounds(
    planned: &Planned,
    initial: &[BoundAnswer],
    reports: &mut [Option<Report>],
    overall_stop: Option<StopReason>,
    stats: Stats,
) -> RunResult {
    let mut merged = initial.to_vec();
    let mut count = vec![0usize; planned.members.len()];
    let mut stopped = overall_stop;
    for (i, report) in reports.iter_mut().enumerate() {
        let Some(r) = report.as_mut() else {
            continue;
        };
        stopped = stopped.or(r.stopped);
        if r.bounds.len() != merged.len() {
            continue;
        }
        for (m, b) in merged.iter_mut().zip(std::mem::take(&mut r.bounds)) {
            let before = (m.lower, m.upper);
            m.narrow(b).map_err(|e| {
                EngineError::Internal(format!(
                    "the {} engine, with the others: {e}",
                    planned.members[i].name()
                ))
            })?;
            if (m.lower, m.upper) != before {
                count[i] += 1;
            }
        }
    }
    let best = (0..count.len())
        .filter(|&i| count[i] > 0)
        .max_by_key(|&i| count[i]);
    let complete = merged.iter().all(|b| b.value().is_some());
    let why = (!complete).then(|| stopped.unwrap_or(StopReason::Cancelled));
    let mut out = Report::of_bounds("auto", merged, why, stats, Settings::default());
    out.answered_by = best.map(|i| planned.members[i].name());
    Ok(out)
}

/// Statistics of an engine that never returned.
fn empty_stats(started: Instant) -> Stats {
    Stats::new(
        Counters::of(&PortfolioCounters { engines_started: 1 }),
        started.elapsed().as_secs_f64(),
    )
}

/// The portfolio's own counters: each engine's are in its own entry of the report.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct PortfolioCounters {
    /// Engines started.
    pub engines_started: u64,
}

#[cfg(all(test, feature = "lp"))]
mod tests {
    use super::*;
    use crate::check::schedule::Member;
    use crate::check::{CheckOptions, EngineChoice, EngineName, PortfolioChoice};
    use crate::engine::Silent;
    use crate::structural::{disconnect_implicit_places, Keep};
    use crate::system::net::Net;

    /// A member on the refined net finds the deadlock there; the portfolio describes its
    /// state on the given net, where the implicit place still holds a token.
    #[test]
    fn a_member_on_the_refined_net_reports_states_of_the_given_one() {
        // t takes a and c: c holds one token more than a, always, so it is implicit.
        let (mut net, [a, b, c]) = Net::with_places([("a", 1), ("b", 0), ("c", 2)]);
        let t = net.add_transition("t", None);
        net.add_pre(t, a, 1);
        net.add_pre(t, c, 1);
        net.add_post(t, b, 1);
        let model = Arc::new(Model::Net(net.clone()));
        let opts = CheckOptions {
            engine: EngineChoice::Auto(PortfolioChoice::default()),
            ..CheckOptions::default()
        };
        let planned = Planned {
            members: vec![Member {
                choice: EngineName::Explicit,
                options: opts.clone(),
                slice: None,
                refined: true,
                quick: false,
            }],
            jobs: 1,
            portfolio: true,
        };
        let refinement = Refinement {
            after: Duration::ZERO,
            wait: Duration::from_secs(60),
            work: Box::new(move |budget| {
                let disconnected = disconnect_implicit_places(&net, budget, &Keep::default());
                Refined {
                    model: Some(Arc::new(Model::Net(disconnected.net))),
                    removed: disconnected.removed,
                    seconds: disconnected.seconds,
                }
            }),
        };
        let report = run(&model, &opts, &planned, Aim::Every, Some(refinement), &mut Silent).unwrap();
        assert_eq!(report.verdict, Verdict::Deadlock);
        assert!(report.engines[0].refined);
        assert!(report.engines[0].start_seconds.is_some() && report.engines[0].end_seconds.is_some());
        let reduction = report.reduction.expect("the refinement's summary");
        assert_eq!(reduction.rules, [("implicit-place", 1)]);
        assert_eq!((reduction.places_before, reduction.places_after), (3, 2));
        // On the refined net c is empty; on the given one it keeps a token.
        assert_eq!(report.findings[0].state, "b, c");
    }
}
