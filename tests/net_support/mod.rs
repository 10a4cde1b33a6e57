//! Random P/T nets for the property tests, shared by the test files that need them.
#![allow(dead_code)] // each test file uses some of these

use proptest::prelude::*;
use qpor::net::{Net, PlaceId};
use std::ops::RangeInclusive;

/// Arcs of a transition as (place, weight).
pub type Arcs = Vec<(usize, u32)>;

/// A net given as its initial marking and, per transition, (input arcs, output arcs).
#[derive(Clone, Debug)]
pub struct NetSpec {
    pub marking: Vec<u32>,
    pub transitions: Vec<(Arcs, Arcs)>,
}

impl NetSpec {
    /// The net, with places `p0, p1, …` and transitions `t0, t1, …`.
    pub fn build(&self) -> Net {
        let mut net = Net::default();
        for (i, &m) in self.marking.iter().enumerate() {
            net.add_place(format!("p{i}"), None, m);
        }
        for (i, (pre, post)) in self.transitions.iter().enumerate() {
            let t = net.add_transition(format!("t{i}"), None);
            for &(p, w) in pre {
                net.add_pre(t, PlaceId(p as u32), w);
            }
            for &(p, w) in post {
                net.add_post(t, PlaceId(p as u32), w);
            }
        }
        net
    }
}

/// Random nets with `places` places, `transitions` transitions of one or two inputs and
/// up to two outputs, weights up to `max_weight` and up to `max_tokens` initial tokens per
/// place. `acyclic`: every transition produces only on places of higher index than all its
/// inputs, so every run terminates.
pub fn random_net(
    places: RangeInclusive<usize>,
    transitions: RangeInclusive<usize>,
    acyclic: bool,
    max_weight: u32,
    max_tokens: u32,
) -> impl Strategy<Value = NetSpec> {
    (places, transitions).prop_flat_map(move |(np, nt)| {
        let marking = prop::collection::vec(0..=max_tokens, np);
        let arcs = prop::collection::vec(
            (
                prop::collection::vec((0..np, 1..=max_weight), 1..=2),
                prop::collection::vec((0..np, 1..=max_weight), 0..=2),
            ),
            nt,
        );
        (marking, arcs).prop_map(move |(marking, arcs)| {
            let transitions = arcs
                .into_iter()
                .map(|(mut pre, mut post)| {
                    pre.sort();
                    pre.dedup_by_key(|a| a.0);
                    if acyclic {
                        let top = pre.iter().map(|a| a.0).max().unwrap();
                        post.retain(|a| a.0 > top);
                    }
                    post.sort();
                    post.dedup_by_key(|a| a.0);
                    (pre, post)
                })
                .collect();
            NetSpec { marking, transitions }
        })
    })
}

/// Safe nets: `machines` state machines of `states` places each (state 0 marked); every
/// transition moves one or two machines (synchronisation), each from one state to another
/// (to a higher one when `acyclic`), so every machine's places hold exactly one token.
pub fn safe_net(acyclic: bool) -> impl Strategy<Value = NetSpec> {
    (2usize..=3, 2usize..=4, 1usize..=7).prop_flat_map(move |(machines, states, nt)| {
        let moves = prop::collection::vec(
            prop::collection::vec((0..machines, 0..states, 0..states), 1..=2),
            nt,
        );
        moves.prop_map(move |moves| {
            let mut marking = vec![0; machines * states];
            for m in 0..machines {
                marking[m * states] = 1;
            }
            let transitions = moves
                .into_iter()
                .map(|mut mv| {
                    mv.sort();
                    mv.dedup_by_key(|x| x.0);
                    let mut pre = Vec::new();
                    let mut post = Vec::new();
                    for (m, a, b) in mv {
                        let (from, to) = if acyclic {
                            let (lo, hi) = (a.min(b), a.max(b));
                            (lo, if lo == hi { (hi + 1).min(states - 1) } else { hi })
                        } else {
                            (a, b)
                        };
                        if acyclic && from == to {
                            // The top state has no way up: the move consumes its token.
                            pre.push((m * states + from, 1));
                            continue;
                        }
                        pre.push((m * states + from, 1));
                        post.push((m * states + to, 1));
                    }
                    pre.sort();
                    post.sort();
                    (pre, post)
                })
                .collect();
            NetSpec { marking, transitions }
        })
    })
}
