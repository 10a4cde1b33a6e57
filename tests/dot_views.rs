//! `qpor dot` and the DOT writers of `qpor::dot`, on every shipped model and on
//! hand-built prefixes: every view of every model lays out with `dot -Tsvg` silently; the
//! nodes and edges are exactly the engine's events, conditions, arcs and cutoffs, the
//! transitive reduction of causality (by petgraph) and the immediate conflicts (by brute
//! force from the definition), the exploration tree's calls and leaves; output is
//! deterministic, names are escaped, `--max-events` leaves a note; golden pictures.

mod dot_support;

use dot_support::*;
use petgraph::algo::toposort;
use petgraph::algo::tred::{dag_to_toposorted_adjacency_list, dag_transitive_reduction_closure};
use petgraph::graph::{DiGraph, NodeIndex};
use qpor::dot::write_prefix;
use qpor::dot::{deadlock_configuration, DeadlockSearch};
use qpor::dot::{immediate_causality, immediate_conflicts, write_pes};
use qpor::dot::{DotOptions, Highlight};
use qpor::unfolding::prefix::{build_model, Condition, Prefix, PrefixEvent, PrefixOptions, PrefixOutcome};
use qpor::unfolding::Backend;
use qpor::{Model, SystemOptions};
use std::collections::{BTreeSet, HashSet};

fn prefix_dot(p: &Prefix, opts: &DotOptions) -> String {
    String::from_utf8(write_prefix(p, opts, Vec::new()).unwrap()).unwrap()
}

fn pes_dot(p: &Prefix, opts: &DotOptions) -> String {
    String::from_utf8(write_pes(p, opts, Vec::new()).unwrap()).unwrap()
}

fn is_event(id: &str) -> bool {
    id.strip_prefix('e')
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
}

fn is_condition(id: &str) -> bool {
    id.strip_prefix('c')
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
}

/// The size of the transitive reduction of causality, by petgraph, from the flow relation.
fn reduction_size(p: &Prefix) -> usize {
    let mut g: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = p.events.iter().map(|_| g.add_node(())).collect();
    let mut flow = BTreeSet::new();
    for (i, e) in p.events.iter().enumerate() {
        for &c in &e.preset {
            if let Some(q) = p.conditions[c as usize].producer {
                flow.insert((q as usize, i));
            }
        }
    }
    for (a, b) in flow {
        g.add_edge(nodes[a], nodes[b], ());
    }
    let order = toposort(&g, None).expect("causality is acyclic");
    let (list, _) = dag_to_toposorted_adjacency_list::<_, u32>(&g, &order);
    let (reduction, _) = dag_transitive_reduction_closure(&list);
    reduction.edge_count()
}

/// Immediate conflict straight from docs/paper.md#prime-event-structures: e # e', and [e] ∪ ⌈e'⌉ and ⌈e⌉ ∪ [e']
/// are conflict-free.
fn brute_force_conflicts(p: &Prefix) -> Vec<(u32, u32)> {
    let n = p.events.len();
    let mut local: Vec<HashSet<u32>> = Vec::with_capacity(n);
    for (i, e) in p.events.iter().enumerate() {
        let mut s: HashSet<u32> = HashSet::new();
        s.insert(i as u32);
        for &c in &e.preset {
            if let Some(q) = p.conditions[c as usize].producer {
                s.extend(local[q as usize].iter().copied());
            }
        }
        local.push(s);
    }
    let conflict_free = |set: &HashSet<u32>| {
        let mut used = HashSet::new();
        set.iter()
            .all(|&x| p.events[x as usize].preset.iter().all(|c| used.insert(*c)))
    };
    let mut out = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let both: HashSet<u32> = local[a].union(&local[b]).copied().collect();
            if conflict_free(&both) {
                continue;
            }
            let mut x = both.clone();
            x.remove(&(b as u32));
            let mut y = both;
            y.remove(&(a as u32));
            let x_ok = !local[a].contains(&(b as u32)) && conflict_free(&x);
            let y_ok = !local[b].contains(&(a as u32)) && conflict_free(&y);
            if x_ok && y_ok {
                out.push((a as u32, b as u32));
            }
        }
    }
    out
}

/// Events drawn per model in the `prefix` and `pes` views of every model: enough for
/// conflicts, cutoffs and clusters (the test checks that many models show them), few
/// enough for `dot` to lay 60 models out in seconds (with 100, ring_5 alone takes 5 s).
const PREFIX_EVENTS_DRAWN: usize = 40;

/// The prefix `qpor dot --view prefix|pes [--max-events N]` draws, straight from the
/// library's builder, with the builder's statistics: the backend `--unfolding auto` picks
/// (general for plain nets, program-like for programs and NUPN nets), stopped at N events.
fn library_prefix(f: &str, max_events: Option<usize>) -> PrefixOutcome {
    library_prefix_with(f, Backend::Auto, max_events)
}

