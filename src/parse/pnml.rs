//! PNML reader: place/transition nets as the Model Checking Contest ships them (DESIGN.md §2).
//!
//! One streaming pass over the XML with quick-xml. The reader keeps the net it is building,
//! a symbol table of node ids and the stack of open elements — never a document tree nor
//! the file's text — so the 60 MB nets of the MCC load in one linear pass.
//!
//! # What is read
//! - The first `net` of the document (`id`, `type` = the ptnet grammar URI) and its
//!   `name/text`; its `page`s, nested to any depth, or nodes placed directly under `net`.
//! - `place` (`name/text`, `initialMarking/text`), `transition` (`name/text`) and `arc`
//!   (`source`, `target`, `inscription/text` = the weight, 1 when absent).
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
//! arcs whose `type` is not `normal` (inhibitor, reset, test…); and two arcs with the same
//! source and target, since summing them silently would hide what is usually a modelling
//! mistake. Every other problem — XML syntax, a truncated file, missing or duplicate ids,
//! dangling arcs or references, weights and markings that are not natural numbers or do not
//! fit in a `u32` — is a [`ParseError`] at the offending element or text.
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

use super::{ParseError, Pos};
use crate::system::net::{Net, Nupn, PlaceId, TransId, Unit};
use hashbrown::HashTable;
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::borrow::Cow;
use std::hash::BuildHasher;
use std::io::{self, BufRead, Read};

/// The default namespace of PNML 2009 documents.
pub(crate) const PNML_NAMESPACE: &str = "http://www.pnml.org/version-2009/grammar/pnml";
/// The `type` of a P/T net in PNML 2009.
pub(crate) const PTNET_TYPE: &str = "http://www.pnml.org/version-2009/grammar/ptnet";

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
/// let (net, warnings) = qpor::parse::pnml::read(text.as_bytes(), "small.pnml").unwrap();
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

/// Byte-order mark that quick-xml skips at the start of a document without counting it.
const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
/// Size of the tracker's read buffer.
const CHUNK: usize = 64 * 1024;

/// A [`BufRead`] adapter that knows the line and column of the next byte it hands out.
struct LineTracker<R> {
    inner: R,
    chunk: Box<[u8]>,
    /// The unconsumed bytes are `chunk[start..end]`.
    start: usize,
    end: usize,
    /// Bytes consumed since the start of the input.
    consumed: u64,
    /// Position of the next byte.
    here: Pos,
    /// Length of the byte-order mark quick-xml skipped (0 or 3).
    bom: u64,
    /// Where the current event started, and its bytes consumed so far.
    mark_offset: u64,
    mark_pos: Pos,
    since_mark: Vec<u8>,
}

impl<R: BufRead> LineTracker<R> {
    fn new(inner: R) -> Self {
        let start = Pos { line: 1, col: 1 };
        LineTracker {
            inner,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            start: 0,
            end: 0,
            consumed: 0,
            here: start,
            bom: 0,
            mark_offset: 0,
            mark_pos: start,
            since_mark: Vec::new(),
        }
    }

    /// Notes that an event starts at the next byte.
    fn set_mark(&mut self) {
        self.mark_offset = self.consumed;
        self.mark_pos = self.here;
        self.since_mark.clear();
    }

    /// The position of byte `offset`, exact from the current mark on; earlier offsets, whose
    /// bytes are gone, map to the mark.
    fn pos_at(&self, offset: u64) -> Pos {
        if offset <= self.mark_offset {
            return self.mark_pos;
        }
        let n = (offset - self.mark_offset).min(self.since_mark.len() as u64) as usize;
        advance(self.mark_pos, &self.since_mark[..n])
    }
}

impl<R: BufRead> Read for LineTracker<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineTracker<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.end = self.inner.read(&mut self.chunk)?;
            self.start = 0;
        }
        Ok(&self.chunk[self.start..self.end])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.end - self.start);
        let bytes = &self.chunk[self.start..self.start + amt];
        if self.consumed == 0 && bytes == UTF8_BOM {
            // quick-xml drops the mark on its own, before the first event: it occupies no
            // column and quick-xml's offsets do not count it.
            self.bom = 3;
        } else {
            for &b in bytes {
                step(&mut self.here, b);
            }
        }
        self.since_mark.extend_from_slice(bytes);
        self.start += amt;
        self.consumed += amt as u64;
    }
}

/// The position after `bytes`, starting at `pos`.
fn advance(mut pos: Pos, bytes: &[u8]) -> Pos {
    for &b in bytes {
        step(&mut pos, b);
    }
    pos
}

/// Moves `pos` over one byte; columns count characters, so UTF-8 continuation bytes do
/// not move it.
#[inline]
fn step(pos: &mut Pos, b: u8) {
    if b == b'\n' {
        pos.line += 1;
        pos.col = 1;
    } else if b & 0xC0 != 0x80 {
        pos.col += 1;
    }
}

fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// What an id of the file stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SymKind {
    /// Named by an arc, a reference or a unit, not declared (yet).
    Undeclared,
    Place(u32),
    Transition(u32),
    /// A `referencePlace` standing for the symbol given.
    RefPlace(u32),
    /// A `referenceTransition` standing for the symbol given.
    RefTransition(u32),
}

impl SymKind {
    fn noun(self) -> &'static str {
        match self {
            SymKind::Undeclared => "node",
            SymKind::Place(_) => "place",
            SymKind::Transition(_) => "transition",
            SymKind::RefPlace(_) => "referencePlace",
            SymKind::RefTransition(_) => "referenceTransition",
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Sym {
    kind: SymKind,
    /// The declaration, or the first use while undeclared.
    pos: Pos,
}

/// Node ids, each stored once: arcs naming a known node cost no allocation.
#[derive(Default)]
struct Symbols {
    /// Indices into `ids`, hashed by the id text.
    table: HashTable<u32>,
    ids: Vec<String>,
    syms: Vec<Sym>,
}

impl Symbols {
    fn hash(id: &str) -> u64 {
        FxBuildHasher.hash_one(id)
    }

    fn intern(&mut self, id: &str, pos: Pos) -> u32 {
        let hash = Self::hash(id);
        let ids = &self.ids;
        if let Some(&s) = self.table.find(hash, |&s| ids[s as usize] == id) {
            return s;
        }
        let s = self.ids.len() as u32;
        self.ids.push(id.to_owned());
        self.syms.push(Sym {
            kind: SymKind::Undeclared,
            pos,
        });
        let ids = &self.ids;
        self.table
            .insert_unique(hash, s, |&t| Self::hash(ids[t as usize].as_str()));
        s
    }

    fn id(&self, s: u32) -> &str {
        &self.ids[s as usize]
    }

    fn kind(&self, s: u32) -> SymKind {
        self.syms[s as usize].kind
    }

    fn pos(&self, s: u32) -> Pos {
        self.syms[s as usize].pos
    }
}

struct PlaceDecl {
    sym: u32,
    name: Option<String>,
    initial: u32,
}

struct TransDecl {
    sym: u32,
    name: Option<String>,
}

/// Arcs are the most numerous elements: their position is kept in half the room of a
/// [`Pos`] (lines and columns beyond `u32::MAX` saturate).
struct ArcDecl {
    source: u32,
    target: u32,
    weight: u32,
    line: u32,
    col: u32,
}

impl ArcDecl {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line as usize,
            col: self.col as usize,
        }
    }
}

