use qpor::engines::qpor::QporOptions;
use qpor::{FindingKind, Silent, Verdict};
mod engine_support;
mod philosophers;
use engine_support::check_qpor;
use philosophers::philosophers;
use qpor::engines::qpor::AltMode;
use qpor::net::{Decomposition, NetSystem};
use qpor::unfolding::CutoffMode;

#[test]
fn smoke() {
    for n in [2, 3, 5] {
        for ordered in [false, true] {
            let net = philosophers(n, ordered);
            let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
            for alt in [
                AltMode::KPartial(1),
                AltMode::KPartial(2),
                AltMode::Optimal,
                AltMode::Sdpor,
            ] {
                for cutoff in [CutoffMode::Erv, CutoffMode::McMillan] {
                    let opts = QporOptions {
                        all: true,
                        alt,
                        cutoff,
                        ..QporOptions::default()
                    };
                    let r = check_qpor(&sys, &opts, &mut Silent).unwrap();
                    eprintln!(
                        "n={n} ordered={ordered} {alt:?} {cutoff:?}: {:?} {:?}",
                        r.verdict, r.stats.counters
                    );
                    assert_eq!(
                        r.verdict,
                        if ordered {
                            Verdict::NoDeadlock
                        } else {
                            Verdict::Deadlock
                        }
                    );
                    assert_eq!(
                        r.findings_of(FindingKind::Deadlock).count(),
                        if ordered { 0 } else { 1 }
                    );
                }
            }
        }
    }
}
