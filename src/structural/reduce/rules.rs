//! The rules that remove places and transitions without rewriting any arc: dead
//! transitions, constant places, sink places, duplicate places, dominated transitions.
//!
//! Each rule keeps the reachable markings, projected on the places that stay, and keeps
//! whether each of them is dead: a removed transition is never enabled where a kept one
//! is not, and a removed place never disables a transition that its kept places enable.
//! So the reduced net has a reachable deadlock iff the original has, with the same firing
//! sequences (Berthelot, "Transformations and decompositions of nets", LNCS 254, 1987;
//! the same rules in Thierry-Mieg, "Structural reductions revisited", Petri Nets 2020).
//!
//! A kept place or transition (one a property reads, see [`super::Keep`]) is never
//! removed: every other removal keeps the markings of the places that stay and whether
//! each transition that stays is enabled, so a property over kept things has the same
//! value on the original and the reduced net.
//!
//! Each function looks at one snapshot of the net and applies every candidate it finds,
//! which is safe because removing one candidate never invalidates another.

use super::work::{Adjacency, WorkNet};
use hashbrown::HashMap;

/// Transitions that can never fire: one needs more tokens on a place than it starts with,
/// and no transition ever adds tokens to that place (none has more output than input
/// there). Removing a transition that is never enabled changes neither the reachable
/// markings nor whether one is dead.
pub(super) fn dead_transitions(net: &mut WorkNet, adj: &Adjacency) -> u64 {
    let grows: Vec<bool> = (0..net.places.len() as u32)
        .map(|p| {
            adj.producers[p as usize]
                .iter()
                .any(|&t| net.trans[t as usize].post_weight(p) > net.trans[t as usize].pre_weight(p))
        })
        .collect();
    let dead: Vec<u32> = net
        .alive_transitions()
        .filter(|&t| {
            !net.trans[t as usize].kept
                && net.trans[t as usize]
                    .needs()
                    .iter()
                    .any(|&(p, w)| !grows[p as usize] && net.places[p as usize].initial < w)
        })
        .collect();
    for &t in &dead {
        net.trans[t as usize].alive = false;
    }
    dead.len() as u64
}

/// Places whose marking no transition changes (every arc to it is matched by an arc from
/// it with the same weight) and which hold enough tokens for every transition that needs
/// them. Such a place has its initial marking in every reachable marking and never
/// disables anything. (A constant place holding too few tokens for a transition makes
/// that transition dead, which [`dead_transitions`] removes first.)
pub(super) fn constant_places(net: &mut WorkNet, adj: &Adjacency) -> u64 {
    let constant: Vec<u32> = net
        .alive_places()
        .filter(|&p| !net.places[p as usize].kept)
        .filter(|&p| {
            let initial = net.places[p as usize].initial;
            let consumers = &adj.consumers[p as usize];
            let producers = &adj.producers[p as usize];
            let readers = &adj.readers[p as usize];
            consumers.iter().chain(producers).all(|&t| {
                let tr = &net.trans[t as usize];
                tr.pre_weight(p) == tr.post_weight(p)
            }) && consumers
                .iter()
                .chain(readers)
                .all(|&t| net.trans[t as usize].need(p) <= initial)
        })
        .collect();
    for &p in &constant {
        net.remove_place(p, adj);
    }
    constant.len() as u64
}

/// Places that no transition consumes or reads: their marking disables nothing.
pub(super) fn sink_places(net: &mut WorkNet, adj: &Adjacency) -> u64 {
    let sinks: Vec<u32> = net
        .alive_places()
        .filter(|&p| {
            !net.places[p as usize].kept
                && adj.consumers[p as usize].is_empty()
                && adj.readers[p as usize].is_empty()
        })
        .collect();
    for &p in &sinks {
        net.remove_place(p, adj);
    }
    sinks.len() as u64
}

/// Places with the same arcs as another place (same transitions, same weights, same read
/// arcs) and at least as many initial tokens. Two such places change together, so the one
/// with more tokens always holds at least as many as the other and needs are the same on
/// both: it never disables a transition the other enables. In each group the place with
/// the fewest initial tokens (then the lowest index) stays.
pub(super) fn duplicate_places(net: &mut WorkNet, adj: &Adjacency) -> u64 {
    type Signature = Vec<(u32, u32, u32, bool)>;
    let mut groups: HashMap<Signature, Vec<u32>> = HashMap::new();
    for p in net.alive_places() {
        let mut touching: Vec<u32> = adj.consumers[p as usize]
            .iter()
            .chain(&adj.producers[p as usize])
            .chain(&adj.readers[p as usize])
            .copied()
            .collect();
        touching.sort_unstable();
        touching.dedup();
        let signature: Signature = touching
            .iter()
            .map(|&t| {
                let tr = &net.trans[t as usize];
                (t, tr.pre_weight(p), tr.post_weight(p), tr.reads(p))
            })
            .collect();
        groups.entry(signature).or_default().push(p);
    }
    let mut removed = 0;
    for (_, group) in groups {
        let Some(&keep) = group.iter().min_by_key(|&&p| (net.places[p as usize].initial, p)) else {
            continue;
        };
        for &p in &group {
            if p != keep && !net.places[p as usize].kept {
                net.remove_place(p, adj);
                removed += 1;
            }
        }
    }
    removed
}

/// Most transitions compared pairwise in one group of equal effect; beyond it, only exact
/// duplicates of a group are removed (a hash of their needs).
const MAX_PAIRWISE_GROUP: usize = 64;

/// Transitions dominated by another with the same effect (the same change to every
/// place) that needs no more tokens anywhere: wherever the dominated one is enabled, the
/// other is too and leads to the same marking. Removing it keeps the reachable markings
/// and whether each is dead. Among exact duplicates the lowest index stays.
pub(super) fn dominated_transitions(net: &mut WorkNet) -> u64 {
    let mut groups: HashMap<Vec<(u32, i64)>, Vec<u32>> = HashMap::new();
    for t in net.alive_transitions() {
        groups.entry(net.trans[t as usize].effect()).or_default().push(t);
    }
    let mut dominated = Vec::new();
    for (_, group) in groups {
        if group.len() < 2 {
            continue;
        }
        let needs: Vec<Vec<(u32, u32)>> = group.iter().map(|&t| net.trans[t as usize].needs()).collect();
        if group.len() > MAX_PAIRWISE_GROUP {
            let mut first: HashMap<&[(u32, u32)], u32> = HashMap::new();
            for (i, &t) in group.iter().enumerate() {
                if first.insert(&needs[i], t).is_some() && !net.trans[t as usize].kept {
                    dominated.push(t);
                }
            }
            continue;
        }
        for (i, &t) in group.iter().enumerate() {
            let beaten = group
                .iter()
                .enumerate()
                .any(|(j, &u)| j != i && at_most(&needs[j], &needs[i]) && (needs[j] != needs[i] || u < t));
            if beaten && !net.trans[t as usize].kept {
                dominated.push(t);
            }
        }
    }
    for &t in &dominated {
        net.trans[t as usize].alive = false;
    }
    dominated.len() as u64
}

/// Whether the sparse needs `a` are pointwise at most `b` (both sorted by place).
fn at_most(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    a.iter()
        .all(|&(p, w)| b.binary_search_by_key(&p, |&(q, _)| q).is_ok_and(|i| w <= b[i].1))
}
