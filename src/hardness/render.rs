//! Rendering of `qpor decide`'s answers: whether an alternative (or a t*-event) exists, the
//! witness, and the assignment read back from it, as text and JSON.

use super::instance::Instance;
use super::{AltAnswer, CexAnswer};
use serde_json::{json, Value};

/// `pos_1 (firing 1)`, or `initial`.
fn firing_text(c: &CexAnswer, k: Option<usize>) -> String {
    match k {
        Some(k) => format!("{} (firing {})", c.config[k], k + 1),
        None => "initial".into(),
    }
}

/// The answer of `qpor decide cex` as text.
pub fn cex_text(shown: &str, c: &CexAnswer) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{shown}: net instance (Theorem 4.3), |C| = {} firings, t* = {}, |U| = {} events",
        c.config.len(),
        c.target,
        c.events
    );
    let _ = writeln!(
        s,
        "{}-event in cex(C): {}",
        c.target,
        if c.exists { "yes" } else { "no" }
    );
    if let Some(w) = &c.witness {
        let _ = writeln!(s, "  co-set of the event ({} conditions):", w.coset.len());
        for x in &w.coset {
            let consumed = match x.consumer {
                Some(_) => format!("consumed in C by {}", firing_text(c, x.consumer)),
                None => "in the cut of C".into(),
            };
            let _ = writeln!(
                s,
                "    {} from {}, {consumed}",
                x.place,
                firing_text(c, x.producer)
            );
        }
        let firings = |v: &[usize]| -> String {
            let parts: Vec<String> = v.iter().map(|&k| firing_text(c, Some(k))).collect();
            if parts.is_empty() {
                "none".into()
            } else {
                parts.join(", ")
            }
        };
        let _ = writeln!(s, "  in conflict with: {}", firings(&w.conflicts));
        let _ = writeln!(s, "  causes in C: {}", firings(&w.causes));
    }
    if let Some(asg) = &c.assignment {
        let _ = writeln!(s, "  assignment: {}", assignment_text(asg));
    }
    let _ = writeln!(
        s,
        "  co-set search: {} pair tests, {:.3} s; C built in {:.3} s",
        c.search_nodes, c.cex_seconds, c.build_seconds
    );
    match &c.backend {
        Some(b) => {
            let _ = writeln!(
                s,
                "  general backend's cex(C): {} events, {} of them t*-events (agrees)",
                b.cex_events, b.target_events
            );
        }
        None => {
            let _ = writeln!(
                s,
                "  general backend's cex(C): not enumerated (over the --backend-limit)"
            );
        }
    }
    s
}

/// The answer of `qpor decide cex` as JSON.
pub fn cex_json(shown: &str, c: &CexAnswer) -> Value {
    let witness = c.witness.as_ref().map(|w| {
        json!({
            "coset": w.coset.iter().map(|x| json!({
                "place": x.place,
                "producer": x.producer,
                "consumer": x.consumer,
            })).collect::<Vec<_>>(),
            "causes": w.causes,
            "conflicts": w.conflicts,
        })
    });
    json!({
        "file": shown,
        "kind": "net",
        "question": "cex",
        "answer": if c.exists { "yes" } else { "no" },
        "config": c.config,
        "target": c.target,
        "witness": witness,
        "assignment": c.assignment.as_ref().map(|v| assignment_json(v)),
        "stats": {
            "events": c.events,
            "search_pair_tests": c.search_nodes,
            "backend_cex_events": c.backend.map(|b| b.cex_events),
            "backend_target_events": c.backend.map(|b| b.target_events),
            "build_seconds": c.build_seconds,
            "cex_seconds": c.cex_seconds,
        },
    })
}

fn theorem(inst: &Instance) -> &'static str {
    match inst {
        Instance::Pes(_) => "Theorem 4.1",
        Instance::Program(_) => "Theorem 4.2",
        Instance::Net(_) => "Theorem 4.3",
    }
}

fn assignment_json(a: &[Option<bool>]) -> Value {
    Value::Array(
        a.iter()
            .map(|v| v.map(|b| json!(b as u8)).unwrap_or(Value::Null))
            .collect(),
    )
}

/// `x1=0 x2=1 x3=*`.
fn assignment_text(a: &[Option<bool>]) -> String {
    if a.is_empty() {
        return "(no variables)".into();
    }
    let parts: Vec<String> = a
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Some(b) => format!("x{}={}", i + 1, *b as u8),
            None => format!("x{}=*", i + 1),
        })
        .collect();
    parts.join(" ")
}

fn event_text(e: &super::decide::WitnessEvent) -> String {
    match &e.label {
        Some(l) => format!("{} ({l})", e.name),
        None => e.name.clone(),
    }
}

/// The answer of `qpor decide alt` as text.
pub fn alt_text(shown: &str, inst: &Instance, a: &AltAnswer) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{shown}: {} instance ({}), |C| = {}, |D| = {}, |U| = {} events",
        inst.kind(),
        theorem(inst),
        a.config.len(),
        a.d.len(),
        a.events
    );
    if a.exists {
        let _ = writeln!(s, "alternative to D after C: yes");
        let _ = writeln!(s, "  J \\ C ({} events, causes first):", a.alternative.len());
        for e in &a.alternative {
            let _ = writeln!(s, "    {}", event_text(e));
        }
        if let Some(asg) = &a.assignment {
            let _ = writeln!(s, "  assignment: {}", assignment_text(asg));
        }
    } else {
        let _ = writeln!(s, "alternative to D after C: no");
    }
    let _ = writeln!(
        s,
        "  optimal comb: {} spikes, {} combinations tried, Alt {:.3} s, U built in {:.3} s",
        a.alt.max_spikes, a.alt.combinations_tried, a.alt_seconds, a.build_seconds
    );
    s
}

/// The answer of `qpor decide alt` as JSON.
pub fn alt_json(shown: &str, inst: &Instance, a: &AltAnswer) -> Value {
    let names =
        |v: &[super::decide::WitnessEvent]| -> Vec<String> { v.iter().map(|e| e.name.clone()).collect() };
    json!({
        "file": shown,
        "kind": inst.kind().name(),
        "question": "alt",
        "answer": if a.exists { "yes" } else { "no" },
        "config": names(&a.config),
        "d": names(&a.d),
        "alternative": if a.exists { json!(names(&a.alternative)) } else { Value::Null },
        "assignment": a.assignment.as_ref().map(|v| assignment_json(v)),
        "stats": {
            "events": a.events,
            "spikes": a.alt.max_spikes,
            "combinations_tried": a.alt.combinations_tried,
            "build_seconds": a.build_seconds,
            "alt_seconds": a.alt_seconds,
        },
    })
}
