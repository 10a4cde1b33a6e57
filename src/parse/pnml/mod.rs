//! PNML reader: place/transition nets as the Model Checking Contest ships them (docs/design.md#inputs).
//!
//! One streaming pass over the XML with quick-xml. The reader keeps the net it is building,
//! a symbol table of node ids and the stack of open elements — never a document tree nor
//! the file's text — so the 60 MB nets of the MCC load in one linear pass.
//!
//! # What is read
//! - The first `net` of the document (`id`, `type` = the ptnet grammar URI) and its
//!   `name/text`; its `page`s, nested to any depth, or nodes placed directly under `net`.
//! - `place` (`name/text`, `initialMarking/text`), `transition` (`name/text`) and `arc`
//!   (`source`, `target`, `inscription/text` = the weight, 1 when absent). Parallel arcs
//!   (two or more with the same source and target, possibly through references) are one
//!   arc whose weight is their sum, as LoLA and verifypn read them, with one warning per
//!   net: the sum is what the tools that write such files mean.
//! - `referencePlace` / `referenceTransition`: a node standing for the node its `ref` names,
//!   possibly on another page, possibly through a chain of references. Arcs attached to a
//!   reference node attach to the node it stands for.
//! - The NUPN block (`toolspecific tool="nupn"`: `size`, `structure`, `unit`s with their
//!   `places` and `subunits`) into [`Net::nupn`], checked to be a tree of units that share
//!   no place. A `size` that disagrees with the net is only a warning: the units are still
//!   right, the counts are just stale.
//! - `graphics`, other tools' `toolspecific` blocks and other decorations are skipped.
//!
//! Arcs, references and units may name nodes declared further down the file, so they are
//! kept with their positions and resolved when the document ends.
//!
//! # What is refused
//! Coloured (symmetric, high-level) nets — a net `type` other than ptnet, or any
//! `hlinitialMarking`, `hlinscription`, `declaration` or `structure` outside the NUPN block;
//! and arcs whose `type` is not `normal` (inhibitor, reset, test…). Every other problem —
//! XML syntax, a truncated file, missing or duplicate ids, dangling arcs or references,
//! weights and markings (or sums of parallel arcs' weights) that are not natural numbers or
//! do not fit in a `u32` — is a [`ParseError`] at the offending element or text.
//!
//! # Positions
//! quick-xml reports byte offsets. A `LineTracker` sits between the input and quick-xml and
//! counts lines and characters as quick-xml consumes bytes; since quick-xml consumes exactly
//! the bytes of each event, the tracker's position just before an event is where the event
//! starts. The tracker also keeps the bytes of the current event (and only those), so an
//! offset quick-xml reports inside it can still be turned into a line and column.
//!
//! # Invariants
//! - The tracker has consumed exactly the bytes quick-xml has (quick-xml's
//!   `buffer_position`, plus the byte-order mark it skips without counting).
//! - Every error carries the 1-based line and column of the offending element or text.
//!
//! # Layout
//! [`read`] drives one `Parser` over quick-xml's events: `tracker` (positions), `elements`
//! (what each element means), `nodes` (net, places, transitions, references, arcs), `text`
//! (names, markings, weights), `nupn` (the NUPN block), `symbols` (the id table) and
//! `resolve` (references, arcs and the net, once the document ends).

mod elements;
mod nodes;
mod nupn;
mod resolve;
mod symbols;
mod text;
mod tracker;

use super::{ParseError, Pos};
use crate::system::net::Net;
use elements::{attr_message, Frame};
use nodes::{ArcDecl, PlaceDecl, TransDecl};
use nupn::NupnDecl;
use quick_xml::events::Event;
use quick_xml::Reader;
use std::io::BufRead;
use symbols::Symbols;
use tracker::LineTracker;

/// The default namespace of PNML 2009 documents.
pub(crate) const PNML_NAMESPACE: &str = "http://www.pnml.org/version-2009/grammar/pnml";
/// The `type` of a P/T net in PNML 2009.
pub(crate) const PTNET_TYPE: &str = "http://www.pnml.org/version-2009/grammar/ptnet";

/// The words of the reader's refusal of an arc that is not of type normal.
const ARC_TYPE_REFUSAL: &str = "arcs are not supported";

/// Whether `e` is the reader's refusal of a net that is no P/T net (a coloured net, or one
/// with inhibitor or reset arcs), which tools of the Model Checking Contest answer with
/// DO_NOT_COMPETE rather than an error.
pub(crate) fn is_not_pt_net_error(e: &ParseError) -> bool {
    e.message.starts_with(elements::COLOURED_REFUSAL) || e.message.contains(ARC_TYPE_REFUSAL)
}

