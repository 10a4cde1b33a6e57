//! P/T nets (DESIGN.md §1, "Nets") and their reading as component systems.
//!
//! A [`Net`] is the data every net reader produces and every net writer consumes: places
//! with initial markings, transitions with weighted input, output and read arcs, and an
//! optional NUPN decomposition into units. [`NetSystem`] views a net as a [`System`]:
//! - [`Decomposition::Places`]: one component per place, whose local state is its token
//!   count;
//! - [`Decomposition::Units`]: one component per NUPN unit that owns places (plus one per
//!   place outside every unit), whose local state is which of its own places holds the
//!   token, if any. A state in which a unit would hold two tokens means the NUPN block
//!   contradicts the net; [`System::fire`] reports it as a [`ModelError`].
//!
//! A read arc `t` — `p` means `t` needs a token on `p` and leaves it there. For the
//! interleaving semantics it is a self-loop of weight 1; the net keeps it apart so that
//! writers can reproduce the file.
//!
//! # Invariants
//! - Arc lists are sorted by place and hold each place at most once, with weight ≥ 1.
//! - Every place belongs to at most one unit.

use super::{ActionId, CompId, Local, ModelError, Step, System, TouchSet};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Index of a place in [`Net::places`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct PlaceId(pub u32);

impl PlaceId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a transition in [`Net::transitions`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TransId(pub u32);

impl TransId {
    /// The id as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A place.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Place {
    /// The identifier in the file (PNML `id`; for ll_net, the number).
    pub id: String,
    /// The display name, when the file gives one.
    pub name: Option<String>,
    /// Tokens in the initial marking.
    pub initial: u32,
}

impl Place {
    /// The name if there is one, else the id.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }
}

/// A transition.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Transition {
    /// The identifier in the file.
    pub id: String,
    /// The display name, when the file gives one.
    pub name: Option<String>,
    /// Input arcs (place, weight), sorted by place.
    pub pre: Vec<(PlaceId, u32)>,
    /// Output arcs (place, weight), sorted by place.
    pub post: Vec<(PlaceId, u32)>,
    /// Places read (tested for a token, not consumed), sorted.
    pub read: Vec<PlaceId>,
}

impl Transition {
    /// The name if there is one, else the id.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }

    /// Weight of the input arc from `p`, 0 if none.
    pub fn pre_weight(&self, p: PlaceId) -> u32 {
        arc_weight(&self.pre, p)
    }

    /// Weight of the output arc to `p`, 0 if none.
    pub fn post_weight(&self, p: PlaceId) -> u32 {
        arc_weight(&self.post, p)
    }

    /// Whether `t` reads `p`.
    pub fn reads(&self, p: PlaceId) -> bool {
        self.read.binary_search(&p).is_ok()
    }

    /// The places the transition touches (pre, post and read), sorted.
    pub fn neighbourhood(&self) -> Vec<PlaceId> {
        let mut v: Vec<PlaceId> = self
            .pre
            .iter()
            .chain(self.post.iter())
            .map(|(p, _)| *p)
            .chain(self.read.iter().copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn arc_weight(arcs: &[(PlaceId, u32)], p: PlaceId) -> u32 {
    arcs.binary_search_by_key(&p, |(q, _)| *q)
        .map(|i| arcs[i].1)
        .unwrap_or(0)
}

/// A NUPN unit: a set of places of which at most one is marked in any reachable marking.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unit {
    /// The unit's identifier in the file.
    pub id: String,
    /// The unit's own places (not those of its subunits).
    pub places: Vec<PlaceId>,
    /// Indices (into [`Nupn::units`]) of the subunits.
    pub subunits: Vec<usize>,
}

/// A nested-unit decomposition (the PNML `toolspecific tool="nupn"` block).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Nupn {
    /// All units, in file order.
    pub units: Vec<Unit>,
    /// Index of the root unit.
    pub root: usize,
    /// The file's `safe` attribute.
    pub safe: bool,
}

/// A place/transition net.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Net {
    /// The net's name or id, when the file gives one.
    pub name: Option<String>,
    /// Places, indexed by [`PlaceId`].
    pub places: Vec<Place>,
    /// Transitions, indexed by [`TransId`].
    pub transitions: Vec<Transition>,
    /// The NUPN decomposition, when the file gives one.
    pub nupn: Option<Nupn>,
}

impl Net {
    /// Adds a place and returns its id.
    pub fn add_place(&mut self, id: impl Into<String>, name: Option<String>, initial: u32) -> PlaceId {
        self.places.push(Place {
            id: id.into(),
            name,
            initial,
        });
        PlaceId(self.places.len() as u32 - 1)
    }

    /// Adds a transition without arcs and returns its id.
    pub fn add_transition(&mut self, id: impl Into<String>, name: Option<String>) -> TransId {
        self.transitions.push(Transition {
            id: id.into(),
            name,
            pre: Vec::new(),
            post: Vec::new(),
            read: Vec::new(),
        });
        TransId(self.transitions.len() as u32 - 1)
    }

    /// Adds `weight` to the input arc `p → t`, keeping the list sorted.
    pub fn add_pre(&mut self, t: TransId, p: PlaceId, weight: u32) {
        add_arc(&mut self.transitions[t.index()].pre, p, weight);
    }

    /// Adds `weight` to the output arc `t → p`, keeping the list sorted.
    pub fn add_post(&mut self, t: TransId, p: PlaceId, weight: u32) {
        add_arc(&mut self.transitions[t.index()].post, p, weight);
    }

    /// Adds the read arc `t — p`.
    pub fn add_read(&mut self, t: TransId, p: PlaceId) {
        let read = &mut self.transitions[t.index()].read;
        if let Err(i) = read.binary_search(&p) {
            read.insert(i, p);
        }
    }

    /// Number of arcs (input + output + read).
    pub fn num_arcs(&self) -> usize {
        self.transitions
            .iter()
            .map(|t| t.pre.len() + t.post.len() + t.read.len())
            .sum()
    }

    /// The largest arc weight (1 for a net without arcs).
    pub fn max_weight(&self) -> u32 {
        self.transitions
            .iter()
            .flat_map(|t| t.pre.iter().chain(t.post.iter()).map(|(_, w)| *w))
            .max()
            .unwrap_or(1)
    }

    /// Whether the initial marking puts at most one token on every place.
    pub fn initially_one_bounded(&self) -> bool {
        self.places.iter().all(|p| p.initial <= 1)
    }

    /// The marking as a human-readable list of marked places, `p1, 2*p3`.
    pub fn marking_text(&self, marking: &[u32]) -> String {
        let mut s = String::new();
        for (i, &k) in marking.iter().enumerate() {
            if k == 0 {
                continue;
            }
            if !s.is_empty() {
                s.push_str(", ");
            }
            if k > 1 {
                let _ = write!(s, "{k}*");
            }
            s.push_str(self.places[i].label());
        }
        if s.is_empty() {
            s.push_str("(empty)");
        }
        s
    }

    /// The initial marking as a vector of token counts.
    pub fn initial_marking(&self) -> Vec<u32> {
        self.places.iter().map(|p| p.initial).collect()
    }
}

fn add_arc(arcs: &mut Vec<(PlaceId, u32)>, p: PlaceId, weight: u32) {
    match arcs.binary_search_by_key(&p, |(q, _)| *q) {
        Ok(i) => arcs[i].1 = arcs[i].1.saturating_add(weight),
        Err(i) => arcs.insert(i, (p, weight)),
    }
}

/// How a net is cut into components.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Decomposition {
    /// One component per place.
    Places,
    /// One component per NUPN unit owning places, one per place outside every unit.
    Units,
}

