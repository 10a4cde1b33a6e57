//! The explicit-state engine: breadth-first search over the global states of a component
//! system (DESIGN.md §1, "Explicit-state baseline").
//!
//! It is the oracle of every other engine, so it is deliberately plain: states are stored
//! once ([`store::StateStore`]), numbered in discovery order, which is breadth-first order;
//! each remembers its parent and the action that reached it, so the first dead state
//! expanded has a shortest witness, rebuilt by walking parents back to the root.
//!
//! # Invariants
//! - State ids are assigned in BFS order; `parent[i] < i` for every non-initial state.
//! - A state is expanded at most once; a fault state is never expanded (the program
//!   stopped there).

pub mod store;

use crate::check::{
    CheckOptions, Finding, FindingKind, Observer, Progress, Report, Stats, StepNames, Verdict, Witness,
};
use crate::system::{classify_dead, ActionId, Local, ModelError, Step, System};
use std::time::Instant;
use store::StateStore;

const NO_PARENT: u32 = u32::MAX;

/// How often (in expanded states) the clock is read for limits and progress.
const CLOCK_EVERY: u64 = 256;

/// Seconds between two progress reports.
const PROGRESS_EVERY: f64 = 0.25;

/// Runs the breadth-first search on `sys` and reports deadlocks, faults and (with
/// `opts.all`) terminations.
pub fn check<S: System + ?Sized>(
    sys: &S,
    opts: &CheckOptions,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let start = Instant::now();
    let mut search = Search {
        sys,
        store: StateStore::new(sys.num_components()),
        parent: Vec::new(),
        via: Vec::new(),
        names: StepNames::default(),
    };
    let mut findings: Vec<(FindingKind, u32, Option<String>)> = Vec::new();
    let mut inconclusive = None;
    let mut edges = 0u64;
    let mut dead = 0u64;
    let mut terminations = 0u64;

    let init = sys.initial_state();
    search.add(&init, NO_PARENT, ActionId(u32::MAX));
    if let Some(msg) = fault_in(sys, &init, None) {
        findings.push((FindingKind::Fault, 0, Some(msg)));
    }

    let mut cur = Vec::new();
    let mut next = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut expanded = 0u64;
    let mut last_progress = 0.0f64;
    let mut i = 0u32;
    let mut fault_ids = hashbrown::HashSet::new();
    if !findings.is_empty() {
        fault_ids.insert(0u32);
    }
    'bfs: while (i as usize) < search.store.len() {
        if !opts.all && findings.iter().any(|f| f.0 != FindingKind::Termination) {
            break;
        }
        if expanded % CLOCK_EVERY == 0 && expanded > 0 {
            let secs = start.elapsed().as_secs_f64();
            if let Some(limit) = opts.time_limit {
                if start.elapsed() >= limit {
                    inconclusive = Some(format!("time limit of {:.1} s reached", limit.as_secs_f64()));
                    break;
                }
            }
            if secs - last_progress >= PROGRESS_EVERY {
                last_progress = secs;
                observer.progress(&Progress {
                    seconds: secs,
                    counters: vec![
                        ("states", search.store.len() as u64),
                        ("frontier", search.store.len() as u64 - i as u64),
                        ("edges", edges),
                    ],
                });
            }
        }
        let id = i;
        i += 1;
        if fault_ids.contains(&id) {
            continue;
        }
        search.store.get(id, &mut cur);
        expanded += 1;
        steps.clear();
        sys.enabled_steps(&cur, &mut steps);
        if steps.is_empty() {
            dead += 1;
            let kind = FindingKind::from(classify_dead(sys, &cur));
            if kind == FindingKind::Termination {
                terminations += 1;
                if opts.all {
                    findings.push((kind, id, None));
                }
            } else {
                findings.push((kind, id, None));
            }
            continue;
        }
        for step in &steps {
            if !sys.successor(&cur, step, &mut next)? {
                return Err(ModelError::new(format!(
                    "[qpor internal bug] step {} listed as enabled does not fire",
                    sys.action_name(step.action)
                )));
            }
            edges += 1;
            let (nid, new) = search.add(&next, id, step.action);
            if new {
                if let Some(msg) = fault_in(sys, &next, Some(step)) {
                    findings.push((FindingKind::Fault, nid, Some(msg)));
                    fault_ids.insert(nid);
                    if !opts.all {
                        break 'bfs;
                    }
                }
                if let Some(max) = opts.max_states {
                    if search.store.len() as u64 > max {
                        inconclusive = Some(format!("state limit of {max} reached"));
                        break 'bfs;
                    }
                }
            }
        }
    }

    findings.sort_by_key(|f| (f.0 != FindingKind::Fault, f.0 != FindingKind::Deadlock, f.1));
    let mut out = Vec::with_capacity(findings.len());
    for (kind, id, message) in findings {
        search.store.get(id, &mut cur);
        out.push(Finding {
            kind,
            state: sys.describe_state(&cur),
            message,
            witness: search.witness(id)?,
        });
    }
    let found_fault = out.iter().any(|f| f.kind == FindingKind::Fault);
    let found_deadlock = out.iter().any(|f| f.kind == FindingKind::Deadlock);
    let verdict = if found_fault {
        Verdict::Fault
    } else if found_deadlock {
        Verdict::Deadlock
    } else if inconclusive.is_some() {
        Verdict::Inconclusive
    } else {
        Verdict::NoDeadlock
    };
    let states = search.store.len() as u64;
    let seconds = start.elapsed().as_secs_f64();
    let stats = Stats {
        seconds,
        peak_rss_bytes: crate::check::peak_rss_bytes(),
        counters: vec![
            ("states", states),
            ("expanded", expanded),
            ("edges", edges),
            ("dead_states", dead),
            ("terminations", terminations),
            ("state_bits", search.store.bits_per_state() as u64),
            ("bytes_per_state", search.store.bytes_per_state().round() as u64),
            (
                "states_per_second",
                (states as f64 / seconds.max(1e-9)).round() as u64,
            ),
        ],
    };
    Ok(Report {
        verdict,
        engine: "explicit",
        stopped: inconclusive,
        findings: out,
        stats,
        settings: Vec::new(),
    })
}

