//! Rendering of `qpor info`: a model's sizes and structure as text and JSON.

use super::report::reduction_text;
use crate::engine::ReductionSummary;
use crate::system::invariants::Safeness;
use crate::system::model::ModelInfo;
use crate::system::program::Param;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;

/// Model information as text, with what the structural reductions made of a net.
pub fn info_text(model: &str, info: &ModelInfo, reduction: Option<&ReductionSummary>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{model}: {}{}",
        info.kind,
        info.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default()
    );
    if info.kind == "program" {
        let _ = writeln!(
            s,
            "  parameters (set with -D NAME=VALUE): {}",
            params_text(&info.params)
        );
    }
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
        if let Some(r) = reduction {
            let _ = writeln!(s, "  structural reductions: {}", reduction_text(r));
        }
    }
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for (k, _) in &info.components {
        match kinds.iter_mut().find(|(kk, _)| kk == k) {
            Some(e) => e.1 += 1,
            None => kinds.push((k, 1)),
        }
    }
    let summary: Vec<String> = kinds.iter().map(|(k, n)| kind_count(k, *n)).collect();
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
        if !info.guarded.is_empty() {
            let pairs: Vec<String> = info.guarded.iter().map(|(c, m)| format!("{c} by {m}")).collect();
            let _ = writeln!(
                s,
                "  guarded variables (their accesses are part of the lock step unless --every-access): {}",
                pairs.join(", ")
            );
        }
        if !info.exclusive.is_empty() {
            let _ = writeln!(
                s,
                "  exclusive variables (their accesses never race and are part of the step before them unless --every-access): {}",
                info.exclusive.join(", ")
            );
        }
    }
    s
}

/// A program's parameters in words: `N = 3, FAIR = true (-D; default false)`, or `none`.
fn params_text(params: &[Param]) -> String {
    if params.is_empty() {
        return "none".into();
    }
    let items: Vec<String> = params
        .iter()
        .map(|p| {
            let value = param_value(p, p.value);
            if p.set {
                format!("{} = {value} (-D; default {})", p.name, param_value(p, p.default))
            } else {
                format!("{} = {value}", p.name)
            }
        })
        .collect();
    items.join(", ")
}

/// A parameter's value as the program writes it: `true`/`false` for a bool.
fn param_value(p: &Param, v: i64) -> String {
    match (p.is_bool, v) {
        (true, 0) => "false".into(),
        (true, _) => "true".into(),
        (false, v) => v.to_string(),
    }
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

/// `qpor info --json`: the model information with the names docs/output.md documents.
#[derive(Serialize)]
struct InfoJson<'i> {
    model: &'i str,
    kind: &'static str,
    name: &'i Option<String>,
    #[serde(flatten)]
    net: Option<NetJson>,
    components: Vec<ComponentJson<'i>>,
    /// Programs only: the guarded cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    guarded: Option<Vec<GuardJson<'i>>>,
    /// Programs only: the exclusive variables.
    #[serde(skip_serializing_if = "Option::is_none")]
    exclusive: Option<&'i [String]>,
    /// Programs only: the `param`s in declaration order.
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<Vec<ParamJson<'i>>>,
}

/// A program parameter: `value` is what the run uses, `default` what the declaration
/// gives, `set` whether `-D` gave the value; values are JSON booleans for a bool parameter.
#[derive(Serialize)]
struct ParamJson<'i> {
    name: &'i str,
    #[serde(rename = "type")]
    ty: &'static str,
    value: Value,
    default: Value,
    set: bool,
}

#[derive(Serialize)]
struct GuardJson<'i> {
    variable: &'i str,
    mutex: &'i str,
}

#[derive(Serialize)]
struct NetJson {
    places: usize,
    transitions: usize,
    arcs: usize,
    read_arcs: usize,
    max_arc_weight: u32,
    initially_one_bounded: bool,
    nupn: bool,
    nupn_units: Option<usize>,
    structurally_safe: bool,
    safeness: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    reduction: Option<ReductionSummary>,
}

#[derive(Serialize)]
struct ComponentJson<'i> {
    kind: &'static str,
    name: &'i str,
}

/// Model information as JSON, with what the structural reductions made of a net.
pub fn info_json(model: &str, info: &ModelInfo, reduction: Option<&ReductionSummary>) -> Value {
    let view = InfoJson {
        model,
        kind: info.kind,
        name: &info.name,
        net: info.net.as_ref().map(|n| NetJson {
            places: n.places,
            transitions: n.transitions,
            arcs: n.arcs,
            read_arcs: n.read_arcs,
            max_arc_weight: n.max_weight,
            initially_one_bounded: n.initially_one_bounded,
            nupn: n.nupn_units.is_some(),
            nupn_units: n.nupn_units,
            structurally_safe: n.safeness.is_safe(),
            safeness: safeness_text(&n.safeness),
            reduction: reduction.cloned(),
        }),
        components: info
            .components
            .iter()
            .map(|(kind, name)| ComponentJson { kind, name })
            .collect(),
        guarded: (info.kind == "program").then(|| {
            info.guarded
                .iter()
                .map(|(variable, mutex)| GuardJson { variable, mutex })
                .collect()
        }),
        exclusive: (info.kind == "program").then_some(info.exclusive.as_slice()),
        parameters: (info.kind == "program").then(|| {
            info.params
                .iter()
                .map(|p| {
                    let json = |v: i64| {
                        if p.is_bool {
                            Value::from(v != 0)
                        } else {
                            Value::from(v)
                        }
                    };
                    ParamJson {
                        name: &p.name,
                        ty: if p.is_bool { "bool" } else { "int" },
                        value: json(p.value),
                        default: json(p.default),
                        set: p.set,
                    }
                })
                .collect()
        }),
    };
    serde_json::to_value(view).expect("[qpor internal bug] model information does not serialise to JSON")
}

/// `1 place`, `39 places`, `2 processes`: a count of components of one kind.
fn kind_count(kind: &str, n: usize) -> String {
    match n {
        1 => format!("1 {kind}"),
        _ if kind.ends_with('s') || kind.ends_with('x') => format!("{n} {kind}es"),
        _ => format!("{n} {kind}s"),
    }
}
