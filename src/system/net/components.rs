//! How a net is cut into components: the component of every place, and the components'
//! initial local states.

use super::{Net, PlaceId};
use crate::system::{CompId, Local, ModelError};

/// How a net is cut into components.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Decomposition {
    /// One component per place.
    Places,
    /// One component per NUPN unit owning places, one per place outside every unit.
    Units,
}

/// What a component of a [`NetSystem`](super::NetSystem) stands for.
#[derive(Clone, Debug)]
pub(super) enum NetComp {
    /// A place; local state = token count.
    Place(PlaceId),
    /// A unit; local state = 0 if no own place is marked, `i + 1` if `places[i]` is.
    Unit { unit: usize, places: Vec<PlaceId> },
}

/// The components of a net.
pub(super) struct Layout {
    pub(super) comps: Vec<NetComp>,
    /// For each place, its component and (for units) its 1-based slot.
    pub(super) place_comp: Vec<(CompId, u32)>,
}

/// A `place_comp` entry not yet given a component.
const UNASSIGNED: u32 = u32::MAX;

impl Layout {
    /// Cuts `net` by `decomposition`; fails for units when the net has none, or when a place
    /// is in two units.
    pub(super) fn new(net: &Net, decomposition: Decomposition) -> Result<Layout, ModelError> {
        let mut layout = Layout {
            comps: Vec::new(),
            place_comp: vec![(CompId(UNASSIGNED), 0u32); net.places.len()],
        };
        if decomposition == Decomposition::Units {
            layout.add_units(net)?;
        }
        layout.add_loose_places(net);
        Ok(layout)
    }

    /// One component per NUPN unit owning places.
    fn add_units(&mut self, net: &Net) -> Result<(), ModelError> {
        let nupn = net
            .nupn
            .as_ref()
            .ok_or_else(|| ModelError::new("the net has no NUPN units to use as components"))?;
        for (ui, unit) in nupn.units.iter().enumerate() {
            if unit.places.is_empty() {
                continue;
            }
            let c = CompId(self.comps.len() as u32);
            for (slot, p) in unit.places.iter().enumerate() {
                if self.place_comp[p.index()].0 .0 != UNASSIGNED {
                    return Err(ModelError::new(format!(
                        "place {} belongs to two NUPN units",
                        net.places[p.index()].label()
                    )));
                }
                self.place_comp[p.index()] = (c, slot as u32 + 1);
            }
            self.comps.push(NetComp::Unit {
                unit: ui,
                places: unit.places.clone(),
            });
        }
        Ok(())
    }

    /// One component per place not yet in a component (every place, when cut by places).
    fn add_loose_places(&mut self, net: &Net) {
        for i in 0..net.places.len() {
            if self.place_comp[i].0 .0 == UNASSIGNED {
                self.place_comp[i] = (CompId(self.comps.len() as u32), 0);
                self.comps.push(NetComp::Place(PlaceId(i as u32)));
            }
        }
    }

    /// The local state of every component in the initial marking; fails when a unit starts
    /// with more than one token.
    pub(super) fn initial_state(&self, net: &Net) -> Result<Vec<Local>, ModelError> {
        let mut initial = Vec::with_capacity(self.comps.len());
        for comp in &self.comps {
            initial.push(match comp {
                NetComp::Place(p) => Local(net.places[p.index()].initial),
                NetComp::Unit { unit, places } => unit_initial(net, *unit, places)?,
            });
        }
        Ok(initial)
    }
}

/// The initial local state of unit `unit` owning `places`: the slot of its marked place.
fn unit_initial(net: &Net, unit: usize, places: &[PlaceId]) -> Result<Local, ModelError> {
    let marked: Vec<(usize, &PlaceId)> = places
        .iter()
        .enumerate()
        .filter(|(_, p)| net.places[p.index()].initial > 0)
        .collect();
    let over = places.iter().find(|p| net.places[p.index()].initial > 1);
    if marked.len() > 1 || over.is_some() {
        let names: Vec<String> = places
            .iter()
            .filter(|p| net.places[p.index()].initial > 0)
            .map(|p| {
                format!(
                    "{} ({})",
                    net.places[p.index()].label(),
                    net.places[p.index()].initial
                )
            })
            .collect();
        return Err(ModelError::new(format!(
            "the NUPN block contradicts the net: unit {} holds more than one token in the initial marking ({})",
            net.nupn.as_ref().map(|n| n.units[unit].id.as_str()).unwrap_or("?"),
            names.join(", ")
        )));
    }
    Ok(Local(marked.first().map(|(i, _)| *i as u32 + 1).unwrap_or(0)))
}