/// What a component of a [`NetSystem`] stands for.
#[derive(Clone, Debug)]
enum NetComp {
    /// A place; local state = token count.
    Place(PlaceId),
    /// A unit; local state = 0 if no own place is marked, `i + 1` if `places[i]` is.
    Unit { unit: usize, places: Vec<PlaceId> },
}

/// The effect of a transition on one component.
#[derive(Clone, Debug)]
enum CompEffect {
    /// On a place component: needs `need` tokens, then `count - pre + post`.
    Place { pre: u32, post: u32, need: u32 },
    /// On a unit component (slots are 1-based local values).
    Unit {
        /// The slot that must be marked (consumed or read), if any.
        need: Option<u32>,
        /// Whether the needed token is consumed (not just read).
        consume: bool,
        /// The slot that receives a token, with its weight.
        produce: Option<(u32, u32)>,
        /// The transition needs two distinct places of this unit, or weight > 1 on one:
        /// never enabled in a unit-respecting marking.
        impossible: bool,
    },
}

/// A [`Net`] seen as a component system.
pub struct NetSystem<'n> {
    net: &'n Net,
    comps: Vec<NetComp>,
    /// For each place, its component and (for units) its 1-based slot.
    place_comp: Vec<(CompId, u32)>,
    /// Per transition: the touched components (sorted) and the effect on each.
    touch: Vec<TouchSet>,
    effects: Vec<Vec<CompEffect>>,
    /// Per component: transitions touching it.
    comp_trans: Vec<Vec<TransId>>,
    /// Per component: transitions anchored at it (at the component of their first input
    /// or read place, or of their first output place when they have no input).
    anchored: Vec<Vec<TransId>>,
    initial: Vec<Local>,
}

