//! The explicit-state engine on dining philosophers of growing size: states per second
//! (criterion's throughput) and bytes per stored state (printed once per size).
//!
//! `cargo bench --bench explicit`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qpor::net::{Decomposition, Net, NetSystem};
use qpor::Silent;

/// Cyclic dining philosophers, each taking the left fork first, in the ordered variant
/// (the last takes its right fork first) so that the whole state space is explored.
fn philosophers(n: usize) -> Net {
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
        let (a, b) = if i == n - 1 { (r, l) } else { (l, r) };
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("explicit/philosophers-ordered");
    group.sample_size(10);
    for n in [8usize, 12, 16] {
        let net = philosophers(n);
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let report = qpor::engines::explicit::search(
            &sys,
            &qpor::engines::explicit::ExplicitOptions::default(),
            &qpor::Budget::unlimited(),
            &mut Silent,
        )
        .unwrap();
        let states = report.stats.get("states").unwrap();
        eprintln!(
            "philosophers-ordered-{n}: {states} states, {} bits and {} bytes per stored state (with parents and table)",
            report.stats.get("state_bits").unwrap(),
            report.stats.get("bytes_per_state").unwrap() + 8
        );
        group.throughput(Throughput::Elements(states));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                qpor::engines::explicit::search(
                    &sys,
                    &qpor::engines::explicit::ExplicitOptions::default(),
                    &qpor::Budget::unlimited(),
                    &mut Silent,
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