struct SizeDecl {
    pos: Pos,
    places: Option<u64>,
    transitions: Option<u64>,
    arcs: Option<u64>,
}

struct StructureDecl {
    pos: Pos,
    root: String,
    safe: bool,
    units: Option<u64>,
}

struct UnitDecl {
    id: String,
    pos: Pos,
    places: Vec<(u32, Pos)>,
    subunits: Vec<(String, Pos)>,
}

struct NupnDecl {
    pos: Pos,
    size: Option<SizeDecl>,
    structure: Option<StructureDecl>,
    units: Vec<UnitDecl>,
    unit_ids: FxHashMap<String, u32>,
}

/// Which node a `name` element names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Owner {
    Net,
    Place(u32),
    Transition(u32),
}

/// What the text of a `text` element is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    NetName,
    PlaceName(u32),
    TransitionName(u32),
    Marking(u32),
    Weight(u32),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum List {
    Places,
    Subunits,
}

/// The meaning of an open element, which decides how its children are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ctx {
    Pnml,
    /// The net being read.
    Net,
    /// A further net, only counted.
    OtherNet,
    Page,
    Place(u32),
    Transition(u32),
    Arc(u32),
    RefNode,
    Name(Owner),
    Marking(u32),
    Inscription(u32),
    Text(Target),
    Nupn,
    NupnStructure,
    Unit(u32),
    UnitList(u32, List),
    /// Content ignored; `check` = still refuse high-level elements inside.
    Skip {
        check: bool,
    },
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    ctx: Ctx,
    pos: Pos,
    /// Where the element's name starts in [`Parser::open_names`].
    name_start: usize,
}

/// A node of the net, as an arc end.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Node {
    Place(u32),
    Transition(u32),
}

/// Progress of resolving a reference node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Resolution {
    Unvisited,
    /// On the chain being followed: meeting it again closes a cycle.
    Active,
    Done(Node),
}

/// An arc attached to its transition: (transition, 0 = input / 1 = output, place, weight,
/// index in the file).
type ResolvedArc = (u32, u8, u32, u32, u32);

/// Why a number in the file was not read.
enum BadNumber {
    Empty,
    Negative,
    NotANumber,
    TooLarge,
}

fn parse_count(text: &str) -> Result<u32, BadNumber> {
    let t = text.trim_matches(is_xml_space);
    if t.is_empty() {
        return Err(BadNumber::Empty);
    }
    if let Some(digits) = t.strip_prefix('-') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(BadNumber::Negative);
        }
    }
    if !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadNumber::NotANumber);
    }
    // Only digits are left, so the one way to fail is to exceed u32.
    t.parse().map_err(|_| BadNumber::TooLarge)
}

