//! The `net` view: a P/T net as Graphviz draws Petri nets.
//!
//! - Places are circles `p<i>` labelled with their name (PNML name over id) and, on a
//!   second line, their initial tokens (`•`, `••`, `•••`, then `4•`, …).
//! - Transitions are boxes `t<i>` labelled with their name.
//! - Every input arc `p → t` and output arc `t → p` is one edge, labelled with its weight
//!   when it is above 1; a read arc is a dashed edge `p → t` without arrowhead.
//! - NUPN units are nested clusters `cluster_u<i>` holding their own places (the root unit
//!   is not boxed when it has no place of its own: it would only frame the whole net);
//!   transitions stay outside, since they connect units.
//!
//! - With a marking to show ([`DotOptions::marking`]), places carry that marking's tokens
//!   instead of the initial ones, marked places are filled, and the transitions fired on
//!   the way are filled and labelled with how often they fired; the title says what the
//!   marking is.
//!
//! So the picture has exactly one node per place and transition and one edge per arc
//! (input + output + read, [`Net::num_arcs`]). With `max_events = N` only the first N
//! transitions are drawn, with the places they touch, and a note tells how many of each
//! were left out.

use super::{
    common_defaults, plural, titled, DotOptions, DotWriter, MarkingHighlight, HIGHLIGHT_CUT_FILL,
    HIGHLIGHT_FILL,
};
use crate::system::net::Net;
use std::io::{self, Write};

/// The initial tokens of a place as a label line.
fn tokens_text(n: u32) -> String {
    match n {
        0 => String::new(),
        1..=3 => "•".repeat(n as usize),
        _ => format!("{n}•"),
    }
}

fn place_label(net: &Net, p: usize, tokens: u32) -> String {
    let place = &net.places[p];
    let tokens = tokens_text(tokens);
    if tokens.is_empty() {
        place.label().to_string()
    } else {
        format!("{}\n{tokens}", place.label())
    }
}

/// Writes the `net` view of `net` to `out`.
pub fn write_net<W: Write>(net: &Net, opts: &DotOptions, out: W) -> io::Result<W> {
    let drawn_transitions = opts.max_events.unwrap_or(usize::MAX).min(net.transitions.len());
    let truncated = drawn_transitions < net.transitions.len();
    let mut drawn_place = vec![!truncated; net.places.len()];
    if truncated {
        for t in &net.transitions[..drawn_transitions] {
            for p in t.neighbourhood() {
                drawn_place[p.index()] = true;
            }
        }
    }
    let name = net.name.as_deref().unwrap_or("net");
    let mut title = titled(opts, {
        format!(
            "{name}: {}, {}, {}",
            plural(net.places.len(), "place", "places"),
            plural(net.transitions.len(), "transition", "transitions"),
            plural(net.num_arcs(), "arc", "arcs")
        )
    });
    let marking = opts.marking.as_ref();
    if let Some(m) = marking {
        title.push_str(&format!("\nfilled: {}", m.caption));
    }
    let tokens = |p: usize| shown_tokens(net, marking, p);
    let mut w = DotWriter::digraph(out, name)?;
    common_defaults(&mut w, Some(&title), &[])?;

    // Places: first those in NUPN units, as nested clusters, then the others.
    let mut placed = vec![false; net.places.len()];
    if let Some(nupn) = &net.nupn {
        write_units(&mut w, net, nupn, &drawn_place, &mut placed, marking)?;
    }
    for p in 0..net.places.len() {
        if drawn_place[p] && !placed[p] {
            write_place(&mut w, net, p, tokens(p), marking.is_some())?;
        }
    }

    for (ti, t) in net.transitions[..drawn_transitions].iter().enumerate() {
        match marking.map_or(0, |m| m.fired.get(ti).copied().unwrap_or(0)) {
            0 => w.node(&format!("t{ti}"), &[("shape", "box"), ("label", t.label())])?,
            n => w.node(
                &format!("t{ti}"),
                &[
                    ("shape", "box"),
                    ("style", "filled"),
                    ("fillcolor", HIGHLIGHT_FILL),
                    ("label", &format!("{}\n×{n}", t.label())),
                ],
            )?,
        }
    }
    for (ti, t) in net.transitions[..drawn_transitions].iter().enumerate() {
        let tid = format!("t{ti}");
        for (p, weight) in &t.pre {
            let label = weight.to_string();
            let attrs: &[(&str, &str)] = if *weight > 1 { &[("label", &label)] } else { &[] };
            w.edge(&format!("p{}", p.0), &tid, attrs)?;
        }
        for p in &t.read {
            w.edge(
                &format!("p{}", p.0),
                &tid,
                &[
                    ("style", "dashed"),
                    ("arrowhead", "none"),
                    ("tooltip", "read arc"),
                ],
            )?;
        }
        for (p, weight) in &t.post {
            let label = weight.to_string();
            let attrs: &[(&str, &str)] = if *weight > 1 { &[("label", &label)] } else { &[] };
            w.edge(&tid, &format!("p{}", p.0), attrs)?;
        }
    }
    if truncated {
        let places_left = drawn_place.iter().filter(|d| !**d).count();
        w.note(
            "note_truncated",
            &format!(
                "not drawn: {} of {} and {} of {}\n(--max-events {drawn_transitions})",
                net.transitions.len() - drawn_transitions,
                plural(net.transitions.len(), "transition", "transitions"),
                places_left,
                plural(net.places.len(), "place", "places"),
            ),
        )?;
    }
    w.finish()
}

