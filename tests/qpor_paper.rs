//! The paper's numbers (docs/paper.md#table-1, docs/paper.md#reference-counts), exactly, with `--cutoff none`: maximal
//! configurations = Mazurkiewicz traces, the same for every k, 0 SSBs in optimal mode; SSBs
//! of ssbexp at k = 1 growing with K, none at k ≥ 2 (the paper's Fig. 1 claim).

use qpor::engines::qpor::AltMode;
use qpor::unfolding::CutoffMode;
use qpor::{check, CheckOptions, EngineChoice, QporChoice, Report, Silent, UnfoldingChoice, Verdict};
use qpor::{load, LoadOptions};
use std::path::Path;

fn run(model: &str, params: &[(&str, i64)], alt: AltMode) -> Report {
    let opts = LoadOptions {
        defines: params.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..LoadOptions::default()
    };
    let loaded =
        load(Path::new(&format!("models/proc/{model}.proc")), &opts).unwrap_or_else(|e| panic!("{e}"));
    let copts = CheckOptions {
        engine: EngineChoice::Qpor(QporChoice {
            alt,
            unfolding: UnfoldingChoice {
                cutoff: CutoffMode::None,
                ..UnfoldingChoice::default()
            },
            // Algorithm 1's own tree: the paper's SSB claims are about it.
            single_tree: true,
            ..QporChoice::default()
        }),
        all: true,
        ..CheckOptions::default()
    };
    let r = check(&loaded.model, &copts, &mut Silent).unwrap();
    assert_eq!(r.verdict, Verdict::NoDeadlock, "{model} {params:?}");
    r
}

fn configs(r: &Report) -> u64 {
    r.stats.get("max_configurations").unwrap()
}

fn ssbs(r: &Report) -> u64 {
    r.stats.get("ssbs").unwrap()
}

/// The count for every alternative mode, with 0 SSBs in optimal mode.
fn assert_count(model: &str, params: &[(&str, i64)], expected: u64) {
    for alt in [
        AltMode::Optimal,
        AltMode::KPartial(1),
        AltMode::KPartial(2),
        AltMode::KPartial(3),
        AltMode::Sdpor,
    ] {
        let r = run(model, params, alt);
        assert_eq!(configs(&r), expected, "{model} {params:?} with {alt:?}");
        if alt == AltMode::Optimal {
            assert_eq!(ssbs(&r), 0, "{model} {params:?}: optimal mode hit an SSB");
        }
    }
}

#[test]
fn ssbexp_has_2k_configurations_and_needs_k2_for_optimality() {
    let mut last_k1_ssbs = 0;
    for k in [2i64, 4, 6, 8, 10] {
        assert_count("ssbexp", &[("K", k)], 2 * k as u64);
        let r2 = run("ssbexp", &[("K", k)], AltMode::KPartial(2));
        assert_eq!(ssbs(&r2), 0, "ssbexp({k}) at k = 2");
        let r1 = run("ssbexp", &[("K", k)], AltMode::KPartial(1));
        assert!(ssbs(&r1) > last_k1_ssbs, "ssbexp({k}): SSBs at k = 1 grow with K");
        last_k1_ssbs = ssbs(&r1);
    }
}

#[test]
fn mpat_has_k_factorial_times_2_to_the_k() {
    for (k, expected) in [(1i64, 2u64), (2, 8), (3, 48), (4, 384)] {
        assert_count("mpat", &[("K", k)], expected);
    }
}

#[test]
fn pi_has_t_factorial() {
    for (t, expected) in [(1i64, 1u64), (2, 2), (3, 6), (4, 24), (5, 120), (6, 720)] {
        assert_count("pi", &[("T", t)], expected);
    }
}

#[test]
fn dispatcher_counts() {
    assert_count("dispatcher", &[("S", 5), ("R", 2)], 137);
    assert_count("dispatcher", &[("S", 1), ("R", 4)], 80);
    assert_count("dispatcher", &[("S", 2), ("R", 3)], 150);
    assert_count("dispatcher", &[("S", 3), ("R", 3)], 398);
    let r = run("dispatcher", &[("S", 5), ("R", 3)], AltMode::Optimal);
    assert_eq!(configs(&r), 1482);
    assert_eq!(ssbs(&r), 0);
}

#[test]
fn multiprodcon_counts() {
    assert_count("multiprodcon", &[("P", 2), ("W", 5)], 60);
    let r = run("multiprodcon", &[("P", 3), ("W", 5)], AltMode::Optimal);
    assert_eq!(configs(&r), 2958);
    assert_eq!(ssbs(&r), 0);
}

#[test]
fn poke_counts() {
    for ((n, k), expected) in [
        ((2i64, 1i64), 4u64),
        ((2, 2), 14),
        ((2, 3), 40),
        ((4, 1), 8),
        ((4, 2), 60),
        ((3, 3), 160),
    ] {
        assert_count("poke", &[("N", n), ("K", k)], expected);
    }
    let r = run("poke", &[("N", 7), ("K", 3)], AltMode::KPartial(3));
    assert_eq!(configs(&r), 2440, "Pol(7,3)");
}

#[test]
fn small_regression_programs() {
    assert_count("ssbsimple", &[], 6);
    for ((num, len), expected) in [
        ((2i64, 2i64), 10u64),
        ((2, 4), 74),
        ((4, 2), 14),
        ((1, 2), 8),
        ((3, 2), 12),
    ] {
        assert_count("ssb3", &[("NUM", num), ("LEN", len)], expected);
    }
    for ((t, k), expected) in [
        ((1i64, 1i64), 1u64),
        ((2, 2), 2),
        ((2, 3), 2),
        ((3, 3), 4),
        ((3, 5), 6),
        ((4, 4), 18),
        ((4, 5), 24),
    ] {
        assert_count("spat", &[("T", t), ("K", k)], expected);
    }
}
