//! Graphviz DOT pictures of models, unfolding prefixes, event structures and the QPOR
//! exploration tree (docs/drawing.md, `qpor dot`; issue 6).
//!
//! One module per view, all writing through the small [`DotWriter`] of this module:
//! - [`net`]: a P/T net — places, transitions, weighted and read arcs, NUPN units;
//! - [`system`]: the structure of a component system (for programs): components and the
//!   actions found so far touching them;
//! - [`prefix`]: a [`Prefix`](crate::unfold::prefix::Prefix) as an occurrence net;
//! - [`pes`]: the prime event structure of a prefix — immediate causality and immediate
//!   conflict;
//! - [`pes_file`]: the same view of an explicit event structure read from a `.pes` file;
//! - [`tree`]: the binary exploration tree of Algorithm 1, recorded by a
//!   [`TreeListener`](crate::qpor::TreeListener);
//! - [`highlight`]: finding the deadlock configuration a picture highlights.
//!
//! # Output contract
//! - Deterministic: the same input gives the same bytes. Nodes and edges are written in
//!   index order (places, transitions, conditions, events, tree calls as they were made);
//!   no hash map is ever iterated.
//! - Every identifier and every attribute value is written quoted and escaped by
//!   [`write_quoted`]: `"` and `\` are escaped, a newline becomes DOT's `\n` line break,
//!   other control characters become U+FFFD, and any other Unicode is kept as UTF-8 (DOT's
//!   default charset). So a name from the model can never break the syntax, and a label
//!   shows the name as it is.
//! - Node ids are generated from indices (`p3`, `t0`, `c12`, `e7`, `n42`, `k2`), never taken
//!   from names, so awkward names cannot collide; notes use ids starting with `note_`.
//! - Streaming: a view writes each node and edge as soon as it is known, to any
//!   [`Write`]; nothing holds the whole text.
//! - A cut picture (`--max-events`) says so in a `note`-shaped node, with how much was left
//!   out; so does a picture of a prefix whose builder stopped early
//!   ([`DotOptions::incomplete`]), which then states only bounds on what it did not build.
//!
//! # Invariants
//! - Every `open_*` of the writer is matched by a `close` before `finish` (checked with a
//!   `debug_assert!`).

pub(crate) mod highlight;
pub(crate) mod net;
pub(crate) mod pes;
pub(crate) mod pes_file;
pub(crate) mod prefix;
pub(crate) mod system;
pub(crate) mod tree;

use std::io::{self, Write};

/// Options shared by the views.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DotOptions {
    /// Draw at most this many events (transitions in the net view, actions in the system
    /// view, calls in the tree view); a note in the picture says how many were left out.
    pub max_events: Option<usize>,
    /// Events to fill (prefix and event-structure views).
    pub highlight: Option<Highlight>,
    /// A marking to draw and the transitions that led to it (net view).
    pub marking: Option<MarkingHighlight>,
    /// A title line shown at the top of the picture, above the view's own summary line.
    pub title: Option<String>,
    /// Prefix and event-structure views: the prefix given is only the start of the
    /// complete prefix, because its builder stopped early. The summary then counts what was
    /// built, never the whole, and a note says what was left out.
    pub incomplete: Option<Incomplete>,
}

/// Why a prefix handed to a view is not the complete prefix: its builder stopped (see
/// [`PrefixOutcome::stopped`](crate::unfold::prefix::PrefixOutcome)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incomplete {
    /// Why the builder stopped, e.g. `stopped at --max-events 40`.
    pub why: String,
    /// The possible extensions still queued: each is an event of the complete prefix that
    /// was not built (so the complete prefix has at least this many more events).
    pub pending: u64,
}

/// A set of events to fill, with what it is (shown in the picture's caption).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Highlight {
    /// The events' ids in the prefix.
    pub events: Vec<u32>,
    /// What the set is, e.g. `deadlock configuration`.
    pub caption: String,
}

/// A marking drawn on the net view (a dead marking, the end of a saved witness): its
/// marked places filled, with their tokens, and the transitions fired on the way there
/// filled with how often each fired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkingHighlight {
    /// Tokens of each place, indexed by place.
    pub tokens: Vec<u32>,
    /// How often each transition fired on the way, indexed by transition.
    pub fired: Vec<u32>,
    /// What the marking is, e.g. `the dead marking after 5 steps`.
    pub caption: String,
}

