//! P/T nets (docs/design.md#nets) and their reading as component systems.
//!
//! A [`Net`] is the data every net reader produces and every net writer consumes: places
//! with initial markings, transitions with weighted input, output and read arcs, and an
//! optional NUPN decomposition into units. [`NetSystem`] views a net as a
//! [`System`](crate::system::System):
//! - [`Decomposition::Places`]: one component per place, whose local state is its token
//!   count;
//! - [`Decomposition::Units`]: one component per NUPN unit that owns places (plus one per
//!   place outside every unit), whose local state is which of its own places holds the
//!   token, if any. A state in which a unit would hold two tokens means the NUPN block
//!   contradicts the net; [`System::fire`](crate::system::System::fire) reports it as a
//!   [`ModelError`](crate::system::ModelError).
//!
//! A read arc `t` — `p` means `t` needs a token on `p` and leaves it there. For the
//! interleaving semantics it is a self-loop of weight 1; the net keeps it apart so that
//! writers can reproduce the file.
//!
//! # Invariants
//! - Arc lists are sorted by place and hold each place at most once, with weight ≥ 1.
//! - Every place belongs to at most one unit.
//!
//! # Layout
//! The net itself lives here; `components` cuts it into components, `effects` says what
//! each transition does to each component, and `system` puts them together as [`NetSystem`].

mod components;
mod effects;
mod system;

pub use components::Decomposition;
pub use system::NetSystem;

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

    /// (place, tokens needed) for every place the transition needs to be enabled: its
    /// input weight, or 1 for a read arc (the larger where both), sorted by place.
    pub fn needs(&self) -> Vec<(PlaceId, u32)> {
        let mut needs = self.pre.clone();
        for &p in &self.read {
            if let Err(at) = needs.binary_search_by_key(&p, |&(q, _)| q) {
                needs.insert(at, (p, 1));
            }
        }
        needs
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

impl Unit {
    /// The unit `id` with its own `places` and the `subunits` (indices into
    /// [`Nupn::units`]).
    pub fn new(id: impl Into<String>, places: Vec<PlaceId>, subunits: Vec<usize>) -> Unit {
        Unit {
            id: id.into(),
            places,
            subunits,
        }
    }
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

    /// A net of unnamed places, given by id and initial tokens, and no transitions, with
    /// the places' ids in the same order: where a net built by hand starts.
    pub fn with_places<const N: usize>(places: [(&str, u32); N]) -> (Net, [PlaceId; N]) {
        let mut net = Net::default();
        let ids = places.map(|(id, initial)| net.add_place(id, None, initial));
        (net, ids)
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

    /// Adds a transition that takes one token from each place of `pre` and puts one on
    /// each place of `post` (repeat a place for weight 2), and returns its id.
    pub fn add_transition_between(
        &mut self,
        id: impl Into<String>,
        pre: &[PlaceId],
        post: &[PlaceId],
    ) -> TransId {
        let t = self.add_transition(id, None);
        for &p in pre {
            self.add_pre(t, p, 1);
        }
        for &p in post {
            self.add_post(t, p, 1);
        }
        t
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

    /// Fires transition `t` in `marking` if it is enabled there; whether it was. Token
    /// counts saturate at `u32::MAX`.
    pub fn fire(&self, marking: &mut [u32], t: TransId) -> bool {
        let tr = &self.transitions[t.index()];
        if !tr.needs().iter().all(|&(p, w)| marking[p.index()] >= w) {
            return false;
        }
        for &(p, w) in &tr.pre {
            marking[p.index()] -= w;
        }
        for &(p, w) in &tr.post {
            marking[p.index()] = marking[p.index()].saturating_add(w);
        }
        true
    }

    /// The marking reached by firing `sequence` from the initial marking, or `None` when a
    /// transition is not enabled in its turn.
    pub fn marking_after(&self, sequence: impl IntoIterator<Item = TransId>) -> Option<Vec<u32>> {
        let mut marking = self.initial_marking();
        sequence
            .into_iter()
            .all(|t| self.fire(&mut marking, t))
            .then_some(marking)
    }

    /// The initial marking as a vector of token counts.
    pub fn initial_marking(&self) -> Vec<u32> {
        self.places.iter().map(|p| p.initial).collect()
    }

    /// Per transition: whether it may fire some day from `marking`, by an
    /// over-approximation — a place may hold tokens if it holds some now or a transition
    /// that may fire puts some there, and a transition may fire if every place it needs
    /// may hold tokens (ignoring how many). A transition this says `false` of never fires
    /// from `marking`: what it needs can never all be marked.
    pub fn may_fire_from(&self, marking: &[u32]) -> Vec<bool> {
        let mut marked: Vec<bool> = marking.iter().map(|&m| m > 0).collect();
        let mut fires = vec![false; self.transitions.len()];
        loop {
            let mut changed = false;
            for (t, tr) in self.transitions.iter().enumerate() {
                if fires[t] || !tr.needs().iter().all(|&(p, _)| marked[p.index()]) {
                    continue;
                }
                fires[t] = true;
                changed = true;
                for &(p, _) in &tr.post {
                    marked[p.index()] = true;
                }
            }
            if !changed {
                return fires;
            }
        }
    }
}

fn add_arc(arcs: &mut Vec<(PlaceId, u32)>, p: PlaceId, weight: u32) {
    match arcs.binary_search_by_key(&p, |(q, _)| *q) {
        Ok(i) => arcs[i].1 = arcs[i].1.saturating_add(weight),
        Err(i) => arcs.insert(i, (p, weight)),
    }
}
