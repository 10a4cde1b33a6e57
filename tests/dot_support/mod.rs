//! Shared helpers of the `dot_*` tests: running `qpor` and Graphviz, reading back the DOT
//! qpor writes, and building [`Prefix`] values to draw.
//!
//! The prefixes are made here, by a deliberately naive search, so that the renderers can be
//! tested on real shapes (conflicts, concurrency, cutoffs, owners) of every shipped model
//! while the real prefix builder is written elsewhere. They are valid occurrence nets —
//! prefix-closed, causes before effects — but not necessarily *complete* prefixes.

#![allow(dead_code)]

use qpor::net::Net;
use qpor::unfolding::prefix::{Condition, Prefix, PrefixEvent};
use qpor::Model;
use qpor::{load, LoadOptions};
use qpor::{CompId, Local, System};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

#[path = "../cli_support/mod.rs"]
mod cli_support;
pub use cli_support::{qpor, qpor_line};

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether Graphviz's `dot` is installed (`.ci/run` installs it).
pub fn have_dot() -> bool {
    Command::new("dot").arg("-V").output().is_ok()
}

/// Runs `dot -Tsvg` on `input` (written from a thread of its own, so that a large input
/// cannot block on a full output pipe) and returns what it printed. Panics, with the
/// install hint, when Graphviz is missing.
fn run_dot(input: String) -> Output {
    assert!(
        have_dot(),
        "Graphviz `dot` is needed by this test (apt-get install graphviz)"
    );
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dot runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

/// Lays `dot_text` out with `dot -Tsvg`; panics unless it exits 0 with an empty stderr.
/// Returns the SVG.
pub fn assert_renders(what: &str, dot_text: &str) -> String {
    let out = run_dot(dot_text.to_string());
    assert!(
        out.status.success(),
        "{what}: dot failed: {}\n{dot_text}",
        text(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{what}: dot warned: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Lays out many DOT texts (what, text) with as few `dot` processes as possible — one per
/// core, each reading several graphs, since starting `dot` costs more than laying out a
/// small graph — and panics unless every graph renders with an empty stderr. On a failure
/// the guilty graph is found by laying each out alone.
pub fn assert_all_render(items: &[(String, String)]) {
    let halves: Vec<&[(String, String)]> = items.chunks(items.len().div_ceil(2).max(1)).collect();
    par_for_each(&halves, |batch| {
        let out = run_dot(batch.iter().map(|(_, t)| t.as_str()).collect());
        let svgs = text(&out.stdout).matches("</svg>").count();
        if !out.status.success() || !out.stderr.is_empty() || svgs != batch.len() {
            for (what, t) in batch.iter() {
                assert_renders(what, t);
            }
            panic!("dot failed on the batch: {}", text(&out.stderr));
        }
    });
}

/// Loads a model with `-D` definitions.
pub fn load_model(path: &str, defines: &[(&str, i64)]) -> Model {
    let opts = LoadOptions {
        defines: defines.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..LoadOptions::default()
    };
    load(Path::new(path), &opts)
        .unwrap_or_else(|e| panic!("{e}"))
        .model
}

// ---------------------------------------------------------------------------------------
// Reading back DOT.

/// An edge statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub attrs: Vec<(String, String)>,
}

impl Edge {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The nodes (with their attributes, first definition) and edges of a DOT text as qpor
/// writes it: one statement per line, every id and value quoted.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<(String, Vec<(String, String)>)>,
    pub edges: Vec<Edge>,
    pub clusters: Vec<String>,
}

impl Graph {
    pub fn node_ids_with_prefix(&self, prefix: &str) -> Vec<&str> {
        self.nodes
            .iter()
            .map(|(id, _)| id.as_str())
            .filter(|id| {
                id.strip_prefix(prefix)
                    .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
            })
            .collect()
    }

    pub fn node_attr(&self, id: &str, name: &str) -> Option<&str> {
        self.nodes
            .iter()
            .find(|(n, _)| n == id)
            .and_then(|(_, a)| a.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()))
    }

    pub fn has_node(&self, id: &str) -> bool {
        self.nodes.iter().any(|(n, _)| n == id)
    }
}

/// Reads a quoted DOT string at the start of `s`: (unescaped content, rest). Only `\"` is
/// unescaped, as the DOT parser does; other backslashes stay.
fn quoted(s: &str) -> Option<(String, &str)> {
    let s = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, n) = chars.next()?;
                if n != '"' {
                    out.push('\\');
                }
                out.push(n);
            }
            '"' => return Some((out, &s[i + 1..])),
            c => out.push(c),
        }
    }
    None
}

