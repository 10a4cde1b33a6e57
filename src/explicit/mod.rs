//! The explicit-state engine: breadth-first search over the global states of a component
//! system (docs/design.md#the-other-engines).
//!
//! It is the oracle of every other engine, so it is deliberately plain: states are stored
//! once ([`crate::space::SearchTree`]), numbered in discovery order, which is breadth-first order;
//! each remembers its parent and the action that reached it, so the first dead state
//! expanded has a shortest witness, rebuilt by walking parents back to the root.
//!
//! # Invariants
//! - State ids are assigned in BFS order; `parent[i] < i` for every non-initial state.
//! - A state is expanded at most once; a fault state is never expanded (the program
//!   stopped there).

mod bounds;
pub(crate) mod liveness;
mod reach;

use crate::engine::Question;
use crate::engine::{
    Asked, Budget, Counters, Engine, GlobalAnswer, Observer, Pacer, Progress, Reached, Report, RunResult,
    Settings, StateEntries, Stats, StepNames, StopReason,
};
use crate::space::{FoundStates, SearchTree, StoreCounters};
use crate::system::model::{ModelKind, SystemOptions};
use crate::system::net::{Net, NetSystem};
use crate::system::{fault_after, Local, ModelError, Step, System};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Options of the explicit-state search.
#[derive(Clone, Debug, Default)]
pub struct ExplicitOptions {
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// Collect every dead state instead of stopping at the first deadlock.
    pub all: bool,
    /// Stop with an inconclusive verdict after storing this many states.
    pub max_states: Option<u64>,
}

/// The options are the explicit-state engine.
impl Engine for ExplicitOptions {
    fn name(&self) -> &'static str {
        "explicit"
    }

    /// Every reachable state is visited, so every question about states is answered;
    /// the OneSafe view's faults are the markings with two tokens on a place.
    fn answers(&self, question: &Question, kind: ModelKind) -> bool {
        *question == Question::Deadlock || (question.read_off_markings() && kind == ModelKind::Net)
    }

    fn run(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult {
        if let Some((net, bounds)) = asked.net_bounds() {
            let sys = NetSystem::new(net, self.system.decomposition_of(net))?;
            return Ok(bounds::answer_bounds(&sys, bounds, self, asked.budget, observer)?);
        }
        if let Some(net) = asked.net_liveness() {
            return Ok(liveness_report(net, self.max_states, asked.budget, observer));
        }
        if let Some((net, properties)) = asked.net_properties() {
            let sys = NetSystem::new(net, self.system.decomposition_of(net))?;
            return Ok(reach::answer_properties(
                &sys,
                properties,
                self,
                asked.budget,
                observer,
            )?);
        }
        asked.search_system(&self.system, |sys, system| {
            search(sys, &ExplicitOptions { system, ..*self }, asked.budget, observer)
        })
    }
}

