//! [`NetSystem`]: a net as a component system, firing transitions on component states.

use super::components::{Decomposition, Layout, NetComp};
use super::effects::{effect_enabled, CompEffect, TransitionIndex};
use super::{Net, PlaceId, TransId};
use crate::system::{ActionId, CompId, Local, ModelError, StateValue, Step, System, TouchSet};

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
        let layout = Layout::new(net, decomposition)?;
        let initial = layout.initial_state(net)?;
        let TransitionIndex {
            touch,
            effects,
            comp_trans,
            anchored,
        } = TransitionIndex::new(net, &layout.comps, &layout.place_comp);
        let Layout { comps, place_comp } = layout;
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
        let mut m = Vec::new();
        self.marking_into(state, &mut m);
        m
    }

    /// [`NetSystem::marking`] into a buffer that is reused.
    pub fn marking_into(&self, state: &[Local], m: &mut Vec<u32>) {
        m.clear();
        m.resize(self.net.places.len(), 0);
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

    fn action_file_id(&self, a: ActionId) -> Option<String> {
        Some(self.net.transitions[a.index()].id.clone())
    }

    fn describe_state(&self, state: &[Local]) -> String {
        self.net.marking_text(&self.marking(state))
    }

    fn state_entries(&self, state: &[Local]) -> Vec<(String, StateValue)> {
        let marking = self.marking(state);
        self.net
            .places
            .iter()
            .zip(marking)
            .filter(|(_, n)| *n > 0)
            .map(|(p, n)| (p.id.clone(), StateValue::Tokens(n)))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::{Nupn, Unit};

    /// Two processes taking two locks in opposite orders (the classic deadlock).
    fn locks() -> Net {
        let (mut n, [idle1, has_a, idle2, has_b, lock_a, lock_b]) = Net::with_places([
            ("idle1", 1),
            ("hasA", 0),
            ("idle2", 1),
            ("hasB", 0),
            ("lockA", 1),
            ("lockB", 1),
        ]);
        n.add_transition_between("p1.takeA", &[idle1, lock_a], &[has_a]);
        n.add_transition_between("p1.takeB", &[has_a, lock_b], &[idle1, lock_a, lock_b]);
        n.add_transition_between("p2.takeB", &[idle2, lock_b], &[has_b]);
        n.add_transition_between("p2.takeA", &[has_b, lock_a], &[idle2, lock_a, lock_b]);
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
        let (mut n, [p, q]) = Net::with_places([("p", 3), ("q", 0)]);
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
        let (mut n, [a, b, c]) = Net::with_places([("a", 1), ("b", 0), ("c", 1)]);
        let t = n.add_transition("t", None);
        n.add_pre(t, c, 1);
        if respects_unit {
            n.add_pre(t, a, 1);
        }
        n.add_post(t, b, 1);
        n.nupn = Some(Nupn {
            units: vec![
                Unit::new("u0", vec![], vec![1]),
                Unit::new("u1", vec![a, b], vec![]),
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