fn attr_list(mut s: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    s = s.trim_start();
    let Some(rest) = s.strip_prefix('[') else {
        return attrs;
    };
    s = rest;
    loop {
        s = s.trim_start_matches([' ', ',']);
        if s.starts_with(']') || s.is_empty() {
            return attrs;
        }
        let eq = s.find('=').expect("attribute has a value");
        let key = s[..eq].trim().to_string();
        let (value, rest) = quoted(&s[eq + 1..]).expect("quoted attribute value");
        attrs.push((key, value));
        s = rest;
    }
}

pub fn parse_dot(dot_text: &str) -> Graph {
    let mut g = Graph::default();
    let mut seen = HashSet::new();
    for line in dot_text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("subgraph ") {
            if let Some((name, _)) = quoted(rest) {
                if name.starts_with("cluster") {
                    g.clusters.push(name);
                }
            }
            continue;
        }
        let Some((first, rest)) = quoted(line) else {
            continue;
        };
        if let Some(after) = rest.strip_prefix(" -> ") {
            let (to, rest) = quoted(after).expect("edge target");
            g.edges.push(Edge {
                from: first,
                to,
                attrs: attr_list(rest),
            });
        } else if seen.insert(first.clone()) {
            g.nodes.push((first, attr_list(rest)));
        }
    }
    g
}

// ---------------------------------------------------------------------------------------
// Prefixes to draw.

/// The places of a marking of conditions, as a sorted multiset.
fn marking_of(p: &Prefix, cut: &[u32]) -> Vec<u32> {
    let mut m: Vec<u32> = cut.iter().map(|&c| p.conditions[c as usize].place).collect();
    m.sort_unstable();
    m
}

/// The events of [e], sorted.
fn local_configuration(p: &Prefix, e: u32) -> Vec<u32> {
    let mut seen = HashSet::new();
    let mut stack = vec![e];
    seen.insert(e);
    while let Some(x) = stack.pop() {
        for &c in &p.events[x as usize].preset {
            if let Some(q) = p.conditions[c as usize].producer {
                if seen.insert(q) {
                    stack.push(q);
                }
            }
        }
    }
    let mut v: Vec<u32> = seen.into_iter().collect();
    v.sort_unstable();
    v
}

/// Where the event of `action` on `preset` stands in a prefix being built.
enum Slot {
    /// It is there already, with this id.
    Known(u32),
    /// It is not, and gets this id when added.
    New(u32),
    /// It is not, and the prefix has no room for it.
    Full,
}

/// Finds the slot of the event of `action` on `preset` in `p`, whose events are indexed
/// by action and preset in `index`; at most `max_events` events.
fn slot(
    p: &Prefix,
    index: &HashMap<(u32, Vec<u32>), u32>,
    action: u32,
    preset: &[u32],
    max_events: usize,
) -> Slot {
    match index.get(&(action, preset.to_vec())) {
        Some(&e) => Slot::Known(e),
        None if p.events.len() >= max_events => Slot::Full,
        None => Slot::New(p.events.len() as u32),
    }
}

fn produced_by_cutoff(p: &Prefix, preset: &[u32]) -> bool {
    preset.iter().any(|&c| {
        p.conditions[c as usize]
            .producer
            .is_some_and(|q| p.events[q as usize].cutoff.is_some())
    })
}

