//! Rendering of check reports: short human-readable text, and the
//! stable JSON documented in docs/output.md, derived from the report types.

use crate::engine::{
    BoundAnswer, EngineRun, Finding, FindingKind, GlobalAnswer, PropertyAnswer, Reached, ReductionSummary,
    Report, RunEnd, Settings, Stats, StopReason, Verdict, Witness,
};
use crate::qpor::{AltSetting, QporSettings};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;

/// How much of a report the text shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOptions {
    /// Show per-owner (per-process) traces and every dead state in full.
    pub detailed_witness: bool,
    /// Show every engine of a portfolio, the structural reduction and the notes; by
    /// default the report is the verdict, the findings and one line of statistics.
    pub verbose: bool,
}

/// The report as text for a terminal.
pub fn report_text(model: &str, report: &Report, opts: TextOptions) -> String {
    let mut s = String::new();
    let answered = report.properties.iter().filter(|p| p.value.is_some()).count();
    let properties = format!(
        "{answered} of {} answered",
        plural(report.properties.len(), "property", "properties")
    );
    let known = report.bounds.iter().filter(|b| b.value().is_some()).count();
    let bounds = format!(
        "{known} of {} known",
        plural(report.bounds.len(), "bound", "bounds")
    );
    let global = report.global.as_ref().map(|g| {
        let value = match g.value {
            Some(true) => "TRUE",
            Some(false) => "FALSE",
            None => "unknown",
        };
        format!("{} {value}", g.question)
    });
    let headline = match (report.verdict, &global) {
        (Verdict::Inconclusive | Verdict::Answered, Some(g)) => g.as_str(),
        (Verdict::Inconclusive | Verdict::Answered, None) if !report.bounds.is_empty() => &bounds,
        (Verdict::Deadlock, _) => "deadlock found",
        (Verdict::NoDeadlock, _) => "no deadlock",
        (Verdict::Fault, _) => "fault found",
        (Verdict::Inconclusive, _) if report.properties.is_empty() => "inconclusive",
        (Verdict::Inconclusive | Verdict::Answered, _) => &properties,
    };
    let _ = writeln!(s, "{model}: {headline}");
    if let Some(by) = report.answered_by.filter(|_| opts.verbose) {
        let _ = writeln!(s, "  answered by: {by}");
    }
    if let Some(why) = &report.stopped {
        let incomplete = if report.verdict == Verdict::Inconclusive {
            ""
        } else {
            " (the findings below may not be all)"
        };
        let _ = writeln!(s, "  stopped: {why}{incomplete}");
    }
    match &report.global {
        Some(g) => write_global(&mut s, g, report.properties.len(), opts),
        None => write_properties(&mut s, report, opts),
    }
    write_bounds(&mut s, report, opts);
    let bad: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.kind != FindingKind::Termination)
        .collect();
    let several = bad.len() > 1;
    for (i, f) in bad.iter().enumerate() {
        if several {
            let _ = writeln!(s, "{} {} of {}:", f.kind.name(), i + 1, bad.len());
        }
        if let Some(m) = &f.message {
            let _ = writeln!(s, "  fault: {m}");
        }
        let _ = writeln!(s, "  state: {}", f.state);
        write_witness(&mut s, f, opts);
    }
    for note in &report.notes {
        let _ = writeln!(s, "  note: {note}");
    }
    let terminations = report.findings_of(FindingKind::Termination).count();
    if terminations > 0 {
        let _ = writeln!(
            s,
            "  {}",
            plural(
                terminations,
                "terminal state (every process finished)",
                "terminal states (every process finished)"
            )
        );
    }
    if !opts.verbose {
        let _ = writeln!(s, "  {}", summary_line(report));
        return s;
    }
    if let Some(u) = report.settings.get_str("unfolding") {
        let _ = writeln!(s, "  unfolding: {u}");
    }
    if let Some(note) = schedule_note(&report.settings) {
        let _ = writeln!(s, "  {note}");
    }
    if let Some(r) = &report.reduction {
        let _ = writeln!(s, "  reduced: {}", reduction_text(r));
    }
    if report.engines.is_empty() {
        let _ = writeln!(s, "  {}", stats_text(report.engine, &report.stats));
    } else {
        let _ = writeln!(s, "  portfolio: {}", counts_text(&report.stats));
    }
    for run in &report.engines {
        let _ = writeln!(s, "    {}", run_text(run));
    }
    s
}