/// The fault in `state`, looking only at the components `step` touched (faults arise only
/// where something changed), or at all of them for the initial state.
fn fault_in<S: System + ?Sized>(sys: &S, state: &[Local], step: Option<&Step>) -> Option<String> {
    match step {
        Some(step) => step.touched.iter().find_map(|c| {
            sys.fault(*c, state[c.index()])
                .map(|m| format!("{}: {m}", sys.component_name(*c)))
        }),
        None => crate::system::find_fault(sys, state).map(|(c, m)| format!("{}: {m}", sys.component_name(c))),
    }
}

struct Search<'s, S: System + ?Sized> {
    sys: &'s S,
    store: StateStore,
    parent: Vec<u32>,
    via: Vec<ActionId>,
    names: StepNames,
}

impl<S: System + ?Sized> Search<'_, S> {
    fn add(&mut self, state: &[Local], parent: u32, via: ActionId) -> (u32, bool) {
        let (id, new) = self.store.insert(state);
        if new {
            self.parent.push(parent);
            self.via.push(via);
        }
        (id, new)
    }

    /// The path from the initial state to `id`, as named steps.
    fn witness(&mut self, id: u32) -> Result<Witness, ModelError> {
        let mut chain = Vec::new();
        let mut at = id;
        while self.parent[at as usize] != NO_PARENT {
            chain.push(self.via[at as usize]);
            at = self.parent[at as usize];
        }
        chain.reverse();
        Ok(Witness {
            steps: chain.into_iter().map(|a| self.names.step(self.sys, a)).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Silent;
    use crate::system::net::{Decomposition, Net, NetSystem};

    /// A net with `n` independent places each holding one token that a transition moves
    /// to a sink: 2^n reachable markings, one dead.
    fn independent(n: usize) -> Net {
        let mut net = Net::default();
        for i in 0..n {
            let a = net.add_place(format!("a{i}"), None, 1);
            let b = net.add_place(format!("b{i}"), None, 0);
            let t = net.add_transition(format!("t{i}"), None);
            net.add_pre(t, a, 1);
            net.add_post(t, b, 1);
        }
        net
    }

    #[test]
    fn counts_every_marking_and_finds_the_deadlock_last() {
        let net = independent(5);
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let r = check(&sys, &CheckOptions::default(), &mut Silent).unwrap();
        assert_eq!(r.verdict, Verdict::Deadlock);
        assert_eq!(r.stats.get("states"), Some(32));
        assert_eq!(
            r.witness().unwrap().steps.len(),
            5,
            "the only dead marking is 5 steps away"
        );
        assert_eq!(r.findings[0].state, "b0, b1, b2, b3, b4");
    }

    #[test]
    fn state_limit_makes_the_run_inconclusive() {
        let net = independent(6);
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let r = check(&sys, &CheckOptions::default().max_states(10), &mut Silent).unwrap();
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r.stopped.unwrap().contains("state limit of 10"));
    }

    #[test]
    fn a_live_cycle_has_no_deadlock() {
        let mut net = Net::default();
        let p = net.add_place("p", None, 1);
        let q = net.add_place("q", None, 0);
        let t = net.add_transition("go", None);
        net.add_pre(t, p, 1);
        net.add_post(t, q, 1);
        let u = net.add_transition("back", None);
        net.add_pre(u, q, 1);
        net.add_post(u, p, 1);
        let sys = NetSystem::new(&net, Decomposition::Places).unwrap();
        let r = check(&sys, &CheckOptions::default(), &mut Silent).unwrap();
        assert_eq!(r.verdict, Verdict::NoDeadlock);
        assert_eq!(r.stats.get("states"), Some(2));
        assert!(r.findings.is_empty());
    }
}
