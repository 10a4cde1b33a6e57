//! The NUPN block (`toolspecific tool="nupn"`): reading its size, structure and units,
//! and checking them against the net once the document ends.

use super::elements::Ctx;
use super::resolve::{Node, Resolution};
use super::text::{is_xml_space, shown};
use super::tracker::step;
use super::{ParseError, Parser, Pos};
use crate::system::net::{Nupn, PlaceId, Unit};
use quick_xml::events::BytesStart;
use rustc_hash::FxHashMap;
use std::borrow::Cow;

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

pub(super) struct NupnDecl {
    pos: Pos,
    size: Option<SizeDecl>,
    structure: Option<StructureDecl>,
    units: Vec<UnitDecl>,
    unit_ids: FxHashMap<String, u32>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum List {
    Places,
    Subunits,
}

impl Parser<'_> {
    pub(super) fn open_toolspecific(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
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

    pub(super) fn read_size(&mut self, e: &BytesStart, at: Pos) -> Result<(), ParseError> {
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

    pub(super) fn open_structure(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
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

    pub(super) fn open_unit(&mut self, e: &BytesStart, at: Pos) -> Result<Ctx, ParseError> {
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

    /// Splits a NUPN `places` or `subunits` list into ids, each with its position.
    pub(super) fn finish_list(&mut self, unit: u32, list: List, element: Pos) {
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

    /// Checks the NUPN block against the net and turns it into a [`Nupn`].
    pub(super) fn resolve_nupn(&mut self, resolution: &[Resolution]) -> Result<Option<Nupn>, ParseError> {
        let Some(decl) = self.nupn.take() else {
            return Ok(None);
        };
        if let Some(size) = &decl.size {
            self.check_nupn_size(size);
        }
        let Some(structure) = &decl.structure else {
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
        let mut units = self.nupn_units(&decl, resolution)?;
        self.link_subunits(&decl, root, &mut units)?;
        self.check_below_root(&decl, root, &units)?;
        Ok(Some(Nupn {
            units,
            root,
            safe: structure.safe,
        }))
    }

    /// Warns when the NUPN `size` disagrees with the net: the counts are stale, the units
    /// may still be right.
    fn check_nupn_size(&mut self, size: &SizeDecl) {
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

    /// The units with their places resolved, each place in one unit at most; subunits are
    /// left empty for [`Parser::link_subunits`].
    fn nupn_units(&self, decl: &NupnDecl, resolution: &[Resolution]) -> Result<Vec<Unit>, ParseError> {
        let mut place_unit = vec![u32::MAX; self.places.len()];
        let mut units = Vec::with_capacity(decl.units.len());
        for (ui, u) in decl.units.iter().enumerate() {
            let mut places = Vec::with_capacity(u.places.len());
            for &(s, pos) in &u.places {
                let p = self.unit_place(u, s, pos, resolution)?;
                let id = self.syms.id(s);
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
        Ok(units)
    }

    /// The place that symbol `s`, listed by unit `u` at `pos`, stands for.
    fn unit_place(
        &self,
        u: &UnitDecl,
        s: u32,
        pos: Pos,
        resolution: &[Resolution],
    ) -> Result<u32, ParseError> {
        let id = self.syms.id(s);
        match self.node_of(resolution, s) {
            Some(Node::Place(p)) => Ok(p),
            Some(Node::Transition(_)) => Err(self.error(
                pos,
                format!(
                    "NUPN unit {} lists {id}, which is a transition; units hold places",
                    u.id
                ),
            )),
            None => Err(self.error(
                pos,
                format!("NUPN unit {} lists {id}, which is not a place of the net", u.id),
            )),
        }
    }

    /// Fills in the units' subunits, checking that every unit but the root has exactly one
    /// parent.
    fn link_subunits(&self, decl: &NupnDecl, root: usize, units: &mut [Unit]) -> Result<(), ParseError> {
        let root_id = &decl.units[root].id;
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
        Ok(())
    }

    /// Checks that every unit lies below the root. Every unit has one parent by now, so the
    /// only way to miss the root is a cycle.
    fn check_below_root(&self, decl: &NupnDecl, root: usize, units: &[Unit]) -> Result<(), ParseError> {
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
            let root_id = &decl.units[root].id;
            return Err(self.error(
                u.pos,
                format!(
                    "NUPN unit {} is not below the root unit {root_id}: its chain of parents is a cycle",
                    u.id
                ),
            ));
        }
        Ok(())
    }
}
