//! A P/T net as the general backend unfolds it: every transition's *effective* preset and
//! postset, in which tokens are individual conditions
//! (docs/design.md#the-general-backend; docs/paper.md#theorem-43 for branching processes).
//!
//! - **Read arcs are self-loops, for now.** A read arc t — p with no input arc on p
//!   becomes an input arc and an output arc of weight 1: t consumes a token of p and puts
//!   a new one back. Reachable markings and deadlocks are those of the net; the unfolding
//!   is that of the *plain* encoding (as Cunf's `plain/` nets), so two readers of p are
//!   dependent (they consume the same condition) where a contextual unfolding would make
//!   them concurrent. An input arc plus a read arc on one place is just the input arc.
//! - **A transition with an empty preset** would be one event (t, ∅) in a branching
//!   process, although the net can fire it forever. It gets a *virtual* place of its own,
//!   marked once, as a self-loop: its occurrences form a chain, every marking of the net
//!   is still reached, and the transition stays enabled in every configuration (such a
//!   net never deadlocks). Virtual places come after the real ones and never appear in a
//!   marking handed to the rest of qpor.
//!
//! # Invariants
//! - `pre[t]` and `post[t]` are sorted by place, each place at most once, weights ≥ 1;
//!   `pre[t]` is never empty.
//! - `consumers[p]` lists the transitions with `p` in their effective preset, in id order;
//!   `anchored[p]` those whose *first* preset place is `p`, so every transition is anchored
//!   at exactly one place.

use crate::system::net::Net;
use smallvec::SmallVec;

/// Arcs (place, weight), sorted by place.
pub(crate) type Arcs = SmallVec<[(u32, u32); 4]>;

/// The effective structure of a net for token-level unfolding.
#[derive(Clone, Debug)]
pub struct TokenNet {
    /// Number of places of the net.
    pub real_places: usize,
    /// Real places followed by one virtual place per transition with an empty preset.
    pub places: usize,
    /// Effective preset of every transition.
    pub pre: Vec<Arcs>,
    /// Effective postset of every transition.
    pub post: Vec<Arcs>,
    /// Per place: the transitions consuming from it.
    pub consumers: Vec<Vec<u32>>,
    /// Per place: the transitions whose first preset place it is.
    pub anchored: Vec<Vec<u32>>,
    /// Initial tokens of every place (1 on virtual places).
    pub initial: Vec<u32>,
    /// Per place: a fixed pseudo-random hash; a marking hashes to Σ m(p)·hash(p).
    pub place_hash: Vec<u64>,
    /// Per transition: Σ_p (post(p) − pre(p))·hash(p), the change of the marking hash.
    pub delta_hash: Vec<u64>,
    /// Place names (virtual ones name their transition).
    pub names: Vec<String>,
}

