//! What each transition does to the components it touches, and whether a local state
//! allows it.

use super::components::NetComp;
use super::{Net, PlaceId, TransId, Transition};
use crate::system::{CompId, Local, TouchSet};

/// The effect of a transition on one component.
#[derive(Clone, Debug)]
pub(super) enum CompEffect {
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

pub(super) fn effect_enabled(e: &CompEffect, l: Local) -> bool {
    match e {
        CompEffect::Place { need, .. } => l.0 >= *need,
        CompEffect::Unit { need, impossible, .. } => !*impossible && need.is_none_or(|s| l.0 == s),
    }
}

/// What the transitions do to the components, indexed both ways.
pub(super) struct TransitionIndex {
    /// Per transition: the touched components (sorted) and the effect on each.
    pub(super) touch: Vec<TouchSet>,
    pub(super) effects: Vec<Vec<CompEffect>>,
    /// Per component: transitions touching it.
    pub(super) comp_trans: Vec<Vec<TransId>>,
    /// Per component: transitions anchored at it.
    pub(super) anchored: Vec<Vec<TransId>>,
}

impl TransitionIndex {
    /// Indexes the transitions of `net` over the components `comps`, `place_comp` giving
    /// each place's component.
    pub(super) fn new(net: &Net, comps: &[NetComp], place_comp: &[(CompId, u32)]) -> TransitionIndex {
        let mut index = TransitionIndex {
            touch: Vec::with_capacity(net.transitions.len()),
            effects: Vec::with_capacity(net.transitions.len()),
            comp_trans: vec![Vec::new(); comps.len()],
            anchored: vec![Vec::new(); comps.len()],
        };
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
                index.comp_trans[c.index()].push(TransId(ti as u32));
                effs.push(effect_on(t, &comps[c.index()]));
            }
            if let Some(p) = anchor(t) {
                index.anchored[place_comp[p.index()].0.index()].push(TransId(ti as u32));
            }
            index.touch.push(TouchSet::from_vec(cs));
            index.effects.push(effs);
        }
        index
    }
}

/// The place whose component a transition is anchored at: its first input or read place,
/// or its first output place when it has neither.
fn anchor(t: &Transition) -> Option<PlaceId> {
    t.pre
        .first()
        .map(|(p, _)| *p)
        .into_iter()
        .chain(t.read.first().copied())
        .min()
        .or_else(|| t.post.first().map(|(p, _)| *p))
}

/// The effect of `t` on the component `comp`.
fn effect_on(t: &Transition, comp: &NetComp) -> CompEffect {
    match comp {
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
    }
}
