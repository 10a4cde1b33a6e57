//! The stubborn-set engine: an explicit search that fires, at each state, only the enabled
//! transitions of a deadlock-preserving stubborn set (the reduction LoLA and TAPAAL run by
//! default; the rules and why they keep every dead state are in [`net`]).
//!
//! It stores states like the explicit engine (the same packed store) but far fewer of them
//! on nets with much concurrency, and every reachable dead marking is still reached, so a
//! complete reduced search proves absence and `--all` lists exactly the dead markings of
//! the full search.
//!
//! # Orders
//! - **Depth first** (the default): the most recently discovered state is expanded next,
//!   which reaches deep deadlocks early.
//! - **Breadth first**: states are expanded in discovery order, so the first deadlock found
//!   has a shortest witness. The reduction keeps shortest paths to dead states: the proof
//!   in [`net`] turns any path to a dead state into a reduced path that is a permutation of
//!   it, so no dead state is farther from the initial state in the reduced graph.
//!
//! # Scope
//! P/T nets, cut into places or NUPN units (the stubborn set is computed from the marking
//! either way). Programs and the OneSafe view are refused: their faults are reachability
//! questions that deadlock-preserving sets do not keep.
//!
//! # Invariants
//! - Every stored state is expanded at most once; a dead state is recorded when expanded.
//! - Every stored state has a witness: the search tree records how each was first
//!   reached (`explicit::store::SearchTree`).

pub(crate) mod net;

use crate::engine::{
    Budget, Counters, Engine, EngineError, Finding, FindingKind, Observer, Progress, Report, Settings, Stats,
    StepNames, StopReason, StubbornCounters,
};
use crate::explicit::store::SearchTree;
use crate::system::model::{Model, SystemOptions};
use crate::system::net::NetSystem;
use crate::system::{ModelError, Step, System};
use net::NetStubborn;
use std::time::Instant;

/// How often (in expanded states) the clock is read for limits and progress.
const CLOCK_EVERY: u64 = 256;

/// Also read the clock after this many fired transitions.
const CLOCK_EVERY_EDGES: u64 = 4096;

/// Seconds between two progress reports.
const PROGRESS_EVERY: f64 = 0.25;

/// The order in which discovered states are expanded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchOrder {
    /// Newest first: finds deep deadlocks early.
    #[default]
    Depth,
    /// Oldest first: short witnesses.
    Breadth,
}

/// Options of the stubborn-set search.
#[derive(Clone, Debug, Default)]
pub struct StubbornOptions {
    /// How the model becomes a component system.
    pub system: SystemOptions,
    /// Collect every dead state instead of stopping at the first deadlock.
    pub all: bool,
    /// Stop with an inconclusive verdict after storing this many states.
    pub max_states: Option<u64>,
    /// Depth or breadth first.
    pub order: SearchOrder,
}

/// The stubborn-set engine.
#[derive(Clone, Debug, Default)]
pub struct Stubborn {
    /// Its options.
    pub options: StubbornOptions,
}

impl Engine for Stubborn {
    fn name(&self) -> &'static str {
        "stubborn"
    }

    fn run(
        &self,
        model: &Model,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Report, EngineError> {
        let net = match model {
            Model::Net(net) if !self.options.system.one_safe_watch => net,
            Model::Net(_) => {
                return Err(ModelError::new(
                    "the stubborn engine keeps deadlocks, not the OneSafe question's markings".to_string(),
                )
                .into())
            }
            Model::Program(_) => {
                return Err(ModelError::new(
                    "the stubborn engine handles P/T nets only; use --engine explicit or qpor for programs"
                        .to_string(),
                )
                .into())
            }
        };
        let sys = NetSystem::new(net, self.options.system.decomposition_of(net))?;
        Ok(search_net(&sys, &self.options, budget, observer)?)
    }
}

/// Runs the stubborn-set search on the net system `sys` and reports its deadlocks.
pub fn search_net(
    sys: &NetSystem<'_>,
    opts: &StubbornOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let mut search = Search {
        sys,
        opts,
        start: Instant::now(),
        tree: SearchTree::new(&sys.initial_state()),
        dead: Vec::new(),
        counters: StubbornCounters::default(),
        stubborn: NetStubborn::new(sys.net()),
    };
    let stopped = search.run(budget, observer)?;
    search.report(stopped)
}

struct Search<'s, 'n> {
    sys: &'s NetSystem<'n>,
    opts: &'s StubbornOptions,
    start: Instant,
    tree: SearchTree,
    /// Dead states found, by id, in the order found.
    dead: Vec<u32>,
    counters: StubbornCounters,
    stubborn: NetStubborn,
}