/// The default report's one line of statistics: which engine answered, what it counted,
/// and the run's time and memory. `answered by walk: 1 walk, 5 steps; 0.095 s, 73.6 MB peak`.
fn summary_line(report: &Report) -> String {
    let total = time_and_memory(&report.stats);
    if report.engines.is_empty() {
        // A single engine's own setting that changes what its counts mean.
        let unfolding = report
            .settings
            .get_str("unfolding")
            .map_or_else(String::new, |u| format!(" ({u} unfolding)"));
        return format!(
            "{} engine{unfolding}: {}",
            report.engine,
            counts_text(&report.stats)
        );
    }
    let answered = report
        .engines
        .iter()
        .find(|r| r.ended == RunEnd::Answered)
        .and_then(|r| Some((r.engine, r.stats.as_ref()?)));
    match answered {
        Some((engine, stats)) => {
            let counts = counters_text(stats);
            if counts.is_empty() {
                format!("answered by {engine}; {total}")
            } else {
                format!("answered by {engine}: {counts}; {total}")
            }
        }
        None => {
            let started = report
                .engines
                .iter()
                .filter(|r| r.ended != RunEnd::NotStarted)
                .count();
            format!("no engine answered ({} started; -v lists them); {total}", started)
        }
    }
}

/// `0.095 s, 73.6 MB peak`.
fn time_and_memory(stats: &Stats) -> String {
    let mut s = format!("{:.3} s", stats.seconds);
    if stats.peak_rss_bytes > 0 {
        let _ = write!(s, ", {:.1} MB peak", stats.peak_rss_bytes as f64 / 1e6);
    }
    s
}

/// `n thing` or `n things`.
fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Why the SSB count of a split run with k-partial or SDPOR alternatives differs from
/// that of a run on one thread: the split explores another tree (the classes of
/// conflicting events as tasks, src/qpor/driver.rs), whose sleep-set-blocked leaves
/// depend on the order D grew in. Split at fixed nodes, the count is the same on any
/// number of workers; the maximal configurations and deadlocks are always the one-thread
/// run's.
fn schedule_note(settings: &Settings) -> Option<String> {
    let qpor = settings.typed::<QporSettings>()?;
    if qpor.k? == AltSetting::Named("optimal".to_string()) {
        return None;
    }
    Some(match qpor.splits?.as_str() {
        "fixed" => "note: the work was split into tasks at nodes fixed by the model: every count is the same on any number of threads, and the SSBs are those of the tasks' tree (--single-tree: Algorithm 1's single tree, on one thread)".to_string(),
        _ => "note: the work was split where workers were idle: the SSB count depends on the schedule (the maximal configurations and deadlocks do not)".to_string(),
    })
}

/// `120 → 14 places, 96 → 9 transitions (post-agglomeration 40, …), 0.002 s`.
pub fn reduction_text(r: &ReductionSummary) -> String {
    let mut s = format!(
        "{} → {} places, {} → {} transitions",
        r.places_before, r.places_after, r.transitions_before, r.transitions_after
    );
    if !r.rules.is_empty() {
        let rules: Vec<String> = r.rules.iter().map(|(name, n)| format!("{name} {n}")).collect();
        let _ = write!(s, " ({})", rules.join(", "));
    }
    let _ = write!(s, ", {:.3} s", r.seconds);
    if let Some(beside) = r.beside_seconds {
        let _ = write!(s, ", {beside:.3} s beside the engines");
    }
    s
}

/// One engine of a portfolio: `qpor: cancelled, 1204 events, 0.2 s`.
fn run_text(run: &EngineRun) -> String {
    let mut head = run.ended.name().to_string();
    if let Some(v) = run
        .verdict
        .filter(|v| !matches!(v, Verdict::Inconclusive | Verdict::Answered))
    {
        let _ = write!(head, " ({})", v.name());
    }
    if let Some(why) = run.stopped.filter(|_| run.ended == RunEnd::Inconclusive) {
        let _ = write!(head, " ({why})");
    }
    if let Some(e) = &run.error {
        let _ = write!(head, ": {e}");
    }
    match &run.stats {
        Some(stats) => format!("{}: {head}, {}", run.engine, counts_text(stats)),
        None => format!("{}: {head}", run.engine),
    }
}

