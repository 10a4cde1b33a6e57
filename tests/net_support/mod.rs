//! Random P/T nets for the property tests, shared by the test files that need them.

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
