//! Dining philosophers as a P/T net, built in code, shared by a test and the explicit
//! engine's bench.

use qpor::net::Net;

/// `n` cyclic philosophers, each taking the left fork first; with `ordered`, the last one
/// takes its right fork first, so that the net has no deadlock.
pub fn philosophers(n: usize, ordered: bool) -> Net {
    let mut net = Net::default();
    let think: Vec<_> = (0..n)
        .map(|i| net.add_place(format!("think_{i}"), None, 1))
        .collect();
    let first: Vec<_> = (0..n)
        .map(|i| net.add_place(format!("has_first_{i}"), None, 0))
        .collect();
    let eat: Vec<_> = (0..n)
        .map(|i| net.add_place(format!("eat_{i}"), None, 0))
        .collect();
    let fork: Vec<_> = (0..n)
        .map(|i| net.add_place(format!("fork_{i}"), None, 1))
        .collect();
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
