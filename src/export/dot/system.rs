//! The `net` view of a program: the structure of its component system
//! (docs/design.md#component-systems).
//!
//! A program is interpreted lazily — its actions (resolved statements) exist only once a
//! state offering them is reached — so there is no static net to draw. Instead,
//! [`sketch_system`] explores the reachable global states breadth-first, up to a bound,
//! and collects every action it meets with the components it touches. [`write_system`]
//! draws that:
//! - each process instance is a cluster `cluster_k<c>` holding a node `k<c>` for the
//!   process itself (labelled with its initial local state) and one box `a<id>` per action
//!   it owns (its statements, in action-id order);
//! - every other component (mutex, semaphore, variable, or a place of a net) is a node
//!   `k<c>` outside the clusters, shaped by kind: mutexes hexagons, semaphores octagons,
//!   variables ellipses, places circles, with the initial local state on a second line;
//! - an action has one undirected edge to every component it touches other than its owner
//!   (the mutex it locks, the variables it reads or writes, the process it spawns, joins or
//!   meets on a channel).
//!
//! So the picture has one node per component and per action found, and
//! Σ (|touched(a)| − [owner(a) ∈ touched(a)]) edges. When the bound stops the
//! exploration, a note says that actions reached only later are missing.

use super::{common_defaults, plural, titled, DotOptions, DotWriter};
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use hashbrown::HashSet;
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};

/// A component as the picture shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SketchComponent {
    /// The component's name.
    pub name: String,
    /// Its kind (`process`, `mutex`, …).
    pub kind: &'static str,
    /// Its initial local state, in words.
    pub initial: String,
}

/// An action met while exploring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SketchAction {
    /// The action.
    pub id: ActionId,
    /// Its name.
    pub name: String,
    /// The component owning it (the process executing it), if any.
    pub owner: Option<CompId>,
    /// The components it touches, sorted.
    pub touched: Vec<CompId>,
}

/// What a bounded exploration of a system found: its components and the actions reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemSketch {
    /// The system's name (the model file), for the title.
    pub name: String,
    /// Every component, indexed by [`CompId`].
    pub components: Vec<SketchComponent>,
    /// The actions reached, sorted by id.
    pub actions: Vec<SketchAction>,
    /// Global states visited.
    pub states_explored: usize,
    /// Whether every reachable state was visited (so every action that can ever occur is
    /// listed).
    pub complete: bool,
}

/// Explores `sys` breadth-first from its initial state, visiting at most `max_states`
/// global states, and lists its components and the actions enabled in the states visited.
pub fn sketch_system<S: System + ?Sized>(
    sys: &S,
    name: &str,
    max_states: usize,
) -> Result<SystemSketch, ModelError> {
    let init = sys.initial_state();
    let components = (0..sys.num_components())
        .map(|i| {
            let c = CompId(i as u32);
            SketchComponent {
                name: sys.component_name(c),
                kind: sys.component_kind(c),
                initial: sys.local_name(c, init[i]),
            }
        })
        .collect();
    let mut seen: HashSet<Vec<Local>> = HashSet::new();
    let mut queue: VecDeque<Vec<Local>> = VecDeque::new();
    let mut actions: BTreeMap<ActionId, Step> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut next = Vec::new();
    let mut complete = true;
    seen.insert(init.clone());
    queue.push_back(init);
    let mut explored = 0usize;
    while let Some(state) = queue.pop_front() {
        explored += 1;
        if crate::system::find_fault(sys, &state).is_some() {
            continue;
        }
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        for step in &steps {
            actions.entry(step.action).or_insert_with(|| step.clone());
            if !sys.successor(&state, step, &mut next)? {
                continue;
            }
            if seen.contains(&next) {
                continue;
            }
            if seen.len() >= max_states {
                complete = false;
                continue;
            }
            seen.insert(next.clone());
            queue.push_back(next.clone());
        }
    }
    let actions = actions
        .into_values()
        .map(|s| SketchAction {
            id: s.action,
            name: sys.action_name(s.action),
            owner: sys.action_owner(s.action),
            touched: s.touched.to_vec(),
        })
        .collect();
    Ok(SystemSketch {
        name: name.to_string(),
        components,
        actions,
        states_explored: explored,
        complete,
    })
}

