//! Liveness from the structure: the siphon-trap property of asymmetric-choice nets.
//!
//! A *siphon* is a set of places every transition that puts a token into it also takes
//! one from it: once empty, it stays empty, and the transitions that need it are dead.
//! A *trap* is a set of places every transition that takes a token from it also puts one
//! back: once marked, it stays marked. A net has the *siphon-trap property* when every
//! nonempty siphon contains a trap marked initially, so that no siphon can ever empty.
//!
//! Two theorems turn the property into liveness answers, both for *ordinary* nets (every
//! arc weight 1):
//! - Commoner's theorem (Hack's extension; Desel and Esparza, *Free Choice Petri Nets*,
//!   Cambridge 1995, Theorem 4.21): an extended free-choice net (two places that share an
//!   output transition have the same output transitions) is live if and only if it has
//!   the siphon-trap property.
//! - An asymmetric-choice net (of two places that share an output transition, one's
//!   output transitions include the other's) is live if no reachable marking empties a
//!   siphon (Barkaoui and Pradat-Peyre, *On liveness and controlled siphons in Petri
//!   nets*, ICATPN 1996; Murata, Proc. IEEE 77(4), 1989, Section VII, for the siphon-trap
//!   property as the sufficient condition). A siphon that contains a marked trap never
//!   empties; one without may still never empty, for instance when a place invariant
//!   keeps tokens in it (the resources of a resource-allocation net), which the caller
//!   proves (the state equation: no solution empties the siphon).
//!
//! The siphons are searched with a SAT solver, one counterexample at a time: a nonempty
//! siphon `S` is asked for among those that contain none of the marked traps and none of
//! the never-emptying siphons found so far. The largest trap inside `S` contains every trap
//! inside it (traps are closed under union), so `S` contains a marked trap exactly when
//! that largest trap is marked; then the trap is learnt and every siphon containing it
//! ruled out. If it is not, a minimal siphon inside `S` (it holds no marked trap either) is
//! the counterexample of free-choice nets, and for asymmetric-choice nets it is ruled out
//! when the caller proves it never empties. Each round learns something new, and when no
//! siphon is left the theorem applies.
//!
//! Places no transition takes from are left out: they constrain no firing, and the net
//! without them has the same firing sequences (an unmarked isolated place would otherwise
//! be a siphon without a marked trap in a live net).
//!
//! Read arcs count as an arc each way (a transition that reads a place takes its token and
//! puts it back), as they do in the P/T net the PNML file describes.

use crate::engine::sat::{Sat, Solved};
use crate::engine::Budget;
use crate::system::cnf::{Cnf, Lit};
use crate::system::net::{Net, PlaceId, Transition};

/// Most siphons asked for: each teaches one trap; a net that needs more is left undecided.
const MAX_ROUNDS: usize = 10_000;

/// Most siphons without a marked trap handed to the caller's proof that they never empty
/// (each may be a call to an LP solver).
const MAX_CONTROLS: usize = 64;

/// What the structure says about a net's liveness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StructuralLiveness {
    /// Live, for the reason given (the argument and the theorem).
    Live(&'static str),
    /// Not live: an extended free-choice net with a minimal siphon (places by index,
    /// sorted) that contains no initially marked trap.
    NotLive(Vec<usize>),
    /// The theorems do not apply, or the check did not finish.
    Unknown,
}

/// The class of a net the theorems need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Ordinary and extended free-choice: the property is equivalent to liveness.
    FreeChoice,
    /// Ordinary and asymmetric-choice: the property implies liveness.
    AsymmetricChoice,
}

