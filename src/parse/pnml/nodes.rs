//! Declaring the net and its nodes: places, transitions, reference nodes and arcs.

use super::elements::{coloured_message, Ctx};
use super::symbols::{Sym, SymKind};
use super::text::is_xml_space;
use super::{ParseError, Parser, Pos, ARC_TYPE_REFUSAL, PTNET_TYPE};
use quick_xml::events::BytesStart;

pub(super) struct PlaceDecl {
    pub(super) sym: u32,
    pub(super) name: Option<String>,
    pub(super) initial: u32,
}

pub(super) struct TransDecl {
    pub(super) sym: u32,
    pub(super) name: Option<String>,
}

/// Arcs are the most numerous elements: their position is kept in half the room of a
/// [`Pos`] (lines and columns beyond `u32::MAX` saturate).
pub(super) struct ArcDecl {
    pub(super) source: u32,
    pub(super) target: u32,
    pub(super) weight: u32,
    pub(super) line: u32,
    pub(super) col: u32,
}

impl ArcDecl {
    pub(super) fn pos(&self) -> Pos {
        Pos {
            line: self.line as usize,
            col: self.col as usize,
        }
    }
}

impl Parser<'_> {
    pub(super) fn open_net(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        self.nets += 1;
        if self.nets > 1 {
            self.second_net.get_or_insert(at);
            return Ok(Ctx::OtherNet);
        }
        let [id, ty] = self.attrs(e, at, ["id", "type"])?;
        let id = self.required_id(id, at, "net")?;
        self.declare(&id, SymKind::Element("net"), at)?;
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

    /// A page: its id, when it has one, is declared like every other.
    pub(super) fn open_page(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id] = self.attrs(e, at, ["id"])?;
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.declare(&id, SymKind::Element("page"), at)?;
        }
        Ok(Ctx::Page)
    }

    pub(super) fn open_place(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
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

    pub(super) fn open_transition(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id] = self.attrs(e, at, ["id"])?;
        let id = self.required_id(id, at, "transition")?;
        let index = self.transitions.len() as u32;
        let sym = self.declare(&id, SymKind::Transition(index), at)?;
        self.transitions.push(TransDecl { sym, name: None });
        Ok(Ctx::Transition(index))
    }

    pub(super) fn open_reference(&mut self, e: &BytesStart, at: Pos, place: bool) -> Result<Ctx, ParseError> {
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

    /// Refuses an arc of another type than normal (inhibitor, reset, …).
    pub(super) fn check_arc_type(&self, ty: &str, at: Pos) -> Result<(), ParseError> {
        let ty = ty.trim_matches(is_xml_space);
        if ty == "normal" {
            return Ok(());
        }
        Err(self.error(
            at,
            format!(
                "{ty} {ARC_TYPE_REFUSAL}: arc {} has type \"{ty}\"; qpor reads P/T nets, \
                 whose arcs are all of type normal",
                self.arc_id
            ),
        ))
    }

    pub(super) fn open_arc(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
        let [id, source, target, ty] = self.attrs(e, at, ["id", "source", "target", "type"])?;
        let id = self.required_id(id, at, "arc")?;
        self.declare(&id, SymKind::Element("arc"), at)?;
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
}
