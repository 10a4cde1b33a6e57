//! The explicit-state engine on dining philosophers of growing size: states per second
//! (criterion's throughput) and bytes per stored state (printed once per size).
//!
//! `cargo bench --bench explicit`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use qpor::net::{Decomposition, NetSystem};

#[path = "../tests/philosophers/mod.rs"]
mod philosophers;
use qpor::Silent;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("explicit/philosophers-ordered");
    group.sample_size(10);
    for n in [8usize, 12, 16] {
        let net = philosophers::philosophers(n, true);
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