impl<'n> NetSystem<'n> {
    /// Views `net` as a component system cut by `decomposition`. Fails when the
    /// decomposition is [`Decomposition::Units`] but the net has no NUPN block, or the initial
    /// marking already contradicts it.
    pub fn new(net: &'n Net, decomposition: Decomposition) -> Result<Self, ModelError> {
        let mut comps = Vec::new();
        let mut place_comp = vec![(CompId(u32::MAX), 0u32); net.places.len()];
        match decomposition {
            Decomposition::Places => {
                for (i, _) in net.places.iter().enumerate() {
                    place_comp[i] = (CompId(comps.len() as u32), 0);
                    comps.push(NetComp::Place(PlaceId(i as u32)));
                }
            }
            Decomposition::Units => {
                let nupn = net
                    .nupn
                    .as_ref()
                    .ok_or_else(|| ModelError::new("the net has no NUPN units to use as components"))?;
                for (ui, unit) in nupn.units.iter().enumerate() {
                    if unit.places.is_empty() {
                        continue;
                    }
                    let c = CompId(comps.len() as u32);
                    for (slot, p) in unit.places.iter().enumerate() {
                        if place_comp[p.index()].0 .0 != u32::MAX {
                            return Err(ModelError::new(format!(
                                "place {} belongs to two NUPN units",
                                net.places[p.index()].label()
                            )));
                        }
                        place_comp[p.index()] = (c, slot as u32 + 1);
                    }
                    comps.push(NetComp::Unit {
                        unit: ui,
                        places: unit.places.clone(),
                    });
                }
                for (i, _) in net.places.iter().enumerate() {
                    if place_comp[i].0 .0 == u32::MAX {
                        place_comp[i] = (CompId(comps.len() as u32), 0);
                        comps.push(NetComp::Place(PlaceId(i as u32)));
                    }
                }
            }
        }

        let mut initial = Vec::with_capacity(comps.len());
        for comp in &comps {
            initial.push(match comp {
                NetComp::Place(p) => Local(net.places[p.index()].initial),
                NetComp::Unit { unit, places } => {
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
                            .map(|p| format!("{} ({})", net.places[p.index()].label(), net.places[p.index()].initial))
                            .collect();
                        return Err(ModelError::new(format!(
                            "the NUPN block contradicts the net: unit {} holds more than one token in the initial marking ({})",
                            net.nupn.as_ref().map(|n| n.units[*unit].id.as_str()).unwrap_or("?"),
                            names.join(", ")
                        )));
                    }
                    Local(marked.first().map(|(i, _)| *i as u32 + 1).unwrap_or(0))
                }
            });
        }