/// The report of the liveness analysis of `net` ([`liveness::liveness`]): TRUE from a
/// complete exploration, FALSE with a path into a bottom component and the transitions it
/// never enables.
fn liveness_report(
    net: &Net,
    max_states: Option<u64>,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Report {
    let start = Instant::now();
    let outcome = liveness::liveness(net, budget, max_states, observer);
    let mut global = GlobalAnswer::unknown("liveness");
    let (stopped, states) = match outcome {
        liveness::Liveness::Live { states, components } => {
            global.value = Some(true);
            global.decided_by = Some("explicit");
            global.reason = format!(
                "each of the {components} bottom components of the {states} reachable markings enables every transition"
            );
            (None, states)
        }
        liveness::Liveness::NotLive {
            path,
            missing,
            component_states,
            states,
        } => {
            let ids: Vec<String> = missing
                .iter()
                .map(|t| net.transitions[t.index()].id.clone())
                .collect();
            global.value = Some(false);
            global.decided_by = Some("explicit");
            global.reason = if component_states == 1 && missing.len() == net.transitions.len() {
                "a dead marking is reachable".to_string()
            } else {
                format!(
                    "a bottom component of {component_states} reachable markings never enables {}",
                    shown_list(&ids)
                )
            };
            global.reached = Some(Reached {
                state: StateEntries::default(),
                state_text: String::new(),
                witness: StepNames::default().net_witness(net, path),
            });
            global.missing = ids;
            (None, states)
        }
        liveness::Liveness::Stopped { reason, states } => (Some(reason), states),
    };
    let counters = ExplicitCounters {
        store: StoreCounters {
            states,
            ..StoreCounters::default()
        },
        ..ExplicitCounters::default()
    };
    let stats = Stats::new(Counters::of(&counters), start.elapsed().as_secs_f64());
    Report::of_global("explicit", global, stopped, stats, Settings::default())
}

/// At most ten names, and how many more.
fn shown_list(ids: &[String]) -> String {
    match ids.len() {
        0..=10 => ids.join(", "),
        n => format!("{} and {} more", ids[..10].join(", "), n - 10),
    }
}

/// Runs the breadth-first search on `sys` and reports deadlocks, faults and (with
/// `opts.all`) terminations.
pub fn search<S: System + ?Sized>(
    sys: &S,
    opts: &ExplicitOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let mut search = Search {
        sys,
        opts,
        start: Instant::now(),
        tree: SearchTree::new(&sys.initial_state()),
        found: FoundStates::default(),
        counters: ExplicitCounters::default(),
        pacer: Pacer::default(),
    };
    let stopped = search.run(budget, observer)?;
    Ok(search.report(stopped))
}

struct Search<'s, S: System + ?Sized> {
    sys: &'s S,
    opts: &'s ExplicitOptions,
    start: Instant,
    tree: SearchTree,
    found: FoundStates,
    counters: ExplicitCounters,
    /// When to read the clock (inside an expansion too: one state of a wide model has
    /// tens of thousands of successors) and report progress.
    pacer: Pacer,
}