/// Liveness of `net` from its siphons, when a theorem applies. `never_empties` is asked
/// of siphons without a marked trap in asymmetric-choice nets: `true` must mean proved
/// (for instance by the state equation) that no reachable marking empties the siphon.
pub(crate) fn liveness(
    net: &Net,
    budget: &Budget,
    never_empties: &mut dyn FnMut(&[usize]) -> bool,
) -> StructuralLiveness {
    let Some(class) = class(net) else {
        return StructuralLiveness::Unknown;
    };
    let mut control = |siphon: &[usize]| class == Class::AsymmetricChoice && never_empties(siphon);
    match uncontrolled_siphon(net, budget, &mut control) {
        Some(None) => StructuralLiveness::Live(match class {
            Class::FreeChoice => {
                "every siphon holds an initially marked trap: live by Commoner's theorem for \
                 free-choice nets"
            }
            Class::AsymmetricChoice => {
                "no reachable marking empties a siphon (each holds a marked trap or keeps its \
                 tokens by the state equation): live by the siphon theorem for \
                 asymmetric-choice nets"
            }
        }),
        Some(Some(siphon)) if class == Class::FreeChoice => StructuralLiveness::NotLive(siphon),
        _ => StructuralLiveness::Unknown,
    }
}

/// Per place, the transitions that take a token from it (consume or read), sorted.
fn consumers(net: &Net) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); net.places.len()];
    for (t, tr) in net.transitions.iter().enumerate() {
        for p in tr.pre.iter().map(|&(p, _)| p).chain(tr.read.iter().copied()) {
            out[p.index()].push(t as u32);
        }
    }
    for ts in &mut out {
        ts.sort_unstable();
        ts.dedup();
    }
    out
}

/// Per transition, the places it takes a token from (consumes or reads), sorted.
fn inputs(net: &Net) -> Vec<Vec<usize>> {
    per_transition(net, |t| &t.pre)
}

/// Per transition, the places it puts a token into (produces or reads), sorted.
fn outputs(net: &Net) -> Vec<Vec<usize>> {
    per_transition(net, |t| &t.post)
}

/// Per transition, the places of its arcs on one side and of its read arcs, sorted.
fn per_transition(net: &Net, side: impl Fn(&Transition) -> &[(PlaceId, u32)]) -> Vec<Vec<usize>> {
    net.transitions
        .iter()
        .map(|tr| {
            let mut ps: Vec<usize> = side(tr).iter().map(|&(p, _)| p.index()).collect();
            ps.extend(tr.read.iter().map(|p| p.index()));
            ps.sort_unstable();
            ps.dedup();
            ps
        })
        .collect()
}

/// The net's class, or `None` when it is not ordinary and asymmetric-choice, or some
/// transition takes no token (the theorems are stated for nets without such transitions).
fn class(net: &Net) -> Option<Class> {
    // A read arc is an arc each way only on a place the transition neither takes nor
    // gives: beside a consuming arc it is no arc at all, beside a producing one it makes
    // the output weight 2.
    let ordinary = net.transitions.iter().all(|t| {
        t.pre.iter().chain(&t.post).all(|&(_, w)| w == 1)
            && t.read
                .iter()
                .all(|&p| t.pre_weight(p) == 0 && t.post_weight(p) == 0)
    });
    if !ordinary || net.transitions.is_empty() {
        return None;
    }
    let consumers = consumers(net);
    let inputs = inputs(net);
    if inputs.iter().any(Vec::is_empty) {
        return None;
    }
    let mut free_choice = true;
    for places in &inputs {
        // The places sharing this transition must form a chain by inclusion of their
        // output transitions (all equal for free choice).
        let mut sets: Vec<&Vec<u32>> = places.iter().map(|&p| &consumers[p]).collect();
        sets.sort_by_key(|s| s.len());
        for pair in sets.windows(2) {
            if pair[0] != pair[1] {
                free_choice = false;
                if !is_subset(pair[0], pair[1]) {
                    return None;
                }
            }
        }
    }
    Some(match free_choice {
        true => Class::FreeChoice,
        false => Class::AsymmetricChoice,
    })
}

/// Whether sorted `a` is a subset of sorted `b`.
fn is_subset(a: &[u32], b: &[u32]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|x| rest.by_ref().any(|y| y == x))
}