        let mut touch = Vec::with_capacity(net.transitions.len());
        let mut effects = Vec::with_capacity(net.transitions.len());
        let mut comp_trans = vec![Vec::new(); comps.len()];
        let mut anchored = vec![Vec::new(); comps.len()];
        for (ti, t) in net.transitions.iter().enumerate() {
            let mut cs: Vec<CompId> = t
                .neighbourhood()
                .iter()
                .map(|p| place_comp[p.index()].0)
                .collect();
            cs.sort_unstable();
            cs.dedup();
            let mut effs = Vec::with_capacity(cs.len());
            for &c in &cs {
                comp_trans[c.index()].push(TransId(ti as u32));
                effs.push(match &comps[c.index()] {
                    NetComp::Place(p) => {
                        let pre = t.pre_weight(*p);
                        let need = if t.reads(*p) { pre.max(1) } else { pre };
                        CompEffect::Place {
                            pre,
                            post: t.post_weight(*p),
                            need,
                        }
                    }
                    NetComp::Unit { places, .. } => unit_effect(t, places),
                });
            }
            let anchor = t
                .pre
                .first()
                .map(|(p, _)| *p)
                .into_iter()
                .chain(t.read.first().copied())
                .min()
                .or_else(|| t.post.first().map(|(p, _)| *p));
            if let Some(p) = anchor {
                anchored[place_comp[p.index()].0.index()].push(TransId(ti as u32));
            }
            touch.push(TouchSet::from_vec(cs));
            effects.push(effs);
        }
        Ok(NetSystem {
            net,
            comps,
            place_comp,
            touch,
            effects,
            comp_trans,
            anchored,
            initial,
        })
    }

    /// The net behind the system.
    pub fn net(&self) -> &'n Net {
        self.net
    }

    /// The step of transition `t`.
    pub fn step_of(&self, t: TransId) -> Step {
        Step {
            action: ActionId(t.0),
            touched: self.touch[t.index()].clone(),
        }
    }

    /// The marking (tokens per place) of a global state.
    pub fn marking(&self, state: &[Local]) -> Vec<u32> {
        let mut m = vec![0u32; self.net.places.len()];
        for (ci, comp) in self.comps.iter().enumerate() {
            match comp {
                NetComp::Place(p) => m[p.index()] = state[ci].0,
                NetComp::Unit { places, .. } => {
                    if state[ci].0 > 0 {
                        m[places[state[ci].0 as usize - 1].index()] = 1;
                    }
                }
            }
        }
        m
    }

    /// The component holding place `p`.
    pub fn component_of(&self, p: PlaceId) -> CompId {
        self.place_comp[p.index()].0
    }

    fn enabled(&self, t: usize, local_of: impl Fn(CompId) -> Local) -> bool {
        self.touch[t]
            .iter()
            .zip(self.effects[t].iter())
            .all(|(c, e)| effect_enabled(e, local_of(*c)))
    }

    fn fire_on(&self, t: TransId, before: &[Local], after: &mut [Local]) -> Result<bool, ModelError> {
        let effs = &self.effects[t.index()];
        for (i, ((e, b), a)) in effs.iter().zip(before).zip(after.iter_mut()).enumerate() {
            if !effect_enabled(e, *b) {
                return Ok(false);
            }
            *a = match e {
                CompEffect::Place { pre, post, .. } => {
                    let left = b.0 - pre;
                    match left.checked_add(*post) {
                        Some(v) => Local(v),
                        None => {
                            return Err(ModelError::new(format!(
                                "firing {} would put more than {} tokens on a place",
                                self.net.transitions[t.index()].label(),
                                u32::MAX
                            )))
                        }
                    }
                }
                CompEffect::Unit { consume, produce, .. } => {
                    let left = if *consume { 0 } else { b.0 };
                    match produce {
                        None => Local(left),
                        Some((slot, w)) => {
                            if *w > 1 || left != 0 {
                                return Err(self.unit_contradiction(
                                    t,
                                    self.touch[t.index()][i],
                                    *slot,
                                    left,
                                ));
                            }
                            Local(*slot)
                        }
                    }
                }
            };
        }
        Ok(true)
    }

    fn unit_contradiction(&self, t: TransId, c: CompId, slot: u32, left: u32) -> ModelError {
        let (unit, places) = match &self.comps[c.index()] {
            NetComp::Unit { unit, places } => (*unit, places),
            NetComp::Place(_) => unreachable!("[qpor internal bug] unit effect on a place component"),
        };
        let uid = self
            .net
            .nupn
            .as_ref()
            .map(|n| n.units[unit].id.clone())
            .unwrap_or_default();
        let target = self.net.places[places[slot as usize - 1].index()].label();
        let why = if left != 0 {
            format!(
                "place {} is still marked",
                self.net.places[places[left as usize - 1].index()].label()
            )
        } else {
            "the arc weight is greater than 1".to_string()
        };
        ModelError::new(format!(
            "the NUPN block contradicts the net: firing {} puts a second token into unit {} (on {}, while {})",
            self.net.transitions[t.index()].label(),
            uid,
            target,
            why
        ))
    }
}

