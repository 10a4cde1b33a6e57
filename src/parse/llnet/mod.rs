//! The PEP low-level net reader (`.ll_net`, docs/design.md#inputs): the format of PEP, Punf, Cunf
//! and Mole, with Cunf's `RA` block of read arcs.
//!
//! The syntax is the pest grammar `grammars/llnet.pest`; this module gives it meaning and
//! checks what a grammar cannot. We read files the way Cunf does (docs/paper.md#the-pep-low-level-net-format)
//! with these differences:
//! - `M<k>` may exceed 1: non-safe nets are supported.
//! - Arc weights `w<k>` count (Cunf ignores them); a read arc has no weight above 1.
//! - In `RA`, `p>t` means "place p read by t": the separator points at the transition, as
//!   in `TP` (`t<p`) and `PT` (`p>t`). Cunf reads the first number as the transition
//!   whatever the separator, so it silently reverses such lines. In `TP` and `PT` the block
//!   already fixes the direction, and a separator pointing the other way is an error.
//! - Where Cunf keeps the last value or silently drops a line, we stop with an error: two
//!   ids or two names on one line, two different markings or weights, an id 0 (Cunf takes
//!   it for "no id"), a string running past the end of its line.
//! - An arc given on several lines of its block is one arc whose weight is the sum, as
//!   LoLA and verifypn read parallel arcs (a repeated read arc is one read arc), with one
//!   warning per net.
//! - No marked place is not an error: the initial marking is then simply dead.
//!
//! Ids follow Cunf: an entity without a number takes its 1-based position in its block,
//! until a line gives an explicit id other than its position; from then on ids are
//! mandatory. Ids may be sparse, never repeated. [`Place::id`](crate::system::net::Place::id)
//! and the transition id are the number as text; names are the quoted strings, verbatim.
//! Coordinates, boxes, phantom transitions and arcs, defaults and texts are checked for
//! syntax and dropped.
//!
//! The classic benchmark files are Latin-1 (`Römer` in their `TX` block); [`decode`] turns
//! file bytes into text without failing on them.

mod arcs;
mod nodes;
mod syntax;

use super::{pos_of_offset, ParseError};
use crate::system::net::{Net, PlaceId, TransId};
use arcs::{ArcBlock, ParallelArcs};
use pest::iterators::Pair;
use pest::Parser as _;
use std::borrow::Cow;
use std::collections::HashMap;

/// The parser generated from the grammar; private, so its `Rule` enum stays internal.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammars/llnet.pest"]
    pub(super) struct LlNetParser;
}

use grammar::{LlNetParser, Rule};

/// Parses an ll_net text; returns the net with the reader's warnings (`file:line:col: …`).
///
/// ```
/// let text = "PEP\nPTNet\nFORMAT_N\nPL\n1\"idle\"M1\n2\"busy\"\nTR\n1\"go\"\nTP\n1<2\nPT\n1>1\n";
/// let (net, warnings) = qpor::formats::llnet::parse(text, "tiny.ll_net").unwrap();
/// assert_eq!(net.places.len(), 2);
/// assert_eq!(net.transitions[0].name.as_deref(), Some("go"));
/// assert!(warnings.is_empty());
/// ```
pub fn parse(text: &str, file: &str) -> Result<(Net, Vec<String>), ParseError> {
    let mut reader = Reader::new(text, file);
    let mut pairs = LlNetParser::parse(Rule::file, text).map_err(|e| reader.syntax_error(&e))?;
    let Some(top) = pairs.next() else {
        return Err(reader.error_at(0, "empty parse of the ll_net file (qpor internal bug)"));
    };
    for block in top.into_inner() {
        match block.as_rule() {
            Rule::dpt_block => reader.arc_defaults(block)?,
            Rule::pl_block => reader.places(block)?,
            Rule::tr_block => reader.transitions(block)?,
            Rule::tp_block => reader.arcs(block, ArcBlock::Tp)?,
            Rule::pt_block => reader.arcs(block, ArcBlock::Pt)?,
            Rule::ra_block => reader.arcs(block, ArcBlock::Ra)?,
            // The header, and blocks whose content qpor does not use.
            _ => {}
        }
    }
    reader.finish_warnings();
    Ok((reader.net, reader.warnings))
}

