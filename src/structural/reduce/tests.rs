use super::*;

/// A net from arcs written `t: a b -> c`, places named by letters, initial tokens given
/// as `(name, tokens)`.
fn net(initial: &[(&str, u32)], transitions: &[&str]) -> Net {
    let mut net = Net::default();
    let place = |net: &mut Net, name: &str| -> PlaceId {
        match net.places.iter().position(|p| p.id == name) {
            Some(i) => PlaceId(i as u32),
            None => {
                let tokens = initial.iter().find(|(n, _)| *n == name).map_or(0, |(_, k)| *k);
                net.add_place(name, None, tokens)
            }
        }
    };
    for &(name, _) in initial {
        place(&mut net, name);
    }
    for line in transitions {
        let (name, arcs) = line.split_once(':').unwrap();
        let (pre, post) = arcs.split_once("->").unwrap();
        let t = net.add_transition(name.trim(), None);
        for p in pre.split_whitespace() {
            let p = place(&mut net, p);
            net.add_pre(t, p, 1);
        }
        for p in post.split_whitespace() {
            let p = place(&mut net, p);
            net.add_post(t, p, 1);
        }
    }
    net
}

fn names(net: &Net, seq: &[TransId]) -> Vec<String> {
    seq.iter()
        .map(|t| net.transitions[t.index()].id.clone())
        .collect()
}

#[test]
fn a_sequential_process_shrinks_to_its_loop_and_lifts_back() {
    // a -t1-> b -t2-> c -t3-> a: one token going round.
    let original = net(&[("a", 1)], &["t1: a -> b", "t2: b -> c", "t3: c -> a"]);
    let reduced = reduce(&original, &Budget::unlimited());
    assert!(reduced.net.places.len() <= 1, "{:?}", reduced.net);
    assert_eq!(reduced.net.transitions.len(), 1);
    // The token starts on its way (the prefix moves it past a and b); one firing of what
    // is left goes once round the loop.
    let lifted = reduced.lift(&original, &[TransId(0)]).unwrap();
    assert_eq!(names(&original, &lifted), ["t1", "t2", "t3", "t1", "t2"]);
}

#[test]
fn a_deadlock_at_the_end_of_a_chain_is_lifted_with_its_prefix() {
    // a -t1-> b -t2-> c, then nothing: dead after two steps.
    let original = net(&[("a", 1)], &["t1: a -> b", "t2: b -> c"]);
    let reduced = reduce(&original, &Budget::unlimited());
    assert_eq!(reduced.net.transitions.len(), 0, "{:?}", reduced.net);
    let lifted = reduced.lift(&original, &[]).unwrap();
    assert_eq!(names(&original, &lifted), ["t1", "t2"]);
}

#[test]
fn pre_agglomeration_defers_a_private_transition_and_finishes_it() {
    // h takes a private token from x to p; f needs p and y, but y never comes.
    let original = net(&[("x", 1)], &["h: x -> p", "f: p y -> z", "g: z -> y"]);
    let reduced = reduce(&original, &Budget::unlimited());
    let lifted = reduced.lift(&original, &[]).unwrap();
    // The original's only deadlock is after h has fired.
    assert_eq!(names(&original, &lifted), ["h"]);
}

#[test]
fn duplicates_and_dominated_transitions_go() {
    let mut original = net(&[("a", 1), ("b", 1)], &["t: a -> b", "u: a -> b", "v: b -> a"]);
    // w does what t does but also needs b: dominated by t.
    let w = original.add_transition("w", None);
    original.add_pre(w, PlaceId(0), 1);
    original.add_post(w, PlaceId(1), 1);
    original.add_read(w, PlaceId(1));
    let reduced = reduce(&original, &Budget::unlimited());
    assert_eq!(
        reduced
            .summary
            .rules
            .iter()
            .find(|(r, _)| *r == "dominated-transition"),
        Some(&("dominated-transition", 2))
    );
}

#[test]
fn a_transition_starved_by_a_place_that_never_grows_is_dead() {
    let original = net(&[("a", 1)], &["t: a k -> b", "u: b -> a"]);
    let reduced = reduce(&original, &Budget::unlimited());
    assert!(reduced.summary.rules.iter().any(|(r, _)| *r == "dead-transition"));
    assert_eq!(reduced.net.transitions.len(), 0);
}

/// An implicit place is disconnected, not removed: the net keeps its ids, and every
/// marking reachable in the original enables the same transitions in the disconnected
/// net after the same firing sequence.
#[cfg(feature = "lp")]
#[test]
fn a_disconnected_implicit_place_keeps_the_firing_sequences() {
    use std::collections::VecDeque;
    // c mirrors a plus one token: implicit. b is a real constraint on t2.
    let original = net(
        &[("a", 1), ("c", 2)],
        &["t1: a c -> b", "t2: b -> a c", "t3: b -> d"],
    );
    let out = disconnect_implicit_places(&original, &Budget::unlimited(), &Keep::default());
    assert_eq!(out.removed, 1);
    let c = original.places.iter().position(|p| p.id == "c").unwrap();
    assert_eq!(out.net.places.len(), original.places.len());
    assert_eq!(out.net.transitions.len(), original.transitions.len());
    assert_eq!(out.net.places[c].initial, 0);
    assert!(out.net.transitions.iter().all(|t| {
        t.pre.iter().chain(&t.post).all(|(p, _)| p.index() != c) && t.read.iter().all(|p| p.index() != c)
    }));
    // Both nets, fired in lockstep from their initial markings.
    let enabled = |net: &Net, m: &[u32]| -> Vec<bool> {
        (0..net.transitions.len())
            .map(|t| net.fire(&mut m.to_vec(), TransId(t as u32)))
            .collect()
    };
    let mut seen = std::collections::HashSet::new();
    let mut queue = VecDeque::from([(original.initial_marking(), out.net.initial_marking())]);
    while let Some((m, r)) = queue.pop_front() {
        if !seen.insert(m.clone()) {
            continue;
        }
        assert_eq!(enabled(&original, &m), enabled(&out.net, &r), "at {m:?}");
        for t in 0..original.transitions.len() {
            let (mut m2, mut r2) = (m.clone(), r.clone());
            if original.fire(&mut m2, TransId(t as u32)) {
                assert!(out.net.fire(&mut r2, TransId(t as u32)));
                queue.push_back((m2, r2));
            }
        }
    }
    assert!(seen.len() >= 3);
}