/// The fill colour of highlighted events.
pub(crate) const HIGHLIGHT_FILL: &str = "gold";
/// The fill colour of the conditions of a highlighted configuration's cut.
pub(crate) const HIGHLIGHT_CUT_FILL: &str = "lightgoldenrod1";
/// The outline colour of cutoff events.
pub(crate) const CUTOFF_COLOR: &str = "red3";
/// The fill colour of cutoff events that are not highlighted.
pub(crate) const CUTOFF_FILL: &str = "mistyrose";
/// The font of every picture (a font every Graphviz install has).
pub(crate) const FONT: &str = "Helvetica";

/// Writes `s` as a quoted DOT string: `"` and `\` escaped, newlines (`\n`, `\r\n`, `\r`)
/// as DOT's centred line break `\n`, tabs as spaces, other control characters as U+FFFD.
pub(crate) fn write_quoted<W: Write + ?Sized>(out: &mut W, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        let replacement: Option<&[u8]> = match ch {
            '"' => Some(b"\\\""),
            '\\' => Some(b"\\\\"),
            '\n' => Some(b"\\n"),
            '\r' => {
                if matches!(chars.peek(), Some((_, '\n'))) {
                    // `\r\n`: the `\n` that follows makes the line break.
                    Some(b"")
                } else {
                    Some(b"\\n")
                }
            }
            '\t' => Some(b" "),
            c if c.is_control() => Some("\u{fffd}".as_bytes()),
            _ => None,
        };
        if let Some(r) = replacement {
            out.write_all(&bytes[start..i])?;
            out.write_all(r)?;
            start = i + ch.len_utf8();
        }
    }
    out.write_all(&bytes[start..])?;
    out.write_all(b"\"")
}

/// An attribute list: (name, value) pairs, written in order, values quoted.
pub(crate) type Attrs<'a> = [(&'a str, &'a str)];

/// A streaming writer of one DOT `digraph`: statements go out as they are written, indented
/// by nesting depth.
pub(crate) struct DotWriter<W: Write> {
    out: W,
    depth: usize,
}

impl<W: Write> DotWriter<W> {
    /// Starts `digraph "name" {` on `out`.
    pub(crate) fn digraph(mut out: W, name: &str) -> io::Result<Self> {
        out.write_all(b"digraph ")?;
        write_quoted(&mut out, name)?;
        out.write_all(b" {\n")?;
        Ok(DotWriter { out, depth: 1 })
    }

    fn indent(&mut self) -> io::Result<()> {
        for _ in 0..self.depth {
            self.out.write_all(b"  ")?;
        }
        Ok(())
    }

    fn attr_list(&mut self, attrs: &Attrs<'_>) -> io::Result<()> {
        if attrs.is_empty() {
            return Ok(());
        }
        self.out.write_all(b" [")?;
        for (i, (k, v)) in attrs.iter().enumerate() {
            if i > 0 {
                self.out.write_all(b", ")?;
            }
            self.out.write_all(k.as_bytes())?;
            self.out.write_all(b"=")?;
            write_quoted(&mut self.out, v)?;
        }
        self.out.write_all(b"]")
    }

    /// A default-attribute statement: `graph [...]`, `node [...]` or `edge [...]`.
    pub(crate) fn defaults(&mut self, kind: DefaultKind, attrs: &Attrs<'_>) -> io::Result<()> {
        self.indent()?;
        self.out.write_all(kind.keyword().as_bytes())?;
        self.attr_list(attrs)?;
        self.out.write_all(b";\n")
    }

    /// A node statement.
    pub(crate) fn node(&mut self, id: &str, attrs: &Attrs<'_>) -> io::Result<()> {
        self.indent()?;
        write_quoted(&mut self.out, id)?;
        self.attr_list(attrs)?;
        self.out.write_all(b";\n")
    }

    /// An edge statement `from -> to`.
    pub(crate) fn edge(&mut self, from: &str, to: &str, attrs: &Attrs<'_>) -> io::Result<()> {
        self.indent()?;
        write_quoted(&mut self.out, from)?;
        self.out.write_all(b" -> ")?;
        write_quoted(&mut self.out, to)?;
        self.attr_list(attrs)?;
        self.out.write_all(b";\n")
    }

    /// Opens `subgraph "id" {`; a name starting with `cluster` makes a boxed cluster.
    pub(crate) fn open_subgraph(&mut self, id: &str) -> io::Result<()> {
        self.indent()?;
        self.out.write_all(b"subgraph ")?;
        write_quoted(&mut self.out, id)?;
        self.out.write_all(b" {\n")?;
        self.depth += 1;
        Ok(())
    }

