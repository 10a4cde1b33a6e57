use qpor::{CheckOptions, FindingKind, Silent, Verdict};
mod engine_support;
use engine_support::check_qpor;
use qpor::engines::qpor::AltMode;
use qpor::net::{Decomposition, Net, NetSystem};
use qpor::unfolding::CutoffMode;

fn philosophers(n: usize, ordered: bool) -> Net {
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
                    let opts = CheckOptions::default().all(true).alt(alt).cutoff(cutoff);
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