/// The text of an ll_net file: its bytes as UTF-8 when they are valid UTF-8, otherwise as
/// Latin-1 (ISO 8859-1), the encoding of the classic PEP and Corbett benchmark files. Never
/// fails: every byte is a Latin-1 character.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// The state of one parse.
struct Reader<'t> {
    text: &'t str,
    file: &'t str,
    net: Net,
    warnings: Vec<String>,
    /// File id of each place → its index and the offset of its line.
    place_ids: HashMap<u32, PlaceId>,
    trans_ids: HashMap<u32, TransId>,
    /// First place with a capacity field, and how many have one.
    capacities: Option<(usize, usize)>,
    parallel: ParallelArcs,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, file: &'t str) -> Self {
        Reader {
            text,
            file,
            net: Net::default(),
            warnings: Vec::new(),
            place_ids: HashMap::new(),
            trans_ids: HashMap::new(),
            capacities: None,
            parallel: ParallelArcs::default(),
        }
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> ParseError {
        ParseError::at(self.file, self.text, offset, message)
    }

    fn warn_at(&mut self, offset: usize, message: &str) {
        let warning = self.error_at(offset, message);
        self.warnings.push(warning.to_string());
    }

    fn finish_warnings(&mut self) {
        self.warn_parallel_arcs();
        if let Some((at, count)) = self.capacities {
            let message = format!(
                "capacity fields (k) ignored on {count} place{}: qpor does not bound places",
                if count == 1 { "" } else { "s" }
            );
            self.warn_at(at, &message);
        }
    }

    /// The value of a `number` token that must fit a `u32`; `what` names it in messages.
    fn unsigned(&self, number: &Pair<'t, Rule>, what: &str) -> Result<u32, ParseError> {
        let text = number.as_str();
        let at = number.as_span().start();
        if text.starts_with('-') {
            return Err(self.error_at(at, format!("negative {what} {text}: expected 0 or more")));
        }
        text.parse::<u32>()
            .map_err(|_| self.error_at(at, format!("{what} {text} is too large (at most {})", u32::MAX)))
    }

    /// A place or transition id: a number from 1 to `u32::MAX`.
    fn id(&self, number: &Pair<'t, Rule>, kind: &str) -> Result<u32, ParseError> {
        let text = number.as_str();
        let at = number.as_span().start();
        if text.starts_with('-') {
            return Err(self.error_at(at, format!("expected a positive {kind} id, found {text}")));
        }
        match text.parse::<u32>() {
            Ok(0) => Err(self.error_at(at, format!("{kind} id 0: ids start at 1"))),
            Ok(id) => Ok(id),
            Err(_) => Err(self.error_at(
                at,
                format!("{kind} id {text} is too large (at most {})", u32::MAX),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "PEP\nPTNet\nFORMAT_N\n";

    fn net(body: &str) -> Net {
        parse(&format!("{HEADER}{body}"), "t.ll_net").unwrap().0
    }

    fn error(body: &str) -> ParseError {
        parse(&format!("{HEADER}{body}"), "t.ll_net").unwrap_err()
    }

    #[test]
    fn autonumbering_follows_positions_until_an_id_differs() {
        let n = net("PL\n\"a\"M2\n2\"b\"\n\"c\"\n7\"d\"\nTR\n\"t\"\nTP\n1<7\nPT\n3>1\n");
        let ids: Vec<&str> = n.places.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3", "7"]);
        assert_eq!(n.places[0].initial, 2);
        assert_eq!(n.transitions[0].post, vec![(PlaceId(3), 1)]);
        assert_eq!(n.transitions[0].pre, vec![(PlaceId(2), 1)]);
    }

    #[test]
    fn blank_lines_comments_and_spaces_are_skipped() {
        let n = net(
            "% c\n\nPL % places\n 1 \"a\" 10 @ 20 M1 % marked\n\n2'b'\nTR\n1\"t\"\nTP\n1 < 2 w 2\nPT\n1>1\n",
        );
        assert_eq!(n.places.len(), 2);
        assert_eq!(n.places[1].name.as_deref(), Some("b"));
        assert_eq!(n.transitions[0].post, vec![(PlaceId(1), 2)]);
    }

    #[test]
    fn last_line_without_newline() {
        let n = net("PL\n\"a\"M1\nTR\n\"t\"\nTP\nPT\n1>1");
        assert_eq!(n.transitions[0].pre, vec![(PlaceId(0), 1)]);
    }

    #[test]
    fn read_arcs_read_the_separator() {
        let n = net("PL\n\"a\"\n\"b\"\nTR\n\"t\"\n\"u\"\nTP\nPT\nRA\n1<2\n1>2\n");
        assert_eq!(n.transitions[0].read, vec![PlaceId(1)]);
        assert_eq!(n.transitions[1].read, vec![PlaceId(0)]);
    }

    #[test]
    fn keyword_in_the_middle_of_a_line_is_a_field_error() {
        let e = error("PL\n\"a\" TR\n");
        assert_eq!((e.pos.line, e.pos.col), (5, 6), "{e}");
        assert!(e.message.contains("after field `T`"), "{e}");
    }

    #[test]
    fn capacities_and_default_weights_warn() {
        let (_, warnings) = parse(
            &format!("{HEADER}DPT w2t1\nPL\n\"a\"k1\n\"b\"k1\nTR\nTP\nPT\n"),
            "t.ll_net",
        )
        .unwrap();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("t.ll_net:4:6: default arc weight w2"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("t.ll_net:6:4: capacity fields (k) ignored on 2 places"),
            "{warnings:?}"
        );
    }

    #[test]
    fn latin1_bytes_decode() {
        assert_eq!(decode(b"R\xf6mer"), "Römer");
        assert_eq!(decode("Römer".as_bytes()), "Römer");
    }
}