/// A branching process of `net` with one condition per token (the general backend's
/// shape), found by a depth-first search over its cuts: at most `max_events` events and
/// `max_cuts` cuts searched. A new event is a cutoff when an earlier event (or the empty
/// configuration) with a smaller local configuration has the same marking; cutoffs are
/// never extended. With several tokens on a place, only the lowest conditions are tried.
pub fn net_prefix(net: &Net, max_events: usize, max_cuts: usize) -> Prefix {
    let mut p = Prefix::default();
    for (i, pl) in net.places.iter().enumerate() {
        for _ in 0..pl.initial {
            p.conditions.push(Condition {
                label: pl.label().to_string(),
                place: i as u32,
                producer: None,
                local: 0,
            });
        }
    }
    let init: Vec<u32> = (0..p.conditions.len() as u32).collect();
    let mut reps: HashMap<Vec<u32>, (Option<u32>, usize)> = HashMap::new();
    reps.insert(marking_of(&p, &init), (None, 0));
    let mut index: HashMap<(u32, Vec<u32>), u32> = HashMap::new();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    seen.insert(init.clone());
    let mut stack = vec![init];
    while let Some(cut) = stack.pop() {
        for (ti, t) in net.transitions.iter().enumerate() {
            let mut preset: Vec<u32> = Vec::new();
            let mut ok = true;
            for (pl, w) in &t.pre {
                let got: Vec<u32> = cut
                    .iter()
                    .copied()
                    .filter(|&c| p.conditions[c as usize].place == pl.0)
                    .take(*w as usize)
                    .collect();
                ok &= got.len() == *w as usize;
                preset.extend(got);
            }
            for pl in &t.read {
                let got = cut
                    .iter()
                    .copied()
                    .find(|&c| p.conditions[c as usize].place == pl.0 && !preset.contains(&c));
                ok &= got.is_some();
                preset.extend(got);
            }
            if !ok {
                continue;
            }
            preset.sort_unstable();
            if produced_by_cutoff(&p, &preset) {
                continue;
            }
            let e = match slot(&p, &index, ti as u32, &preset, max_events) {
                Slot::Known(e) => e,
                Slot::Full => continue,
                Slot::New(e) => {
                    let mut postset = Vec::new();
                    let outs = t.post.iter().copied().chain(t.read.iter().map(|pl| (*pl, 1)));
                    for (pl, w) in outs {
                        for _ in 0..w {
                            postset.push(p.conditions.len() as u32);
                            p.conditions.push(Condition {
                                label: net.places[pl.index()].label().to_string(),
                                place: pl.0,
                                producer: Some(e),
                                local: 0,
                            });
                        }
                    }
                    p.events.push(PrefixEvent {
                        label: t.label().to_string(),
                        action: ti as u32,
                        preset: preset.clone(),
                        postset,
                        cutoff: None,
                        owner: None,
                    });
                    index.insert((ti as u32, preset.clone()), e);
                    let local = local_configuration(&p, e);
                    let consumed: HashSet<u32> = local
                        .iter()
                        .flat_map(|&x| p.events[x as usize].preset.iter().copied())
                        .collect();
                    let local_cut: Vec<u32> = p
                        .initial_conditions()
                        .chain(
                            local
                                .iter()
                                .flat_map(|&x| p.events[x as usize].postset.iter().copied()),
                        )
                        .filter(|c| !consumed.contains(c))
                        .collect();
                    let marking = marking_of(&p, &local_cut);
                    if let Some(corr) = cutoff_of(&mut reps, marking, e, local.len()) {
                        p.events[e as usize].cutoff = Some(corr);
                    }
                    e
                }
            };
            if p.events[e as usize].cutoff.is_some() {
                continue;
            }
            let next = p.events[e as usize].fire(&cut);
            if seen.len() < max_cuts && seen.insert(next.clone()) {
                stack.push(next);
            }
        }
    }
    p
}