/// A nonempty siphon of `net` that contains no initially marked trap and that `control`
/// does not prove never empty (places by index, sorted; a minimal siphon when `control`
/// was asked about it): `Some(None)` when there is none, `None` when the budget or the
/// round limit ended the search first.
fn uncontrolled_siphon(
    net: &Net,
    budget: &Budget,
    control: &mut dyn FnMut(&[usize]) -> bool,
) -> Option<Option<Vec<usize>>> {
    let np = net.places.len();
    let var = |p: usize| (p + 1) as Lit;
    let inputs = inputs(net);
    let outputs = outputs(net);
    let consumers = consumers(net);
    let mut producers: Vec<Vec<usize>> = vec![Vec::new(); np];
    for (t, outs) in outputs.iter().enumerate() {
        for &p in outs {
            producers[p].push(t);
        }
    }
    let mut cnf = Cnf::new(np as u32, Vec::new());
    // Siphon: a place in S has each of its producers take from S.
    for (t, outs) in outputs.iter().enumerate() {
        for &p in outs {
            if inputs[t].contains(&p) {
                continue;
            }
            let mut clause = vec![-var(p)];
            clause.extend(inputs[t].iter().map(|&q| var(q)));
            cnf.clauses.push(clause);
        }
    }
    // A place no transition takes from constrains nothing: the net without it has the
    // same firing sequences, so the property is asked of that net (where an unmarked
    // isolated place would otherwise be a siphon without a marked trap).
    for (p, ts) in consumers.iter().enumerate() {
        if ts.is_empty() {
            cnf.clauses.push(vec![-var(p)]);
        }
    }
    cnf.clauses.push((0..np).map(var).collect());
    let mut sat = Sat::new(budget);
    let mut controls = 0;
    for _ in 0..MAX_ROUNDS {
        match sat.solve(&cnf, &[]) {
            Solved::Unsat => return Some(None),
            Solved::Stopped => return None,
            Solved::Sat => {}
        }
        let siphon: Vec<usize> = (0..np).filter(|&p| sat.value(var(p))).collect();
        let trap = largest_trap_within(&siphon, &consumers, &outputs, np);
        if trap.iter().any(|&p| net.places[p].initial > 0) {
            // Every siphon that contains this marked trap keeps a token.
            cnf.clauses.push(trap.iter().map(|&p| -var(p)).collect());
            continue;
        }
        // Every trap inside a smaller siphon is inside this one: none is marked either.
        let minimal = minimal_siphon_within(&siphon, &inputs, &producers, np);
        if controls >= MAX_CONTROLS || !control(&minimal) {
            return Some(Some(minimal));
        }
        controls += 1;
        // Every siphon that contains one that never empties never empties.
        cnf.clauses.push(minimal.iter().map(|&p| -var(p)).collect());
    }
    None
}

/// A minimal nonempty siphon inside the siphon `siphon`: each place in turn is left out
/// when the largest siphon without it is not empty.
fn minimal_siphon_within(
    siphon: &[usize],
    inputs: &[Vec<usize>],
    producers: &[Vec<usize>],
    np: usize,
) -> Vec<usize> {
    let mut inside = vec![false; np];
    for &p in siphon {
        inside[p] = true;
    }
    for &p in siphon {
        if !inside[p] {
            continue;
        }
        let mut smaller = inside.clone();
        smaller[p] = false;
        largest_siphon_within(&mut smaller, siphon, inputs, producers);
        if smaller.iter().any(|&x| x) {
            inside = smaller;
        }
    }
    (0..np).filter(|&p| inside[p]).collect()
}

/// Shrinks the set `inside` (places of `among`) to the largest siphon it contains: places
/// are dropped while one of their producers takes from nothing that is left.
fn largest_siphon_within(
    inside: &mut [bool],
    among: &[usize],
    inputs: &[Vec<usize>],
    producers: &[Vec<usize>],
) {
    let mut changed = true;
    while changed {
        changed = false;
        for &p in among {
            let open = inside[p]
                && producers[p]
                    .iter()
                    .any(|&t| !inputs[t].iter().any(|&q| inside[q]));
            if open {
                inside[p] = false;
                changed = true;
            }
        }
    }
}