/// [`library_prefix`] with the backend `--unfolding` names.
fn library_prefix_with(f: &str, backend: Backend, max_events: Option<usize>) -> PrefixOutcome {
    let model = load_model(f, &[]);
    build_model(
        &model,
        backend,
        &SystemOptions::default(),
        &PrefixOptions {
            max_events: max_events.map(|n| n as u64),
            ..PrefixOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{f}: {e}"))
}

/// The note of a picture whose prefix builder stopped at `--max-events n` after `built`
/// events with `pending` possible extensions queued.
fn incomplete_note(built: usize, n: usize, pending: u64) -> String {
    format!(
        "not built, so not drawn: the rest of the prefix (more than {built} events in all)\\n(prefix builder: stopped at --max-events {n}, {pending} possible extension{} still queued)",
        if pending == 1 { "" } else { "s" }
    )
}

/// The first `n` events of `p` (a causally closed set, since causes come first).
fn first_events(p: &Prefix, n: usize) -> Prefix {
    Prefix {
        events: p.events[..n.min(p.events.len())].to_vec(),
        conditions: p.conditions.clone(),
    }
}

#[test]
fn prefix_and_pes_views_of_every_model_match_the_prefix_builder() {
    // Every model: `--max-events` stops the builder, so no prefix is built whole.
    let files: Vec<String> = model_files();
    let drawn = PREFIX_EVENTS_DRAWN.to_string();
    let texts = std::sync::Mutex::new(Vec::new());
    let shown_counts = std::sync::Mutex::new(Vec::new());
    par_for_each(&files, |f| {
        let outcome = library_prefix(f, Some(PREFIX_EVENTS_DRAWN));
        let p = &outcome.prefix;
        assert_well_formed(p);
        // Stopped exactly when the complete prefix has more events than drawn.
        let incomplete = outcome.stopped.is_some();
        assert_eq!(
            incomplete,
            outcome.stats.pending > 0,
            "{f}: {:?}",
            outcome.stopped
        );
        assert!(p.events.len() <= PREFIX_EVENTS_DRAWN, "{f}");
        assert!(!incomplete || p.events.len() == PREFIX_EVENTS_DRAWN, "{f}");
        // The engine's statistics are the prefix's sizes.
        assert_eq!(outcome.stats.events as usize, p.events.len(), "{f}: events");
        assert_eq!(
            outcome.stats.conditions as usize,
            p.conditions.len(),
            "{f}: conditions"
        );
        assert_eq!(outcome.stats.cutoffs as usize, p.cutoffs(), "{f}: cutoffs");
        let n = p.events.len().min(PREFIX_EVENTS_DRAWN);
        let shown = first_events(p, n);

        let prefix_text = qpor_ok(&["dot", f, "--view", "prefix", "--max-events", &drawn]);
        let g = parse_dot(&prefix_text);
        let title = graph_label(&prefix_text);
        let backend = format!("({} unfolding, cutoff erv)", outcome.backend);
        assert!(title.contains(&backend), "{f}: {title}");
        let summary = if incomplete {
            "incomplete prefix:"
        } else {
            "prefix:"
        };
        let totals = numbers_in(&title[title.find(summary).unwrap()..]);
        assert_eq!(
            totals,
            vec![
                outcome.stats.events,
                outcome.stats.cutoffs,
                outcome.stats.conditions
            ],
            "{f}: {title}"
        );
        assert_eq!(g.node_ids_with_prefix("e").len(), n, "{f}: events");
        let drawn_conditions = p
            .conditions
            .iter()
            .filter(|c| c.producer.is_none_or(|e| (e as usize) < n))
            .count();
        assert_eq!(
            g.node_ids_with_prefix("c").len(),
            drawn_conditions,
            "{f}: conditions"
        );
        let octagons = g
            .nodes
            .iter()
            .filter(|(id, _)| is_event(id) && g.node_attr(id, "shape") == Some("octagon"))
            .count();
        assert_eq!(octagons, shown.cutoffs(), "{f}: cutoffs");
        let arcs: usize = shown
            .events
            .iter()
            .map(|e| e.preset.len() + e.postset.len())
            .sum();
        assert_eq!(g.edges.len(), arcs, "{f}: arcs");
        for (i, e) in shown.events.iter().enumerate() {
            let label = g.node_attr(&format!("e{i}"), "label").unwrap();
            let names = match e.cutoff {
                None => format!("\\ne{i}"),
                Some(Some(corr)) => format!("\\ne{i} cutoff, corr e{corr}"),
                Some(None) => format!("\\ne{i} cutoff, corr ∅"),
            };
            assert!(label.ends_with(&names), "{f}: e{i} is {label}");
        }
        let owners: BTreeSet<&str> = shown.events.iter().filter_map(|e| e.owner.as_deref()).collect();
        assert_eq!(g.clusters.len(), owners.len(), "{f}: one cluster per owner");
        // Everything built is drawn; the note says the rest was not built.
        assert_eq!(n, p.events.len(), "{f}");
        assert_eq!(drawn_conditions, p.conditions.len(), "{f}");
        let note = g.node_attr("note_truncated", "label");
        if incomplete {
            let expected = incomplete_note(n, PREFIX_EVENTS_DRAWN, outcome.stats.pending);
            assert_eq!(note, Some(expected.as_str()), "{f}");
            assert_eq!(g.nodes.len(), n + drawn_conditions + 1, "{f}: no other node");
        } else {
            assert_eq!(note, None, "{f}");
            assert_eq!(g.nodes.len(), n + drawn_conditions, "{f}: no other node");
        }

        let pes_text = qpor_ok(&["dot", f, "--view", "pes", "--max-events", &drawn]);
        let g = parse_dot(&pes_text);
        assert_eq!(g.node_ids_with_prefix("e").len(), n, "{f}: events");
        let note = g.node_attr("note_truncated", "label");
        if incomplete {
            let expected = incomplete_note(n, PREFIX_EVENTS_DRAWN, outcome.stats.pending);
            assert_eq!(note, Some(expected.as_str()), "{f}");
            assert_eq!(g.nodes.len(), n + 1, "{f}: no other node");
        } else {
            assert_eq!(note, None, "{f}");
            assert_eq!(g.nodes.len(), n, "{f}: no other node");
        }
        let solid = g.edges.iter().filter(|e| e.attr("style").is_none()).count();
        assert_eq!(solid, reduction_size(&shown), "{f}: immediate causality");
        let dashed: BTreeSet<(String, String)> = g
            .edges
            .iter()
            .filter(|e| e.attr("style") == Some("dashed") && e.attr("dir") == Some("none"))
            .map(|e| (e.from.clone(), e.to.clone()))
            .collect();
        let expected: BTreeSet<(String, String)> = brute_force_conflicts(&shown)
            .into_iter()
            .map(|(a, b)| (format!("e{a}"), format!("e{b}")))
            .collect();
        assert_eq!(dashed, expected, "{f}: immediate conflicts");
        assert_eq!(g.edges.len(), solid + dashed.len(), "{f}: no other edge");
        shown_counts
            .lock()
            .unwrap()
            .push((shown.cutoffs() > 0, !dashed.is_empty(), !owners.is_empty()));
        let mut t = texts.lock().unwrap();
        t.push((format!("{f} prefix"), prefix_text));
        t.push((format!("{f} pes"), pes_text));
    });
    // The drawn parts exercise every kind of node and edge.
    let shown_counts = shown_counts.into_inner().unwrap();
    let with = |k: fn(&(bool, bool, bool)) -> bool| shown_counts.iter().filter(|c| k(c)).count();
    assert!(
        with(|c| c.0) >= 10,
        "models drawn with cutoffs: {}",
        with(|c| c.0)
    );
    assert!(
        with(|c| c.1) >= 20,
        "models drawn with conflicts: {}",
        with(|c| c.1)
    );
    assert!(
        with(|c| c.2) >= 10,
        "models drawn with clusters: {}",
        with(|c| c.2)
    );
    let mut texts = texts.into_inner().unwrap();
    texts.sort();
    assert_eq!(texts.len(), 2 * files.len());
    assert_all_render(&texts);
}

#[test]
fn the_whole_prefix_of_small_models_is_drawn_exactly() {
    // Without --max-events: every event, condition and relation of the complete prefix.
    for f in [
        "models/nets/philosophers-5.pnml",
        "models/proc/ssbexp.proc",
        "models/nets/dekker.ll_net",
    ] {
        let p = library_prefix(f, None).prefix;
        let g = parse_dot(&qpor_ok(&["dot", f, "--view", "prefix"]));
        assert_eq!(g.node_ids_with_prefix("e").len(), p.events.len(), "{f}");
        assert_eq!(g.node_ids_with_prefix("c").len(), p.conditions.len(), "{f}");
        assert!(!g.has_node("note_truncated"));
        let pes = qpor_ok(&["dot", f, "--view", "pes"]);
        let g = parse_dot(&pes);
        let solid = g.edges.iter().filter(|e| e.attr("style").is_none()).count();
        assert_eq!(solid, reduction_size(&p), "{f}");
        assert_eq!(solid, immediate_causality(&p, p.events.len()).len(), "{f}");
        assert_eq!(
            g.edges.len() - solid,
            immediate_conflicts(&p, p.events.len()).len(),
            "{f}"
        );
        assert_renders(f, &pes);
    }
}

#[test]
fn deadlock_highlight_through_the_command_line() {
    let f = "models/nets/philosophers-5.pnml";
    let p = library_prefix(f, None).prefix;
    for view in ["prefix", "pes"] {
        let t = qpor_ok(&["dot", f, "--view", view, "--highlight", "deadlock"]);
        assert_renders(view, &t);
        let g = parse_dot(&t);
        let filled = filled_events(&g);
        let labels: BTreeSet<&str> = filled
            .iter()
            .map(|&e| p.events[e as usize].label.as_str())
            .collect();
        let expected: BTreeSet<String> = (0..5).map(|i| format!("take_first_{i}")).collect();
        assert_eq!(labels, expected.iter().map(String::as_str).collect(), "{view}");
        assert!(graph_label(&t).contains("filled: the first deadlock configuration found (5 events)"));
    }
    // A program: its prefix was built on another instance of its system, which numbers
    // actions and local states in its own order; the highlight still finds the deadlock
    // (each philosopher holds its first fork).
    let f = "models/proc/philosophers.proc";
    let p = library_prefix(f, None).prefix;
    let t = qpor_ok(&["dot", f, "--view", "prefix", "--highlight", "deadlock"]);
    assert_renders(f, &t);
    let g = parse_dot(&t);
    let filled: BTreeSet<&str> = filled_events(&g)
        .into_iter()
        .map(|e| p.events[e as usize].label.as_str())
        .collect();
    assert!(
        !filled.is_empty() && filled.iter().all(|l| l.starts_with("lock fork[")),
        "{filled:?}"
    );
    let f = "models/nets/philosophers-5.pnml";
    // A model without deadlock: nothing filled, and a warning says why.
    let out = qpor_line("dot models/proc/ssbexp.proc --view prefix --highlight deadlock");
    assert!(out.status.success());
    assert!(
        text_of(&out.stderr).contains("the model has no deadlock"),
        "{}",
        text_of(&out.stderr)
    );
    assert!(
        !text_of(&out.stdout).contains("fillcolor=\"gold"),
        "nothing filled"
    );
    assert!(text_of(&out.stdout).contains("filled: no deadlock (nothing filled)"));
    // Any set of events by id.
    let t = qpor_ok(&["dot", f, "--view", "pes", "--highlight", "config=e0,3"]);
    let g = parse_dot(&t);
    assert_eq!(g.node_attr("e0", "fillcolor"), Some("gold"));
    assert_eq!(g.node_attr("e3", "fillcolor"), Some("gold"));
    assert_eq!(g.node_attr("e1", "fillcolor"), None);
    let out = qpor(&["dot", f, "--view", "pes", "--highlight", "config=e999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text_of(&out.stderr).contains("there is no event e999"));
}

/// The filled events of a picture, by id.
/// Asserts that `events` are a configuration of `p`: causally closed and conflict-free.
fn assert_configuration(p: &Prefix, events: &[u32], what: &str) {
    let set: HashSet<u32> = events.iter().copied().collect();
    let mut used = HashSet::new();
    for &e in events {
        for &c in &p.events[e as usize].preset {
            assert!(used.insert(c), "{what}: conflict-free");
            let producer = p.conditions[c as usize].producer;
            assert!(
                producer.is_none_or(|q| set.contains(&q)),
                "{what}: causally closed"
            );
        }
    }
}

fn filled_events(g: &Graph) -> Vec<u32> {
    let mut v: Vec<u32> = g
        .nodes
        .iter()
        .filter(|(id, _)| is_event(id) && g.node_attr(id, "fillcolor") == Some("gold"))
        .map(|(id, _)| id[1..].parse().unwrap())
        .collect();
    v.sort_unstable();
    v
}

/// Fires the transitions of `events` (a configuration of `p`, in id order, so causes
/// first) on `net` from its initial marking, checking each is enabled; returns the marking.
fn replay_on_net(f: &str, net: &qpor::net::Net, p: &Prefix, events: &[u32]) -> Vec<u32> {
    let mut m: Vec<u32> = net.places.iter().map(|pl| pl.initial).collect();
    for &e in events {
        let t = &net.transitions[p.events[e as usize].action as usize];
        assert_eq!(t.label(), p.events[e as usize].label, "{f}: e{e}");
        let enabled =
            t.pre.iter().all(|(pl, w)| m[pl.index()] >= *w) && t.read.iter().all(|pl| m[pl.index()] > 0);
        assert!(
            enabled,
            "{f}: e{e} ({}) is not enabled after the events before it",
            t.label()
        );
        for (pl, w) in &t.pre {
            m[pl.index()] -= w;
        }
        for (pl, w) in &t.post {
            m[pl.index()] += w;
        }
    }
    m
}

/// Whether `net` enables no transition at marking `m`.
fn dead_on_net(net: &qpor::net::Net, m: &[u32]) -> bool {
    net.transitions.iter().all(|t| {
        !(t.pre.iter().all(|(pl, w)| m[pl.index()] >= *w) && t.read.iter().all(|pl| m[pl.index()] > 0))
    })
}

#[test]
fn highlight_deadlock_replays_prefixes_of_either_backend() {
    // A plain net (auto: general), a NUPN net (auto: program-like) and a net of choices,
    // each drawn with both backends: the filled events are a configuration of the prefix
    // drawn whose marking is dead in the net. The general backend's events are replayed on
    // the net with one component per place, whatever --components says.
    for f in [
        "models/nets/philosophers-5.pnml",
        "models/mcc2023/Philosophers-PT-000005.pnml",
        "models/nets/acyclic-choices.ll_net",
    ] {
        let model = load_model(f, &[]);
        let Model::Net(net) = &model else { unreachable!() };
        let tokens: u32 = net.places.iter().map(|pl| pl.initial).sum();
        for (backend, name) in [(Backend::Program, "program"), (Backend::General, "general")] {
            let p = library_prefix_with(f, backend, None).prefix;
            let initial = p.initial_conditions().count();
            if backend == Backend::General {
                assert_eq!(initial, tokens as usize, "{f}: one initial condition per token");
            } else {
                assert!(initial <= net.places.len(), "{f}: one condition per component");
            }
            let mut extra: Vec<&[&str]> = vec![&[]];
            if backend == Backend::General && net.nupn.is_none() {
                // Components a plain net does not have: irrelevant to the general backend.
                extra.push(&["--components", "units"]);
            }
            for more in extra {
                for view in ["prefix", "pes"] {
                    let mut args = vec![
                        "dot",
                        f,
                        "--view",
                        view,
                        "--unfolding",
                        name,
                        "--highlight",
                        "deadlock",
                    ];
                    args.extend_from_slice(more);
                    let t = qpor_ok(&args);
                    let g = parse_dot(&t);
                    let title = graph_label(&t);
                    assert!(
                        title.contains(&format!("({name} unfolding, cutoff erv)")),
                        "{f}: {title}"
                    );
                    assert_eq!(g.node_ids_with_prefix("e").len(), p.events.len(), "{f} {name}");
                    let filled = filled_events(&g);
                    assert!(!filled.is_empty(), "{f} {name}: a deadlock is filled");
                    assert_configuration(&p, &filled, &format!("{f} {name}"));
                    let m = replay_on_net(f, net, &p, &filled);
                    assert!(dead_on_net(net, &m), "{f} {name}: {m:?} is not dead");
                }
            }
            // Any events by id, on either backend.
            let t = qpor_ok(&[
                "dot",
                f,
                "--view",
                "prefix",
                "--unfolding",
                name,
                "--highlight",
                "config=e0,e1",
            ]);
            assert_eq!(filled_events(&parse_dot(&t)), vec![0, 1], "{f} {name}");
        }
    }
}

#[test]
fn max_events_and_time_limit_stop_the_prefix_builder() {
    // The general prefix of five philosophers begins with the five take_first events: a
    // prefix stopped there already holds the deadlock.
    let f = "models/nets/philosophers-5.pnml";
    let t = qpor_ok_line(&format!(
        "dot {f} --view prefix --max-events 5 --highlight deadlock"
    ));
    assert_renders(f, &t);
    let g = parse_dot(&t);
    assert_eq!(filled_events(&g), vec![0, 1, 2, 3, 4]);
    let title = graph_label(&t);
    assert!(
        title.contains("incomplete prefix: 5 events (0 cutoffs), 15 conditions built"),
        "{title}"
    );
    let outcome = library_prefix(f, Some(5));
    assert_eq!(
        g.node_attr("note_truncated", "label"),
        Some(incomplete_note(5, 5, outcome.stats.pending).as_str())
    );
    // Stopped before the deadlock: the warning does not claim the model has none.
    let out = qpor_line(&format!("dot {f} --view pes --max-events 3 --highlight deadlock"));
    assert!(out.status.success());
    let err = text_of(&out.stderr);
    assert!(err.contains("no deadlock among the 3 events built"), "{err}");
    assert!(text_of(&out.stdout).contains("filled: no deadlock among the events built (nothing filled)"));
    let out = qpor_line(&format!(
        "dot {f} --view pes --max-events 3 --highlight config=e4"
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(text_of(&out.stderr).contains("there is no event e4 (the builder stopped after 3 events)"));
    // A prefix of exactly N events is complete: no note.
    let t = qpor_ok(&["dot", f, "--view", "prefix", "--max-events", "15"]);
    assert!(graph_label(&t).contains("\\nprefix: 15 events (5 cutoffs), 35 conditions"));
    assert!(!parse_dot(&t).has_node("note_truncated"));
    // Kanban's complete prefix is out of reach (over 5 million possible extensions queued
    // after 10 s): --time-limit stops the builder and the note says so.
    let f = "models/mcc2023/Kanban-PT-00005.pnml";
    let start = std::time::Instant::now();
    let t = qpor_ok(&["dot", f, "--view", "pes", "--time-limit", "0.2"]);
    assert!(start.elapsed().as_secs_f64() < 20.0, "{:?}", start.elapsed());
    let g = parse_dot(&t);
    let note = g.node_attr("note_truncated", "label").expect("a note");
    assert!(
        note.contains("the rest of the prefix (more than")
            && note.contains("time limit of 0.2 s reached (--time-limit 0.2)"),
        "{note}"
    );
    assert!(graph_label(&t).contains("event structure of an incomplete prefix:"));
}

/// A condition of a hand-built prefix.
fn condition(label: &str, place: u32, producer: Option<u32>) -> Condition {
    Condition {
        label: label.into(),
        place,
        producer,
        local: 0,
    }
}

/// An event of a hand-built prefix, neither a cutoff nor owned.
fn event(label: &str, action: u32, preset: Vec<u32>, postset: Vec<u32>) -> PrefixEvent {
    PrefixEvent {
        label: label.into(),
        action,
        preset,
        postset,
        cutoff: None,
        owner: None,
    }
}

/// f takes b2; e takes b and b2; e' takes b and f's output x. e #ᵢ f, and e # e' only
/// through f: ⌈e⌉ ∪ ⌈e'⌉ = {f} is conflict-free, yet [e] ∪ ⌈e'⌉ = {e, f} is not, so the
/// conflict of e and e' is inherited, not immediate.
fn inherited_conflict() -> Prefix {
    Prefix {
        conditions: vec![
            condition("b", 0, None),
            condition("b2", 1, None),
            condition("x", 2, Some(0)),
            condition("y", 3, Some(1)),
            condition("z", 4, Some(2)),
        ],
        events: vec![
            event("f", 0, vec![1], vec![2]),
            event("e", 0, vec![0, 1], vec![3]),
            event("e'", 0, vec![0, 2], vec![4]),
        ],
    }
}

#[test]
fn immediate_conflict_is_not_inherited_conflict() {
    let p = inherited_conflict();
    assert_eq!(immediate_conflicts(&p, 3), vec![(0, 1)]);
    assert_eq!(brute_force_conflicts(&p), vec![(0, 1)]);
    assert_eq!(immediate_causality(&p, 3), vec![(0, 2)]);
}

#[test]
fn a_diamond_keeps_only_covering_pairs() {
    // a → b, a → c, b → d, c → d, and a → d directly through a third condition: the
    // reduction drops a → d.
    let cond = |p, producer| condition(&format!("p{p}"), p, producer);
    let ev = |preset, postset| event("t", 0, preset, postset);
    let p = Prefix {
        conditions: vec![
            cond(0, None),
            cond(1, Some(0)),
            cond(2, Some(0)),
            cond(3, Some(0)),
            cond(4, Some(1)),
            cond(5, Some(2)),
        ],
        events: vec![
            ev(vec![0], vec![1, 2, 3]),
            ev(vec![1], vec![4]),
            ev(vec![2], vec![5]),
            ev(vec![3, 4, 5], vec![]),
        ],
    };
    assert_eq!(immediate_causality(&p, 4), vec![(0, 1), (0, 2), (1, 3), (2, 3)]);
    assert_eq!(reduction_size(&p), 4);
    assert!(immediate_conflicts(&p, 4).is_empty());
}

#[test]
fn pictures_are_deterministic() {
    for f in ["models/nets/philosophers-5.pnml", "models/proc/ssbexp.proc"] {
        let model = load_model(f, &[]);
        let a = model_prefix(&model, 80);
        let b = model_prefix(&model, 80);
        assert_eq!(
            prefix_dot(&a, &DotOptions::default()),
            prefix_dot(&b, &DotOptions::default())
        );
        assert_eq!(
            pes_dot(&a, &DotOptions::default()),
            pes_dot(&b, &DotOptions::default())
        );
    }
}

#[test]
fn max_events_cuts_the_picture_with_a_note() {
    let model = load_model("models/ll_net/buf100.ll_net", &[]);
    let p = model_prefix(&model, 200);
    assert_eq!(p.events.len(), 200);
    let opts = DotOptions {
        marking: None,
        max_events: Some(30),
        ..DotOptions::default()
    };
    let dot_text = prefix_dot(&p, &opts);
    assert_renders("prefix --max-events 30", &dot_text);
    let g = parse_dot(&dot_text);
    assert_eq!(g.node_ids_with_prefix("e").len(), 30);
    let drawn_conditions = p
        .conditions
        .iter()
        .filter(|c| c.producer.is_none_or(|e| e < 30))
        .count();
    assert_eq!(g.node_ids_with_prefix("c").len(), drawn_conditions);
    let note = g.node_attr("note_truncated", "label").expect("a note");
    let expected = format!(
        "not drawn: 170 of 200 events and {} of {} conditions\\n(--max-events 30)",
        p.conditions.len() - drawn_conditions,
        p.conditions.len()
    );
    assert_eq!(note, expected);
    assert_eq!(g.node_attr("note_truncated", "shape"), Some("note"));
    // No edge leaves the drawn part.
    assert!(g.edges.iter().all(|e| g.has_node(&e.from) && g.has_node(&e.to)));

    let pes = pes_dot(&p, &opts);
    assert_renders("pes --max-events 30", &pes);
    let g = parse_dot(&pes);
    assert_eq!(g.node_ids_with_prefix("e").len(), 30);
    assert_eq!(
        g.node_attr("note_truncated", "label"),
        Some("not drawn: 170 of 200 events\\n(--max-events 30)")
    );
    let whole = immediate_causality(&p, 200);
    let solid = g.edges.iter().filter(|e| e.attr("style").is_none()).count();
    assert_eq!(solid, whole.iter().filter(|(_, b)| *b < 30).count());

    // Without a cut there is no note.
    let g = parse_dot(&prefix_dot(&p, &DotOptions::default()));
    assert!(!g.has_node("note_truncated"));
}

#[test]
fn deadlock_highlight_fills_the_philosophers_deadlock() {
    let model = load_model("models/nets/philosophers-5.pnml", &[]);
    let Model::Net(net) = &model else { unreachable!() };
    let p = net_prefix(net, 200, 20_000);
    let sys = model.system(&Default::default()).unwrap();
    let DeadlockSearch::Found(events) = deadlock_configuration(&p, &*sys, 100_000).unwrap() else {
        panic!("philosophers-5 deadlocks");
    };
    let labels: BTreeSet<&str> = events
        .iter()
        .map(|&e| p.events[e as usize].label.as_str())
        .collect();
    let expected: BTreeSet<String> = (0..5).map(|i| format!("take_first_{i}")).collect();
    assert_eq!(labels, expected.iter().map(String::as_str).collect());
    let opts = DotOptions {
        marking: None,
        highlight: Some(Highlight {
            events: events.clone(),
            caption: "deadlock".into(),
        }),
        ..DotOptions::default()
    };
    for dot_text in [prefix_dot(&p, &opts), pes_dot(&p, &opts)] {
        assert_renders("highlight", &dot_text);
        let g = parse_dot(&dot_text);
        assert_eq!(filled_events(&g), events);
    }
    // The dead marking: each philosopher holds its first fork.
    let g = parse_dot(&prefix_dot(&p, &opts));
    let mut cut: Vec<&str> = g
        .nodes
        .iter()
        .filter(|(id, _)| is_condition(id) && g.node_attr(id, "fillcolor").is_some())
        .map(|(id, _)| g.node_attr(id, "label").unwrap())
        .collect();
    cut.sort_unstable();
    assert_eq!(cut, (0..5).map(|i| format!("has_first_{i}")).collect::<Vec<_>>());
}

#[test]
fn deadlock_search_tells_deadlocks_from_terminations() {
    for (f, deadlocks) in [
        ("models/proc/philosophers.proc", true),
        ("models/proc/ssbexp.proc", false),
        ("models/nets/philosophers-ordered-5.pnml", false),
        ("models/nets/acyclic-choices.pnml", true),
    ] {
        let model = load_model(f, &[]);
        let sys = model.system(&Default::default()).unwrap();
        let p = match &model {
            Model::Net(n) => net_prefix(n, 400, 50_000),
            Model::Program(_) => system_prefix(&*sys, 400, 50_000),
        };
        let found = deadlock_configuration(&p, &*sys, 100_000).unwrap();
        assert_eq!(
            matches!(found, DeadlockSearch::Found(_)),
            deadlocks,
            "{f}: {found:?}"
        );
        if let DeadlockSearch::Found(events) = found {
            assert_configuration(&p, &events, f);
        }
    }
}

#[test]
fn awkward_names_are_escaped_in_labels_and_clusters() {
    let awkward = [
        "say \"hi\"",
        "back\\slash",
        "trailing\\",
        "ünïcødé ∀x → ⊥",
        "two\nlines",
        "{braces} [brackets]; a -> b = c",
        "node",
        "\\N \\G",
    ];
    let cond = |i: usize, label: &str, producer| condition(label, i as u32, producer);
    let mut p = Prefix::default();
    for (i, name) in awkward.iter().enumerate() {
        p.conditions.push(cond(i, name, None));
        p.conditions.push(cond(i, name, Some(i as u32)));
        p.events.push(PrefixEvent {
            label: name.to_string(),
            action: i as u32,
            preset: vec![2 * i as u32],
            postset: vec![2 * i as u32 + 1],
            cutoff: (i == 3).then_some(None),
            owner: Some(format!("owner {name}")),
        });
    }
    for dot_text in [
        prefix_dot(&p, &DotOptions::default()),
        pes_dot(&p, &DotOptions::default()),
    ] {
        let svg = assert_renders("awkward names", &dot_text);
        assert!(svg.contains("say &quot;hi&quot;"), "{svg}");
        assert!(svg.contains("back\\slash"));
        assert!(svg.contains("trailing\\"));
        assert!(svg.contains("ünïcødé ∀x → ⊥"));
        assert!(
            svg.contains(">two<") && svg.contains(">lines<"),
            "a newline is a line break"
        );
        assert!(svg.contains("{braces} [brackets]; a &#45;&gt; b = c"), "{svg}");
        assert!(svg.contains("\\N \\G"), "escString sequences are not interpreted");
        assert!(
            svg.contains("owner say &quot;hi&quot;"),
            "cluster labels are escaped"
        );
        let g = parse_dot(&dot_text);
        assert_eq!(g.node_ids_with_prefix("e").len(), awkward.len());
        assert_eq!(g.clusters.len(), awkward.len());
    }
}

// ---------------------------------------------------------------------------------------
// `qpor dot` on every shipped model: the net and tree views.

/// The tree views are drawn with at most this many calls, so that `dot` lays them out fast.
const TREE_CALLS_DRAWN: usize = 300;

#[test]
fn net_view_of_every_model_has_one_node_per_place_transition_and_component() {
    let files = model_files();
    let texts: Vec<(String, String)> = {
        let out = std::sync::Mutex::new(Vec::new());
        par_for_each(&files, |f| {
            let t = qpor_ok(&["dot", f, "--view", "net"]);
            out.lock().unwrap().push((f.clone(), t));
        });
        let mut v = out.into_inner().unwrap();
        v.sort();
        v
    };
    assert_eq!(texts.len(), files.len());
    assert_all_render(&texts);
    for (f, dot_text) in &texts {
        let g = parse_dot(dot_text);
        match load_model(f, &[]) {
            Model::Net(net) => {
                assert_eq!(g.node_ids_with_prefix("p").len(), net.places.len(), "{f}: places");
                assert_eq!(
                    g.node_ids_with_prefix("t").len(),
                    net.transitions.len(),
                    "{f}: transitions"
                );
                let arcs: usize = net
                    .transitions
                    .iter()
                    .map(|t| t.pre.len() + t.post.len() + t.read.len())
                    .sum();
                assert_eq!(g.edges.len(), arcs, "{f}: arcs");
                assert_eq!(
                    g.nodes.len(),
                    net.places.len() + net.transitions.len(),
                    "{f}: no other node"
                );
                for (i, p) in net.places.iter().enumerate() {
                    let label = g.node_attr(&format!("p{i}"), "label").unwrap();
                    assert!(label.starts_with(p.label()), "{f}: p{i} is labelled {label}");
                }
                let units = net.nupn.as_ref().map_or(0, |n| n.units.len());
                assert!(g.clusters.len() <= units, "{f}: clusters are NUPN units");
            }
            model @ Model::Program(_) => {
                let sys = model.system(&Default::default()).unwrap();
                assert_eq!(
                    g.node_ids_with_prefix("k").len(),
                    sys.num_components(),
                    "{f}: components"
                );
                let processes = (0..sys.num_components())
                    .filter(|&c| sys.component_kind(qpor::CompId(c as u32)) == "process")
                    .count();
                assert_eq!(g.clusters.len(), processes, "{f}: one cluster per process");
                assert!(!g.node_ids_with_prefix("a").is_empty(), "{f}: actions");
            }
        }
    }
}

/// The counters `qpor check --all --json` reports for `f`, with the tree view's defaults.
fn check_counters(f: &str) -> serde_json::Value {
    let out = qpor_line(&format!(
        "check {f} --engine qpor --all --json -k 3 --cutoff erv --unfolding program"
    ));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    report["stats"].clone()
}

#[test]
fn tree_view_of_every_model_counts_the_calls_and_leaves_of_the_exploration() {
    let files = model_files();
    let drawn = TREE_CALLS_DRAWN.to_string();
    let texts = std::sync::Mutex::new(Vec::new());
    par_for_each(&files, |f| {
        if is_slow_for_qpor(f) {
            // These explore for minutes: the picture of a time-limited run must still be
            // a valid tree that says it stopped.
            let t = qpor_ok(&[
                "dot",
                f,
                "--view",
                "tree",
                "--time-limit",
                "0.3",
                "--max-events",
                &drawn,
            ]);
            let g = parse_dot(&t);
            assert!(graph_label(&t).contains("stopped: "), "{f}: {}", graph_label(&t));
            assert!(g.node_ids_with_prefix("n").len() <= TREE_CALLS_DRAWN, "{f}");
            texts.lock().unwrap().push((f.clone(), t));
            return;
        }
        let t = qpor_ok(&["dot", f, "--view", "tree", "--all", "--max-events", &drawn]);
        let stats = check_counters(f);
        let count = |k: &str| stats[k].as_u64().unwrap_or_else(|| panic!("{f}: counter {k}"));
        let calls = count("alt_calls") + count("max_configurations") + count("ssbs");
        let g = parse_dot(&t);
        let nodes = g.node_ids_with_prefix("n").len() as u64;
        assert_eq!(nodes, calls.min(TREE_CALLS_DRAWN as u64), "{f}: calls drawn");
        assert_eq!(g.edges.len() as u64, nodes - 1, "{f}: a tree");
        let title = graph_label(&t);
        let summary = numbers_in(&title[title.find("tree:").unwrap()..]);
        // calls, maximal configurations (deadlock, terminated, cutoff leaf, fault), SSBs
        assert_eq!(summary[0], calls, "{f}: {title}");
        assert_eq!(summary[1], count("max_configurations"), "{f}: {title}");
        assert_eq!(summary[2], count("deadlocks"), "{f}: {title}");
        assert_eq!(summary[3], count("terminations"), "{f}: {title}");
        assert_eq!(summary[4], count("cutoff_leaves"), "{f}: {title}");
        assert_eq!(summary[6], count("ssbs"), "{f}: {title}");
        let leaves_of = |label: &str| {
            g.nodes
                .iter()
                .filter(|(id, _)| g.node_attr(id, "label") == Some(label))
                .count() as u64
        };
        let left = g.edges.iter().filter(|e| e.attr("style").is_none()).count() as u64;
        if calls <= TREE_CALLS_DRAWN as u64 {
            assert!(!g.has_node("note_truncated"), "{f}");
            assert_eq!(
                leaves_of("maximal\\ndeadlock"),
                count("deadlocks"),
                "{f}: deadlock leaves"
            );
            assert_eq!(
                leaves_of("maximal\\nterminated"),
                count("terminations"),
                "{f}: terminations"
            );
            assert_eq!(
                leaves_of("maximal\\ncutoff leaf"),
                count("cutoff_leaves"),
                "{f}: cutoff leaves"
            );
            assert_eq!(leaves_of("SSB"), count("ssbs"), "{f}: SSBs");
            // Every internal node has exactly one left child and called Alt once.
            assert_eq!(left, count("alt_calls"), "{f}: left edges");
        } else {
            let note = g.node_attr("note_truncated", "label").expect("a note");
            assert_eq!(
                note,
                format!(
                    "not drawn: {} of {calls} calls\\n(--max-events {drawn})",
                    calls - nodes
                ),
                "{f}"
            );
        }
        texts.lock().unwrap().push((f.clone(), t));
    });
    let mut texts = texts.into_inner().unwrap();
    texts.sort();
    assert_eq!(texts.len(), files.len());
    assert_all_render(&texts);
}

#[test]
fn every_view_is_deterministic_through_the_command_line() {
    for f in [
        "models/nets/philosophers-5.pnml",
        "models/proc/ssbexp.proc",
        "models/mcc2023/Peterson-PT-2.pnml",
    ] {
        for view in ["net", "prefix", "pes", "tree"] {
            let a = qpor(&["dot", f, "--view", view, "--max-events", "200"]);
            let b = qpor(&["dot", f, "--view", view, "--max-events", "200"]);
            assert_eq!(a.status.code(), b.status.code(), "{f} {view}");
            assert_eq!(a.stdout, b.stdout, "{f} {view}: same bytes");
            assert_eq!(a.stderr, b.stderr, "{f} {view}");
        }
    }
}

#[test]
fn max_events_notes_in_the_net_and_tree_views() {
    // (command line, node id prefix of what is counted, how many are drawn, the note)
    for (line, counted, drawn, expected_note) in [
        (
            "dot models/nets/philosophers-10.pnml --view net --max-events 5",
            "t",
            5,
            "not drawn: 25 of 30 transitions and 31 of 40 places\\n(--max-events 5)",
        ),
        (
            "dot models/proc/ssbexp.proc --view tree --all --max-events 10",
            "n",
            10,
            "not drawn: 85 of 95 calls\\n(--max-events 10)",
        ),
    ] {
        let t = qpor_ok_line(line);
        assert_renders(line, &t);
        let g = parse_dot(&t);
        assert_eq!(g.node_ids_with_prefix(counted).len(), drawn, "{line}");
        assert_eq!(
            g.node_attr("note_truncated", "label"),
            Some(expected_note),
            "{line}"
        );
        // Only the places the drawn transitions touch are drawn (the tree has no places),
        // and no edge dangles.
        assert!(g.node_ids_with_prefix("p").len() < 50, "{line}");
        assert!(
            g.edges.iter().all(|e| g.has_node(&e.from) && g.has_node(&e.to)),
            "{line}"
        );
    }

    let t = qpor_ok_line("dot models/proc/ssbexp.proc --view net --max-events 3");
    let g = parse_dot(&t);
    assert_eq!(g.node_ids_with_prefix("a").len(), 3);
    let note = g.node_attr("note_truncated", "label").expect("a note");
    assert!(
        note.starts_with("not drawn: ") && note.ends_with("(--max-events 3)"),
        "{note}"
    );
}

#[test]
fn svg_and_png_go_through_graphviz_and_say_when_it_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let svg_path = svg.to_str().unwrap();
    qpor_ok(&[
        "dot",
        "models/nets/philosophers-5.pnml",
        "--to",
        "svg",
        "-o",
        svg_path,
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("take_first_0"), "{text}");
    let png = qpor_line("dot models/proc/ssbsimple.proc --view tree --to png");
    assert!(png.status.success(), "{}", text_of(&png.stderr));
    assert!(png.stdout.starts_with(b"\x89PNG"), "a PNG on standard output");
    let dot_file = dir.path().join("p.dot");
    qpor_ok(&[
        "dot",
        "models/nets/philosophers-5.pnml",
        "-o",
        dot_file.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(&dot_file).unwrap(),
        qpor_ok(&["dot", "models/nets/philosophers-5.pnml"])
    );

    // Without Graphviz on the PATH: a clear message, exit 2, no file.
    let missing = dir.path().join("missing.svg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qpor"))
        .args(["dot", "models/nets/philosophers-5.pnml", "--to", "svg", "-o"])
        .arg(&missing)
        .env("PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text_of(&out.stderr);
    assert!(
        err.contains("--to svg needs Graphviz's `dot` program, which is not installed"),
        "{err}"
    );
    assert!(err.contains("--to dot"), "{err}");
    assert!(!missing.exists());
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn bad_arguments_are_errors_not_pictures() {
    for (args, message) in [
        (
            vec![
                "dot",
                "models/nets/philosophers-5.pnml",
                "--view",
                "tree",
                "--highlight",
                "deadlock",
            ],
            "--highlight applies to --view net, prefix and pes",
        ),
        (
            vec!["dot", "models/proc/pi.proc", "--highlight", "deadlock"],
            "--highlight on the net view applies to nets",
        ),
        (
            vec!["dot", "models/proc/ssbexp.proc", "--view", "tree", "-k", "0"],
            "k must be at least 1",
        ),
        (
            vec![
                "dot",
                "models/proc/ssbexp.proc",
                "--view",
                "tree",
                "--time-limit",
                "-1",
            ],
            "expected a positive number of seconds",
        ),
        (
            vec!["dot", "models/nets/no-such-model.pnml"],
            "no-such-model.pnml",
        ),
        (
            vec![
                "dot",
                "models/nets/philosophers-5.pnml",
                "--view",
                "tree",
                "--unfolding",
                "general",
            ],
            "--unfolding applies to --view prefix and --view pes only",
        ),
        (
            vec![
                "dot",
                "models/proc/ssbexp.proc",
                "--view",
                "prefix",
                "--unfolding",
                "general",
            ],
            "the general unfolding backend unfolds Petri nets only",
        ),
    ] {
        let out = qpor(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: no picture");
        assert!(
            text_of(&out.stderr).contains(message),
            "{args:?}: {}",
            text_of(&out.stderr)
        );
    }
}

/// A PNML net whose names need escaping everywhere DOT could misread them.
const AWKWARD_PNML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
  <net id="n&quot;1" type="http://www.pnml.org/version-2009/grammar/ptnet">
    <name><text>net "quoted" \ back</text></name>
    <page id="pg">
      <place id="p1"><name><text>say "hi"</text></name>
        <initialMarking><text>2</text></initialMarking></place>
      <place id="p2"><name><text>trailing\</text></name></place>
      <place id="p3"><name><text>ünïcødé ∀x → ⊥</text></name></place>
      <transition id="t1"><name><text>{a} -> [b]; c = "d"</text></name></transition>
      <transition id="t2"><name><text>\N \G \L</text></name></transition>
      <arc id="a1" source="p1" target="t1"><inscription><text>2</text></inscription></arc>
      <arc id="a2" source="t1" target="p2"/>
      <arc id="a3" source="p2" target="t2"/>
      <arc id="a4" source="t2" target="p3"/>
    </page>
  </net>
</pnml>
"#;

#[test]
fn awkward_model_names_are_escaped_through_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("awkward \"name\".pnml");
    std::fs::write(&path, AWKWARD_PNML).unwrap();
    let p = path.to_str().unwrap();
    for view in ["net", "tree"] {
        let t = qpor_ok(&["dot", p, "--view", view]);
        let svg = assert_renders(view, &t);
        assert!(
            svg.contains("awkward &quot;name&quot;.pnml"),
            "{view}: the title names the file: {svg}"
        );
        if view == "net" {
            for shown in [
                "say &quot;hi&quot;",
                "trailing\\",
                "ünïcødé ∀x → ⊥",
                "{a} &#45;&gt; [b]; c = &quot;d&quot;",
                "\\N \\G \\L",
                "net &quot;quoted&quot; \\ back",
            ] {
                assert!(svg.contains(shown), "{view}: {shown} in {svg}");
            }
        } else {
            assert!(
                svg.contains("{a} &#45;&gt; [b]; c = &quot;d&quot;"),
                "{view}: edge labels: {svg}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Golden pictures, reviewed by hand (tests/golden/README.md says what was checked).

#[test]
fn golden_pictures_of_a_small_net_and_a_small_program() {
    let cases: [(&str, &[&str]); 6] = [
        (
            "acyclic-choices.net.dot",
            &["models/nets/acyclic-choices.ll_net", "--view", "net"],
        ),
        (
            "acyclic-choices.pes.dot",
            &["models/nets/acyclic-choices.ll_net", "--view", "pes"],
        ),
        (
            "acyclic-choices.tree.dot",
            &["models/nets/acyclic-choices.ll_net", "--view", "tree", "--all"],
        ),
        (
            "philosophers-5.prefix.dot",
            &["models/nets/philosophers-5.ll_net", "--view", "prefix"],
        ),
        (
            "ssbexp-K2.net.dot",
            &["models/proc/ssbexp.proc", "-D", "K=2", "--view", "net"],
        ),
        (
            "ssbexp-K2.tree.dot",
            &[
                "models/proc/ssbexp.proc",
                "-D",
                "K=2",
                "--view",
                "tree",
                "--all",
                "--cutoff",
                "none",
            ],
        ),
    ];
    for (golden, args) in cases {
        let expected = std::fs::read_to_string(format!("tests/golden/{golden}")).unwrap();
        let mut all = vec!["dot"];
        all.extend_from_slice(args);
        let got = qpor_ok(&all);
        assert!(
            got == expected,
            "tests/golden/{golden} differs from `qpor {}`; review the new picture and replace the file if it is right:\n{got}",
            all.join(" ")
        );
        assert_renders(golden, &got);
    }
}

// ---------------------------------------------------------------------------------------
// Explicit event structures (`.pes` files).

/// An event structure with a chain, a diamond, a declared conflict and conflicts inherited
/// from it, and a label that needs escaping.
const SMALL_PES: &str = r#"pes 1
event a "x=1"
event b
event c
event d "say \"hi\" ∀"
event f
event g
a < b
a < c
b < d
c < d
a < d
a # f
b # f
c # f
d # f
f < g
a # g
b # g
c # g
d # g
set C = { a }
set D = { b }
"#;

/// (transitive-reduction size by petgraph, immediate conflicts from the definition) of an
/// explicit PES.
fn pes_expectations(pes: &qpor::unfolding::Pes) -> (usize, BTreeSet<(String, String)>) {
    use qpor::unfolding::PesEventId as E;
    let n = pes.len();
    let mut g: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..n).map(|_| g.add_node(())).collect();
    for a in 0..n {
        for b in 0..n {
            if pes.lt(E(a as u32), E(b as u32)) {
                g.add_edge(nodes[a], nodes[b], ());
            }
        }
    }
    let order = toposort(&g, None).unwrap();
    let (list, _) = dag_to_toposorted_adjacency_list::<_, u32>(&g, &order);
    let (reduction, _) = dag_transitive_reduction_closure(&list);
    let down = |e: usize, with_self: bool| -> Vec<usize> {
        (0..n)
            .filter(|&x| pes.lt(E(x as u32), E(e as u32)) || (with_self && x == e))
            .collect()
    };
    let conflict_free = |set: &[usize]| {
        set.iter()
            .all(|&x| set.iter().all(|&y| !pes.conflict(E(x as u32), E(y as u32))))
    };
    let mut conflicts = BTreeSet::new();
    for a in 0..n {
        for b in a + 1..n {
            if !pes.conflict(E(a as u32), E(b as u32)) {
                continue;
            }
            let mut x = down(a, true);
            x.extend(down(b, false));
            let mut y = down(a, false);
            y.extend(down(b, true));
            if conflict_free(&x) && conflict_free(&y) {
                conflicts.insert((format!("e{a}"), format!("e{b}")));
            }
        }
    }
    (reduction.edge_count(), conflicts)
}

#[test]
fn explicit_event_structures_are_drawn_from_pes_files() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.pes");
    std::fs::write(&small, SMALL_PES).unwrap();
    let reduced = dir.path().join("three-vars.pes");
    qpor_ok(&[
        "hardness",
        "models/cnf/three-vars.cnf",
        "--to",
        "pes",
        "-o",
        reduced.to_str().unwrap(),
    ]);
    for path in [&small, &reduced] {
        let f = path.to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let pes = qpor::formats::pes::parse(&text, f, &Default::default()).unwrap();
        let t = qpor_ok(&["dot", f, "--view", "pes"]);
        let svg = assert_renders(f, &t);
        let g = parse_dot(&t);
        assert_eq!(g.node_ids_with_prefix("e").len(), pes.len(), "{f}");
        let (reduction, conflicts) = pes_expectations(&pes);
        let solid = g.edges.iter().filter(|e| e.attr("style").is_none()).count();
        assert_eq!(solid, reduction, "{f}: immediate causality");
        let dashed: BTreeSet<(String, String)> = g
            .edges
            .iter()
            .filter(|e| e.attr("style") == Some("dashed"))
            .map(|e| (e.from.clone(), e.to.clone()))
            .collect();
        assert_eq!(dashed, conflicts, "{f}: immediate conflicts");
        assert!(graph_label(&t).contains("sets: C = {"), "{f}");
        if path == &small {
            // a < d is implied by a < b < d; f # b, c, d and g # a, b, c, d are inherited.
            assert_eq!(solid, 5);
            assert_eq!(dashed.len(), 1);
            assert!(svg.contains("say &quot;hi&quot; ∀"), "{svg}");
        }
    }
    let f = small.to_str().unwrap();
    let t = qpor_ok(&["dot", f, "--view", "pes", "--highlight", "set=C"]);
    assert_eq!(parse_dot(&t).node_attr("e0", "fillcolor"), Some("gold"));
    let t = qpor_ok_line(&format!(
        "dot {f} --view pes --highlight config=a,b --max-events 3"
    ));
    let g = parse_dot(&t);
    assert_eq!(g.node_attr("e1", "fillcolor"), Some("gold"));
    assert_eq!(g.node_ids_with_prefix("e").len(), 3);
    assert_eq!(
        g.node_attr("note_truncated", "label"),
        Some("not drawn: 3 of 6 events\\n(--max-events 3)")
    );
    for (args, message) in [
        (vec!["dot", f, "--view", "prefix"], "has only the pes view"),
        (
            vec!["dot", f, "--view", "pes", "--highlight", "deadlock"],
            "expected `config=NAME",
        ),
        (
            vec!["dot", f, "--view", "pes", "--highlight", "config=zz"],
            "there is no event `zz`",
        ),
        (
            vec!["dot", f, "--view", "pes", "--highlight", "set=Q"],
            "no set called `Q`",
        ),
    ] {
        let out = qpor(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text_of(&out.stderr).contains(message),
            "{args:?}: {}",
            text_of(&out.stderr)
        );
    }
    let bad = dir.path().join("bad.pes");
    std::fs::write(&bad, "pes 1\nevent a\na < a\n").unwrap();
    let out = qpor(&["dot", bad.to_str().unwrap(), "--view", "pes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text_of(&out.stderr).contains("bad.pes:3:1: causality must be irreflexive"));
}

/// Regression: an earlier `--highlight deadlock` search merged configurations by their
/// state. Here e0 and e1 both move the token from p0 to p1, but the prefix goes on only
/// after e1 (as it does after a non-cutoff twin of a cutoff): e0 is searched first, so the
/// state {p1} was marked as seen and the deadlock {p2} after e1, e2 was never found. The
/// search now tells configurations apart by their cut.
#[test]
fn deadlock_search_does_not_merge_configurations_by_state() {
    let mut net = qpor::net::Net::default();
    let p0 = net.add_place("p0", None, 1);
    let p1 = net.add_place("p1", None, 0);
    let p2 = net.add_place("p2", None, 0);
    let names = ["t_a", "t_b", "t_c"];
    let ts: Vec<_> = names.iter().map(|n| net.add_transition(*n, None)).collect();
    for (t, (from, to)) in ts.iter().zip([(p0, p1), (p0, p1), (p1, p2)]) {
        net.add_pre(*t, from, 1);
        net.add_post(*t, to, 1);
    }
    let ev = |t: usize, preset, postset| event(names[t], t as u32, preset, postset);
    let p = Prefix {
        conditions: vec![
            condition("p0", 0, None),
            condition("p1", 1, Some(0)),
            condition("p1", 1, Some(1)),
            condition("p2", 2, Some(2)),
        ],
        events: vec![
            ev(0, vec![0], vec![1]),
            ev(1, vec![0], vec![2]),
            ev(2, vec![2], vec![3]),
        ],
    };
    let model = Model::Net(net);
    let sys = model.system(&SystemOptions::default()).unwrap();
    assert_eq!(
        deadlock_configuration(&p, &*sys, 1000).unwrap(),
        DeadlockSearch::Found(vec![1, 2])
    );
    assert_eq!(
        deadlock_configuration(&p, &*sys, 1).unwrap(),
        DeadlockSearch::LimitReached(1)
    );
}