/// The answer to a question about the whole net: why, with the witness when a marking
/// decided it; the per-transition or per-place properties it was asked through are in
/// the JSON only (`count` of them).
fn write_global(s: &mut String, g: &GlobalAnswer, count: usize, opts: TextOptions) {
    if !g.reason.is_empty() {
        let by = g.decided_by.map(|b| format!(" ({b})")).unwrap_or_default();
        let _ = writeln!(s, "  why: {}{by}", g.reason);
    }
    if g.value.is_none() && count > 0 {
        let _ = writeln!(
            s,
            "  asked as {} (see --json)",
            plural(count, "property", "properties")
        );
    }
    if let Some(r) = &g.reached {
        write_reached(s, r, opts);
    }
}

/// Each bound: its value when known, else what is known of it, with the witness of the
/// largest sum reached.
fn write_bounds(s: &mut String, report: &Report, opts: TextOptions) {
    for b in &report.bounds {
        match (b.value(), b.upper) {
            (Some(v), _) => {
                let _ = writeln!(s, "  {}: {v}", b.id);
            }
            (None, Some(u)) => {
                let _ = writeln!(s, "  {}: between {} and {u}", b.id, b.lower);
            }
            (None, None) => {
                let _ = writeln!(s, "  {}: at least {} (no upper bound proved)", b.id, b.lower);
            }
        }
        if let Some(r) = &b.reached {
            write_reached(s, r, opts);
        }
    }
}

/// Steps of a reached marking's witness the text shows without `-v`: a walk's witness
/// can be hundreds of thousands of steps long.
const SHOWN_STEPS: usize = 64;

/// A reached marking and its witness (its first [`SHOWN_STEPS`] steps unless verbose; the
/// JSON report holds every step).
fn write_reached(s: &mut String, r: &Reached, opts: TextOptions) {
    if !r.state_text.is_empty() {
        let _ = writeln!(s, "    marking: {}", r.state_text);
    }
    let n = r.witness.steps.len();
    if n == 0 {
        let _ = writeln!(s, "    witness: the initial marking");
        return;
    }
    let shown = if opts.verbose { n } else { n.min(SHOWN_STEPS) };
    let steps: Vec<String> = r.witness.steps[..shown].iter().map(|st| st.shown()).collect();
    let more = match n - shown {
        0 => String::new(),
        rest => format!(
            " … ({} more; -v or --json shows them)",
            plural(rest, "step", "steps")
        ),
    };
    let _ = writeln!(
        s,
        "    witness ({}): {}{more}",
        plural(n, "step", "steps"),
        steps.join(" ")
    );
}

/// Each property's answer, and the witness of those a reached marking decided.
fn write_properties(s: &mut String, report: &Report, opts: TextOptions) {
    for p in &report.properties {
        let value = match p.value {
            Some(true) => "TRUE",
            Some(false) => "FALSE",
            None => "unknown",
        };
        let _ = writeln!(s, "  {}: {value}", p.id);
        if let Some(r) = &p.reached {
            write_reached(s, r, opts);
        }
    }
}

fn write_witness(s: &mut String, f: &Finding, opts: TextOptions) {
    let w = &f.witness;
    if w.steps.is_empty() {
        let _ = writeln!(s, "  witness: the initial state");
        return;
    }
    let _ = writeln!(s, "  witness ({}):", plural(w.steps.len(), "step", "steps"));
    if let Some(initial) = f.states.first() {
        let _ = writeln!(s, "           {initial}");
    }
    for (i, step) in w.steps.iter().enumerate() {
        match &step.owner {
            Some(o) => {
                let _ = writeln!(s, "    {:>3}. {o}: {}", i + 1, step.shown());
            }
            None => {
                let _ = writeln!(s, "    {:>3}. {}", i + 1, step.shown());
            }
        }
        if let Some(state) = f.states.get(i + 1) {
            let _ = writeln!(s, "         -> {state}");
        }
    }
    if opts.detailed_witness && w.has_owners() {
        let mut owners: Vec<&str> = Vec::new();
        for st in &w.steps {
            let o = st.owner.as_deref().unwrap_or("-");
            if !owners.contains(&o) {
                owners.push(o);
            }
        }
        let _ = writeln!(s, "  per process:");
        for o in owners {
            let trace: Vec<&str> = w
                .steps
                .iter()
                .filter(|st| st.owner.as_deref().unwrap_or("-") == o)
                .map(|st| &*st.action)
                .collect();
            let _ = writeln!(s, "    {o}: {}", trace.join("; "));
        }
    }
}

