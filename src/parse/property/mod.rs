//! Reachability properties of a net (`crate::system::property`), read from the Model
//! Checking Contest's XML files ([`xml`]) or from the query syntax of the command line
//! ([`text`], the grammar `grammars/query.pest`), their places and transitions resolved
//! against the net: by PNML id, or by name when no id is that name and one node has it.
//! An unknown or ambiguous name is an error at its position.

pub(crate) mod text;
pub(crate) mod xml;

use crate::system::net::{Net, PlaceId, TransId};
use hashbrown::HashMap;

/// How deep a formula may nest: deeper ones are refused rather than risk the stack of the
/// recursive readers and evaluators (the contest's formulas nest about 15 levels).
pub(crate) const MAX_DEPTH: usize = 1000;

/// The places and transitions of a net by the names a property may use.
pub(crate) struct Names<'n> {
    places: HashMap<&'n str, PlaceId>,
    transitions: HashMap<&'n str, TransId>,
}

impl<'n> Names<'n> {
    /// The ids of `net`'s nodes, then the names no id has and only one node bears.
    pub(crate) fn new(net: &'n Net) -> Names<'n> {
        let places = by_id_then_unique_name(
            net.places
                .iter()
                .enumerate()
                .map(|(i, p)| (p.id.as_str(), p.name.as_deref(), PlaceId(i as u32))),
        );
        let transitions = by_id_then_unique_name(
            net.transitions
                .iter()
                .enumerate()
                .map(|(i, t)| (t.id.as_str(), t.name.as_deref(), TransId(i as u32))),
        );
        Names { places, transitions }
    }

    /// The place called `name`.
    pub(crate) fn place(&self, name: &str) -> Result<PlaceId, String> {
        self.places
            .get(name)
            .copied()
            .ok_or_else(|| format!("no place `{name}` in the net (places are named by PNML id)"))
    }

    /// The transition called `name`.
    pub(crate) fn transition(&self, name: &str) -> Result<TransId, String> {
        self.transitions
            .get(name)
            .copied()
            .ok_or_else(|| format!("no transition `{name}` in the net (transitions are named by PNML id)"))
    }
}

fn by_id_then_unique_name<'n, Id: Copy>(
    nodes: impl Iterator<Item = (&'n str, Option<&'n str>, Id)> + Clone,
) -> HashMap<&'n str, Id> {
    let mut map: HashMap<&str, Id> = nodes.clone().map(|(id, _, x)| (id, x)).collect();
    let mut names: HashMap<&str, Option<Id>> = HashMap::new();
    for (_, name, x) in nodes {
        if let Some(name) = name {
            names
                .entry(name)
                .and_modify(|seen| *seen = None)
                .or_insert(Some(x));
        }
    }
    for (name, x) in names {
        if let Some(x) = x {
            map.entry(name).or_insert(x);
        }
    }
    map
}
