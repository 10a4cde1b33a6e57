//! The symbol table of node ids: each id stored once, with what it stands for.

use super::Pos;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

/// What an id of the file stands for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum SymKind {
    /// Named by an arc, a reference or a unit, not declared (yet).
    Undeclared,
    Place(u32),
    Transition(u32),
    /// A `referencePlace` standing for the symbol given.
    RefPlace(u32),
    /// A `referenceTransition` standing for the symbol given.
    RefTransition(u32),
    /// The id of an element that is no node (the net, a page, an arc): PNML ids are unique
    /// in the whole document, whatever element carries them.
    Element(&'static str),
}

impl SymKind {
    pub(super) fn noun(self) -> &'static str {
        match self {
            SymKind::Undeclared => "node",
            SymKind::Place(_) => "place",
            SymKind::Transition(_) => "transition",
            SymKind::RefPlace(_) => "referencePlace",
            SymKind::RefTransition(_) => "referenceTransition",
            SymKind::Element(noun) => noun,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Sym {
    pub(super) kind: SymKind,
    /// The declaration, or the first use while undeclared.
    pub(super) pos: Pos,
}

/// Node ids, each stored once: arcs naming a known node cost no allocation.
#[derive(Default)]
pub(super) struct Symbols {
    /// Indices into `ids`, hashed by the id text.
    pub(super) table: HashTable<u32>,
    pub(super) ids: Vec<String>,
    pub(super) syms: Vec<Sym>,
}

impl Symbols {
    pub(super) fn hash(id: &str) -> u64 {
        FxBuildHasher.hash_one(id)
    }

    pub(super) fn intern(&mut self, id: &str, pos: Pos) -> u32 {
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

    pub(super) fn id(&self, s: u32) -> &str {
        &self.ids[s as usize]
    }

    pub(super) fn kind(&self, s: u32) -> SymKind {
        self.syms[s as usize].kind
    }

    pub(super) fn pos(&self, s: u32) -> Pos {
        self.syms[s as usize].pos
    }
}
