//! The net being reduced: the original's places and transitions, each alive or removed,
//! with the arcs the rules have rewritten, and the original firing sequence each surviving
//! transition stands for.

use super::Keep;
use crate::system::net::{Net, TransId};

/// A place of the net being reduced (indexed as in the original net).
#[derive(Clone, Debug)]
pub(super) struct WorkPlace {
    /// Still in the net.
    pub(super) alive: bool,
    /// A property reads its tokens, or the enabledness of a transition that needs it: no
    /// rule removes it or changes when it holds what.
    pub(super) kept: bool,
    /// Tokens in the initial marking of the reduced net.
    pub(super) initial: u32,
    /// Shown not implicit since the last rewrite by another rule.
    #[cfg(feature = "lp")]
    pub(super) not_implicit: bool,
}

/// A transition of the net being reduced (indexed as in the original net: an agglomerated
/// transition keeps the index of the one it was built on).
#[derive(Clone, Debug)]
pub(super) struct WorkTrans {
    /// Still in the net.
    pub(super) alive: bool,
    /// A property reads whether it is enabled: no rule removes it or changes its inputs.
    pub(super) kept: bool,
    /// Input arcs (place index, weight), sorted by place.
    pub(super) pre: Vec<(u32, u32)>,
    /// Output arcs (place index, weight), sorted by place.
    pub(super) post: Vec<(u32, u32)>,
    /// Places read, sorted.
    pub(super) read: Vec<u32>,
    /// The original transitions one firing of this one stands for, in firing order.
    pub(super) expansion: Vec<TransId>,
}

impl WorkTrans {
    /// Weight of the input arc from `p` (0 if none).
    pub(super) fn pre_weight(&self, p: u32) -> u32 {
        weight(&self.pre, p)
    }

    /// Weight of the output arc to `p` (0 if none).
    pub(super) fn post_weight(&self, p: u32) -> u32 {
        weight(&self.post, p)
    }

    /// Whether it reads `p`.
    pub(super) fn reads(&self, p: u32) -> bool {
        self.read.binary_search(&p).is_ok()
    }

    /// Tokens on `p` without which it is not enabled: its input weight, or 1 for a read.
    pub(super) fn need(&self, p: u32) -> u32 {
        self.pre_weight(p).max(u32::from(self.reads(p)))
    }

    /// (place, tokens needed) for every place it needs, sorted by place.
    pub(super) fn needs(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self.pre.clone();
        for &p in &self.read {
            match v.binary_search_by_key(&p, |&(q, _)| q) {
                Ok(_) => {}
                Err(i) => v.insert(i, (p, 1)),
            }
        }
        v
    }

    /// (place, post − pre) for every place whose marking it changes, sorted by place.
    pub(super) fn effect(&self) -> Vec<(u32, i64)> {
        let mut v = Vec::with_capacity(self.pre.len() + self.post.len());
        let (mut i, mut j) = (0, 0);
        while i < self.pre.len() || j < self.post.len() {
            let p = match (self.pre.get(i), self.post.get(j)) {
                (Some(&(a, _)), Some(&(b, _))) => a.min(b),
                (Some(&(a, _)), None) => a,
                (None, Some(&(b, _))) => b,
                (None, None) => unreachable!("the loop condition"),
            };
            let d = i64::from(self.post_weight(p)) - i64::from(self.pre_weight(p));
            if d != 0 {
                v.push((p, d));
            }
            if self.pre.get(i).is_some_and(|&(q, _)| q == p) {
                i += 1;
            }
            if self.post.get(j).is_some_and(|&(q, _)| q == p) {
                j += 1;
            }
        }
        v
    }
}

fn weight(arcs: &[(u32, u32)], p: u32) -> u32 {
    arcs.binary_search_by_key(&p, |&(q, _)| q)
        .map(|i| arcs[i].1)
        .unwrap_or(0)
}

/// Which alive transitions consume, produce and read each place.
pub(super) struct Adjacency {
    /// Per place: transitions with an input arc from it.
    pub(super) consumers: PerPlace,
    /// Per place: transitions with an output arc to it.
    pub(super) producers: PerPlace,
    /// Per place: transitions reading it.
    pub(super) readers: PerPlace,
}

