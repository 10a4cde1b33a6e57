//! The complexity of alternatives (Theorem 4.1, docs/paper.md#theorem-41): on the PES instances of
//! random 3-CNF formulas at 4.26 clauses per variable (the hard region), the time of
//! qpor's optimal Alt (the comb over all of D, exponential) against k-partial Alt for
//! k = 1, 2, 3 (a comb of k spikes, polynomial) and against the batsat SAT solver on the
//! formula itself, as the number of variables grows; also the program decider on the
//! Theorem 4.2 instances of the same formulas (building U, then optimal Alt). Prints a
//! Markdown table (the one in `benches/README.md`).
//!
//! `cargo bench --bench reduce` (without `--bench`, as under `cargo test --all-targets`,
//! it runs one small size only).

#[path = "../tests/sat_support/mod.rs"]
mod sat_support;
use qpor::engines::qpor::AltMode;
use qpor::hardness::random_cnf;
use qpor::hardness::DecideOptions;
use qpor::hardness::{decide_alt_pes, decide_alt_program};
use sat_support::solver_says_sat;
use std::time::Instant;

/// Clauses per variable.
const RATIO: f64 = 4.26;

/// Median of the samples, in milliseconds.
fn median_ms(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        v[n / 2] * 1e3
    } else {
        (v[n / 2 - 1] + v[n / 2]) * 5e2
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: &[u32] = if full {
        &[10, 15, 20, 25, 30, 35, 40, 45, 50]
    } else {
        &[10]
    };
    let formulas = if full { 10u64 } else { 2 };
    let modes = [
        ("optimal", AltMode::Optimal),
        ("k=1", AltMode::KPartial(1)),
        ("k=2", AltMode::KPartial(2)),
        ("k=3", AltMode::KPartial(3)),
    ];
    println!("Random 3-CNF, {RATIO} clauses per variable, {formulas} formulas per size (seeds fixed); median times.");
    println!();
    println!("| vars | clauses | sat | optimal Alt ms (max) | combinations (median) | k=1 ms | k=2 ms | k=3 ms | batsat ms | program decider ms |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let m = (n as f64 * RATIO).round() as usize;
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
        let mut combos: Vec<f64> = Vec::new();
        let mut solver: Vec<f64> = Vec::new();
        let mut program: Vec<f64> = Vec::new();
        let mut sat = 0;
        for seed in 0..formulas {
            let mut optimal_says = false;
            let cnf = random_cnf(n, m, 3, 0xbe4c_0000 + 100 * n as u64 + seed);
            let pes = qpor::hardness::pes_instance(&cnf);
            for (i, &(_, mode)) in modes.iter().enumerate() {
                let opts = DecideOptions {
                    mode,
                    ..DecideOptions::default()
                };
                let t = Instant::now();
                let a = decide_alt_pes(&pes, &opts).expect("the instance has a set D");
                times[i].push(t.elapsed().as_secs_f64());
                if mode == AltMode::Optimal {
                    combos.push(a.alt.combinations_tried as f64);
                    sat += a.exists as u32;
                    optimal_says = a.exists;
                }
            }
            let t = Instant::now();
            let s = solver_says_sat(&cnf);
            solver.push(t.elapsed().as_secs_f64());
            assert_eq!(
                s, optimal_says,
                "optimal Alt and the solver disagree (n = {n}, seed {seed})"
            );
            let text = qpor::hardness::program_instance_text(&cnf, "f.cnf");
            let (instance, _) = qpor::hardness::read_program_instance(&text, "f.proc").expect("generated");
            let t = Instant::now();
            let a = decide_alt_program(&instance, &DecideOptions::default()).expect("decidable");
            program.push(t.elapsed().as_secs_f64());
            assert_eq!(
                s, a.exists,
                "the program decider and the solver disagree (n = {n}, seed {seed})"
            );
        }
        let max_opt = times[0].iter().copied().fold(0.0, f64::max) * 1e3;
        let med: Vec<f64> = times.iter_mut().map(|v| median_ms(v)).collect();
        combos.sort_by(f64::total_cmp);
        println!(
            "| {n} | {m} | {sat}/{formulas} | {:.3} ({max_opt:.1}) | {:.0} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} |",
            med[0],
            combos[combos.len() / 2],
            med[1],
            med[2],
            med[3],
            median_ms(&mut solver),
            median_ms(&mut program)
        );
    }
}