fn unit_effect(t: &Transition, places: &[PlaceId]) -> CompEffect {
    let mut need = None;
    let mut consume = false;
    let mut produce = None;
    let mut impossible = false;
    for (slot, p) in places.iter().enumerate() {
        let slot = slot as u32 + 1;
        let pre = t.pre_weight(*p);
        let read = t.reads(*p);
        if pre > 0 || read {
            if need.is_some() || pre > 1 {
                impossible = true;
            }
            need = Some(slot);
            consume = pre > 0;
        }
        let post = t.post_weight(*p);
        if post > 0 {
            if let Some((_, _)) = produce {
                // Two output places in one unit: the second token contradicts the unit.
                produce = Some((slot, 2));
            } else {
                produce = Some((slot, post));
            }
        }
    }
    CompEffect::Unit {
        need,
        consume,
        produce,
        impossible,
    }
}

fn effect_enabled(e: &CompEffect, l: Local) -> bool {
    match e {
        CompEffect::Place { need, .. } => l.0 >= *need,
        CompEffect::Unit { need, impossible, .. } => !*impossible && need.is_none_or(|s| l.0 == s),
    }
}

impl System for NetSystem<'_> {
    fn num_components(&self) -> usize {
        self.comps.len()
    }

    fn component_name(&self, c: CompId) -> String {
        match &self.comps[c.index()] {
            NetComp::Place(p) => self.net.places[p.index()].label().to_string(),
            NetComp::Unit { unit, .. } => {
                let id = self
                    .net
                    .nupn
                    .as_ref()
                    .map(|n| n.units[*unit].id.as_str())
                    .unwrap_or("?");
                format!("unit {id}")
            }
        }
    }

    fn component_kind(&self, c: CompId) -> &'static str {
        match &self.comps[c.index()] {
            NetComp::Place(_) => "place",
            NetComp::Unit { .. } => "unit",
        }
    }

    fn initial_state(&self) -> Vec<Local> {
        self.initial.clone()
    }

    fn enabled_steps(&self, state: &[Local], out: &mut Vec<Step>) {
        for t in 0..self.net.transitions.len() {
            if self.enabled(t, |c| state[c.index()]) {
                out.push(self.step_of(TransId(t as u32)));
            }
        }
    }

    fn enabled_steps_touching(&self, state: &[Local], c: CompId, out: &mut Vec<Step>) {
        for &t in &self.comp_trans[c.index()] {
            if self.enabled(t.index(), |c| state[c.index()]) {
                out.push(self.step_of(t));
            }
        }
    }

    fn anchored_steps(&self, c: CompId, l: Local, out: &mut Vec<Step>) -> bool {
        for &t in &self.anchored[c.index()] {
            let i = self.touch[t.index()].binary_search(&c).unwrap_or(0);
            if effect_enabled(&self.effects[t.index()][i], l) {
                out.push(self.step_of(t));
            }
        }
        true
    }

    fn may_enable(&self, step: &Step, index: usize, l: Local) -> bool {
        effect_enabled(&self.effects[step.action.index()][index], l)
    }

    fn fire(&self, step: &Step, before: &[Local], after: &mut [Local]) -> Result<bool, ModelError> {
        debug_assert_eq!(step.touched, self.touch[step.action.index()]);
        self.fire_on(TransId(step.action.0), before, after)
    }

    fn action_name(&self, a: ActionId) -> String {
        self.net.transitions[a.index()].label().to_string()
    }

    fn describe_state(&self, state: &[Local]) -> String {
        self.net.marking_text(&self.marking(state))
    }

    fn local_name(&self, c: CompId, l: Local) -> String {
        match &self.comps[c.index()] {
            NetComp::Place(_) => l.0.to_string(),
            NetComp::Unit { places, .. } => {
                if l.0 == 0 {
                    "none".to_string()
                } else {
                    self.net.places[places[l.0 as usize - 1].index()]
                        .label()
                        .to_string()
                }
            }
        }
    }
}