impl Search<'_, '_> {
    /// The search loop; returns why it stopped early, if it did.
    fn run(
        &mut self,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Option<StopReason>, ModelError> {
        // The tree holds the initial state as id 0. Depth first keeps a stack of discovered, unexpanded ids; breadth first walks the
        // ids in discovery order.
        let mut stack: Vec<u32> = vec![0];
        let mut next_in_order = 0u32;
        let mut cur = Vec::new();
        let mut next = Vec::new();
        let mut marking = Vec::new();
        let mut steps: Vec<Step> = Vec::new();
        let mut enabled: Vec<u32> = Vec::new();
        let mut chosen: Vec<u32> = Vec::new();
        let mut last_progress = 0.0f64;
        let mut edges_at_clock = 0u64;
        loop {
            let id = match self.opts.order {
                SearchOrder::Depth => match stack.pop() {
                    Some(id) => id,
                    None => break,
                },
                SearchOrder::Breadth => {
                    if next_in_order as usize >= self.tree.states.len() {
                        break;
                    }
                    next_in_order += 1;
                    next_in_order - 1
                }
            };
            let edges_due = self.counters.edges >= edges_at_clock + CLOCK_EVERY_EDGES;
            if edges_due || (self.counters.expanded % CLOCK_EVERY == 0 && self.counters.expanded > 0) {
                edges_at_clock = self.counters.edges;
                if let Some(why) = budget.exhausted() {
                    return Ok(Some(why));
                }
                let secs = self.start.elapsed().as_secs_f64();
                if secs - last_progress >= PROGRESS_EVERY {
                    last_progress = secs;
                    self.report_progress(observer, secs);
                }
            }
            self.tree.states.get(id, &mut cur);
            self.counters.expanded += 1;
            steps.clear();
            self.sys.enabled_steps(&cur, &mut steps);
            if steps.is_empty() {
                self.counters.dead_states += 1;
                self.dead.push(id);
                if !self.opts.all {
                    break;
                }
                continue;
            }
            enabled.clear();
            enabled.extend(steps.iter().map(|s| s.action.0));
            self.sys.marking_into(&cur, &mut marking);
            self.stubborn.stubborn(&marking, &enabled, &mut chosen);
            self.counters.enabled += enabled.len() as u64;
            for step in steps.iter().filter(|s| chosen.binary_search(&s.action.0).is_ok()) {
                if !self.sys.successor(&cur, step, &mut next)? {
                    return Err(ModelError::new(format!(
                        "[qpor internal bug] step {} listed as enabled does not fire",
                        self.sys.action_name(step.action)
                    )));
                }
                self.counters.edges += 1;
                let (nid, new) = self.tree.add(&next, id, step.action);
                if !new {
                    continue;
                }
                if self.opts.order == SearchOrder::Depth {
                    stack.push(nid);
                }
                if let Some(max) = self.opts.max_states {
                    if self.tree.states.len() as u64 > max {
                        return Ok(Some(StopReason::StateLimit(max)));
                    }
                }
            }
        }
        Ok(None)
    }

    fn report_progress(&self, observer: &mut dyn Observer, seconds: f64) {
        observer.progress(&Progress {
            engine: "stubborn",
            seconds,
            counters: vec![
                ("states", self.tree.states.len() as u64),
                ("expanded", self.counters.expanded),
                ("edges", self.counters.edges),
            ],
        });
    }

    /// The report: the dead states in the order found, with their witnesses.
    fn report(mut self, stopped: Option<StopReason>) -> Result<Report, ModelError> {
        let mut names = StepNames::default();
        let mut cur = Vec::new();
        let dead = std::mem::take(&mut self.dead);
        let findings = dead
            .into_iter()
            .map(|id| {
                self.tree.states.get(id, &mut cur);
                Finding::new(
                    FindingKind::Deadlock,
                    self.sys.describe_state(&cur),
                    None,
                    names.witness(self.sys, self.tree.path(id)),
                )
            })
            .collect();
        let seconds = self.start.elapsed().as_secs_f64();
        let counters = Counters::Stubborn(StubbornCounters {
            store: self.tree.counters(seconds),
            ..self.counters
        });
        let stats = Stats::new(counters, seconds);
        Ok(Report::new(
            "stubborn",
            findings,
            stopped,
            stats,
            Settings::default(),
        ))
    }
}
