//! The stubborn-set engine: an explicit search that fires, at each state, only the enabled
//! steps of a deadlock-preserving stubborn set (the reduction LoLA and TAPAAL run by
//! default). The rules that pick the set are per kind of system: [`net`] for P/T nets,
//! [`program`] (over `system::program::dependence`) for programs.
//!
//! It stores states like the explicit engine (the same packed store) but far fewer of them
//! on models with much concurrency, and every reachable dead state is still reached, so a
//! complete reduced search proves absence and `--all` lists exactly the dead states
//! (deadlocks and terminations) of the full search.
//!
//! # Why dead states are kept
//! A set S of actions is *stubborn* at a state s when (D1) every enabled t ∈ S commutes
//! with every sequence of actions outside S (if s —u1…un t→ s′ then s —t u1…un→ s′), and
//! (D2) every enabled t ∈ S stays enabled, and every disabled one disabled, after any such
//! sequence; S holds an enabled action when s is not dead. Take a path from s to a dead
//! state. If it holds a member of S, the first one is enabled at s (a disabled member
//! stays disabled) and D1 moves it to the front: the reduced search takes a first step on
//! a path one shorter, to the same dead state. If it holds none, an enabled member stays
//! enabled to its end (D2), which is not dead — impossible. By induction every dead state
//! is reached, by a permutation of any path to it (Valmari, "Stubborn sets for reduced
//! state space generation", 1991); no cycle proviso is needed for deadlocks.
//!
//! # Faults (programs)
//! A program stops where a process faults: the explicit oracle does not expand a faulty
//! state, so faulty states are dead in the graph both searches explore. A path to a
//! non-faulty dead state holds no faulting action, and the argument above keeps it (the
//! program rules may let an enabled member and an outside action that faults in either
//! order exchange with different fault messages, which such a path never meets). Take a
//! path to a fault. If it holds a member of S, the actions before the first one do not
//! fault, so that member moves to the front as above (or faults right there). If it
//! holds none, the enabled member t followed by the whole path still ends in a fault
//! (faults commute with t, or fault in either order), with the rest of the path as long
//! as before — and t may be chosen again and again around a cycle: the *ignoring*
//! problem. The cycle proviso removes it: every cycle of the reduced graph has a fully
//! expanded state, where the first action of the path is a member and the rest shrinks.
//! Depth first, a state with a reduced step back onto the current path is expanded fully
//! (the stack proviso of Peled's C3); breadth first, a state with a reduced successor
//! stored no later than itself (every cycle, self-loops included, has an edge to an id
//! no greater than its source's). So a fault is found iff one is reachable; with `--all`
//! the faults listed are some of the oracle's, not all. Terminating programs have no
//! cycle and pay nothing for it.

//! # Orders
//! - **Depth first** (the default): the search follows one path as deep as it goes and
//!   backs up; it finds deep deadlocks early. The path holds the actions still to fire at
//!   each of its states.
//! - **Breadth first**: states are expanded in discovery order, so the first dead state
//!   found has a shortest witness: the argument above turns any path to a dead state into
//!   a reduced path of the same length. (A fault's witness may be longer.)
//! - **Best first**: the stored state that looks closest to dead is expanded next: the
//!   fewest enabled steps, then (nets) the fewest tokens to take away to disable them all.
//!   It heads for deadlocks that both blind orders meet late, such as those where many
//!   tokens must first gather in few places. The reduced graph is the same whatever the
//!   order, so a complete best-first search proves absence as the others do. The cycle
//!   proviso is breadth first's: it rests only on ids being given in discovery order.
//!
//! # Scope
//! P/T nets, cut into places or NUPN units (the stubborn set is computed from the marking
//! either way), and programs. The OneSafe view is refused: its question (a place with two
//! tokens) is a reachability question about markings that are not dead, and the net rules
//! do not apply the proviso.
//!
//! # Invariants
//! - Every stored state is expanded at most once; a dead state is recorded when expanded;
//!   a faulty state is recorded when stored and never expanded.
//! - Every stored state has a witness: the search tree records how each was first
//!   reached ([`crate::space::SearchTree`]).

pub(crate) mod net;
pub(crate) mod program;
pub(crate) mod reach;