/// One line of statistics: `explicit engine: 243 states, 1204 edges, 0.002 s, 3.1 MB`.
pub fn stats_text(engine: &str, stats: &Stats) -> String {
    format!("{engine} engine: {}", counts_text(stats))
}

/// The counters, time and memory of `stats`: `243 states, 1204 edges, 0.002 s, 3.1 MB`.
fn counts_text(stats: &Stats) -> String {
    let counts = counters_text(stats);
    if counts.is_empty() {
        time_and_memory(stats)
    } else {
        format!("{counts}, {}", time_and_memory(stats))
    }
}

/// The counters of `stats`: `243 states, 1204 edges`.
fn counters_text(stats: &Stats) -> String {
    let parts: Vec<String> = stats
        .counters
        .list()
        .into_iter()
        .map(|(name, v)| {
            let name = name.replace('_', " ");
            // `1 walk`, `1 dead state`: the counters are named in the plural.
            match name.strip_suffix('s').filter(|n| v == 1 && !n.ends_with('s')) {
                Some(one) => format!("1 {one}"),
                None => format!("{v} {name}"),
            }
        })
        .collect();
    parts.join(", ")
}

/// The JSON form of a report: the model's name and the first witness beside the report's
/// own fields.
#[derive(Serialize)]
struct ReportJson<'r> {
    model: &'r str,
    verdict: Verdict,
    engine: &'static str,
    #[serde(flatten)]
    settings: &'r Settings,
    /// `null` when there is no deadlock or fault, as in the witness file.
    witness: Option<&'r Witness>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<StopReason>,
    findings: &'r [Finding],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    properties: &'r [PropertyAnswer],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    bounds: &'r [BoundAnswer],
    #[serde(skip_serializing_if = "Option::is_none")]
    global: Option<&'r GlobalAnswer>,
    stats: &'r Stats,
    #[serde(skip_serializing_if = "Option::is_none")]
    answered_by: Option<&'static str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    engines: &'r [EngineRun],
    #[serde(skip_serializing_if = "Option::is_none")]
    reduction: Option<&'r ReductionSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reduce_seconds: Option<f64>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    notes: &'r [String],
}

/// The report as the documented JSON object.
pub fn report_json(model: &str, report: &Report) -> Value {
    serde_json::to_value(report_view(model, report))
        .expect("[qpor internal bug] a report does not serialise to JSON")
}

/// Writes the report's JSON object (as [`report_json`] gives it) to `out` as it is
/// serialised: with `--all` a report can hold tens of thousands of witnesses, and building
/// the whole value first took five times the exploration's memory (MPC(4,5): 787 MB against
/// 147 MB).
pub fn write_report_json<W: std::io::Write>(out: W, model: &str, report: &Report) -> std::io::Result<()> {
    serde_json::to_writer(out, &report_view(model, report)).map_err(std::io::Error::from)
}

fn report_view<'r>(model: &'r str, report: &'r Report) -> ReportJson<'r> {
    ReportJson {
        model,
        verdict: report.verdict,
        engine: report.engine,
        settings: &report.settings,
        witness: report.witness(),
        stopped: report.stopped,
        findings: &report.findings,
        properties: &report.properties,
        bounds: &report.bounds,
        global: report.global.as_ref(),
        stats: &report.stats,
        answered_by: report.answered_by,
        engines: &report.engines,
        reduction: report.reduction.as_ref(),
        read_seconds: report.read_seconds,
        reduce_seconds: report.reduce_seconds,
        notes: &report.notes,
    }
}

/// The first deadlock's (or fault's) witness as a JSON object (`--witness-file`): the
/// model, the verdict and the finding's fields; `"witness": null` when there is none.
pub fn witness_json(model: &str, report: &Report) -> Value {
    let first = report
        .findings
        .iter()
        .find(|f| f.kind != FindingKind::Termination);
    let mut out = match first {
        Some(f) => serde_json::to_value(f).expect("[qpor internal bug] a finding does not serialise to JSON"),
        None => serde_json::json!({ "witness": null }),
    };
    if let Value::Object(m) = &mut out {
        m.insert("model".into(), model.into());
        m.insert("verdict".into(), report.verdict.name().into());
    }
    out
}
