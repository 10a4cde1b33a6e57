//! Rendering of check reports and model information: short human-readable text, and the
//! stable JSON documented in the README ("JSON output"), derived from the report types.

use crate::engine::{Finding, FindingKind, Report, Settings, Stats, Verdict, Witness};
use crate::system::invariants::Safeness;
use crate::system::model::ModelInfo;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// How much of a report the text shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOptions {
    /// Show per-owner (per-process) traces and every dead state in full.
    pub detailed_witness: bool,
}

/// The report as text for a terminal.
pub fn report_text(model: &str, report: &Report, opts: TextOptions) -> String {
    let mut s = String::new();
    let headline = match report.verdict {
        Verdict::Deadlock => "deadlock found",
        Verdict::NoDeadlock => "no deadlock",
        Verdict::Fault => "fault found",
        Verdict::Inconclusive => "inconclusive",
    };
    let _ = writeln!(s, "{model}: {headline}");
    if let Some(why) = &report.stopped {
        let incomplete = if report.verdict == Verdict::Inconclusive {
            ""
        } else {
            " (the findings below may not be all)"
        };
        let _ = writeln!(s, "  stopped: {why}{incomplete}");
    }
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
        write_witness(&mut s, &f.witness, opts);
    }
    let terminations = report.findings_of(FindingKind::Termination).count();
    if terminations > 0 {
        let _ = writeln!(s, "  {terminations} terminal state(s) (every process finished)");
    }
    if let Some(u) = report.settings.unfolding {
        let _ = writeln!(s, "  unfolding: {u}");
    }
    let _ = writeln!(s, "  {}", stats_text(report.engine, &report.stats));
    s
}

fn write_witness(s: &mut String, w: &Witness, opts: TextOptions) {
    if w.steps.is_empty() {
        let _ = writeln!(s, "  witness: the initial state");
        return;
    }
    let _ = writeln!(s, "  witness ({} steps):", w.steps.len());
    for (i, step) in w.steps.iter().enumerate() {
        match &step.owner {
            Some(o) => {
                let _ = writeln!(s, "    {:>3}. {o}: {}", i + 1, step.action);
            }
            None => {
                let _ = writeln!(s, "    {:>3}. {}", i + 1, step.action);
            }
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
    let mut parts: Vec<String> = stats
        .counters
        .list()
        .into_iter()
        .map(|(name, v)| format!("{v} {}", name.replace('_', " ")))
        .collect();
    parts.push(format!("{:.3} s", stats.seconds));
    if stats.peak_rss_bytes > 0 {
        parts.push(format!("{:.1} MB peak", stats.peak_rss_bytes as f64 / 1e6));
    }
    format!("{engine} engine: {}", parts.join(", "))
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
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<&'r Witness>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<String>,
    findings: &'r [Finding],
    stats: &'r Stats,
}

/// The report as the documented JSON object.
pub fn report_json(model: &str, report: &Report) -> Value {
    let view = ReportJson {
        model,
        verdict: report.verdict,
        engine: report.engine,
        settings: &report.settings,
        witness: report.witness(),
        stopped: report.stopped.map(|r| r.to_string()),
        findings: &report.findings,
        stats: &report.stats,
    };
    serde_json::to_value(view).expect("[qpor internal bug] a report does not serialise to JSON")
}

/// Model information as text.
pub fn info_text(model: &str, info: &ModelInfo) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{model}: {}{}",
        info.kind,
        info.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default()
    );
    if let Some(n) = &info.net {
        let _ = writeln!(s, "  places: {}", n.places);
        let _ = writeln!(s, "  transitions: {}", n.transitions);
        let _ = writeln!(s, "  arcs: {} ({} read arcs)", n.arcs, n.read_arcs);
        let _ = writeln!(s, "  max arc weight: {}", n.max_weight);
        let _ = writeln!(
            s,
            "  initial marking 1-bounded: {}",
            if n.initially_one_bounded { "yes" } else { "no" }
        );
        let _ = writeln!(s, "  structurally safe: {}", safeness_text(&n.safeness));
        match (n.nupn_units, n.nupn_safe) {
            (Some(u), safe) => {
                let _ = writeln!(
                    s,
                    "  NUPN: {u} units{}",
                    if safe == Some(true) { ", declared safe" } else { "" }
                );
            }
            _ => {
                let _ = writeln!(s, "  NUPN: none");
            }
        }
    }
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for (k, _) in &info.components {
        match kinds.iter_mut().find(|(kk, _)| kk == k) {
            Some(e) => e.1 += 1,
            None => kinds.push((k, 1)),
        }
    }
    let summary: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let _ = writeln!(
        s,
        "  components: {} ({})",
        info.components.len(),
        summary.join(", ")
    );
    if info.kind == "program" {
        for (k, name) in &info.components {
            let _ = writeln!(s, "    {k} {name}");
        }
    }
    s
}

/// The safeness verdict of `qpor info` in words.
pub fn safeness_text(s: &Safeness) -> String {
    match s {
        Safeness::Invariants => "yes (every place is covered by a 1-token place invariant)".into(),
        Safeness::NupnUnits => "yes (NUPN units declared safe)".into(),
        Safeness::Unknown { unbounded, gave_up } => {
            if *gave_up {
                "not known (the place-invariant search gave up)".into()
            } else {
                format!("not known (no 1-token invariant covers {})", unbounded.join(", "))
            }
        }
    }
}

/// Model information as JSON.
pub fn info_json(model: &str, info: &ModelInfo) -> Value {
    let mut m = Map::new();
    m.insert("model".into(), json!(model));
    m.insert("kind".into(), json!(info.kind));
    m.insert("name".into(), json!(info.name));
    if let Some(n) = &info.net {
        m.insert("places".into(), json!(n.places));
        m.insert("transitions".into(), json!(n.transitions));
        m.insert("arcs".into(), json!(n.arcs));
        m.insert("read_arcs".into(), json!(n.read_arcs));
        m.insert("max_arc_weight".into(), json!(n.max_weight));
        m.insert("initially_one_bounded".into(), json!(n.initially_one_bounded));
        m.insert("nupn".into(), json!(n.nupn_units.is_some()));
        m.insert("nupn_units".into(), json!(n.nupn_units));
        m.insert("structurally_safe".into(), json!(n.safeness.is_safe()));
        m.insert("safeness".into(), json!(safeness_text(&n.safeness)));
    }
    m.insert(
        "components".into(),
        Value::Array(
            info.components
                .iter()
                .map(|(k, n)| json!({"kind": k, "name": n}))
                .collect(),
        ),
    );
    Value::Object(m)
}
