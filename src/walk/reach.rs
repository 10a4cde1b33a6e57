//! Random walks on reachability properties: walks over the markings of the net itself,
//! evaluating every open property's target ([`Property::target`]) on each marking met;
//! the first marking satisfying one decides that property (TRUE for `EF φ`, FALSE for
//! `AG φ`) with the walk so far as its witness. A walk proves nothing: the other answers
//! stay unknown, and the search ends when every property is decided or the budget runs
//! out. Walk lengths cycle through powers of two, as for deadlocks.

use super::{WalkCounters, WalkOptions, LONGEST_WALK_LOG2, SHORTEST_WALK_LOG2};
use crate::engine::{
    BoundAnswer, Budget, Counters, GlobalAnswer, Observer, Pacer, Progress, PropertyAnswer, Reached, Report,
    Settings, StateEntries, Stats, StepNames, StopReason,
};
use crate::system::net::{Net, PlaceId, TransId};
use crate::system::property::{BoundQuery, Formula, Property};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::time::Instant;

/// Walks the markings of `net` at random until every property of `properties` is
/// decided by a marking met, or the budget runs out.
pub(crate) fn walk_properties(
    net: &Net,
    properties: &[Property],
    opts: &WalkOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Report {
    let start = Instant::now();
    let targets: Vec<Formula> = properties.iter().map(Property::target).collect();
    let mut reached: Vec<Option<(Vec<u32>, Vec<TransId>)>> = vec![None; properties.len()];
    let mut open = properties.len();
    let mut walker = NetWalker::new(net, opts.seed);
    let mut stopped = None;
    let check = |marking: &[u32], path: &[TransId], reached: &mut [Option<(Vec<u32>, Vec<TransId>)>]| {
        let mut closed = 0;
        for (i, target) in targets.iter().enumerate() {
            if reached[i].is_none() && target.holds(net, marking) {
                reached[i] = Some((marking.to_vec(), path.to_vec()));
                closed += 1;
            }
        }
        closed
    };
    open -= check(&walker.initial, &[], &mut reached);
    'walks: while open > 0 {
        walker.start_walk();
        while open > 0 {
            match walker.step(16, budget, observer, &[("open properties", open as u64)]) {
                Err(why) => {
                    stopped = Some(why);
                    break 'walks;
                }
                Ok(false) => break,
                Ok(true) => open -= check(&walker.marking, &walker.path, &mut reached),
            }
        }
    }
    let counters = walker.counters;
    let mut names = StepNames::default();
    let answers = properties
        .iter()
        .zip(reached)
        .map(|(p, found)| match found {
            Some((marking, path)) => PropertyAnswer {
                id: p.id.clone(),
                value: Some(p.value_when_reached(true)),
                decided_by: Some("walk"),
                reached: Some(Reached {
                    state: StateEntries::default(),
                    state_text: net.marking_text(&marking),
                    witness: names.net_witness(net, path.iter().copied()),
                }),
                simplified: None,
            },
            None => PropertyAnswer::unknown(&p.id),
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    Report::of_properties(
        "walk",
        answers,
        stopped,
        Stats::new(Counters::of(&counters), seconds),
        Settings::default(),
    )
}

/// Walks the markings of `net` at random until the budget runs out, raising each bound's
/// lower value to the largest sum met, with the walk so far as its witness. A walk proves
/// no upper bound: the answers are lower bounds only, and the engines that prove upper
/// bounds close them.
pub(crate) fn walk_bounds(
    net: &Net,
    bounds: &[BoundQuery],
    opts: &WalkOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Report {
    let start = Instant::now();
    let initial = net.initial_marking();
    // Per bound: the largest sum met and the walk that met it.
    let mut best: Vec<(u64, Option<Vec<TransId>>)> =
        bounds.iter().map(|b| (b.value(&initial), None)).collect();
    // Per bound: the length of the current walk when it raised the bound, copied out when
    // the walk ends (a copy at every raise would be quadratic on unbounded places).
    let mut raised: Vec<Option<usize>> = vec![None; bounds.len()];
    let flush = |best: &mut [(u64, Option<Vec<TransId>>)], raised: &mut [Option<usize>], path: &[TransId]| {
        for (b, r) in best.iter_mut().zip(raised.iter_mut()) {
            if let Some(len) = r.take() {
                b.1 = Some(path[..len].to_vec());
            }
        }
    };
    let mut walker = NetWalker::new(net, opts.seed);
    let stopped = 'walks: loop {
        walker.start_walk();
        loop {
            match walker.step(16 + bounds.len(), budget, observer, &[]) {
                Err(why) => {
                    flush(&mut best, &mut raised, &walker.path);
                    break 'walks Some(why);
                }
                Ok(false) => break,
                Ok(true) => {}
            }
            for ((b, (value, _)), r) in bounds.iter().zip(&mut best).zip(&mut raised) {
                let v = b.value(&walker.marking);
                if v > *value {
                    *value = v;
                    *r = Some(walker.path.len());
                }
            }
        }
        flush(&mut best, &mut raised, &walker.path);
    };
    let counters = walker.counters;
    let mut names = StepNames::default();
    let answers = bounds
        .iter()
        .zip(best)
        .map(|(b, (value, at))| BoundAnswer {
            id: b.id.clone(),
            lower: value,
            upper: None,
            lower_by: at.is_some().then_some("walk"),
            upper_by: None,
            reached: at.map(|path| Reached {
                state: StateEntries::default(),
                state_text: net
                    .marking_after(path.iter().copied())
                    .map_or_else(String::new, |m| net.marking_text(&m)),
                witness: names.net_witness(net, path.iter().copied()),
            }),
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    Report::of_bounds(
        "walk",
        answers,
        stopped,
        Stats::new(Counters::of(&counters), seconds),
        Settings::default(),
    )
}

/// Most markings the walk's liveness check stores while closing the markings reachable
/// from a walk's end; beyond, it walks again.
const CLOSURE_STATES: usize = 20_000;

/// Liveness refuted by walks: each walk's end marking, when every marking reachable from
/// it fits in [`CLOSURE_STATES`], has its forward closure searched; a transition enabled
/// nowhere in that closure never fires again after the walk, so the net is not live (the
/// walk is the witness, and the transitions the closure misses are checked again by the
/// replay). A walk ending in a dead marking is the special case of a closure of one
/// marking. Walks prove nothing the other way: the answer stays unknown until the budget
/// runs out.
pub(crate) fn walk_liveness(
    net: &Net,
    opts: &WalkOptions,
    budget: &Budget,
    observer: &mut dyn Observer,
) -> Report {
    let start = Instant::now();
    let mut walker = NetWalker::new(net, opts.seed);
    let mut global = GlobalAnswer::unknown("liveness");
    let nt = net.transitions.len();
    let stopped = 'walks: loop {
        walker.start_walk();
        loop {
            match walker.step(16, budget, observer, &[]) {
                Err(why) => break 'walks Some(why),
                Ok(false) => break,
                Ok(true) => {}
            }
        }
        let (marking, path) = (&walker.marking, &walker.path);
        let may_fire = net.may_fire_from(marking);
        if !walker.enabled.is_empty() && may_fire.iter().any(|&f| !f) {
            let missing: Vec<String> = (0..nt)
                .filter(|&t| !may_fire[t])
                .map(|t| net.transitions[t].id.clone())
                .collect();
            global.value = Some(false);
            global.decided_by = Some("walk");
            global.reason = format!(
                "after the walk, {} of the {nt} transitions need places no transition can mark again",
                missing.len()
            );
            global.reached = Some(Reached {
                state: StateEntries::default(),
                state_text: net.marking_text(marking),
                witness: StepNames::default().net_witness(net, path.iter().copied()),
            });
            global.missing = missing;
            break None;
        }
        // The markings reachable from the walk's end, and the transitions they enable.
        let mut seen: hashbrown::HashSet<Vec<u32>> = std::iter::once(marking.clone()).collect();
        let mut todo = vec![marking.clone()];
        let mut fires = vec![false; nt];
        let mut closed = true;
        while let Some(m) = todo.pop() {
            if let Err(why) = walker.pacer.tick(nt, budget) {
                break 'walks Some(why);
            }
            for (t, f) in fires.iter_mut().enumerate() {
                let mut next: Vec<u32> = m.clone();
                if net.fire(&mut next, TransId(t as u32)) {
                    *f = true;
                    if seen.insert(next.clone()) {
                        todo.push(next);
                    }
                }
            }
            if seen.len() > CLOSURE_STATES {
                closed = false;
                break;
            }
        }
        if !closed || fires.iter().all(|&f| f) {
            continue;
        }
        let missing: Vec<String> = (0..nt)
            .filter(|&t| !fires[t])
            .map(|t| net.transitions[t].id.clone())
            .collect();
        global.value = Some(false);
        global.decided_by = Some("walk");
        global.reason = if seen.len() == 1 && missing.len() == nt {
            "a dead marking is reachable".to_string()
        } else {
            format!(
                "after the walk, the {} reachable markings never enable {} of the {nt} transitions",
                seen.len(),
                missing.len()
            )
        };
        global.reached = Some(Reached {
            state: StateEntries::default(),
            state_text: net.marking_text(marking),
            witness: StepNames::default().net_witness(net, path.iter().copied()),
        });
        global.missing = if seen.len() == 1 && missing.len() == nt {
            Vec::new()
        } else {
            missing
        };
        break None;
    };
    let seconds = start.elapsed().as_secs_f64();
    Report::of_global(
        "walk",
        global,
        stopped,
        Stats::new(Counters::of(&walker.counters), seconds),
        Settings::default(),
    )
}

/// Random walks over the markings of a net: the walk in progress (its marking and firing
/// sequence) and what the walks counted. Walk lengths cycle through powers of two.
struct NetWalker<'n> {
    initial: Vec<u32>,
    rng: SmallRng,
    counters: WalkCounters,
    pacer: Pacer,
    enabled: EnabledSet,
    marking: Vec<u32>,
    path: Vec<TransId>,
    /// The current walk's length at most.
    limit: u64,
    _net: std::marker::PhantomData<&'n Net>,
}

impl<'n> NetWalker<'n> {
    fn new(net: &'n Net, seed: u64) -> NetWalker<'n> {
        NetWalker {
            initial: net.initial_marking(),
            rng: SmallRng::seed_from_u64(seed),
            counters: WalkCounters::default(),
            pacer: Pacer::default(),
            enabled: EnabledSet::new(net),
            marking: Vec::new(),
            path: Vec::new(),
            limit: 0,
            _net: std::marker::PhantomData,
        }
    }

    /// Starts the next walk at the initial marking.
    fn start_walk(&mut self) {
        let span = u64::from(LONGEST_WALK_LOG2 - SHORTEST_WALK_LOG2 + 1);
        self.limit = 1u64 << (u64::from(SHORTEST_WALK_LOG2) + self.counters.walks % span);
        self.counters.walks += 1;
        self.marking.clone_from(&self.initial);
        self.enabled.reset(&self.marking);
        self.path.clear();
    }

    /// Fires one more step of the walk: `Ok(true)` when it did, `Ok(false)` when the walk
    /// ended (its length, or a dead marking), the reason when the budget ran out. The
    /// progress line shows the steps and `extra`.
    fn step(
        &mut self,
        work: usize,
        budget: &Budget,
        observer: &mut dyn Observer,
        extra: &[(&'static str, u64)],
    ) -> Result<bool, StopReason> {
        if self.path.len() as u64 >= self.limit {
            return Ok(false);
        }
        if let Some(seconds) = self.pacer.tick(work, budget)? {
            let mut counters = vec![("steps", self.counters.steps)];
            counters.extend_from_slice(extra);
            observer.progress(&Progress {
                engine: "walk",
                seconds,
                counters,
            });
        }
        if self.enabled.is_empty() {
            self.counters.dead_states += 1;
            return Ok(false);
        }
        let t = self.enabled.pick(&mut self.rng);
        self.enabled.fire(t, &mut self.marking);
        self.counters.steps += 1;
        self.path.push(TransId(t));
        Ok(true)
    }
}

/// The enabled transitions of a marking, kept up to date as transitions fire: firing `t`
/// changes only the places it consumes from or produces on, so only the transitions that
/// need one of those places can change. Arcs are read once, here, not at every step.
struct EnabledSet {
    /// Per transition: the tokens it needs, by place (consumed and read).
    needs: Vec<Vec<(usize, u32)>>,
    /// Per transition: its consumption and production.
    pre: Vec<Vec<(usize, u32)>>,
    post: Vec<Vec<(usize, u32)>>,
    /// Per place: the transitions that need it.
    needed_by: Vec<Vec<u32>>,
    /// The enabled transitions, in no order, and each one's index in it.
    list: Vec<u32>,
    at: Vec<u32>,
    /// Transitions already looked at in this update (`stamp[t] == round`).
    stamp: Vec<u32>,
    round: u32,
}

const ABSENT: u32 = u32::MAX;

impl EnabledSet {
    fn new(net: &Net) -> EnabledSet {
        let arcs = |v: &[(PlaceId, u32)]| v.iter().map(|&(p, w)| (p.index(), w)).collect::<Vec<_>>();
        let needs: Vec<Vec<(usize, u32)>> = net.transitions.iter().map(|t| arcs(&t.needs())).collect();
        let mut needed_by = vec![Vec::new(); net.places.len()];
        for (t, n) in needs.iter().enumerate() {
            for &(p, _) in n {
                needed_by[p].push(t as u32);
            }
        }
        EnabledSet {
            pre: net.transitions.iter().map(|t| arcs(&t.pre)).collect(),
            post: net.transitions.iter().map(|t| arcs(&t.post)).collect(),
            needs,
            needed_by,
            list: Vec::new(),
            at: vec![ABSENT; net.transitions.len()],
            stamp: vec![0; net.transitions.len()],
            round: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// A transition enabled at the marking, chosen uniformly.
    fn pick(&self, rng: &mut SmallRng) -> u32 {
        self.list[rng.random_range(0..self.list.len())]
    }

    fn enabled_in(&self, t: usize, marking: &[u32]) -> bool {
        self.needs[t].iter().all(|&(p, w)| marking[p] >= w)
    }

    fn set(&mut self, t: usize, on: bool) {
        match (self.at[t] != ABSENT, on) {
            (false, true) => {
                self.at[t] = self.list.len() as u32;
                self.list.push(t as u32);
            }
            (true, false) => {
                let i = self.at[t] as usize;
                self.list.swap_remove(i);
                if let Some(&moved) = self.list.get(i) {
                    self.at[moved as usize] = i as u32;
                }
                self.at[t] = ABSENT;
            }
            _ => {}
        }
    }

    /// The set of `marking`, computed afresh.
    fn reset(&mut self, marking: &[u32]) {
        for t in 0..self.needs.len() {
            let on = self.enabled_in(t, marking);
            self.set(t, on);
        }
    }

    /// Fires `t`, enabled at `marking`, and updates the set. Token counts saturate, as
    /// [`Net::fire`]'s do.
    fn fire(&mut self, t: u32, marking: &mut [u32]) {
        let t = t as usize;
        for &(p, w) in &self.pre[t] {
            marking[p] -= w;
        }
        for &(p, w) in &self.post[t] {
            marking[p] = marking[p].saturating_add(w);
        }
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.stamp.fill(0);
            self.round = 1;
        }
        for k in 0..self.pre[t].len() + self.post[t].len() {
            let p = match self.pre[t].get(k) {
                Some(&(p, _)) => p,
                None => self.post[t][k - self.pre[t].len()].0,
            };
            for i in 0..self.needed_by[p].len() {
                let u = self.needed_by[p][i] as usize;
                if self.stamp[u] != self.round {
                    self.stamp[u] = self.round;
                    let on = self.enabled_in(u, marking);
                    self.set(u, on);
                }
            }
        }
    }
}