/// A list of transitions per place, in increasing order, stored in one array: the
/// reduction builds the adjacency again after every rule, and a vector per place made
/// the allocator half of the rules' time on nets of 100 000 places.
pub(super) struct PerPlace {
    /// Where each place's list starts in `items`; one more entry than places.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl PerPlace {
    /// The lists of `places` places from the (place, transition) pairs `pairs` gives,
    /// called twice (once to count, once to fill) in the same order.
    fn build<I: Iterator<Item = (u32, u32)>>(places: usize, pairs: impl Fn() -> I) -> PerPlace {
        let mut start = vec![0u32; places + 1];
        for (p, _) in pairs() {
            start[p as usize + 1] += 1;
        }
        for p in 0..places {
            start[p + 1] += start[p];
        }
        let mut next = start.clone();
        let mut items = vec![0u32; start[places] as usize];
        for (p, t) in pairs() {
            let at = &mut next[p as usize];
            items[*at as usize] = t;
            *at += 1;
        }
        PerPlace { start, items }
    }
}

impl std::ops::Index<usize> for PerPlace {
    type Output = [u32];

    fn index(&self, p: usize) -> &[u32] {
        &self.items[self.start[p] as usize..self.start[p + 1] as usize]
    }
}

/// The net being reduced, and what the rules have recorded so far.
pub(super) struct WorkNet {
    pub(super) places: Vec<WorkPlace>,
    pub(super) trans: Vec<WorkTrans>,
    /// Original transitions fired from the original initial marking to reach this net's
    /// initial marking.
    pub(super) prefix: Vec<TransId>,
    /// Firing sequences of the original net (transitions removed by pre-agglomeration)
    /// to fire, while they can be fired, after a lifted witness; in the order they were
    /// recorded (a lift takes them last first).
    pub(super) finish: Vec<Vec<TransId>>,
}

impl WorkNet {
    /// The original net, nothing removed, with what `keep` says must stay visible.
    pub(super) fn new(net: &Net, keep: &Keep) -> WorkNet {
        let places = net
            .places
            .iter()
            .enumerate()
            .map(|(i, p)| WorkPlace {
                alive: true,
                kept: keep.place(i),
                initial: p.initial,
                #[cfg(feature = "lp")]
                not_implicit: false,
            })
            .collect();
        let trans = net
            .transitions
            .iter()
            .enumerate()
            .map(|(i, t)| WorkTrans {
                alive: true,
                kept: keep.transition(i),
                pre: t.pre.iter().map(|&(p, w)| (p.0, w)).collect(),
                post: t.post.iter().map(|&(p, w)| (p.0, w)).collect(),
                read: t.read.iter().map(|p| p.0).collect(),
                expansion: vec![TransId(i as u32)],
            })
            .collect();
        WorkNet {
            places,
            trans,
            prefix: Vec::new(),
            finish: Vec::new(),
        }
    }

    /// The indices of the alive transitions.
    pub(super) fn alive_transitions(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.trans.len() as u32).filter(|&t| self.trans[t as usize].alive)
    }

    /// The indices of the alive places.
    pub(super) fn alive_places(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.places.len() as u32).filter(|&p| self.places[p as usize].alive)
    }

    /// Who consumes, produces and reads each place, among the alive transitions.
    pub(super) fn adjacency(&self) -> Adjacency {
        let n = self.places.len();
        let alive = || self.alive_transitions().map(|t| (t, &self.trans[t as usize]));
        Adjacency {
            consumers: PerPlace::build(n, || {
                alive().flat_map(|(t, tr)| tr.pre.iter().map(move |&(p, _)| (p, t)))
            }),
            producers: PerPlace::build(n, || {
                alive().flat_map(|(t, tr)| tr.post.iter().map(move |&(p, _)| (p, t)))
            }),
            readers: PerPlace::build(n, || {
                alive().flat_map(|(t, tr)| tr.read.iter().map(move |&p| (p, t)))
            }),
        }
    }

    /// Removes place `p` and every arc to or from it.
    pub(super) fn remove_place(&mut self, p: u32, adj: &Adjacency) {
        self.places[p as usize].alive = false;
        let touching = adj.consumers[p as usize]
            .iter()
            .chain(&adj.producers[p as usize])
            .chain(&adj.readers[p as usize]);
        for &t in touching {
            let tr = &mut self.trans[t as usize];
            tr.pre.retain(|&(q, _)| q != p);
            tr.post.retain(|&(q, _)| q != p);
            tr.read.retain(|&q| q != p);
        }
    }
}