impl<S: System + ?Sized> Search<'_, S> {
    /// The breadth-first loop; returns why it stopped early, if it did.
    fn run(
        &mut self,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Option<StopReason>, ModelError> {
        // The tree holds the initial state as id 0.
        let init = self.sys.initial_state();
        self.found.initial_fault(self.sys, &init);
        let mut cur = Vec::new();
        let mut next = Vec::new();
        let mut steps: Vec<Step> = Vec::new();
        let mut i = 0u32;
        while (i as usize) < self.tree.states.len() {
            if !self.opts.all && self.found.any_error() {
                break;
            }
            if let Some(why) = self.clock(1 + cur.len() + steps.len(), budget, observer, i) {
                return Ok(Some(why));
            }
            let id = i;
            i += 1;
            if self.found.is_faulty(id) {
                continue;
            }
            self.tree.states.get(id, &mut cur);
            self.counters.expanded += 1;
            steps.clear();
            self.sys.enabled_steps(&cur, &mut steps);
            if steps.is_empty() {
                self.found.dead(self.sys, id, &cur, self.opts.all);
                continue;
            }
            if let Some(stop) = self.expand(id, &cur, &steps, &mut next, budget, observer)? {
                return Ok(stop);
            }
        }
        Ok(None)
    }

    /// Counts `work` units done; when the pacer says so, reads the clock: why the search
    /// must stop, if it must, and progress now and then. `next_to_expand` is the id of the
    /// next state to expand, for the progress line.
    fn clock(
        &mut self,
        work: usize,
        budget: &Budget,
        observer: &mut dyn Observer,
        next_to_expand: u32,
    ) -> Option<StopReason> {
        let tick = self.pacer.tick(work, budget);
        if let Ok(Some(secs)) = tick {
            self.report_progress(observer, secs, next_to_expand);
        }
        tick.err()
    }

    /// Adds the successors of state `id`. Returns `Some` when the search must end: with a
    /// stop reason for a limit, with `None` for a fault found when not collecting all.
    fn expand(
        &mut self,
        id: u32,
        cur: &[Local],
        steps: &[Step],
        next: &mut Vec<Local>,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Option<Option<StopReason>>, ModelError> {
        for step in steps {
            if let Some(why) = self.clock(cur.len(), budget, observer, id + 1) {
                return Ok(Some(Some(why)));
            }
            if !self.sys.successor(cur, step, next)? {
                return Err(ModelError::new(format!(
                    "[qpor internal bug] step {} listed as enabled does not fire",
                    self.sys.action_name(step.action)
                )));
            }
            self.counters.edges += 1;
            let (nid, new) = self.tree.add(next, id, step.action);
            if !new {
                continue;
            }
            if let Some(msg) = fault_after(self.sys, next, Some(step)) {
                self.found.fault(nid, msg);
                if !self.opts.all {
                    return Ok(Some(None));
                }
            }
            if let Some(max) = self.opts.max_states {
                if self.tree.states.len() as u64 > max {
                    return Ok(Some(Some(StopReason::StateLimit(max))));
                }
            }
        }
        Ok(None)
    }

    fn report_progress(&self, observer: &mut dyn Observer, seconds: f64, next_to_expand: u32) {
        observer.progress(&Progress {
            engine: "explicit",
            seconds,
            counters: vec![
                ("states", self.tree.states.len() as u64),
                ("frontier", self.tree.states.len() as u64 - next_to_expand as u64),
                ("edges", self.counters.edges),
            ],
        });
    }

    /// The report: findings in BFS order within each kind, with their shortest witnesses.
    fn report(mut self, stopped: Option<StopReason>) -> Report {
        let mut found = std::mem::take(&mut self.found);
        found.sort_by_id();
        let counters = self.counters;
        self.tree.report(
            self.sys,
            "explicit",
            (found, stopped),
            self.start,
            |store, found| {
                Counters::of(&ExplicitCounters {
                    store,
                    dead_states: found.dead_states,
                    terminations: found.terminations,
                    ..counters
                })
            },
        )
    }
}

/// Counters of the explicit-state search.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct ExplicitCounters {
    /// The state store.
    #[serde(flatten)]
    pub store: crate::space::StoreCounters,
    /// States whose successors were computed.
    pub expanded: u64,
    /// Transitions fired (with repeats).
    pub edges: u64,
    /// Expanded states without successors.
    pub dead_states: u64,
    /// Dead states that are final.
    pub terminations: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Silent, Verdict};
    use crate::system::net::{Decomposition, Net, NetSystem};

    /// A net with `n` independent places each holding one token that a transition moves
    /// to a sink: 2^n reachable markings, one dead.
    fn independent(n: usize) -> Net {
        let mut net = Net::default();
        for i in 0..n {
            let a = net.add_place(format!("a{i}"), None, 1);
            let b = net.add_place(format!("b{i}"), None, 0);
            net.add_transition_between(format!("t{i}"), &[a], &[b]);
        }
        net
    }

    /// The search on `net` with one component per place.
    fn run(net: &Net, opts: &ExplicitOptions) -> Report {
        let sys = NetSystem::new(net, Decomposition::Places).unwrap();
        search(&sys, opts, &Budget::unlimited(), &mut Silent).unwrap()
    }

    #[test]
    fn counts_every_marking_and_finds_the_deadlock_last() {
        let net = independent(5);
        let r = run(&net, &ExplicitOptions::default());
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
        let r = run(
            &net,
            &ExplicitOptions {
                max_states: Some(10),
                ..ExplicitOptions::default()
            },
        );
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert_eq!(r.stopped, Some(StopReason::StateLimit(10)));
    }

    #[test]
    fn a_live_cycle_has_no_deadlock() {
        let mut net = Net::default();
        let p = net.add_place("p", None, 1);
        let q = net.add_place("q", None, 0);
        net.add_transition_between("go", &[p], &[q]);
        net.add_transition_between("back", &[q], &[p]);
        let r = run(&net, &ExplicitOptions::default());
        assert_eq!(r.verdict, Verdict::NoDeadlock);
        assert_eq!(r.stats.get("states"), Some(2));
        assert!(r.findings.is_empty());
    }
}