use crate::engine::Question;
use crate::engine::{
    Asked, Budget, Counters, Engine, Observer, Pacer, Progress, Report, RunResult, Settings, StopReason,
};
use crate::space::properties::Order;
use crate::space::{FoundStates, SearchTree};
use crate::system::model::{Model, ModelKind, SystemOptions};
use crate::system::net::NetSystem;
use crate::system::program::ProgramSystem;
use crate::system::{fault_after, ActionId, Local, ModelError, Step, System};
use fixedbitset::FixedBitSet;
use net::NetStubborn;
use program::ProgramStubborn;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// The order in which discovered states are expanded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchOrder {
    /// Newest first: finds deep deadlocks early.
    #[default]
    Depth,
    /// Oldest first: short witnesses.
    Breadth,
    /// Closest to dead first (see the module doc); on properties, closest to a target
    /// ([`crate::system::property::Formula::distance`]).
    Best,
}

impl SearchOrder {
    /// The order's name, as `--order` spells it.
    pub fn name(self) -> &'static str {
        match self {
            SearchOrder::Depth => "depth",
            SearchOrder::Breadth => "breadth",
            SearchOrder::Best => "best",
        }
    }
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

/// The options are the stubborn-set engine.
impl Engine for StubbornOptions {
    fn name(&self) -> &'static str {
        "stubborn"
    }

    /// The deadlock reduction keeps every deadlock (and, in programs, a fault); on a
    /// net's reachability properties the sets keep every target reachable (`stubborn::reach`).
    /// Not the OneSafe view's markings, which it would need other seeds for.
    fn answers(&self, question: &Question, kind: ModelKind) -> bool {
        *question == Question::Deadlock
            || (matches!(question, Question::Reachability(_) | Question::Liveness) && kind == ModelKind::Net)
    }

    /// On liveness, a reachable deadlock (which the reduced graph keeps) refutes it; a
    /// reduced graph without deadlock says nothing about liveness.
    fn run(&self, asked: Asked<'_>, observer: &mut dyn Observer) -> RunResult {
        if let Some((net, properties)) = asked.net_properties() {
            let sys = NetSystem::new(net, self.system.decomposition_of(net))?;
            return Ok(answer_properties(&sys, properties, self, asked.budget, observer)?);
        }
        if let Some(net) = asked.net_liveness() {
            let sys = NetSystem::new(net, self.system.decomposition_of(net))?;
            return Ok(search_net(&sys, self, asked.budget, observer)?.as_liveness());
        }
        let Asked { model, budget, .. } = asked;
        match model {
            Model::Net(net) => {
                let sys = NetSystem::new(net, self.system.decomposition_of(net))?;
                Ok(search_net(&sys, self, budget, observer)?)
            }
            Model::Program(prog) => {
                let sys = if self.system.every_access {
                    prog.system_every_access()?
                } else {
                    prog.system()?
                };
                Ok(search_program(&sys, self, budget, observer)?)
            }
        }
    }
}

/// Runs the stubborn-set search on the net system `sys` and reports its deadlocks.
pub fn search_net(
    sys: &NetSystem<'_>,
    opts: &StubbornOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let reduction = NetReduction {
        sys,
        rules: NetStubborn::new(sys.net()),
        marking: Vec::new(),
        enabled: Vec::new(),
        set: Vec::new(),
    };
    search(sys, reduction, opts, budget, observer)
}

/// Answers `properties` on the net system `sys` by stubborn searches with the sets of
/// [`reach`], one property at a time ([`reach::search_each`]), in the order `opts.order`
/// says (best first: the marking closest to the target first).
fn answer_properties(
    sys: &NetSystem<'_>,
    properties: &[crate::system::property::Property],
    opts: &StubbornOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let order = match opts.order {
        SearchOrder::Depth => Order::Depth,
        SearchOrder::Breadth => Order::Breadth,
        SearchOrder::Best => Order::Closest,
    };
    let explored = reach::search_each(sys, properties, order, opts.max_states, budget, observer)?;
    let counters = StubbornCounters {
        store: explored.store.clone(),
        expanded: explored.expanded,
        edges: explored.edges,
        enabled: explored.enabled,
        ..StubbornCounters::default()
    };
    let settings = StubbornSettings {
        order: opts.order.name().to_string(),
    };
    Ok(explored.report(Counters::of(&counters), Settings::of(&settings)))
}

