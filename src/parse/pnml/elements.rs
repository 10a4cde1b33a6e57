//! What each element means: the context of every open element decides how its children
//! are read, which are refused (high-level nets) and which are skipped.

use super::nupn::List;
use super::text::Target;
use super::tracker::advance;
use super::{ParseError, Parser, Pos, PTNET_TYPE};
use quick_xml::events::attributes::AttrError;
use quick_xml::events::BytesStart;
use quick_xml::XmlVersion;
use std::borrow::Cow;

/// Which node a `name` element names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Owner {
    Net,
    Place(u32),
    Transition(u32),
}

/// The meaning of an open element, which decides how its children are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ctx {
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
pub(super) struct Frame {
    pub(super) ctx: Ctx,
    pub(super) pos: Pos,
    /// Where the element's name starts in [`Parser::open_names`].
    pub(super) name_start: usize,
}

pub(super) fn attr_message(err: &AttrError) -> String {
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

/// How every refusal of a coloured net begins (see [`super::is_not_pt_net_error`]).
pub(super) const COLOURED_REFUSAL: &str = "coloured (symmetric) nets are not supported";

pub(super) fn coloured_message(detail: &str) -> String {
    format!("{COLOURED_REFUSAL}: {detail}; qpor reads P/T nets (type=\"{PTNET_TYPE}\")")
}

impl Parser<'_> {
    // ---- events ----

    pub(super) fn start(&mut self, e: &BytesStart, at: Pos) -> Result<(), ParseError> {
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

    pub(super) fn end(&mut self, at: Pos) -> Result<(), ParseError> {
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
                "page" => self.open_page(e, at)?,
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
                    let sym = self.places[i as usize].sym;
                    return Err(self.coloured_node(at, "place", sym, "a <type> (a colour domain)"));
                }
                _ => self.decoration(name, at)?,
            },
            Ctx::Transition(i) => match name {
                "name" => Ctx::Name(Owner::Transition(i)),
                "condition" => {
                    let sym = self.transitions[i as usize].sym;
                    return Err(self.coloured_node(at, "transition", sym, "a <condition> (a guard)"));
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

    /// The error for a place or transition (`noun`, symbol `sym`) holding `what`, which only
    /// coloured nets have.
    fn coloured_node(&self, at: Pos, noun: &str, sym: u32, what: &str) -> ParseError {
        let detail = format!("{noun} {} has {what}", self.syms.id(sym));
        self.error(at, coloured_message(&detail))
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

    /// The values of the attributes `keys` of `e`, unescaped.
    pub(super) fn attrs<'e, const N: usize>(
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

    pub(super) fn required_id<'e>(
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
}