/// Looks places up by their file identifier (readers use it to resolve arc ends).
pub fn place_index(net: &Net) -> HashMap<&str, PlaceId> {
    net.places
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), PlaceId(i as u32)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two processes taking two locks in opposite orders (the classic deadlock).
    fn locks() -> Net {
        let mut n = Net::default();
        let idle1 = n.add_place("idle1", None, 1);
        let has_a = n.add_place("hasA", None, 0);
        let idle2 = n.add_place("idle2", None, 1);
        let has_b = n.add_place("hasB", None, 0);
        let lock_a = n.add_place("lockA", None, 1);
        let lock_b = n.add_place("lockB", None, 1);
        let t1 = n.add_transition("p1.takeA", None);
        n.add_pre(t1, idle1, 1);
        n.add_pre(t1, lock_a, 1);
        n.add_post(t1, has_a, 1);
        let t2 = n.add_transition("p1.takeB", None);
        n.add_pre(t2, has_a, 1);
        n.add_pre(t2, lock_b, 1);
        n.add_post(t2, idle1, 1);
        n.add_post(t2, lock_a, 1);
        n.add_post(t2, lock_b, 1);
        let t3 = n.add_transition("p2.takeB", None);
        n.add_pre(t3, idle2, 1);
        n.add_pre(t3, lock_b, 1);
        n.add_post(t3, has_b, 1);
        let t4 = n.add_transition("p2.takeA", None);
        n.add_pre(t4, has_b, 1);
        n.add_pre(t4, lock_a, 1);
        n.add_post(t4, idle2, 1);
        n.add_post(t4, lock_a, 1);
        n.add_post(t4, lock_b, 1);
        n
    }

    #[test]
    fn place_components_fire_like_the_net() {
        let net = locks();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let s0 = sys.initial_state();
        let mut steps = Vec::new();
        sys.enabled_steps(&s0, &mut steps);
        let names: Vec<String> = steps.iter().map(|s| sys.action_name(s.action)).collect();
        assert_eq!(names, ["p1.takeA", "p2.takeB"]);
        let mut s1 = Vec::new();
        assert!(sys.successor(&s0, &steps[0], &mut s1).unwrap());
        assert_eq!(net.marking_text(&sys.marking(&s1)), "hasA, idle2, lockB");
        let mut s2 = Vec::new();
        assert!(sys.successor(&s1, &steps[1], &mut s2).unwrap());
        let mut dead = Vec::new();
        sys.enabled_steps(&s2, &mut dead);
        assert!(dead.is_empty(), "both hold one lock: deadlock");
    }

    #[test]
    fn touching_index_agrees_with_the_filter() {
        let net = locks();
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let s0 = sys.initial_state();
        for c in 0..sys.num_components() {
            let mut fast = Vec::new();
            sys.enabled_steps_touching(&s0, CompId(c as u32), &mut fast);
            let mut all = Vec::new();
            sys.enabled_steps(&s0, &mut all);
            all.retain(|s| s.touched.contains(&CompId(c as u32)));
            assert_eq!(fast, all);
        }
    }

    #[test]
    fn weights_and_read_arcs() {
        let mut n = Net::default();
        let p = n.add_place("p", None, 3);
        let q = n.add_place("q", None, 0);
        let t = n.add_transition("t", None);
        n.add_pre(t, p, 2);
        n.add_post(t, q, 5);
        n.add_read(t, q);
        let sys = NetSystem::new(&n, Decomposition::Places).unwrap();
        let mut steps = Vec::new();
        sys.enabled_steps(&sys.initial_state(), &mut steps);
        assert!(steps.is_empty(), "the read arc on the empty place q disables t");
        let mut n2 = n.clone();
        n2.places[1].initial = 1;
        let sys = NetSystem::new(&n2, Decomposition::Places).unwrap();
        let s0 = sys.initial_state();
        let mut next = Vec::new();
        assert!(sys.successor(&s0, &sys.step_of(TransId(0)), &mut next).unwrap());
        assert_eq!(sys.marking(&next), vec![1, 6]);
        assert!(!sys
            .successor(&next, &sys.step_of(TransId(0)), &mut Vec::new())
            .unwrap());
    }

    /// Unit u1 = {a, b} holds a; t takes the loose place c and puts a token on b, taking the
    /// one on a too only when `respects_unit`.
    fn unit_net(respects_unit: bool) -> Net {
        let mut n = Net::default();
        let a = n.add_place("a", None, 1);
        let b = n.add_place("b", None, 0);
        let c = n.add_place("c", None, 1);
        let t = n.add_transition("t", None);
        n.add_pre(t, c, 1);
        if respects_unit {
            n.add_pre(t, a, 1);
        }
        n.add_post(t, b, 1);
        n.nupn = Some(Nupn {
            units: vec![
                Unit {
                    id: "u0".into(),
                    places: vec![],
                    subunits: vec![1],
                },
                Unit {
                    id: "u1".into(),
                    places: vec![a, b],
                    subunits: vec![],
                },
            ],
            root: 0,
            safe: true,
        });
        n
    }

    #[test]
    fn units_hold_the_marked_place() {
        let net = unit_net(true);
        let sys = NetSystem::new(&net, Decomposition::Units).unwrap();
        assert_eq!(sys.num_components(), 2, "unit u1 and the loose place c");
        let s0 = sys.initial_state();
        assert_eq!(sys.local_name(CompId(0), s0[0]), "a");
        let mut steps = Vec::new();
        sys.enabled_steps(&s0, &mut steps);
        assert_eq!(steps.len(), 1);
        let mut next = Vec::new();
        assert!(sys.successor(&s0, &steps[0], &mut next).unwrap());
        assert_eq!(sys.local_name(CompId(0), next[0]), "b");
        assert_eq!(sys.marking(&next), vec![0, 1, 0]);
    }

    #[test]
    fn a_unit_receiving_a_second_token_is_an_error() {
        let net = unit_net(false);
        let sys = NetSystem::new(&net, Decomposition::Units).unwrap();
        let s0 = sys.initial_state();
        let mut steps = Vec::new();
        sys.enabled_steps(&s0, &mut steps);
        let err = sys.successor(&s0, &steps[0], &mut Vec::new()).unwrap_err();
        assert!(err.message.contains("contradicts"), "{}", err.message);
        assert!(err.message.contains("unit u1"), "{}", err.message);
        assert!(
            err.message.contains("while place a is still marked"),
            "{}",
            err.message
        );
    }

    #[test]
    fn initial_marking_must_respect_units() {
        let mut net = unit_net(false);
        net.places[1].initial = 1;
        let err = NetSystem::new(&net, Decomposition::Units).err().unwrap();
        assert!(err.message.contains("initial marking"), "{}", err.message);
    }
}
