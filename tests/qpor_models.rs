//! QPOR against the explicit oracle on the models shipped in `models/`: the same verdict
//! and, with `--all`, the same set of dead states, for every alternative mode and every
//! cutoff rule (default parameters for programs; causal and distance cutoffs where the
//! model has the program-like unfolding, which they need).

mod engine_support;
use engine_support::{dead_states, ALL_MODES};
use qpor::engines::qpor::AltMode;
use qpor::unfolding::{Backend, CutoffMode};
use qpor::Model;
use qpor::{
    check, CheckOptions, EngineChoice, Limits, PortfolioChoice, QporChoice, Report, Silent, UnfoldingChoice,
    Verdict,
};
use qpor::{load, LoadOptions};
use std::path::Path;

/// The default unfolding with `cutoff`.
fn with_cutoff(cutoff: CutoffMode) -> UnfoldingChoice {
    UnfoldingChoice {
        cutoff,
        ..UnfoldingChoice::default()
    }
}

/// The model at `path` and the oracle's report on it (every dead state).
fn load_with_oracle(path: &str) -> (Model, Report) {
    let model: Model = load(Path::new(path), &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    let oracle = check(
        &model,
        &CheckOptions {
            engine: EngineChoice::Explicit,
            all: true,
            ..CheckOptions::default()
        },
        &mut Silent,
    )
    .unwrap();
    assert!(oracle.stopped.is_none(), "{path}: the oracle finishes");
    (model, oracle)
}

fn agree(path: &str, modes: &[AltMode]) {
    let (model, oracle) = load_with_oracle(path);
    let program_like = Backend::Auto.resolve(&model, &Default::default()) == Backend::Program;
    let mut cutoffs = vec![CutoffMode::Erv, CutoffMode::McMillan];
    if program_like {
        cutoffs.extend([CutoffMode::Causal, CutoffMode::Distance, CutoffMode::Canonical]);
    }
    for cutoff in cutoffs {
        for &alt in modes {
            let opts = CheckOptions {
                engine: EngineChoice::Qpor(QporChoice {
                    alt,
                    unfolding: with_cutoff(cutoff),
                    ..QporChoice::default()
                }),
                all: true,
                ..CheckOptions::default()
            };
            let r = check(&model, &opts, &mut Silent).unwrap();
            assert_eq!(r.verdict, oracle.verdict, "{path} {alt:?} {cutoff:?}");
            assert_eq!(dead_states(&r), dead_states(&oracle), "{path} {alt:?} {cutoff:?}");
            if alt == AltMode::Optimal {
                assert_eq!(r.stats.get("ssbs"), Some(0), "{path}: SSB in optimal mode");
            }
            let first = check(
                &model,
                &CheckOptions {
                    engine: EngineChoice::Auto(PortfolioChoice {
                        alt,
                        unfolding: with_cutoff(cutoff),
                        ..PortfolioChoice::default()
                    }),
                    ..CheckOptions::default()
                },
                &mut Silent,
            )
            .unwrap();
            assert_eq!(
                first.verdict, oracle.verdict,
                "{path} {alt:?} {cutoff:?}, first finding only"
            );
            if let Some(w) = first.witness() {
                assert!(
                    !w.steps.is_empty() || oracle.verdict == Verdict::Fault,
                    "{path}: a witness"
                );
            }
        }
    }
}

#[test]
fn own_nets() {
    for entry in std::fs::read_dir("models/nets").unwrap() {
        let path = entry.unwrap().path();
        let p = path.to_str().unwrap();
        if p.ends_with(".pnml") || p.ends_with(".ll_net") {
            agree(p, &ALL_MODES);
        }
    }
}

#[test]
fn classic_ll_nets() {
    for name in [
        "cyclic_3", "cyclic_6", "dac_6", "dac_9", "dp_6", "dp_8", "dpd_4", "dpfm_5", "dph_4", "gas_q_1",
        "over_2", "over_3", "ring_3", "ring_5", "rw_6",
    ] {
        agree(
            &format!("models/ll_net/{name}.fsa.ll_net"),
            &[AltMode::KPartial(2), AltMode::Optimal],
        );
    }
    agree("models/ll_net/sem.ll_net", &ALL_MODES);
}

#[test]
fn small_mcc_nets() {
    for name in [
        "Philosophers-PT-000005",
        "TokenRing-PT-005",
        "ResAllocation-PT-R002C002",
        "Referendum-PT-0010",
    ] {
        agree(
            &format!("models/mcc2023/{name}.pnml"),
            &[AltMode::KPartial(2), AltMode::Optimal],
        );
    }
}

#[test]
fn programs() {
    for entry in std::fs::read_dir("models/proc").unwrap() {
        let path = entry.unwrap().path();
        let p = path.to_str().unwrap();
        if p.ends_with(".proc") {
            agree(p, &ALL_MODES);
        }
    }
}

/// On Peterson's protocol an ERV cutoff's corresponding event is often concurrent with it,
/// so causal cutoffs cut late and the truncation is huge; the table of distances knows a
/// shorter way to those states and cuts where ERV does. Both runs get the same event
/// budget: the distance run finishes within it and agrees with the oracle, the causal one
/// outgrows it.
#[test]
fn distance_cutoffs_cut_where_causal_ones_cannot() {
    let path = "models/mcc2023/Peterson-PT-2.pnml";
    let (model, oracle) = load_with_oracle(path);
    let run = |cutoff| {
        let opts = CheckOptions {
            engine: EngineChoice::Qpor(QporChoice {
                alt: AltMode::Optimal,
                unfolding: with_cutoff(cutoff),
                threads: Some(1),
                ..QporChoice::default()
            }),
            all: true,
            limits: Limits {
                max_events: Some(50_000),
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        check(&model, &opts, &mut Silent).unwrap()
    };
    let distance = run(CutoffMode::Distance);
    assert!(distance.stopped.is_none(), "{:?}", distance.stopped);
    assert_eq!(distance.verdict, oracle.verdict);
    assert_eq!(dead_states(&distance), dead_states(&oracle));
    let causal = run(CutoffMode::Causal);
    assert!(
        causal.stopped.is_some(),
        "causal cutoffs finished within 50 000 events"
    );
}