/// A prefix of the program-like unfolding of `sys` (one condition per component and local
/// state, the program backend's shape), by the same search as [`net_prefix`]; the state of
/// a local configuration decides cutoffs. Events carry their owner's name.
pub fn system_prefix(sys: &dyn System, max_events: usize, max_cuts: usize) -> Prefix {
    let n = sys.num_components();
    let init = sys.initial_state();
    let mut p = Prefix::default();
    let mut cond_local: Vec<Local> = Vec::new();
    for (i, l) in init.iter().enumerate() {
        let c = CompId(i as u32);
        p.conditions.push(Condition {
            label: format!("{}={}", sys.component_name(c), sys.local_name(c, *l)),
            place: i as u32,
            producer: None,
            local: 0,
        });
        cond_local.push(*l);
    }
    let mut reps: HashMap<Vec<Local>, (Option<u32>, usize)> = HashMap::new();
    reps.insert(init.clone(), (None, 0));
    let mut index: HashMap<(u32, Vec<u32>), u32> = HashMap::new();
    let init_cut: Vec<u32> = (0..n as u32).collect();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    seen.insert(init_cut.clone());
    let mut stack = vec![(init_cut, init.clone())];
    let mut steps = Vec::new();
    let mut next_state = Vec::new();
    while let Some((cut, state)) = stack.pop() {
        if qpor::find_fault(sys, &state).is_some() {
            continue;
        }
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        for step in &steps {
            let mut preset: Vec<u32> = step.touched.iter().map(|c| cut[c.index()]).collect();
            preset.sort_unstable();
            if produced_by_cutoff(&p, &preset) {
                continue;
            }
            assert!(sys.successor(&state, step, &mut next_state).unwrap());
            let e = match slot(&p, &index, step.action.0, &preset, max_events) {
                Slot::Known(e) => e,
                Slot::Full => continue,
                Slot::New(e) => {
                    let mut postset = Vec::new();
                    for c in &step.touched {
                        postset.push(p.conditions.len() as u32);
                        let l = next_state[c.index()];
                        p.conditions.push(Condition {
                            label: format!("{}={}", sys.component_name(*c), sys.local_name(*c, l)),
                            place: c.0,
                            producer: Some(e),
                            local: 0,
                        });
                        cond_local.push(l);
                    }
                    p.events.push(PrefixEvent {
                        label: sys.action_name(step.action),
                        action: step.action.0,
                        preset: preset.clone(),
                        postset,
                        cutoff: None,
                        owner: sys.action_owner(step.action).map(|o| sys.component_name(o)),
                    });
                    index.insert((step.action.0, preset.clone()), e);
                    let local = local_configuration(&p, e);
                    let mut local_state = init.clone();
                    for &x in &local {
                        for &c in &p.events[x as usize].postset {
                            local_state[p.conditions[c as usize].place as usize] = cond_local[c as usize];
                        }
                    }
                    if let Some(corr) = cutoff_of(&mut reps, local_state, e, local.len()) {
                        p.events[e as usize].cutoff = Some(corr);
                    }
                    e
                }
            };
            if p.events[e as usize].cutoff.is_some() {
                continue;
            }
            let mut next = cut.clone();
            for &c in &p.events[e as usize].postset {
                next[p.conditions[c as usize].place as usize] = c;
            }
            if seen.len() < max_cuts && seen.insert(next.clone()) {
                stack.push((next, next_state.clone()));
            }
        }
    }
    p
}

/// A prefix of any shipped model: token-style for nets, component-style for programs.
pub fn model_prefix(model: &Model, max_events: usize) -> Prefix {
    match model {
        Model::Net(n) => net_prefix(n, max_events, 2_000),
        Model::Program(_) => {
            let sys = model.system(&Default::default()).unwrap();
            system_prefix(&*sys, max_events, 2_000)
        }
    }
}