/// The tokens drawn on place `p`: the marking's, or the initial ones.
fn shown_tokens(net: &Net, marking: Option<&MarkingHighlight>, p: usize) -> u32 {
    marking.map_or(net.places[p].initial, |m| m.tokens.get(p).copied().unwrap_or(0))
}

/// Writes place `p` with `tokens`; `filled`: a marking is shown and a marked place is
/// filled.
fn write_place<W: Write>(
    w: &mut DotWriter<W>,
    net: &Net,
    p: usize,
    tokens: u32,
    filled: bool,
) -> io::Result<()> {
    let label = place_label(net, p, tokens);
    if filled && tokens > 0 {
        w.node(
            &format!("p{p}"),
            &[
                ("shape", "circle"),
                ("style", "filled"),
                ("fillcolor", HIGHLIGHT_CUT_FILL),
                ("label", &label),
            ],
        )
    } else {
        w.node(&format!("p{p}"), &[("shape", "circle"), ("label", &label)])
    }
}

enum Frame {
    Open(usize),
    Close,
}

/// Writes the NUPN units as nested clusters, without recursion; marks the places written.
fn write_units<W: Write>(
    w: &mut DotWriter<W>,
    net: &Net,
    nupn: &crate::system::net::Nupn,
    drawn_place: &[bool],
    placed: &mut [bool],
    marking: Option<&MarkingHighlight>,
) -> io::Result<()> {
    let n = nupn.units.len();
    if nupn.root >= n {
        return Ok(());
    }
    // Preorder from the root (a unit reached twice is drawn once), then whether each
    // unit's subtree holds a drawn place, children before parents.
    let mut preorder = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![nupn.root];
    while let Some(u) = stack.pop() {
        if std::mem::replace(&mut seen[u], true) {
            continue;
        }
        preorder.push(u);
        for &s in nupn.units[u].subunits.iter().rev() {
            if s < n && !seen[s] {
                stack.push(s);
            }
        }
    }
    let own_drawn = |u: usize| {
        nupn.units[u]
            .places
            .iter()
            .any(|p| drawn_place.get(p.index()).copied().unwrap_or(false))
    };
    let mut nonempty = vec![false; n];
    for &u in preorder.iter().rev() {
        nonempty[u] = own_drawn(u) || nupn.units[u].subunits.iter().any(|&s| s < n && nonempty[s]);
    }
    let mut written = vec![false; n];
    let mut frames = vec![Frame::Open(nupn.root)];
    while let Some(f) = frames.pop() {
        let u = match f {
            Frame::Close => {
                w.close()?;
                continue;
            }
            Frame::Open(u) => u,
        };
        if !nonempty[u] || std::mem::replace(&mut written[u], true) {
            continue;
        }
        let unit = &nupn.units[u];
        let boxed = !(u == nupn.root && unit.places.is_empty());
        if boxed {
            w.open_subgraph(&format!("cluster_u{u}"))?;
            w.attr("label", &format!("unit {}", unit.id))?;
            w.attr("style", "rounded")?;
            w.attr("color", "gray55")?;
            for p in &unit.places {
                let p = p.index();
                if p < placed.len() && drawn_place[p] && !placed[p] {
                    placed[p] = true;
                    write_place(w, net, p, shown_tokens(net, marking, p), marking.is_some())?;
                }
            }
            frames.push(Frame::Close);
        }
        for &s in unit.subunits.iter().rev() {
            if s < n {
                frames.push(Frame::Open(s));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod test {
    use super::*;

    fn tiny() -> Net {
        let mut net = Net {
            name: Some("tiny".into()),
            ..Net::default()
        };
        let a = net.add_place("a", None, 1);
        let b = net.add_place("b", Some("B place".into()), 0);
        let t = net.add_transition("t", None);
        net.add_pre(t, a, 2);
        net.add_post(t, b, 1);
        net.add_read(t, b);
        net
    }

    #[test]
    fn one_edge_per_arc_weights_above_one() {
        let text =
            String::from_utf8(write_net(&tiny(), &DotOptions::default(), Vec::new()).unwrap()).unwrap();
        assert!(
            text.contains("\"p0\" [shape=\"circle\", label=\"a\\n•\"];"),
            "{text}"
        );
        assert!(
            text.contains("\"p1\" [shape=\"circle\", label=\"B place\"];"),
            "{text}"
        );
        assert!(text.contains("\"p0\" -> \"t0\" [label=\"2\"];"), "{text}");
        assert!(text.contains("\"t0\" -> \"p1\";"), "{text}");
        assert!(text.contains("\"p1\" -> \"t0\" [style=\"dashed\""), "{text}");
        assert_eq!(text.matches(" -> ").count(), 3);
    }

    #[test]
    fn tokens_are_bullets_then_a_count() {
        assert_eq!(tokens_text(0), "");
        assert_eq!(tokens_text(3), "•••");
        assert_eq!(tokens_text(12), "12•");
    }
}