/// Reads the first P/T net of a PNML document; returns it with the reader's warnings
/// (`file:line:col: …`), e.g. when the file holds several nets or a stale NUPN `size`.
///
/// ```
/// let text = r#"<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">
///   <net id="n" type="http://www.pnml.org/version-2009/grammar/ptnet">
///     <place id="p"><initialMarking><text>1</text></initialMarking></place>
///     <transition id="t"/>
///     <arc id="a" source="p" target="t"><inscription><text>1</text></inscription></arc>
///   </net>
/// </pnml>"#;
/// let (net, warnings) = qpor::formats::pnml::read(text.as_bytes(), "small.pnml").unwrap();
/// assert_eq!((net.places.len(), net.transitions.len(), net.num_arcs()), (1, 1, 1));
/// assert!(warnings.is_empty());
/// ```
pub fn read<R: BufRead>(reader: R, file: &str) -> Result<(Net, Vec<String>), ParseError> {
    let mut xml = Reader::from_reader(LineTracker::new(reader));
    // Whitespace text must come through as events: positions are taken between events.
    xml.config_mut().trim_text(false);
    let mut parser = Parser::new(file);
    let mut buf = Vec::new();
    loop {
        xml.get_mut().set_mark();
        let at = xml.get_ref().mark_pos;
        buf.clear();
        let event = match xml.read_event_into(&mut buf) {
            Ok(event) => event,
            Err(err) => {
                let tracker = xml.get_ref();
                let pos = tracker.pos_at(xml.error_position() + tracker.bom);
                return Err(parser.error(pos, xml_message(&err)));
            }
        };
        debug_assert_eq!(
            xml.get_ref().consumed,
            xml.buffer_position() + xml.get_ref().bom,
            "[qpor internal bug] the line tracker and quick-xml disagree on the bytes consumed"
        );
        match event {
            Event::Start(e) => parser.start(&e, at)?,
            Event::Empty(e) => {
                parser.start(&e, at)?;
                parser.end(at)?;
            }
            Event::End(_) => parser.end(at)?,
            // Blanks between elements are most of the text events: only normalise (and, for
            // CRLF files, allocate) what is kept.
            Event::Text(t) if parser.collecting() => parser.text(&t.xml10_content(), at, true),
            Event::Text(_) => {}
            Event::CData(t) => parser.text(&t, at, false),
            Event::GeneralRef(r) => parser.general_ref(&r, at)?,
            Event::Eof => return parser.finish(xml.get_ref().here),
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
}

fn xml_message(err: &quick_xml::Error) -> String {
    match err {
        quick_xml::Error::Io(e) => format!("cannot read the file: {e}"),
        quick_xml::Error::Encoding(e) => {
            format!("the file is not valid UTF-8 text (qpor reads PNML in UTF-8): {e}")
        }
        quick_xml::Error::InvalidAttr(e) => format!("malformed XML: {}", attr_message(e)),
        other => format!("malformed XML: {other}"),
    }
}

/// The state of one read: the net's declarations so far and the open elements.
struct Parser<'f> {
    file: &'f str,
    stack: Vec<Frame>,
    /// Names of the open elements, end to end (for the message about a truncated file).
    open_names: String,
    /// Text of the `text` element or NUPN list being read.
    text: String,
    /// Where that text starts, once some came.
    text_pos: Option<Pos>,
    /// Whether `text` is the file's bytes unchanged (no entity or CDATA), so that offsets in
    /// it are offsets in the file.
    text_exact: bool,
    root_pos: Option<Pos>,
    root_closed: bool,
    nets: usize,
    second_net: Option<Pos>,
    net_id: Option<String>,
    net_name: Option<String>,
    /// Id of the arc being read, for messages about its inscription.
    arc_id: String,
    syms: Symbols,
    places: Vec<PlaceDecl>,
    transitions: Vec<TransDecl>,
    /// Reference nodes, in file order.
    refs: Vec<u32>,
    arcs: Vec<ArcDecl>,
    nupn: Option<NupnDecl>,
    warnings: Vec<String>,
}

impl<'f> Parser<'f> {
    fn new(file: &'f str) -> Self {
        Parser {
            file,
            stack: Vec::new(),
            open_names: String::new(),
            text: String::new(),
            text_pos: None,
            text_exact: true,
            root_pos: None,
            root_closed: false,
            nets: 0,
            second_net: None,
            net_id: None,
            net_name: None,
            arc_id: String::new(),
            syms: Symbols::default(),
            places: Vec::new(),
            transitions: Vec::new(),
            refs: Vec::new(),
            arcs: Vec::new(),
            nupn: None,
            warnings: Vec::new(),
        }
    }

    fn error(&self, pos: Pos, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            pos,
            message: message.into(),
        }
    }

    fn warn(&mut self, pos: Pos, message: impl std::fmt::Display) {
        self.warnings
            .push(format!("{}:{}:{}: {}", self.file, pos.line, pos.col, message));
    }
}

#[cfg(test)]
mod tests {
    use super::tracker::tests::{pos, Trickle};
    use super::tracker::UTF8_BOM;
    use super::*;

    #[test]
    fn the_reader_agrees_with_quick_xml_over_a_trickle() {
        // One byte at a time exercises quick-xml's refills across every event boundary.
        let text = "<pnml>\n <net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\">\n  \
                    <place id=\"é\"><initialMarking><text> x</text></initialMarking></place>\n </net>\n</pnml>";
        let err = read(Trickle(text.as_bytes()), "t.pnml").unwrap_err();
        assert_eq!(err.pos, pos(3, 40), "{err}");
        assert!(err.message.contains("found \"x\""), "{err}");
        let fast = read(text.as_bytes(), "t.pnml").unwrap_err();
        assert_eq!(fast, err);
    }

    /// The message of the error that reading `text` gives, which must be at `at`.
    fn error_message(text: &str, at: Pos) -> String {
        let err = read(text.as_bytes(), "t.pnml").unwrap_err();
        assert_eq!(err.pos, at, "{err}");
        err.message
    }

    #[test]
    fn attribute_errors_point_into_the_tag() {
        let message = error_message("<pnml>\n  <net id=\"n\"\n       type=x>", pos(3, 13));
        assert!(message.contains("quotes"), "{message}");
    }

    #[test]
    fn xml_errors_use_quick_xml_positions() {
        let text = "<pnml>\n  <foo>\n  </fooo>\n</pnml>";
        let message = error_message(text, pos(3, 3));
        assert!(message.starts_with("malformed XML"), "{message}");
        let mut with_bom = UTF8_BOM.to_vec();
        with_bom.extend_from_slice(text.as_bytes());
        assert_eq!(read(with_bom.as_slice(), "t.pnml").unwrap_err().pos, pos(3, 3));
    }
}
