//! Dining philosophers as a P/T net, built in code, shared by a test and the explicit
//! engine's bench.

use qpor::net::{Net, PlaceId};

/// `n` cyclic philosophers, each taking the left fork first; with `ordered`, the last one
/// takes its right fork first, so that the net has no deadlock.
pub fn philosophers(n: usize, ordered: bool) -> Net {
    let mut net = Net::default();
    // One place `{name}_{i}` per philosopher, all of a kind before the next kind.
    let mut places = |name: &str, initial: u32| -> Vec<PlaceId> {
        (0..n)
            .map(|i| net.add_place(format!("{name}_{i}"), None, initial))
            .collect()
    };
    let think = places("think", 1);
    let first = places("has_first", 0);
    let eat = places("eat", 0);
    let fork = places("fork", 1);
    for i in 0..n {
        let (l, r) = (fork[i], fork[(i + 1) % n]);
        let (a, b) = if ordered && i == n - 1 { (r, l) } else { (l, r) };
        let t = net.add_transition(format!("take_first_{i}"), None);
        net.add_pre(t, think[i], 1);
        net.add_pre(t, a, 1);
        net.add_post(t, first[i], 1);
        let t = net.add_transition(format!("take_second_{i}"), None);
        net.add_pre(t, first[i], 1);
        net.add_pre(t, b, 1);
        net.add_post(t, eat[i], 1);
        let t = net.add_transition(format!("release_{i}"), None);
        net.add_pre(t, eat[i], 1);
        net.add_post(t, think[i], 1);
        net.add_post(t, l, 1);
        net.add_post(t, r, 1);
    }
    net
}