    /// Opens an anonymous subgraph `{` (for rank constraints).
    pub(crate) fn open_group(&mut self) -> io::Result<()> {
        self.indent()?;
        self.out.write_all(b"{\n")?;
        self.depth += 1;
        Ok(())
    }

    /// An attribute statement `name="value";` of the current (sub)graph.
    pub(crate) fn attr(&mut self, name: &str, value: &str) -> io::Result<()> {
        self.indent()?;
        self.out.write_all(name.as_bytes())?;
        self.out.write_all(b"=")?;
        write_quoted(&mut self.out, value)?;
        self.out.write_all(b";\n")
    }

    /// Closes the innermost open subgraph.
    pub(crate) fn close(&mut self) -> io::Result<()> {
        debug_assert!(self.depth > 1, "[qpor internal bug] DOT close without open");
        self.depth -= 1;
        self.indent()?;
        self.out.write_all(b"}\n")
    }

    /// A `note`-shaped node saying what the picture leaves out.
    pub(crate) fn note(&mut self, id: &str, text: &str) -> io::Result<()> {
        self.node(
            id,
            &[
                ("shape", "note"),
                ("style", "filled"),
                ("fillcolor", "lightyellow"),
                ("fontcolor", "black"),
                ("label", text),
            ],
        )
    }

    /// Closes the graph, flushes and gives the writer back.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        debug_assert_eq!(self.depth, 1, "[qpor internal bug] DOT subgraph left open");
        self.out.write_all(b"}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The kind of a default-attribute statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DefaultKind {
    /// `graph [...]`.
    Graph,
    /// `node [...]`.
    Node,
    /// `edge [...]`.
    Edge,
}

impl DefaultKind {
    fn keyword(self) -> &'static str {
        match self {
            DefaultKind::Graph => "graph",
            DefaultKind::Node => "node",
            DefaultKind::Edge => "edge",
        }
    }
}

/// Writes the defaults every view shares: the font, and the title as the graph label.
pub(crate) fn common_defaults<W: Write>(
    w: &mut DotWriter<W>,
    title: Option<&str>,
    extra: &Attrs<'_>,
) -> io::Result<()> {
    let mut graph: Vec<(&str, &str)> = vec![("fontname", FONT)];
    if let Some(t) = title {
        graph.push(("label", t));
        graph.push(("labelloc", "t"));
    }
    graph.extend_from_slice(extra);
    w.defaults(DefaultKind::Graph, &graph)?;
    w.defaults(DefaultKind::Node, &[("fontname", FONT), ("fontsize", "10")])?;
    w.defaults(DefaultKind::Edge, &[("fontname", FONT), ("fontsize", "9")])
}

/// The picture's title: the caller's title line, if any, above the view's `summary`.
pub(crate) fn titled(opts: &DotOptions, summary: String) -> String {
    match &opts.title {
        Some(t) => format!("{t}\n{summary}"),
        None => summary,
    }
}

/// "1 event" / "3 events".
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod test {
    use super::*;

    fn quote(s: &str) -> String {
        let mut out = Vec::new();
        write_quoted(&mut out, s).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn quoting_escapes_what_dot_interprets() {
        assert_eq!(quote("plain"), "\"plain\"");
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        assert_eq!(quote("a\\b"), "\"a\\\\b\"");
        assert_eq!(quote("ends with \\"), "\"ends with \\\\\"");
        assert_eq!(quote("two\nlines"), "\"two\\nlines\"");
        assert_eq!(quote("dos\r\nline"), "\"dos\\nline\"");
        assert_eq!(quote("mac\rline"), "\"mac\\nline\"");
        assert_eq!(quote("tab\there"), "\"tab here\"");
        assert_eq!(quote("bell\u{7}"), "\"bell\u{fffd}\"");
        assert_eq!(quote("∀ü→ 🦀"), "\"∀ü→ 🦀\"");
        assert_eq!(quote(""), "\"\"");
    }

    #[test]
    fn writer_nests_and_closes() {
        let mut w = DotWriter::digraph(Vec::new(), "g\"1").unwrap();
        w.defaults(DefaultKind::Node, &[("shape", "box")]).unwrap();
        w.open_subgraph("cluster_a").unwrap();
        w.attr("label", "A").unwrap();
        w.node("x", &[("label", "x\\y")]).unwrap();
        w.close().unwrap();
        w.edge("x", "y", &[]).unwrap();
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "digraph \"g\\\"1\" {\n  node [shape=\"box\"];\n  subgraph \"cluster_a\" {\n    label=\"A\";\n    \"x\" [label=\"x\\\\y\"];\n  }\n  \"x\" -> \"y\";\n}\n"
        );
    }
}