fn kind_plural(kind: &str) -> String {
    match kind {
        "process" => "processes".into(),
        "mutex" => "mutexes".into(),
        k => format!("{k}s"),
    }
}

fn component_shape(kind: &str) -> &'static str {
    match kind {
        "process" => "ellipse",
        "mutex" => "hexagon",
        "semaphore" => "octagon",
        "place" => "circle",
        "unit" => "doublecircle",
        _ => "ellipse",
    }
}

fn component_node<W: Write>(w: &mut DotWriter<W>, i: usize, c: &SketchComponent) -> io::Result<()> {
    let label = format!("{} {}\n{}", c.kind, c.name, c.initial);
    let style = if c.kind == "process" { "bold" } else { "solid" };
    w.node(
        &format!("k{i}"),
        &[
            ("shape", component_shape(c.kind)),
            ("style", style),
            ("label", &label),
        ],
    )
}

fn action_node<W: Write>(w: &mut DotWriter<W>, a: &SketchAction) -> io::Result<()> {
    w.node(&format!("a{}", a.id.0), &[("shape", "box"), ("label", &a.name)])
}

/// Writes the structure of a sketched system to `out`.
pub fn write_system<W: Write>(sketch: &SystemSketch, opts: &DotOptions, out: W) -> io::Result<W> {
    let drawn = opts.max_events.unwrap_or(usize::MAX).min(sketch.actions.len());
    let actions = &sketch.actions[..drawn];
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &sketch.components {
        *kinds.entry(c.kind).or_default() += 1;
    }
    let kinds_text: Vec<String> = kinds
        .iter()
        .map(|(k, n)| plural(*n, k, &kind_plural(k)))
        .collect();
    let title = titled(opts, {
        format!(
            "components: {}; {} found in {}{}",
            kinds_text.join(", "),
            plural(sketch.actions.len(), "action", "actions"),
            plural(sketch.states_explored, "state", "states"),
            if sketch.complete { " (all reachable)" } else { "" }
        )
    });
    let mut w = DotWriter::digraph(out, &sketch.name)?;
    common_defaults(&mut w, Some(&title), &[])?;
    let is_process = |c: CompId| {
        sketch
            .components
            .get(c.index())
            .is_some_and(|x| x.kind == "process")
    };
    let mut owned: Vec<Vec<&SketchAction>> = vec![Vec::new(); sketch.components.len()];
    let mut loose: Vec<&SketchAction> = Vec::new();
    for a in actions {
        match a.owner {
            Some(o) if is_process(o) => owned[o.index()].push(a),
            _ => loose.push(a),
        }
    }
    for (i, c) in sketch.components.iter().enumerate() {
        if c.kind != "process" {
            continue;
        }
        w.open_subgraph(&format!("cluster_k{i}"))?;
        w.attr("label", &c.name)?;
        w.attr("style", "rounded")?;
        w.attr("color", "gray55")?;
        component_node(&mut w, i, c)?;
        for a in &owned[i] {
            action_node(&mut w, a)?;
        }
        w.close()?;
    }
    for (i, c) in sketch.components.iter().enumerate() {
        if c.kind != "process" {
            component_node(&mut w, i, c)?;
        }
    }
    for a in &loose {
        action_node(&mut w, a)?;
    }
    for a in actions {
        for c in &a.touched {
            let inside = a.owner == Some(*c) && is_process(*c);
            if !inside {
                w.edge(&format!("a{}", a.id.0), &format!("k{}", c.0), &[("dir", "none")])?;
            }
        }
    }
    let mut notes = Vec::new();
    if drawn < sketch.actions.len() {
        notes.push(format!(
            "not drawn: {} of {} (--max-events {drawn})",
            sketch.actions.len() - drawn,
            plural(sketch.actions.len(), "action", "actions")
        ));
    }
    if !sketch.complete {
        notes.push(format!(
            "explored {} only: actions reached later are missing (--max-states)",
            plural(sketch.states_explored, "state", "states")
        ));
    }
    if !notes.is_empty() {
        w.note("note_truncated", &notes.join("\n"))?;
    }
    w.finish()
}