/// The largest trap inside `set`: places are dropped while some transition takes from
/// one of them without putting a token back into what is left.
fn largest_trap_within(
    set: &[usize],
    consumers: &[Vec<u32>],
    outputs: &[Vec<usize>],
    np: usize,
) -> Vec<usize> {
    let mut inside = vec![false; np];
    for &p in set {
        inside[p] = true;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &p in set {
            let leaks = inside[p]
                && consumers[p]
                    .iter()
                    .any(|&t| !outputs[t as usize].iter().any(|&q| inside[q]));
            if leaks {
                inside[p] = false;
                changed = true;
            }
        }
    }
    (0..np).filter(|&p| inside[p]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::TransId;
    use hashbrown::{HashMap, HashSet};
    use proptest::prelude::*;
    use std::collections::VecDeque;

    fn budget() -> Budget {
        Budget::new(None)
    }

    #[test]
    fn a_token_on_a_cycle_is_live() {
        let (mut net, [a, b]) = Net::with_places([("a", 1), ("b", 0)]);
        net.add_transition_between("t", &[a], &[b]);
        net.add_transition_between("u", &[b], &[a]);
        assert_eq!(
            liveness(&net, &budget(), &mut |_| false),
            StructuralLiveness::Live(
                "every siphon holds an initially marked trap: live by Commoner's theorem for \
                 free-choice nets"
            )
        );
    }

    #[test]
    fn an_empty_cycle_is_a_siphon_without_a_marked_trap() {
        let (mut net, [a, b]) = Net::with_places([("a", 0), ("b", 0)]);
        net.add_transition_between("t", &[a], &[b]);
        net.add_transition_between("u", &[b], &[a]);
        assert_eq!(
            liveness(&net, &budget(), &mut |_| false),
            StructuralLiveness::NotLive(vec![0, 1])
        );
    }

    #[test]
    fn a_choice_that_empties_a_siphon_is_found() {
        // a token on a either goes round a → b → a or leaves to c for good.
        let (mut net, [a, b, c]) = Net::with_places([("a", 1), ("b", 0), ("c", 0)]);
        net.add_transition_between("t", &[a], &[b]);
        net.add_transition_between("u", &[b], &[a]);
        net.add_transition_between("leave", &[a], &[c]);
        net.add_transition_between("stay", &[c], &[c]);
        assert_eq!(
            liveness(&net, &budget(), &mut |_| false),
            StructuralLiveness::NotLive(vec![0, 1])
        );
    }

    #[test]
    fn weights_and_unrelated_choices_are_left_to_the_engines() {
        let (mut net, [a, b]) = Net::with_places([("a", 2), ("b", 0)]);
        let t = net.add_transition("t", None);
        net.add_pre(t, a, 2);
        net.add_post(t, b, 1);
        net.add_transition_between("u", &[b], &[a]);
        assert_eq!(
            liveness(&net, &budget(), &mut |_| false),
            StructuralLiveness::Unknown
        );
        // Not asymmetric choice: a and b share v, but a has u and b has w besides.
        let (mut net, [a, b, c]) = Net::with_places([("a", 1), ("b", 1), ("c", 0)]);
        net.add_transition_between("u", &[a], &[c]);
        net.add_transition_between("v", &[a, b], &[c]);
        net.add_transition_between("w", &[b], &[c]);
        assert_eq!(class(&net), None);
    }

    /// Whether every transition can fire again from every reachable marking, by a search of
    /// the markings, and the markings (`None` beyond `max` markings).
    fn live(net: &Net, max: usize) -> Option<(bool, Vec<Vec<u32>>)> {
        let m0 = net.initial_marking();
        let mut index: HashMap<Vec<u32>, usize> = HashMap::from_iter([(m0.clone(), 0usize)]);
        let mut markings = vec![m0];
        let mut succ: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut at = 0;
        while at < markings.len() {
            let mut out = Vec::new();
            for t in 0..net.transitions.len() {
                let mut next = markings[at].clone();
                if net.fire(&mut next, TransId(t as u32)) {
                    let n = markings.len();
                    let id = *index.entry(next.clone()).or_insert(n);
                    if id == n {
                        markings.push(next);
                        if markings.len() > max {
                            return None;
                        }
                    }
                    out.push((t, id));
                }
            }
            succ.push(out);
            at += 1;
        }
        let live = (0..markings.len()).all(|start| {
            let mut seen: HashSet<usize> = HashSet::from_iter([start]);
            let mut fired: HashSet<usize> = HashSet::new();
            let mut todo = VecDeque::from([start]);
            while let Some(i) = todo.pop_front() {
                for &(t, j) in &succ[i] {
                    fired.insert(t);
                    if seen.insert(j) {
                        todo.push_back(j);
                    }
                }
            }
            fired.len() == net.transitions.len()
        });
        Some((live, markings))
    }

    /// Ordinary nets where each transition takes from one or two places, so that many are
    /// asymmetric-choice or free-choice, some with a read arc.
    fn ordinary_net() -> impl Strategy<Value = Net> {
        (2usize..=5).prop_flat_map(|np| {
            (
                prop::collection::vec(0u32..=2, np),
                prop::collection::vec(
                    (
                        prop::collection::btree_set(0..np, 1..=2),
                        prop::collection::btree_set(0..np, 0..=2),
                        prop::collection::btree_set(0..np, 0..=1),
                    ),
                    1..=5,
                ),
            )
                .prop_map(|(marking, transitions)| {
                    let mut net = Net::default();
                    let places: Vec<_> = marking
                        .iter()
                        .enumerate()
                        .map(|(i, &m)| net.add_place(format!("p{i}"), None, m))
                        .collect();
                    for (i, (pre, post, read)) in transitions.into_iter().enumerate() {
                        let t = net.add_transition(format!("t{i}"), None);
                        for p in pre {
                            net.add_pre(t, places[p], 1);
                        }
                        for p in post {
                            net.add_post(t, places[p], 1);
                        }
                        for p in read {
                            net.add_read(t, places[p]);
                        }
                    }
                    net
                })
        })
    }

    /// Processes going round cycles of places, taking and giving back shared resources on
    /// the way: the resource-allocation nets where siphons without marked traps are
    /// common and place invariants keep many of them marked.
    fn sharing_net() -> impl Strategy<Value = Net> {
        (
            prop::collection::vec((2usize..=3, 0u32..=2), 1..=3),
            prop::collection::vec(0u32..=2, 1..=2),
        )
            .prop_flat_map(|(processes, resources)| {
                let steps: usize = processes.iter().map(|&(n, _)| n).sum();
                let nr = resources.len();
                let masks = prop::collection::vec((0u32..(1 << nr), 0u32..(1 << nr)), steps);
                (Just(processes), Just(resources), masks)
            })
            .prop_map(|(processes, resources, masks)| {
                let mut net = Net::default();
                let res: Vec<_> = resources
                    .iter()
                    .enumerate()
                    .map(|(i, &m)| net.add_place(format!("r{i}"), None, m))
                    .collect();
                let mut masks = masks.into_iter();
                for (k, &(len, tokens)) in processes.iter().enumerate() {
                    let states: Vec<_> = (0..len)
                        .map(|i| net.add_place(format!("s{k}_{i}"), None, if i == 0 { tokens } else { 0 }))
                        .collect();
                    for i in 0..len {
                        let t = net.add_transition(format!("t{k}_{i}"), None);
                        net.add_pre(t, states[i], 1);
                        net.add_post(t, states[(i + 1) % len], 1);
                        let (take, give) = masks.next().unwrap_or_default();
                        for (j, &r) in res.iter().enumerate() {
                            if take >> j & 1 == 1 {
                                net.add_pre(t, r, 1);
                            }
                            if give >> j & 1 == 1 {
                                net.add_post(t, r, 1);
                            }
                        }
                    }
                }
                net
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

        /// Never a wrong answer: a live verdict only on live nets, a siphon only on nets
        /// that are not live; and on free-choice nets always an answer.
        #[test]
        fn the_theorems_agree_with_the_markings(net in prop_oneof![ordinary_net(), sharing_net()]) {
            let Some((truth, markings)) = live(&net, 3_000) else { return Ok(()); };
            // The siphons that no reachable marking empties, told exactly.
            let mut never_empties = |siphon: &[usize]| markings.iter().all(|m| siphon.iter().any(|&p| m[p] > 0));
            match liveness(&net, &budget(), &mut never_empties) {
                StructuralLiveness::Live(_) => prop_assert!(truth, "called live"),
                StructuralLiveness::NotLive(siphon) => {
                    prop_assert!(!truth, "called not live by siphon {:?}", siphon);
                }
                StructuralLiveness::Unknown => {
                    prop_assert!(class(&net) != Some(Class::FreeChoice), "free choice undecided");
                }
            }
        }
    }
}