/// `text` for a message: trimmed, and cut when long.
fn shown(text: &str) -> String {
    let t = text.trim_matches(is_xml_space);
    match t.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

fn attr_message(err: &AttrError) -> String {
    match err {
        AttrError::ExpectedEq(_) => "an attribute name must be followed by `=`".into(),
        AttrError::ExpectedValue(_) => "`=` must be followed by a quoted attribute value".into(),
        AttrError::UnquotedValue(_) => "attribute values must be in quotes".into(),
        AttrError::ExpectedQuote(_, q) => {
            format!("the attribute value lacks its closing quote {}", *q as char)
        }
        AttrError::Duplicated(_, _) => "the same attribute appears twice in the tag".into(),
    }
}

fn attr_offset(err: &AttrError) -> usize {
    match *err {
        AttrError::ExpectedEq(p)
        | AttrError::ExpectedValue(p)
        | AttrError::UnquotedValue(p)
        | AttrError::ExpectedQuote(p, _)
        | AttrError::Duplicated(p, _) => p,
    }
}

fn coloured_message(detail: &str) -> String {
    format!(
        "coloured (symmetric) nets are not supported: {detail}; qpor reads P/T nets \
         (type=\"{PTNET_TYPE}\")"
    )
}

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

    // ---- events ----

    fn start(&mut self, e: &BytesStart, at: Pos) -> Result<(), ParseError> {
        let name = e.local_name().into_inner();
        let ctx = match self.stack.last() {
            None => self.open_root(name, at)?,
            Some(parent) => self.open_child(parent.ctx, name, e, at)?,
        };
        let name_start = self.open_names.len();
        self.open_names.push_str(e.name().into_inner());
        self.stack.push(Frame {
            ctx,
            pos: at,
            name_start,
        });
        Ok(())
    }

    fn end(&mut self, at: Pos) -> Result<(), ParseError> {
        let frame = self
            .stack
            .pop()
            .ok_or_else(|| self.error(at, "an end tag without a matching start tag"))?;
        self.open_names.truncate(frame.name_start);
        match frame.ctx {
            Ctx::Pnml => self.root_closed = true,
            Ctx::Text(target) => self.finish_text(target, frame.pos)?,
            Ctx::UnitList(unit, list) => self.finish_list(unit, list, frame.pos),
            _ => {}
        }
        Ok(())
    }

    fn collecting(&self) -> bool {
        matches!(
            self.stack.last().map(|f| f.ctx),
            Some(Ctx::Text(_) | Ctx::UnitList(..))
        )
    }

    fn text(&mut self, content: &str, at: Pos, exact: bool) {
        if !self.collecting() {
            return;
        }
        if self.text_pos.is_none() {
            self.text_pos = Some(at);
        }
        self.text_exact &= exact;
        self.text.push_str(content);
    }

    fn general_ref(&mut self, r: &BytesRef, at: Pos) -> Result<(), ParseError> {
        if !self.collecting() {
            return Ok(());
        }
        let c = match r.resolve_char_ref() {
            Ok(Some(c)) => c,
            Ok(None) => match &**r {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "apos" => '\'',
                "quot" => '"',
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "unknown entity &{other}; (PNML text may use &lt; &gt; &amp; &apos; \
                             &quot; and character references such as &#233;)"
                        ),
                    ))
                }
            },
            Err(e) => return Err(self.error(at, format!("bad character reference &{};: {e}", &**r))),
        };
        let mut utf8 = [0; 4];
        self.text(c.encode_utf8(&mut utf8), at, false);
        Ok(())
    }

    // ---- opening elements ----

    fn open_root(&mut self, name: &str, at: Pos) -> Result<Ctx, ParseError> {
        if self.root_closed {
            return Err(self.error(
                at,
                format!("unexpected <{name}> after the end of the <pnml> element; a document has one root"),
            ));
        }
        if name != "pnml" {
            return Err(self.error(
                at,
                format!("expected a PNML document (root element <pnml>), found <{name}>"),
            ));
        }
        self.root_pos = Some(at);
        Ok(Ctx::Pnml)
    }

    fn open_child(&mut self, parent: Ctx, name: &str, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        Ok(match parent {
            Ctx::Pnml => match name {
                "net" => self.open_net(e, at)?,
                _ => Ctx::Skip { check: false },
            },
            Ctx::Net | Ctx::Page => match name {
                "page" => Ctx::Page,
                "place" => self.open_place(e, at)?,
                "transition" => self.open_transition(e, at)?,
                "arc" => self.open_arc(e, at)?,
                "referencePlace" => self.open_reference(e, at, true)?,
                "referenceTransition" => self.open_reference(e, at, false)?,
                "name" if parent == Ctx::Net => Ctx::Name(Owner::Net),
                "toolspecific" => self.open_toolspecific(e, at)?,
                _ => self.decoration(name, at)?,
            },
            Ctx::OtherNet => Ctx::Skip { check: false },
            Ctx::Place(i) => match name {
                "name" => Ctx::Name(Owner::Place(i)),
                "initialMarking" => Ctx::Marking(i),
                "type" => {
                    return Err(self.error(
                        at,
                        coloured_message(&format!(
                            "place {} has a <type> (a colour domain)",
                            self.syms.id(self.places[i as usize].sym)
                        )),
                    ))
                }
                _ => self.decoration(name, at)?,
            },
            Ctx::Transition(i) => match name {
                "name" => Ctx::Name(Owner::Transition(i)),
                "condition" => {
                    return Err(self.error(
                        at,
                        coloured_message(&format!(
                            "transition {} has a <condition> (a guard)",
                            self.syms.id(self.transitions[i as usize].sym)
                        )),
                    ))
                }
                _ => self.decoration(name, at)?,
            },
            Ctx::Arc(i) => match name {
                "inscription" => Ctx::Inscription(i),
                "type" => {
                    // The arc type as a child element, as some editors write it.
                    let [value] = self.attrs(e, at, ["value"])?;
                    if let Some(value) = value {
                        self.check_arc_type(&value, at)?;
                    }
                    Ctx::Skip { check: false }
                }
                _ => self.decoration(name, at)?,
            },
            Ctx::RefNode => self.decoration(name, at)?,
            Ctx::Name(owner) => match name {
                "text" => self.open_text(Ctx::Text(match owner {
                    Owner::Net => Target::NetName,
                    Owner::Place(i) => Target::PlaceName(i),
                    Owner::Transition(i) => Target::TransitionName(i),
                })),
                _ => self.decoration(name, at)?,
            },
            Ctx::Marking(i) => match name {
                "text" => self.open_text(Ctx::Text(Target::Marking(i))),
                _ => self.decoration(name, at)?,
            },
            Ctx::Inscription(i) => match name {
                "text" => self.open_text(Ctx::Text(Target::Weight(i))),
                _ => self.decoration(name, at)?,
            },
            Ctx::Text(_) => self.decoration(name, at)?,
            Ctx::Nupn => match name {
                "size" => {
                    self.read_size(e, at)?;
                    Ctx::Skip { check: false }
                }
                "structure" => self.open_structure(e, at)?,
                _ => Ctx::Skip { check: false },
            },
            Ctx::NupnStructure => match name {
                "unit" => self.open_unit(e, at)?,
                _ => Ctx::Skip { check: false },
            },
            Ctx::Unit(u) => match name {
                "places" => self.open_text(Ctx::UnitList(u, List::Places)),
                "subunits" => self.open_text(Ctx::UnitList(u, List::Subunits)),
                _ => Ctx::Skip { check: false },
            },
            Ctx::UnitList(..) => Ctx::Skip { check: false },
            Ctx::Skip { check: true } => self.decoration(name, at)?,
            Ctx::Skip { check: false } => Ctx::Skip { check: false },
        })
    }

    /// An element the reader does not use: skipped, unless it belongs to high-level nets.
    fn decoration(&self, name: &str, at: Pos) -> Result<Ctx, ParseError> {
        match name {
            // Layout and other tools' data may hold anything.
            "graphics" | "toolspecific" => Ok(Ctx::Skip { check: false }),
            "hlinitialMarking" | "hlinscription" | "declaration" | "declarations" | "structure" => Err(self
                .error(
                    at,
                    coloured_message(&format!("found <{name}>, which only high-level nets have")),
                )),
            _ => Ok(Ctx::Skip { check: true }),
        }
    }

    fn open_text(&mut self, ctx: Ctx) -> Ctx {
        self.text.clear();
        self.text_pos = None;
        self.text_exact = true;
        ctx
    }

    /// The values of the attributes `keys` of `e`, unescaped.
    fn attrs<'e, const N: usize>(
        &self,
        e: &'e BytesStart,
        at: Pos,
        keys: [&str; N],
    ) -> Result<[Option<Cow<'e, str>>; N], ParseError> {
        let mut values: [Option<Cow<'e, str>>; N] = std::array::from_fn(|_| None);
        for attr in e.attributes() {
            let attr = attr.map_err(|err| {
                // Offsets count from the byte after `<`.
                let content: &str = e;
                let rel = attr_offset(&err).min(content.len());
                let pos = advance(
                    Pos {
                        col: at.col + 1,
                        ..at
                    },
                    &content.as_bytes()[..rel],
                );
                self.error(pos, format!("malformed XML: {}", attr_message(&err)))
            })?;
            let key = attr.key.local_name().into_inner();
            if let Some(k) = keys.iter().position(|k| *k == key) {
                let value = attr
                    .normalized_value(XmlVersion::Implicit1_0)
                    .map_err(|err| self.error(at, format!("bad value of the attribute {key}: {err}")))?;
                values[k] = Some(value);
            }
        }
        Ok(values)
    }

    fn required_id<'e>(
        &self,
        id: Option<Cow<'e, str>>,
        at: Pos,
        element: &str,
    ) -> Result<Cow<'e, str>, ParseError> {
        match id {
            None => Err(self.error(at, format!("<{element}> needs an id attribute"))),
            Some(id) if id.is_empty() => Err(self.error(at, format!("the id of this <{element}> is empty"))),
            Some(id) => Ok(id),
        }
    }

    fn open_net(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        self.nets += 1;
        if self.nets > 1 {
            self.second_net.get_or_insert(at);
            return Ok(Ctx::OtherNet);
        }
        let [id, ty] = self.attrs(e, at, ["id", "type"])?;
        let id = self.required_id(id, at, "net")?;
        match ty.as_deref().map(|t| t.trim_matches(is_xml_space)) {
            None => self.warn(at, "the net has no type attribute; reading it as a P/T net"),
            Some(PTNET_TYPE) => {}
            Some(t) => {
                let lower = t.to_ascii_lowercase();
                let coloured = ["symmetric", "highlevel", "hlpn", "colo"]
                    .iter()
                    .any(|k| lower.contains(k));
                return Err(self.error(
                    at,
                    if coloured {
                        coloured_message(&format!("the net's type is {t}"))
                    } else {
                        format!("unsupported net type {t}: qpor reads P/T nets (type=\"{PTNET_TYPE}\")")
                    },
                ));
            }
        }
        self.net_id = Some(id.into_owned());
        Ok(Ctx::Net)
    }

    /// Gives `id` its meaning; refuses an id already declared.
    fn declare(&mut self, id: &str, kind: SymKind, at: Pos) -> Result<u32, ParseError> {
        let s = self.syms.intern(id, at);
        let sym = self.syms.syms[s as usize];
        if sym.kind != SymKind::Undeclared {
            return Err(self.error(
                at,
                format!(
                    "duplicate id {id}: the {} at line {}, column {} already has it",
                    sym.kind.noun(),
                    sym.pos.line,
                    sym.pos.col
                ),
            ));
        }
        self.syms.syms[s as usize] = Sym { kind, pos: at };
        Ok(s)
    }

    fn open_place(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id] = self.attrs(e, at, ["id"])?;
        let id = self.required_id(id, at, "place")?;
        let index = self.places.len() as u32;
        let sym = self.declare(&id, SymKind::Place(index), at)?;
        self.places.push(PlaceDecl {
            sym,
            name: None,
            initial: 0,
        });
        Ok(Ctx::Place(index))
    }

    fn open_transition(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id] = self.attrs(e, at, ["id"])?;
        let id = self.required_id(id, at, "transition")?;
        let index = self.transitions.len() as u32;
        let sym = self.declare(&id, SymKind::Transition(index), at)?;
        self.transitions.push(TransDecl { sym, name: None });
        Ok(Ctx::Transition(index))
    }

    fn open_reference(&mut self, e: &BytesStart, at: Pos, place: bool) -> Result<Ctx, ParseError> {
        let element = if place {
            "referencePlace"
        } else {
            "referenceTransition"
        };
        let [id, reference] = self.attrs(e, at, ["id", "ref"])?;
        let id = self.required_id(id, at, element)?;
        let reference = reference.ok_or_else(|| {
            self.error(
                at,
                format!("{element} {id} has no ref attribute (the id of the node it stands for)"),
            )
        })?;
        let target = self.syms.intern(&reference, at);
        let kind = if place {
            SymKind::RefPlace(target)
        } else {
            SymKind::RefTransition(target)
        };
        let s = self.declare(&id, kind, at)?;
        self.refs.push(s);
        Ok(Ctx::RefNode)
    }

    fn check_arc_type(&self, ty: &str, at: Pos) -> Result<(), ParseError> {
        let ty = ty.trim_matches(is_xml_space);
        if ty == "normal" {
            return Ok(());
        }
        Err(self.error(
            at,
            format!(
                "{ty} arcs are not supported: arc {} has type \"{ty}\"; qpor reads P/T nets, \
                 whose arcs are all of type normal",
                self.arc_id
            ),
        ))
    }

    fn open_arc(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id, source, target, ty] = self.attrs(e, at, ["id", "source", "target", "type"])?;
        let id = self.required_id(id, at, "arc")?;
        self.arc_id.clear();
        self.arc_id.push_str(&id);
        if let Some(ty) = ty {
            self.check_arc_type(&ty, at)?;
        }
        let missing = |end: &str, what: &str| {
            self.error(
                at,
                format!("arc {id} has no {end} attribute (the id of the place or transition it {what})"),
            )
        };
        let source = source.ok_or_else(|| missing("source", "starts from"))?;
        let target = target.ok_or_else(|| missing("target", "goes to"))?;
        let source = self.syms.intern(&source, at);
        let target = self.syms.intern(&target, at);
        let index = self.arcs.len() as u32;
        self.arcs.push(ArcDecl {
            source,
            target,
            weight: 1,
            line: u32::try_from(at.line).unwrap_or(u32::MAX),
            col: u32::try_from(at.col).unwrap_or(u32::MAX),
        });
        Ok(Ctx::Arc(index))
    }

    fn open_toolspecific(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [tool] = self.attrs(e, at, ["tool"])?;
        if tool.as_deref() != Some("nupn") {
            return Ok(Ctx::Skip { check: false });
        }
        if let Some(first) = &self.nupn {
            return Err(self.error(
                at,
                format!(
                    "a second NUPN block; the net already has one at line {}, column {}",
                    first.pos.line, first.pos.col
                ),
            ));
        }
        self.nupn = Some(NupnDecl {
            pos: at,
            size: None,
            structure: None,
            units: Vec::new(),
            unit_ids: FxHashMap::default(),
        });
        Ok(Ctx::Nupn)
    }

    fn read_size(&mut self, e: &BytesStart, at: Pos) -> Result<(), ParseError> {
        let [places, transitions, arcs] = self.attrs(e, at, ["places", "transitions", "arcs"])?;
        let mut unreadable = false;
        let mut number = |v: Option<Cow<str>>| {
            let v = v?;
            let n = v.trim_matches(is_xml_space).parse().ok();
            unreadable |= n.is_none();
            n
        };
        let size = SizeDecl {
            pos: at,
            places: number(places),
            transitions: number(transitions),
            arcs: number(arcs),
        };
        if unreadable {
            self.warn(
                at,
                "the NUPN <size> has a count that is not a number; ignoring it",
            );
        }
        if let Some(nupn) = &mut self.nupn {
            nupn.size = Some(size);
        }
        Ok(())
    }

    fn open_structure(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        if let Some(first) = self.nupn.as_ref().and_then(|n| n.structure.as_ref()) {
            return Err(self.error(
                at,
                format!(
                    "a second <structure> in the NUPN block; the first is at line {}, column {}",
                    first.pos.line, first.pos.col
                ),
            ));
        }
        let [units, root, safe] = self.attrs(e, at, ["units", "root", "safe"])?;
        let root = root.ok_or_else(|| {
            self.error(
                at,
                "the NUPN <structure> needs a root attribute (the id of the root unit)",
            )
        })?;
        let safe = match safe.as_deref().map(|s| s.trim_matches(is_xml_space)) {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(self.error(
                    at,
                    format!(
                        "expected safe=\"true\" or safe=\"false\" in the NUPN <structure>, found \"{}\"",
                        shown(other)
                    ),
                ))
            }
        };
        let announced = units
            .as_deref()
            .map(|u| u.trim_matches(is_xml_space).parse::<u64>());
        if let Some(Err(_)) = announced {
            self.warn(
                at,
                "the units attribute of the NUPN <structure> is not a number; ignoring it",
            );
        }
        let structure = StructureDecl {
            pos: at,
            root: root.into_owned(),
            safe,
            units: announced.and_then(Result::ok),
        };
        match &mut self.nupn {
            Some(nupn) => {
                nupn.structure = Some(structure);
                Ok(Ctx::NupnStructure)
            }
            None => Ok(Ctx::Skip { check: false }),
        }
    }

    fn open_unit(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id] = self.attrs(e, at, ["id"])?;
        let id = id.ok_or_else(|| self.error(at, "a NUPN <unit> needs an id attribute"))?;
        let Some(nupn) = &self.nupn else {
            return Ok(Ctx::Skip { check: false });
        };
        if let Some(&first) = nupn.unit_ids.get(id.as_ref()) {
            let first = nupn.units[first as usize].pos;
            return Err(self.error(
                at,
                format!(
                    "duplicate NUPN unit id {id}: the unit at line {}, column {} already has it",
                    first.line, first.col
                ),
            ));
        }
        let nupn = self
            .nupn
            .as_mut()
            .expect("[qpor internal bug] the NUPN block vanished");
        let index = nupn.units.len() as u32;
        nupn.unit_ids.insert(id.to_string(), index);
        nupn.units.push(UnitDecl {
            id: id.into_owned(),
            pos: at,
            places: Vec::new(),
            subunits: Vec::new(),
        });
        Ok(Ctx::Unit(index))
    }

    // ---- closing text elements ----

    /// Where the collected text shows its first non-blank character (the element itself when
    /// the text is blank or absent).
    fn text_start(&self, element: Pos) -> Pos {
        match self.text_pos {
            None => element,
            Some(pos) if !self.text_exact => pos,
            Some(pos) => {
                let blank = self.text.len() - self.text.trim_start_matches(is_xml_space).len();
                if blank == self.text.len() {
                    pos
                } else {
                    advance(pos, &self.text.as_bytes()[..blank])
                }
            }
        }
    }

    fn finish_text(&mut self, target: Target, element: Pos) -> Result<(), ParseError> {
        let pos = self.text_start(element);
        match target {
            Target::NetName => self.net_name = Some(self.text.clone()),
            Target::PlaceName(i) => self.places[i as usize].name = Some(self.text.clone()),
            Target::TransitionName(i) => self.transitions[i as usize].name = Some(self.text.clone()),
            Target::Marking(i) => {
                let place = self.syms.id(self.places[i as usize].sym);
                let t = shown(&self.text);
                let tokens = "a number of tokens (0 to 4294967295)";
                let initial = parse_count(&self.text).map_err(|bad| {
                    self.error(
                        pos,
                        match bad {
                            BadNumber::Empty => {
                                format!("the initial marking of place {place} is empty; expected {tokens}")
                            }
                            BadNumber::Negative => format!(
                                "the initial marking of place {place} is negative ({t}); expected {tokens}"
                            ),
                            BadNumber::NotANumber => format!(
                                "expected {tokens} as the initial marking of place {place}, found \"{t}\""
                            ),
                            BadNumber::TooLarge => format!(
                                "the initial marking of place {place} ({t}) is too large: qpor counts at \
                                 most 4294967295 tokens on a place"
                            ),
                        },
                    )
                })?;
                self.places[i as usize].initial = initial;
            }
            Target::Weight(i) => {
                let arc = &self.arc_id;
                let t = shown(&self.text);
                let weight = "an arc weight (a whole number from 1 to 4294967295)";
                let w = parse_count(&self.text).map_err(|bad| {
                    self.error(
                        pos,
                        match bad {
                            BadNumber::Empty => {
                                format!("the inscription of arc {arc} is empty; expected {weight}")
                            }
                            BadNumber::Negative => {
                                format!("the weight of arc {arc} is negative ({t}); expected {weight}")
                            }
                            BadNumber::NotANumber => {
                                format!("expected {weight} as the inscription of arc {arc}, found \"{t}\"")
                            }
                            BadNumber::TooLarge => format!(
                                "the weight of arc {arc} ({t}) is too large: qpor allows at most 4294967295"
                            ),
                        },
                    )
                })?;
                if w == 0 {
                    return Err(self.error(
                        pos,
                        format!(
                            "the weight of arc {arc} is 0; expected {weight} (leave the arc out instead)"
                        ),
                    ));
                }
                self.arcs[i as usize].weight = w;
            }
        }
        Ok(())
    }

    /// Splits a NUPN `places` or `subunits` list into ids, each with its position.
    fn finish_list(&mut self, unit: u32, list: List, element: Pos) {
        let Parser {
            text,
            text_pos,
            text_exact,
            syms,
            nupn,
            ..
        } = self;
        let Some(nupn) = nupn.as_mut() else {
            return;
        };
        let base = text_pos.unwrap_or(element);
        let unit = &mut nupn.units[unit as usize];
        let mut pos = base;
        let mut token: Option<(usize, Pos)> = None;
        let bytes = text.as_bytes();
        for i in 0..=bytes.len() {
            let blank = i == bytes.len() || is_xml_space(bytes[i] as char);
            match (token, blank) {
                (None, false) => token = Some((i, if *text_exact { pos } else { base })),
                (Some((from, at)), true) => {
                    let id = &text[from..i];
                    match list {
                        List::Places => unit.places.push((syms.intern(id, at), at)),
                        List::Subunits => unit.subunits.push((id.to_string(), at)),
                    }
                    token = None;
                }
                _ => {}
            }
            if i < bytes.len() {
                step(&mut pos, bytes[i]);
            }
        }
    }

    // ---- the end of the document ----

    fn finish(mut self, eof: Pos) -> Result<(Net, Vec<String>), ParseError> {
        if let Some(open) = self.stack.last() {
            let name = &self.open_names[open.name_start..];
            return Err(self.error(
                eof,
                format!(
                    "the file ends inside <{name}> (opened at line {}, column {}): the document is \
                     truncated or an end tag is missing",
                    open.pos.line, open.pos.col
                ),
            ));
        }
        let Some(root) = self.root_pos else {
            return Err(self.error(
                eof,
                "the file holds no XML element: expected a PNML document (<pnml> holding a <net>)",
            ));
        };
        if self.nets == 0 {
            return Err(self.error(root, "the PNML document holds no <net> element"));
        }
        if let Some(second) = self.second_net {
            let first = self.net_id.clone().unwrap_or_default();
            let message = format!("the file holds {} nets; using the first ({first})", self.nets);
            self.warn(second, message);
        }
        let resolution = self.resolve_references()?;
        let arcs = self.resolve_arcs(&resolution)?;
        let nupn = self.resolve_nupn(&resolution)?;
        // The net is about to be built next to what it is built from: free what is no
        // longer needed first.
        drop(resolution);
        self.arcs = Vec::new();
        self.syms.table = HashTable::new();
        self.syms.syms = Vec::new();

        let mut net = Net {
            name: self.net_name.take().or(self.net_id.take()),
            places: Vec::with_capacity(self.places.len()),
            transitions: Vec::with_capacity(self.transitions.len()),
            nupn,
        };
        for d in self.places.drain(..) {
            let id = std::mem::take(&mut self.syms.ids[d.sym as usize]);
            net.add_place(id, d.name, d.initial);
        }
        for d in self.transitions.drain(..) {
            let id = std::mem::take(&mut self.syms.ids[d.sym as usize]);
            net.add_transition(id, d.name);
        }
        // Sorted by (transition, direction, place): each add appends to a sorted list.
        for (t, out, p, w, _) in arcs {
            if out == 0 {
                net.add_pre(TransId(t), PlaceId(p), w);
            } else {
                net.add_post(TransId(t), PlaceId(p), w);
            }
        }
        Ok((net, self.warnings))
    }

    /// What symbol `s` finally stands for, once references are resolved.
    fn node_of(&self, resolution: &[Resolution], s: u32) -> Option<Node> {
        match self.syms.kind(s) {
            SymKind::Undeclared => None,
            SymKind::Place(i) => Some(Node::Place(i)),
            SymKind::Transition(i) => Some(Node::Transition(i)),
            SymKind::RefPlace(_) | SymKind::RefTransition(_) => match resolution[s as usize] {
                Resolution::Done(node) => Some(node),
                Resolution::Unvisited | Resolution::Active => None,
            },
        }
    }

    /// Follows every reference chain to its place or transition, in file order, each symbol
    /// once.
    fn resolve_references(&self) -> Result<Vec<Resolution>, ParseError> {
        let mut resolution = vec![Resolution::Unvisited; self.syms.syms.len()];
        let mut chain: Vec<u32> = Vec::new();
        for &r in &self.refs {
            if resolution[r as usize] != Resolution::Unvisited {
                continue;
            }
            chain.clear();
            let mut cur = r;
            let node = loop {
                match resolution[cur as usize] {
                    Resolution::Done(node) => break node,
                    Resolution::Active => {
                        let mut ids: Vec<&str> = chain.iter().map(|&s| self.syms.id(s)).collect();
                        ids.push(self.syms.id(cur));
                        return Err(self.error(
                            self.syms.pos(r),
                            format!(
                                "the reference nodes {} form a cycle; a reference must lead to a place \
                                 or a transition",
                                ids.join(" → ")
                            ),
                        ));
                    }
                    Resolution::Unvisited => {}
                }
                match self.syms.kind(cur) {
                    SymKind::Place(i) => break Node::Place(i),
                    SymKind::Transition(i) => break Node::Transition(i),
                    SymKind::Undeclared => {
                        let from = *chain
                            .last()
                            .expect("[qpor internal bug] a reference chain starts at a reference");
                        return Err(self.error(
                            self.syms.pos(from),
                            format!(
                                "{} {} refers to {}, which is not a node of the net",
                                self.syms.kind(from).noun(),
                                self.syms.id(from),
                                self.syms.id(cur)
                            ),
                        ));
                    }
                    SymKind::RefPlace(next) | SymKind::RefTransition(next) => {
                        resolution[cur as usize] = Resolution::Active;
                        chain.push(cur);
                        cur = next;
                    }
                }
            };
            for &s in &chain {
                let (wanted, ok) = match self.syms.kind(s) {
                    SymKind::RefPlace(_) => ("place", matches!(node, Node::Place(_))),
                    _ => ("transition", matches!(node, Node::Transition(_))),
                };
                if !ok {
                    return Err(self.error(
                        self.syms.pos(s),
                        format!(
                            "{} {} refers to {}, which is not a {wanted}",
                            self.syms.kind(s).noun(),
                            self.syms.id(s),
                            self.syms.id(cur)
                        ),
                    ));
                }
                resolution[s as usize] = Resolution::Done(node);
            }
        }
        Ok(resolution)
    }

    /// Attaches every arc to its transition, sorted by (transition, direction, place).
    fn resolve_arcs(&self, resolution: &[Resolution]) -> Result<Vec<ResolvedArc>, ParseError> {
        let mut out = Vec::with_capacity(self.arcs.len());
        for (k, a) in self.arcs.iter().enumerate() {
            let (s, t) = (self.syms.id(a.source), self.syms.id(a.target));
            let unknown = |end: &str, id: &str| {
                self.error(
                    a.pos(),
                    format!(
                        "the arc from {s} to {t} {end} {id}, which is not a place or transition of the net"
                    ),
                )
            };
            let source = self
                .node_of(resolution, a.source)
                .ok_or_else(|| unknown("starts at", s))?;
            let target = self
                .node_of(resolution, a.target)
                .ok_or_else(|| unknown("goes to", t))?;
            let between = |what: &str| {
                self.error(
                    a.pos(),
                    format!(
                        "the arc from {s} to {t} joins two {what}; an arc must join a place and a transition"
                    ),
                )
            };
            out.push(match (source, target) {
                (Node::Place(p), Node::Transition(tr)) => (tr, 0, p, a.weight, k as u32),
                (Node::Transition(tr), Node::Place(p)) => (tr, 1, p, a.weight, k as u32),
                (Node::Place(_), Node::Place(_)) => return Err(between("places")),
                (Node::Transition(_), Node::Transition(_)) => return Err(between("transitions")),
            });
        }
        // File order within each (transition, direction, place): the first arc comes first.
        out.sort_unstable_by_key(|&(t, dir, p, _, k)| (t, dir, p, k));
        // Of all arcs repeating an earlier one, report the first in the file.
        let mut repeat: Option<(u32, u32)> = None;
        let mut group_first = 0;
        for i in 1..out.len() {
            let (prev, cur) = (out[i - 1], out[i]);
            if (prev.0, prev.1, prev.2) != (cur.0, cur.1, cur.2) {
                group_first = i;
            } else if i == group_first + 1 && repeat.is_none_or(|(_, later)| cur.4 < later) {
                repeat = Some((out[group_first].4, cur.4));
            }
        }
        if let Some((first, later)) = repeat {
            let (a, f) = (&self.arcs[later as usize], self.arcs[first as usize].pos());
            return Err(self.error(
                a.pos(),
                format!(
                    "a second arc from {} to {}: the arc at line {}, column {} already joins them; \
                     qpor does not add up parallel arcs (give one arc the total weight)",
                    self.syms.id(a.source),
                    self.syms.id(a.target),
                    f.line,
                    f.col
                ),
            ));
        }
        Ok(out)
    }

    /// Checks the NUPN block against the net and turns it into a [`Nupn`].
    fn resolve_nupn(&mut self, resolution: &[Resolution]) -> Result<Option<Nupn>, ParseError> {
        let Some(decl) = self.nupn.take() else {
            return Ok(None);
        };
        if let Some(size) = &decl.size {
            let actual = [
                self.places.len() as u64,
                self.transitions.len() as u64,
                self.arcs.len() as u64,
            ];
            let said = [size.places, size.transitions, size.arcs];
            if said.iter().zip(actual).any(|(s, a)| s.is_some_and(|s| s != a)) {
                let show = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
                let message = format!(
                    "the NUPN <size> says {} places, {} transitions and {} arcs, but the net has {}, {} and {}",
                    show(said[0]),
                    show(said[1]),
                    show(said[2]),
                    actual[0],
                    actual[1],
                    actual[2]
                );
                self.warn(size.pos, message);
            }
        }
        let Some(structure) = decl.structure else {
            self.warn(decl.pos, "the NUPN block has no <structure>; ignoring it");
            return Ok(None);
        };
        if let Some(n) = structure.units.filter(|&n| n != decl.units.len() as u64) {
            let message = format!(
                "the NUPN <structure> announces {n} units, but the block has {}",
                decl.units.len()
            );
            self.warn(structure.pos, message);
        }
        let root_id = &structure.root;
        let root = *decl.unit_ids.get(root_id).ok_or_else(|| {
            self.error(
                structure.pos,
                format!("the NUPN root unit {root_id} is not one of the block's units"),
            )
        })? as usize;

        let mut place_unit = vec![u32::MAX; self.places.len()];
        let mut units = Vec::with_capacity(decl.units.len());
        for (ui, u) in decl.units.iter().enumerate() {
            let mut places = Vec::with_capacity(u.places.len());
            for &(s, pos) in &u.places {
                let id = self.syms.id(s);
                let p = match self.node_of(resolution, s) {
                    Some(Node::Place(p)) => p,
                    Some(Node::Transition(_)) => {
                        return Err(self.error(
                            pos,
                            format!(
                                "NUPN unit {} lists {id}, which is a transition; units hold places",
                                u.id
                            ),
                        ))
                    }
                    None => {
                        return Err(self.error(
                            pos,
                            format!("NUPN unit {} lists {id}, which is not a place of the net", u.id),
                        ))
                    }
                };
                match place_unit[p as usize] {
                    u32::MAX => place_unit[p as usize] = ui as u32,
                    first if first as usize == ui => {
                        return Err(self.error(pos, format!("NUPN unit {} lists place {id} twice", u.id)))
                    }
                    first => {
                        return Err(self.error(
                            pos,
                            format!(
                                "place {id} is in NUPN units {} and {}; a place belongs to one unit at most",
                                decl.units[first as usize].id, u.id
                            ),
                        ))
                    }
                }
                places.push(PlaceId(p));
            }
            units.push(Unit {
                id: u.id.clone(),
                places,
                subunits: Vec::with_capacity(u.subunits.len()),
            });
        }

        let mut parent: Vec<Option<usize>> = vec![None; units.len()];
        for (ui, u) in decl.units.iter().enumerate() {
            for (name, pos) in &u.subunits {
                let Some(&c) = decl.unit_ids.get(name) else {
                    return Err(self.error(
                        *pos,
                        format!(
                            "NUPN unit {} lists {name} as a subunit, which is not a unit of the block",
                            u.id
                        ),
                    ));
                };
                let c = c as usize;
                if c == root {
                    return Err(self.error(
                        *pos,
                        format!(
                            "the root unit {root_id} cannot be a subunit (unit {} lists it)",
                            u.id
                        ),
                    ));
                }
                if let Some(p) = parent[c] {
                    return Err(self.error(
                        *pos,
                        format!(
                            "NUPN unit {name} is a subunit of both {} and {}; units form a tree",
                            decl.units[p].id, u.id
                        ),
                    ));
                }
                parent[c] = Some(ui);
                units[ui].subunits.push(c);
            }
        }
        for (ui, u) in decl.units.iter().enumerate() {
            if ui != root && parent[ui].is_none() {
                return Err(self.error(
                    u.pos,
                    format!(
                        "NUPN unit {} is neither the root unit ({root_id}) nor a subunit of another unit",
                        u.id
                    ),
                ));
            }
        }
        // Every unit has one parent, so the only way to miss the root is a cycle.
        let mut below_root = vec![false; units.len()];
        let mut todo = vec![root];
        below_root[root] = true;
        while let Some(u) = todo.pop() {
            for &c in &units[u].subunits {
                if !below_root[c] {
                    below_root[c] = true;
                    todo.push(c);
                }
            }
        }
        if let Some(ui) = below_root.iter().position(|&b| !b) {
            let u = &decl.units[ui];
            return Err(self.error(
                u.pos,
                format!(
                    "NUPN unit {} is not below the root unit {root_id}: its chain of parents is a cycle",
                    u.id
                ),
            ));
        }
        Ok(Some(Nupn {
            units,
            root,
            safe: structure.safe,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out one byte per `fill_buf`, as a slow pipe might.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() || out.is_empty() {
                return Ok(0);
            }
            out[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }

    impl BufRead for Trickle<'_> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            Ok(&self.0[..self.0.len().min(1)])
        }
        fn consume(&mut self, amt: usize) {
            self.0 = &self.0[amt..];
        }
    }

    fn pos(line: usize, col: usize) -> Pos {
        Pos { line, col }
    }

    /// Consumes the whole input in pieces of `piece` bytes and returns the final position.
    fn track<R: BufRead>(inner: R, piece: usize) -> LineTracker<R> {
        let mut t = LineTracker::new(inner);
        loop {
            let n = t.fill_buf().unwrap().len().min(piece);
            if n == 0 {
                return t;
            }
            t.consume(n);
        }
    }

    #[test]
    fn lines_and_columns_follow_the_consumed_bytes() {
        let text = "ab\ncd\n\nxyz";
        let t = track(text.as_bytes(), 1);
        assert_eq!(t.here, pos(4, 4));
        assert_eq!(t.consumed, text.len() as u64);
        let t = track(Trickle(text.as_bytes()), 3);
        assert_eq!(t.here, pos(4, 4));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // 'é' is two bytes, '€' three, '𝄞' four: each moves the column by one.
        let t = track("é€𝄞x".as_bytes(), 2);
        assert_eq!(t.here, pos(1, 5));
        assert_eq!(advance(pos(3, 7), "é\n€".as_bytes()), pos(4, 2));
    }

    #[test]
    fn offsets_inside_the_current_event_are_exact() {
        let mut t = LineTracker::new("<a>\n<b\n  c='1'/>".as_bytes());
        t.fill_buf().unwrap();
        t.consume(4);
        t.set_mark();
        assert_eq!(t.mark_pos, pos(2, 1));
        t.consume(8);
        assert_eq!(t.pos_at(4), pos(2, 1), "the mark itself");
        assert_eq!(t.pos_at(6), pos(2, 3), "the newline after <b");
        assert_eq!(t.pos_at(9), pos(3, 3), "the attribute c");
        assert_eq!(t.pos_at(1), pos(2, 1), "bytes before the mark map to the mark");
        assert_eq!(
            t.pos_at(1000),
            pos(3, 6),
            "offsets beyond what was read stop at its end"
        );
    }

    #[test]
    fn a_byte_order_mark_takes_no_column() {
        let mut bytes = UTF8_BOM.to_vec();
        bytes.extend_from_slice(b"<pnml>");
        let mut t = LineTracker::new(bytes.as_slice());
        t.fill_buf().unwrap();
        t.consume(3);
        assert_eq!((t.here, t.bom), (pos(1, 1), 3));
        t.consume(1);
        assert_eq!(t.here, pos(1, 2));
    }

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

    #[test]
    fn attribute_errors_point_into_the_tag() {
        let text = "<pnml>\n  <net id=\"n\"\n       type=x>";
        let err = read(text.as_bytes(), "t.pnml").unwrap_err();
        assert_eq!(err.pos, pos(3, 13), "{err}");
        assert!(err.message.contains("quotes"), "{err}");
    }

    #[test]
    fn xml_errors_use_quick_xml_positions() {
        let text = "<pnml>\n  <foo>\n  </fooo>\n</pnml>";
        let err = read(text.as_bytes(), "t.pnml").unwrap_err();
        assert_eq!(err.pos, pos(3, 3), "{err}");
        assert!(err.message.starts_with("malformed XML"), "{err}");
        let mut with_bom = UTF8_BOM.to_vec();
        with_bom.extend_from_slice(text.as_bytes());
        assert_eq!(read(with_bom.as_slice(), "t.pnml").unwrap_err().pos, pos(3, 3));
    }

    #[test]
    fn numbers() {
        assert!(matches!(parse_count(" 12\n"), Ok(12)));
        assert!(matches!(parse_count("4294967295"), Ok(u32::MAX)));
        assert!(matches!(parse_count("4294967296"), Err(BadNumber::TooLarge)));
        assert!(matches!(
            parse_count("99999999999999999999999"),
            Err(BadNumber::TooLarge)
        ));
        assert!(matches!(parse_count("-3"), Err(BadNumber::Negative)));
        assert!(matches!(parse_count("+3"), Err(BadNumber::NotANumber)));
        assert!(matches!(parse_count("1.5"), Err(BadNumber::NotANumber)));
        assert!(matches!(parse_count("  "), Err(BadNumber::Empty)));
    }
}
