//! Writer of explicit prime event structures in the text format of `docs/pes-format.md`,
//! which [`crate::parse::pes`] reads back into the same [`Pes`].
//!
//! The output is a function of the structure and the comment alone: events in index
//! order, causality as its Hasse diagram (immediate causes, grouped by cause), conflict as
//! every pair (the relation is written closed, so a strict reader accepts it), one line per
//! event with all its later conflicting events, then the named sets in their order.

use crate::parse::pes::FORMAT_VERSION;
use crate::unfold::pes::{Pes, PesEventId};
use std::fmt::Write as _;

/// Longest line the writer makes of a list (it wraps sets and relation lists there).
const LINE: usize = 100;

/// The structure as text; every line of `comment` becomes a `//` comment at the top.
///
/// ```
/// use qpor::formats::pes::parse;
/// use qpor::unfolding::{PesBuilder, PesOptions};
/// let mut b = PesBuilder::new();
/// let a = b.event("a", Some("x1=1".into())).unwrap();
/// let d = b.event("d", None).unwrap();
/// b.conflict(a, d);
/// b.set("D", vec![d]);
/// let pes = b.build(&PesOptions::default()).unwrap();
/// let text = qpor::formats::pes::write(&pes, "an example");
/// assert!(text.starts_with("// an example\npes 1\n"));
/// let back = parse(&text, "back.pes", &PesOptions::default()).unwrap();
/// assert!(back.conflict(back.find("d").unwrap(), back.find("a").unwrap()));
/// ```
pub fn write(pes: &Pes, comment: &str) -> String {
    let mut s = String::new();
    for line in comment.lines() {
        if line.is_empty() {
            s.push_str("//\n");
        } else {
            let _ = writeln!(s, "// {line}");
        }
    }
    let _ = writeln!(s, "pes {FORMAT_VERSION}");
    if !pes.is_empty() {
        s.push('\n');
    }
    for e in pes.events() {
        let _ = write!(s, "event {}", pes.name(e));
        if let Some(label) = pes.label(e) {
            s.push(' ');
            quote(&mut s, label);
        }
        s.push('\n');
    }
    // Causality: for each cause, the events it is an immediate cause of.
    let mut immediate_effects: Vec<Vec<PesEventId>> = vec![Vec::new(); pes.len()];
    for e in pes.events() {
        for c in pes.immediate_causes(e) {
            immediate_effects[c.index()].push(e);
        }
    }
    let mut wrote_causality = false;
    for e in pes.events() {
        if !immediate_effects[e.index()].is_empty() {
            if !wrote_causality {
                s.push('\n');
                wrote_causality = true;
            }
            relation(&mut s, pes, e, "<", &immediate_effects[e.index()]);
        }
    }
    let mut wrote_conflict = false;
    for e in pes.events() {
        let later: Vec<PesEventId> = pes
            .conflicts(e)
            .ones()
            .filter(|&f| f > e.index())
            .map(|f| PesEventId(f as u32))
            .collect();
        if !later.is_empty() {
            if !wrote_conflict {
                s.push('\n');
                wrote_conflict = true;
            }
            relation(&mut s, pes, e, "#", &later);
        }
    }
    let mut first_set = true;
    for (name, events) in pes.sets() {
        if first_set {
            s.push('\n');
            first_set = false;
        }
        let head = format!("set {name} = {{");
        if events.is_empty() {
            let _ = writeln!(s, "{head}}}");
            continue;
        }
        let mut line = head.clone();
        for &e in events {
            if line.len() + 1 + pes.name(e).len() > LINE && line != head {
                let _ = writeln!(s, "{line}");
                line = " ".into();
            }
            line.push(' ');
            line.push_str(pes.name(e));
        }
        let _ = writeln!(s, "{line} }}");
    }
    s
}

/// `a < b c d` (or `#`), wrapped into several statements with the same left side when long.
fn relation(s: &mut String, pes: &Pes, e: PesEventId, op: &str, others: &[PesEventId]) {
    let head = format!("{} {op}", pes.name(e));
    let mut line = head.clone();
    for &f in others {
        if line.len() + 1 + pes.name(f).len() > LINE && line != head {
            let _ = writeln!(s, "{line}");
            line = head.clone();
        }
        line.push(' ');
        line.push_str(pes.name(f));
    }
    let _ = writeln!(s, "{line}");
}

fn quote(s: &mut String, label: &str) {
    s.push('"');
    for c in label.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::pes::parse;
    use crate::unfold::pes::{PesBuilder, PesOptions};

    #[test]
    fn round_trip_keeps_everything() {
        let mut b = PesBuilder::new();
        let ids: Vec<PesEventId> = (0..6)
            .map(|i| {
                b.event(&format!("e{i}"), (i % 2 == 0).then(|| format!("l\"{i}\\")))
                    .unwrap()
            })
            .collect();
        b.causality(ids[0], ids[1]);
        b.causality(ids[1], ids[2]);
        b.causality(ids[0], ids[2]);
        b.conflict(ids[1], ids[3]);
        b.conflict(ids[4], ids[5]);
        b.set("C", vec![ids[0]]);
        b.set("D", vec![ids[1], ids[3]]);
        b.set("other", vec![]);
        let pes = b.build(&PesOptions { close_conflict: true }).unwrap();
        let text = write(&pes, "two lines\nof comment");
        let back = parse(&text, "back.pes", &PesOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(write(&back, "two lines\nof comment"), text);
        for x in pes.events() {
            assert_eq!(back.label(x), pes.label(x));
            for y in pes.events() {
                assert_eq!(back.lt(x, y), pes.lt(x, y));
                assert_eq!(back.conflict(x, y), pes.conflict(x, y));
            }
        }
        assert!(
            text.contains("e0 < e1\n") && !text.contains("e0 < e1 e2"),
            "{text}"
        );
        assert!(text.contains("e2 # e3\n"), "{text}");
        assert!(text.contains("set other = {}\n"), "{text}");
    }
}