/// Checks the shape invariants of `qpor::unfolding::prefix` on a prefix made here.
pub fn assert_well_formed(p: &Prefix) {
    for (i, e) in p.events.iter().enumerate() {
        assert!(e.preset.windows(2).all(|w| w[0] < w[1]), "e{i}: preset sorted");
        for &c in &e.preset {
            if let Some(q) = p.conditions[c as usize].producer {
                assert!((q as usize) < i, "e{i}: causes first");
                assert!(
                    p.events[q as usize].cutoff.is_none(),
                    "e{i}: a cutoff was extended"
                );
            }
        }
        for &c in &e.postset {
            assert_eq!(p.conditions[c as usize].producer, Some(i as u32));
        }
    }
}

// ---------------------------------------------------------------------------------------
// The shipped models.

/// MCC nets on which a full QPOR exploration takes more than a second here: the `tree`
/// view tests leave them out (the other views draw them all).
pub const SLOW_FOR_QPOR: [&str; 7] = [
    "DLCround-PT-03a",
    "Dekker-PT-010",
    "Kanban-PT-00005",
    "Railroad-PT-005",
    "SwimmingPool-PT-01",
    "Raft-PT-02",
    "dph_5.fsa",
];

/// Every model of `models/` (nets, ll_net, mcc2023, proc), sorted by path.
pub fn model_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["models/nets", "models/ll_net", "models/mcc2023", "models/proc"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let p = path.to_str().unwrap().to_string();
            if p.ends_with(".pnml") || p.ends_with(".ll_net") || p.ends_with(".proc") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

pub fn is_slow_for_qpor(path: &str) -> bool {
    SLOW_FOR_QPOR.iter().any(|s| path.contains(s))
}

/// Runs `f` on every item on two threads (the machine has two cores), in order of the
/// items within each thread; panics if any call panicked.
pub fn par_for_each<T: Sync>(items: &[T], f: impl Fn(&T) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    f(item);
                })
            })
            .collect();
        for w in workers {
            w.join().expect("a worker panicked");
        }
    });
}

// ---------------------------------------------------------------------------------------
// The `qpor dot` command line.

/// Runs `qpor` and asserts it exits 0 with nothing on stderr; returns stdout as text.
pub fn qpor_ok(args: &[&str]) -> String {
    let out = qpor(args);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "qpor {}: status {:?}, stderr: {}",
        args.join(" "),
        out.status.code(),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// [`qpor_ok`] with the arguments of `line`, split at spaces (none of them holds one).
pub fn qpor_ok_line(line: &str) -> String {
    qpor_ok(&line.split(' ').collect::<Vec<_>>())
}

/// The numbers in `s`, in order (e.g. of a title or a note).
pub fn numbers_in(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// The graph-level `label` (the title) of a DOT text as qpor writes it: the first
/// `graph [...]` statement.
pub fn graph_label(dot_text: &str) -> String {
    let line = dot_text
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("graph ["))
        .expect("a graph defaults statement");
    let start = line.find("label=").expect("a title") + "label=".len();
    let mut s = &line[start..];
    let mut out = String::new();
    s = s.strip_prefix('"').expect("quoted title");
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let n = chars.next().expect("escaped character");
                if n != '"' {
                    out.push('\\');
                }
                out.push(n);
            }
            '"' => break,
            c => out.push(c),
        }
    }
    out
}

/// McMillan's cutoff rule in the reference builders: `e`, whose local configuration has
/// `size` events and reaches `state`, is a cutoff of the first event that reached the same
/// state with a smaller local configuration (returned: that event, `None` for ⊥); the first
/// event to reach a state represents it.
fn cutoff_of<K: std::hash::Hash + Eq>(
    reps: &mut HashMap<K, (Option<u32>, usize)>,
    state: K,
    e: u32,
    size: usize,
) -> Option<Option<u32>> {
    match reps.get(&state) {
        Some(&(corr, smaller)) if smaller < size => Some(corr),
        Some(_) => None,
        None => {
            reps.insert(state, (Some(e), size));
            None
        }
    }
}
