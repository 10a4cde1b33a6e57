//! Random walks on reachability properties: walks over the markings of the net itself,
//! evaluating every open property's target ([`Property::target`]) on each marking met;
//! the first marking satisfying one decides that property (TRUE for `EF φ`, FALSE for
//! `AG φ`) with the walk so far as its witness. A walk proves nothing: the other answers
//! stay unknown, and the search ends when every property is decided or the budget runs
//! out. Walk lengths cycle through powers of two, as for deadlocks.

use super::{WalkCounters, WalkOptions, LONGEST_WALK_LOG2, SHORTEST_WALK_LOG2};
use crate::engine::{
    BoundAnswer, Budget, Counters, GlobalAnswer, Observer, Pacer, Progress, PropertyAnswer, Reached, Report,
    Settings, StateEntries, Stats, StepNames,
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
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let mut counters = WalkCounters::default();
    let mut pacer = Pacer::default();
    let mut path: Vec<TransId> = Vec::new();
    let mut enabled = EnabledSet::new(net);
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
    let initial = net.initial_marking();
    open -= check(&initial, &[], &mut reached);
    let span = LONGEST_WALK_LOG2 - SHORTEST_WALK_LOG2 + 1;
    'walks: while open > 0 {
        let limit = 1u64 << (SHORTEST_WALK_LOG2 + (counters.walks % span as u64) as u32);
        counters.walks += 1;
        let mut marking = initial.clone();
        enabled.reset(&marking);
        path.clear();
        while (path.len() as u64) < limit && open > 0 {
            match pacer.tick(16, budget) {
                Err(why) => {
                    stopped = Some(why);
                    break 'walks;
                }
                Ok(Some(seconds)) => observer.progress(&Progress {
                    engine: "walk",
                    seconds,
                    counters: vec![("steps", counters.steps), ("open properties", open as u64)],
                }),
                Ok(None) => {}
            }
            if enabled.is_empty() {
                counters.dead_states += 1;
                break;
            }
            let t = enabled.pick(&mut rng);
            enabled.fire(t, &mut marking);
            counters.steps += 1;
            path.push(TransId(t));
            open -= check(&marking, &path, &mut reached);
        }
    }
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
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let mut counters = WalkCounters::default();
    let mut pacer = Pacer::default();
    let mut path: Vec<TransId> = Vec::new();
    let mut enabled = EnabledSet::new(net);
    let stopped;
    let span = LONGEST_WALK_LOG2 - SHORTEST_WALK_LOG2 + 1;
    'walks: loop {
        let limit = 1u64 << (SHORTEST_WALK_LOG2 + (counters.walks % span as u64) as u32);
        counters.walks += 1;
        let mut marking = initial.clone();
        enabled.reset(&marking);
        path.clear();
        while (path.len() as u64) < limit {
            match pacer.tick(16 + bounds.len(), budget) {
                Err(why) => {
                    stopped = Some(why);
                    flush(&mut best, &mut raised, &path);
                    break 'walks;
                }
                Ok(Some(seconds)) => observer.progress(&Progress {
                    engine: "walk",
                    seconds,
                    counters: vec![("steps", counters.steps)],
                }),
                Ok(None) => {}
            }
            if enabled.is_empty() {
                counters.dead_states += 1;
                break;
            }
            let t = enabled.pick(&mut rng);
            enabled.fire(t, &mut marking);
            counters.steps += 1;
            path.push(TransId(t));
            for ((b, (value, _)), r) in bounds.iter().zip(&mut best).zip(&mut raised) {
                let v = b.value(&marking);
                if v > *value {
                    *value = v;
                    *r = Some(path.len());
                }
            }
        }
        flush(&mut best, &mut raised, &path);
    }
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
    let initial = net.initial_marking();
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let mut counters = WalkCounters::default();
    let mut pacer = Pacer::default();
    let mut path: Vec<TransId> = Vec::new();
    let mut enabled = EnabledSet::new(net);
    let mut global = GlobalAnswer::unknown("liveness");
    let nt = net.transitions.len();
    let stopped = 'walks: loop {
        let limit = 1u64
            << (SHORTEST_WALK_LOG2
                + (counters.walks % (LONGEST_WALK_LOG2 - SHORTEST_WALK_LOG2 + 1) as u64) as u32);
        counters.walks += 1;
        let mut marking = initial.clone();
        enabled.reset(&marking);
        path.clear();
        while (path.len() as u64) < limit && !enabled.is_empty() {
            match pacer.tick(16, budget) {
                Err(why) => break 'walks Some(why),
                Ok(Some(seconds)) => observer.progress(&Progress {
                    engine: "walk",
                    seconds,
                    counters: vec![("steps", counters.steps)],
                }),
                Ok(None) => {}
            }
            let t = enabled.pick(&mut rng);
            enabled.fire(t, &mut marking);
            counters.steps += 1;
            path.push(TransId(t));
        }
        if enabled.is_empty() {
            counters.dead_states += 1;
        }
        let may_fire = net.may_fire_from(&marking);
        if !enabled.is_empty() && may_fire.iter().any(|&f| !f) {
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
                state_text: net.marking_text(&marking),
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
            if let Err(why) = pacer.tick(nt, budget) {
                break 'walks Some(why);
            }
            for (t, f) in fires.iter_mut().enumerate() {
                let mut next = m.clone();
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
            state_text: net.marking_text(&marking),
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
        Stats::new(Counters::of(&counters), seconds),
        Settings::default(),
    )
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