/// splitmix64's finaliser: a fixed, well-spread hash of a 64-bit key (fixed seed, so
/// markings hash the same in every run).
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl TokenNet {
    /// The effective structure of `net`.
    pub fn new(net: &Net) -> TokenNet {
        let real = net.places.len();
        let mut pre = Vec::with_capacity(net.transitions.len());
        let mut post = Vec::with_capacity(net.transitions.len());
        let mut names: Vec<String> = net.places.iter().map(|p| p.label().to_string()).collect();
        let mut initial: Vec<u32> = net.places.iter().map(|p| p.initial).collect();
        for t in &net.transitions {
            let mut i: Arcs = t.pre.iter().map(|(p, w)| (p.0, *w)).collect();
            let mut o: Arcs = t.post.iter().map(|(p, w)| (p.0, *w)).collect();
            for &r in &t.read {
                if t.pre_weight(r) == 0 {
                    add(&mut i, r.0, 1);
                    add(&mut o, r.0, 1);
                }
            }
            if i.is_empty() {
                let v = names.len() as u32;
                names.push(format!("(source {})", t.label()));
                initial.push(1);
                add(&mut i, v, 1);
                add(&mut o, v, 1);
            }
            pre.push(i);
            post.push(o);
        }
        let places = names.len();
        let mut consumers = vec![Vec::new(); places];
        let mut anchored = vec![Vec::new(); places];
        for (t, arcs) in pre.iter().enumerate() {
            for &(p, _) in arcs {
                consumers[p as usize].push(t as u32);
            }
            anchored[arcs[0].0 as usize].push(t as u32);
        }
        let place_hash: Vec<u64> = (0..places as u64).map(|p| mix(p ^ 0x5155_4f52)).collect();
        let delta_hash = pre
            .iter()
            .zip(&post)
            .map(|(i, o)| {
                let mut h = 0u64;
                for &(p, w) in o {
                    h = h.wrapping_add(place_hash[p as usize].wrapping_mul(w as u64));
                }
                for &(p, w) in i {
                    h = h.wrapping_sub(place_hash[p as usize].wrapping_mul(w as u64));
                }
                h
            })
            .collect();
        debug_assert!(pre
            .iter()
            .all(|a| !a.is_empty() && a.windows(2).all(|w| w[0].0 < w[1].0)));
        TokenNet {
            real_places: real,
            places,
            pre,
            post,
            consumers,
            anchored,
            initial,
            place_hash,
            delta_hash,
            names,
        }
    }

    /// Number of transitions.
    pub fn transitions(&self) -> usize {
        self.pre.len()
    }

    /// Hash of the initial marking.
    pub fn initial_hash(&self) -> u64 {
        self.initial
            .iter()
            .zip(&self.place_hash)
            .fold(0u64, |h, (&m, &x)| h.wrapping_add(x.wrapping_mul(m as u64)))
    }

    /// Whether `p` is a place of the net (not a virtual one).
    pub fn is_real(&self, p: u32) -> bool {
        (p as usize) < self.real_places
    }

    /// Adds t's marking change to `delta` (a dense per-place vector, zero where unused),
    /// recording in `touched` every place that was zero before (possibly twice).
    pub fn apply(&self, t: u32, delta: &mut [i64], touched: &mut Vec<u32>) {
        for &(p, w) in &self.pre[t as usize] {
            if delta[p as usize] == 0 {
                touched.push(p);
            }
            delta[p as usize] -= w as i64;
        }
        for &(p, w) in &self.post[t as usize] {
            if delta[p as usize] == 0 {
                touched.push(p);
            }
            delta[p as usize] += w as i64;
        }
    }
}

fn add(arcs: &mut Arcs, p: u32, w: u32) {
    match arcs.binary_search_by_key(&p, |a| a.0) {
        Ok(i) => arcs[i].1 += w,
        Err(i) => arcs.insert(i, (p, w)),
    }
}

/// A marking change as a sparse vector: (place, change) for every place whose count
/// differs from the initial marking, sorted by place. Two local configurations have the
/// same marking iff their deltas are equal.
pub(crate) type MarkingDelta = Vec<(u32, i32)>;

/// Collects the nonzero entries of `delta` named in `touched` into a sorted sparse
/// vector and clears them (and `touched`) for the next use.
pub(crate) fn take_delta(delta: &mut [i64], touched: &mut Vec<u32>) -> MarkingDelta {
    touched.sort_unstable();
    touched.dedup();
    let mut out = Vec::new();
    for &p in touched.iter() {
        let v = delta[p as usize];
        if v != 0 {
            out.push((p, v as i32));
        }
        delta[p as usize] = 0;
    }
    touched.clear();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_arcs_become_self_loops_and_sources_get_a_virtual_place() {
        let (mut n, [p, q]) = Net::with_places([("p", 1), ("q", 0)]);
        let t = n.add_transition("t", None);
        n.add_read(t, p);
        n.add_post(t, q, 2);
        n.add_transition_between("u", &[], &[q]);
        let tn = TokenNet::new(&n);
        assert_eq!(tn.pre[0].as_slice(), &[(0, 1)]);
        assert_eq!(tn.post[0].as_slice(), &[(0, 1), (1, 2)]);
        assert_eq!(tn.places, 3, "one virtual place for the source u");
        assert_eq!(tn.pre[1].as_slice(), &[(2, 1)]);
        assert_eq!(tn.initial, vec![1, 0, 1]);
        assert_eq!(tn.consumers[0], vec![0]);
        assert!(tn.is_real(1) && !tn.is_real(2));
        let _ = q;
    }
}