/// Runs the stubborn-set search on the program system `sys` and reports its deadlocks,
/// faults and (with `opts.all`) terminations.
pub fn search_program(
    sys: &ProgramSystem<'_>,
    opts: &StubbornOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let reduction = ProgramReduction {
        sys,
        rules: ProgramStubborn::new(sys.program().num_instances()),
    };
    search(sys, reduction, opts, budget, observer)
}

/// How the stubborn set is chosen at a state: the rules of one kind of system.
trait Reduction {
    /// Whether the system has faults, which the search keeps only with the cycle proviso
    /// (see the module doc).
    const CYCLE_PROVISO: bool;

    /// Marks in `chosen` (cleared first, then parallel to `steps`, the steps enabled at
    /// `state`, not empty) the steps of a deadlock-preserving stubborn set, at least one.
    fn choose(&mut self, state: &[Local], steps: &[Step], chosen: &mut Vec<bool>);

    /// How far `state`, whose enabled steps are `steps`, looks from a dead state, for the
    /// best-first order: the number of enabled steps above all, then what else the rules
    /// know of how hard they are to disable.
    fn distance_to_dead(&mut self, state: &[Local], steps: &[Step]) -> u64;
}

/// The net rules ([`net`]), on the marking of a state.
struct NetReduction<'s, 'n> {
    sys: &'s NetSystem<'n>,
    rules: NetStubborn,
    marking: Vec<u32>,
    enabled: Vec<u32>,
    set: Vec<u32>,
}

impl Reduction for NetReduction<'_, '_> {
    const CYCLE_PROVISO: bool = false;

    fn choose(&mut self, state: &[Local], steps: &[Step], chosen: &mut Vec<bool>) {
        self.enabled.clear();
        self.enabled.extend(steps.iter().map(|s| s.action.0));
        self.sys.marking_into(state, &mut self.marking);
        self.rules.stubborn(&self.marking, &self.enabled, &mut self.set);
        chosen.clear();
        chosen.extend(steps.iter().map(|s| self.set.binary_search(&s.action.0).is_ok()));
    }

    /// The enabled transitions, then the tokens to take away to disable each (one input
    /// or read place brought below what the transition needs), summed.
    fn distance_to_dead(&mut self, state: &[Local], steps: &[Step]) -> u64 {
        self.sys.marking_into(state, &mut self.marking);
        let net = self.sys.net();
        let tokens: u64 = steps
            .iter()
            .map(|s| {
                let t = &net.transitions[s.action.index()];
                let consumed = t.pre.iter().map(|&(p, w)| self.marking[p.index()] + 1 - w);
                let read = t.read.iter().map(|p| self.marking[p.index()]);
                u64::from(consumed.chain(read).min().unwrap_or(1))
            })
            .sum();
        ((steps.len() as u64) << 32) | tokens.min(u64::from(u32::MAX))
    }
}

/// The program rules ([`program`]).
struct ProgramReduction<'s, 'p> {
    sys: &'s ProgramSystem<'p>,
    rules: ProgramStubborn,
}

impl Reduction for ProgramReduction<'_, '_> {
    const CYCLE_PROVISO: bool = true;

    fn choose(&mut self, state: &[Local], steps: &[Step], chosen: &mut Vec<bool>) {
        self.rules.stubborn(self.sys, state, steps, chosen);
    }

    /// The enabled steps only: a process's local state says little about how far its
    /// end is.
    fn distance_to_dead(&mut self, _: &[Local], steps: &[Step]) -> u64 {
        steps.len() as u64
    }
}

/// The search, for any system and its rules. With the rules' cycle proviso, a state one of
/// whose reduced successors closes a cycle is expanded fully (see the module doc).
fn search<S: System + ?Sized, R: Reduction>(
    sys: &S,
    reduction: R,
    opts: &StubbornOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Result<Report, ModelError> {
    let mut search = Search {
        sys,
        reduction,
        opts,
        start: Instant::now(),
        tree: SearchTree::new(&sys.initial_state()),
        found: FoundStates::default(),
        counters: StubbornCounters::default(),
        chosen: Vec::new(),
        enabled: Vec::new(),
        steps: Vec::new(),
        pacer: Pacer::default(),
    };
    let stopped = search.run(budget, observer)?;
    Ok(search.report(stopped))
}

struct Search<'s, S: System + ?Sized, R> {
    sys: &'s S,
    reduction: R,
    opts: &'s StubbornOptions,
    start: Instant,
    tree: SearchTree,
    /// Dead and faulty states found, in the order found.
    found: FoundStates,
    counters: StubbornCounters,
    /// The steps enabled at the state being expanded, and which of them the reduction
    /// keeps.
    enabled: Vec<Step>,
    chosen: Vec<bool>,
    /// Per action id, its step (the touch set of an action never changes).
    steps: Vec<Option<Step>>,
    /// When to read the clock (by work done, so one wide state does not run past the
    /// limit) and report progress.
    pacer: Pacer,
}

