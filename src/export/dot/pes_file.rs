//! The `pes` view of an explicit event structure read from a `.pes` file
//! ([`crate::parse::pes`], a [`crate::unfold::pes::Pes`]), drawn like the `pes` view of a prefix ([`super::pes`]).
//!
//! An explicit [`Pes`] has no conditions, so this adapter takes its relations from the
//! structure itself: immediate causality is [`Pes::immediate_causes`] (the Hasse diagram
//! of <), immediate conflict [`Pes::immediate_conflicts`] (docs/paper.md#prime-event-structures).
//! - Events are boxes `e<i>` (declaration order) labelled with their name and, on a second
//!   line, their label when they have one.
//! - Immediate causality: solid arrows; immediate conflict: dashed red edges without
//!   arrowheads, each pair once, smaller index first — as in the prefix's `pes` view.
//! - The named sets of the file (such as C and D of an Alt question) are listed in the
//!   title; [`DotOptions::highlight`] fills events by index.
//!
//! With `max_events = N` only the first N events (declaration order) are drawn, with the
//! edges between them, and a note tells how many were left out.

use super::pes::{events_not_drawn, write_relations};
use super::{common_defaults, plural, titled, DotOptions, DotWriter, HIGHLIGHT_FILL};
use crate::unfold::pes::{Pes, PesEventId};
use std::io::{self, Write};

/// Most event names a set lists in the title before it says how many more there are.
const MAX_NAMES_PER_SET: usize = 12;

/// The immediate-causality pairs (a, b), a ⋖ b, among the first `n` events, sorted by b
/// then a.
pub(crate) fn explicit_causality(pes: &Pes, n: usize) -> Vec<(u32, u32)> {
    let n = n.min(pes.len());
    let mut out = Vec::new();
    for b in 0..n as u32 {
        for a in pes.immediate_causes(PesEventId(b)) {
            if a.index() < n {
                out.push((a.0, b));
            }
        }
    }
    out
}

/// The immediate-conflict pairs (a, b), a < b, among the first `n` events, sorted.
pub(crate) fn explicit_conflicts(pes: &Pes, n: usize) -> Vec<(u32, u32)> {
    let n = n.min(pes.len());
    let mut out = Vec::new();
    for a in 0..n as u32 {
        for b in pes.immediate_conflicts(PesEventId(a)) {
            if b.0 > a && b.index() < n {
                out.push((a, b.0));
            }
        }
    }
    out
}

fn set_text(pes: &Pes, name: &str, events: &[PesEventId]) -> String {
    let mut names: Vec<&str> = events
        .iter()
        .take(MAX_NAMES_PER_SET)
        .map(|&e| pes.name(e))
        .collect();
    let more = events.len().saturating_sub(MAX_NAMES_PER_SET);
    let more_text = format!("… {more} more");
    if more > 0 {
        names.push(&more_text);
    }
    format!("{name} = {{{}}}", names.join(", "))
}

/// Writes the `pes` view of the explicit event structure `pes` to `out`.
pub fn write_explicit_pes<W: Write>(pes: &Pes, opts: &DotOptions, out: W) -> io::Result<W> {
    let n = opts.max_events.unwrap_or(usize::MAX).min(pes.len());
    let causality = explicit_causality(pes, n);
    let conflicts = explicit_conflicts(pes, n);
    let mut title = titled(opts, {
        format!(
            "event structure: {}, {} of immediate causality, {} of immediate conflict",
            plural(pes.len(), "event", "events"),
            plural(causality.len(), "pair", "pairs"),
            plural(conflicts.len(), "pair", "pairs"),
        )
    });
    let sets: Vec<String> = pes
        .sets()
        .map(|(name, events)| set_text(pes, name, events))
        .collect();
    if !sets.is_empty() {
        title.push_str(&format!("\nsets: {}", sets.join("; ")));
    }
    let mut filled = vec![false; n];
    if let Some(h) = &opts.highlight {
        title.push_str(&format!("\nfilled: {}", h.caption));
        for &e in &h.events {
            if let Some(f) = filled.get_mut(e as usize) {
                *f = true;
            }
        }
    }
    let mut w = DotWriter::digraph(out, "event structure")?;
    common_defaults(&mut w, Some(&title), &[])?;
    for (i, e) in pes.events().take(n).enumerate() {
        let label = match pes.label(e) {
            Some(l) => format!("{}\n{l}", pes.name(e)),
            None => pes.name(e).to_string(),
        };
        let id = format!("e{i}");
        if filled[i] {
            w.node(
                &id,
                &[
                    ("shape", "box"),
                    ("style", "filled"),
                    ("fillcolor", HIGHLIGHT_FILL),
                    ("label", &label),
                ],
            )?;
        } else {
            w.node(&id, &[("shape", "box"), ("label", &label)])?;
        }
    }
    write_relations(&mut w, &causality, &conflicts)?;
    if n < pes.len() {
        w.note("note_truncated", &events_not_drawn(pes.len(), n, ""))?;
    }
    w.finish()
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::parse::pes::parse;
    use crate::unfold::pes::PesOptions;

    #[test]
    fn draws_the_hasse_diagram_and_immediate_conflicts() {
        // a < b < c (so a < c is not drawn), a # d, inherited b # d and c # d are not
        // immediate.
        let text = "pes 1\nevent a \"x=1\"\nevent b\nevent c\nevent d\na < b\nb < c\na # d\nset C = { a }\n";
        let pes = parse(text, "t.pes", &PesOptions { close_conflict: true }).unwrap();
        assert_eq!(explicit_causality(&pes, 4), vec![(0, 1), (1, 2)]);
        assert_eq!(explicit_conflicts(&pes, 4), vec![(0, 3)]);
        let dot =
            String::from_utf8(write_explicit_pes(&pes, &DotOptions::default(), Vec::new()).unwrap()).unwrap();
        assert!(
            dot.contains("\"e0\" [shape=\"box\", label=\"a\\nx=1\"];"),
            "{dot}"
        );
        assert!(dot.contains("sets: C = {a}"), "{dot}");
        assert_eq!(dot.matches(" -> ").count(), 3);
        let cut = DotOptions {
            max_events: Some(2),
            ..DotOptions::default()
        };
        let dot = String::from_utf8(write_explicit_pes(&pes, &cut, Vec::new()).unwrap()).unwrap();
        assert!(dot.contains("not drawn: 2 of 4 events"), "{dot}");
        assert_eq!(dot.matches(" -> ").count(), 1);
    }
}