impl<S: System + ?Sized, R: Reduction> Search<'_, S, R> {
    /// The search; returns why it stopped early, if it did.
    fn run(
        &mut self,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Option<StopReason>, ModelError> {
        let init = self.sys.initial_state();
        if self.found.initial_fault(self.sys, &init) {
            return Ok(None);
        }
        // The tree holds the initial state as id 0.
        match self.opts.order {
            SearchOrder::Depth => self.depth_first(budget, observer),
            SearchOrder::Breadth => self.queued(false, budget, observer),
            SearchOrder::Best => self.queued(true, budget, observer),
        }
    }

    /// Depth first: a stack of frames, each a state on the current path with the actions
    /// still to fire there (in one list of action ids, so a deep path costs four bytes
    /// per action and no allocation per state). A step leading back onto the path closes
    /// a cycle; with the cycle proviso, the frame then takes the steps the reduction left
    /// out too. Every state is expanded when first stored, so the first state of a cycle
    /// to be stored is still on the path when the cycle's last edge is tried.
    fn depth_first(
        &mut self,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Option<StopReason>, ModelError> {
        let mut frames: Vec<Frame> = Vec::new();
        let mut arena: Vec<ActionId> = Vec::new();
        let mut on_path = FixedBitSet::with_capacity(1024);
        // `cur` holds state `in_cur`: a frame's state is read back only after a deeper one.
        let mut cur = Vec::new();
        let mut in_cur = 0u32;
        let mut next = Vec::new();
        self.tree.states.get(0, &mut cur);
        match self.expand(0, &cur, &mut arena, budget, observer)? {
            Expansion::Steps(f) => {
                on_path.insert(0);
                frames.push(f);
            }
            Expansion::Dead => return Ok(None),
            Expansion::End(end) => return Ok(end.reason()),
        }
        while let Some(top) = frames.last_mut() {
            if top.next == top.end {
                on_path.set(top.id as usize, false);
                arena.truncate(top.start as usize);
                frames.pop();
                continue;
            }
            let (id, action) = (top.id, arena[top.next as usize]);
            top.next += 1;
            if in_cur != id {
                self.tree.states.get(id, &mut cur);
                in_cur = id;
            }
            let (nid, new) = self.fire(id, &cur, action, &mut next)?;
            if let Some(why) = self.clock(cur.len(), budget, observer) {
                return Ok(Some(why));
            }
            if !new {
                if R::CYCLE_PROVISO && on_path.contains(nid as usize) && top.end < top.rest_end {
                    self.counters.cycle_expansions += 1;
                    top.end = top.rest_end;
                }
                continue;
            }
            if let Some(end) = self.after_new(nid, &next, action)? {
                return Ok(end.reason());
            }
            if self.found.is_faulty(nid) {
                continue;
            }
            std::mem::swap(&mut cur, &mut next);
            in_cur = nid;
            match self.expand(nid, &cur, &mut arena, budget, observer)? {
                Expansion::Steps(f) => {
                    on_path.grow(nid as usize + 1);
                    on_path.insert(nid as usize);
                    frames.push(f);
                }
                Expansion::Dead => {}
                Expansion::End(end) => return Ok(end.reason()),
            }
        }
        Ok(None)
    }

    /// Breadth first (states expanded in discovery order) or best first (closest to dead
    /// first, ties in discovery order). With the cycle proviso, a state with a reduced
    /// successor stored no later than itself (itself included) is expanded fully: ids are
    /// given in discovery order, so every cycle has an edge to an id no greater than its
    /// source's, and every cycle has a fully expanded state.
    fn queued(
        &mut self,
        best_first: bool,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Option<StopReason>, ModelError> {
        let mut cur = Vec::new();
        let mut next = Vec::new();
        let mut steps = Vec::new();
        let mut probe = Vec::new();
        // Best first: the stored states not yet expanded, closest to dead on top.
        let mut best: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
        best.push(Reverse((0, 0)));
        let mut oldest = 0u32;
        loop {
            let id = if best_first {
                match best.pop() {
                    Some(Reverse((_, id))) => id,
                    None => break,
                }
            } else if (oldest as usize) < self.tree.states.len() {
                oldest += 1;
                oldest - 1
            } else {
                break;
            };
            if self.found.is_faulty(id) {
                continue;
            }
            steps.clear();
            self.tree.states.get(id, &mut cur);
            let mut frame = match self.expand(id, &cur, &mut steps, budget, observer)? {
                Expansion::Steps(f) => f,
                Expansion::Dead => continue,
                Expansion::End(end) => return Ok(end.reason()),
            };
            let mut back = false;
            while frame.next < frame.end {
                let action = steps[frame.next as usize];
                frame.next += 1;
                let (nid, new) = self.fire(id, &cur, action, &mut next)?;
                if let Some(why) = self.clock(cur.len(), budget, observer) {
                    return Ok(Some(why));
                }
                back |= !new && nid <= id;
                if new {
                    if let Some(end) = self.after_new(nid, &next, action)? {
                        return Ok(end.reason());
                    }
                    if best_first {
                        // Ranked when stored, and its steps listed again when expanded:
                        // keeping them until then would hold a list per waiting state.
                        probe.clear();
                        self.sys.enabled_steps(&next, &mut probe);
                        best.push(Reverse((self.reduction.distance_to_dead(&next, &probe), nid)));
                    }
                }
                if frame.next == frame.end && back && R::CYCLE_PROVISO && frame.end < frame.rest_end {
                    self.counters.cycle_expansions += 1;
                    frame.end = frame.rest_end;
                }
            }
        }
        Ok(None)
    }

    /// Expands state `id` (`cur`): reads the clock now and then, finds the
    /// enabled steps, records a dead state, else appends their actions to `actions`, the
    /// reduced ones first (and the others only with the cycle proviso), and gives their
    /// frame.
    fn expand(
        &mut self,
        id: u32,
        cur: &[Local],
        actions: &mut Vec<ActionId>,
        budget: &Budget,
        observer: &mut dyn Observer,
    ) -> Result<Expansion, ModelError> {
        // The last expansion's steps stand for this one's, not yet listed.
        if let Some(why) = self.clock(cur.len() + self.enabled.len(), budget, observer) {
            return Ok(Expansion::End(End::Limit(why)));
        }
        self.counters.expanded += 1;
        let mut steps = std::mem::take(&mut self.enabled);
        steps.clear();
        self.sys.enabled_steps(cur, &mut steps);
        let start = actions.len();
        let expansion = if steps.is_empty() {
            let ends = self.found.dead(self.sys, id, cur, self.opts.all) && !self.opts.all;
            if ends {
                Expansion::End(End::Found)
            } else {
                Expansion::Dead
            }
        } else {
            self.counters.enabled += steps.len() as u64;
            self.reduction.choose(cur, &steps, &mut self.chosen);
            for step in &steps {
                let slot = step.action.index();
                if self.steps.len() <= slot {
                    self.steps.resize(slot + 1, None);
                }
                if self.steps[slot].is_none() {
                    self.steps[slot] = Some(step.clone());
                }
            }
            let chosen = &self.chosen;
            actions.extend(
                steps
                    .iter()
                    .zip(chosen)
                    .filter(|(_, &c)| c)
                    .map(|(s, _)| s.action),
            );
            let end = actions.len();
            if R::CYCLE_PROVISO {
                actions.extend(
                    steps
                        .iter()
                        .zip(chosen)
                        .filter(|(_, &c)| !c)
                        .map(|(s, _)| s.action),
                );
            }
            Expansion::Steps(Frame {
                id,
                start: start as u32,
                next: start as u32,
                end: end as u32,
                rest_end: actions.len() as u32,
            })
        };
        self.enabled = steps;
        Ok(expansion)
    }

    /// Counts `work` units done; when the pacer says so, reads the clock: why the search
    /// must stop, if it must, and progress now and then.
    fn clock(&mut self, work: usize, budget: &Budget, observer: &mut dyn Observer) -> Option<StopReason> {
        let tick = self.pacer.tick(work, budget);
        if let Ok(Some(secs)) = tick {
            self.report_progress(observer, secs);
        }
        tick.err()
    }

    /// The step of `action`, as the system listed it when it was first enabled.
    fn step(&self, action: ActionId) -> Result<&Step, ModelError> {
        self.steps
            .get(action.index())
            .and_then(Option::as_ref)
            .ok_or_else(|| ModelError::new("[qpor internal bug] an action fired before it was enabled"))
    }

    /// Fires `action` at state `id` (`cur`) and stores the successor: its id and whether
    /// it is new.
    fn fire(
        &mut self,
        id: u32,
        cur: &[Local],
        action: ActionId,
        next: &mut Vec<Local>,
    ) -> Result<(u32, bool), ModelError> {
        let step = self.step(action)?;
        if !self.sys.successor(cur, step, next)? {
            return Err(ModelError::new(format!(
                "[qpor internal bug] step {} listed as enabled does not fire",
                self.sys.action_name(step.action)
            )));
        }
        self.counters.edges += 1;
        Ok(self.tree.add(next, id, action))
    }

    /// Looks at the new state `nid` (`state`) reached by `action`: records a fault, checks
    /// the state limit. Returns `Some` when the search must end.
    fn after_new(&mut self, nid: u32, state: &[Local], action: ActionId) -> Result<Option<End>, ModelError> {
        if let Some(msg) = fault_after(self.sys, state, Some(self.step(action)?)) {
            self.found.fault(nid, msg);
            if !self.opts.all {
                return Ok(Some(End::Found));
            }
        }
        if let Some(max) = self.opts.max_states {
            if self.tree.states.len() as u64 > max {
                return Ok(Some(End::Limit(StopReason::StateLimit(max))));
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

    /// The report: the dead and faulty states in the order found, with their witnesses.
    fn report(mut self, stopped: Option<StopReason>) -> Report {
        let found = std::mem::take(&mut self.found);
        let counters = self.counters;
        let mut report = self.tree.report(
            self.sys,
            "stubborn",
            (found, stopped),
            self.start,
            |store, found| {
                Counters::of(&StubbornCounters {
                    store,
                    dead_states: found.dead_states,
                    terminations: found.terminations,
                    ..counters
                })
            },
        );
        report.settings = Settings::of(&StubbornSettings {
            order: self.opts.order.name().to_string(),
        });
        report
    }
}

/// A state being expanded, and where its steps are in the list of steps: from `start`,
/// those to fire up to `end` (fired up to `next`), then up to `rest_end` those the
/// reduction left out.
struct Frame {
    id: u32,
    start: u32,
    next: u32,
    end: u32,
    rest_end: u32,
}

/// What expanding a state gave.
enum Expansion {
    /// Steps to fire.
    Steps(Frame),
    /// A dead state, and the search goes on.
    Dead,
    /// The search ends.
    End(End),
}

/// Why a search ends before it has seen all it would.
enum End {
    /// A finding, and the search was not collecting all.
    Found,
    /// A limit.
    Limit(StopReason),
}

impl End {
    /// The stop reason of the report.
    fn reason(self) -> Option<StopReason> {
        match self {
            End::Found => None,
            End::Limit(why) => Some(why),
        }
    }
}

/// Counters of the stubborn-set search.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct StubbornCounters {
    /// The state store.
    #[serde(flatten)]
    pub store: crate::space::StoreCounters,
    /// States whose stubborn set was computed and fired.
    pub expanded: u64,
    /// Transitions fired (with repeats).
    pub edges: u64,
    /// Transitions enabled at the expanded states, fired or not: `edges / enabled` is
    /// the share the reduction kept.
    pub enabled: u64,
    /// Expanded states without successors.
    pub dead_states: u64,
    /// Dead states where every process had ended (programs).
    pub terminations: u64,
    /// States expanded fully because a reduced successor had been stored before them
    /// (the cycle proviso that keeps faults, programs only).
    pub cycle_expansions: u64,
}

/// The stubborn search's settings: the order it expanded states in.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct StubbornSettings {
    /// `depth`, `breadth` or `best`.
    pub order: String,
}
