//! Deadlock-preserving stubborn sets of a P/T net, computed from the marking.
//!
//! # The rules
//! A set S of transitions is *stubborn* at a marking m when
//! - **(D0)** S holds an enabled transition if m is not dead;
//! - **(D1)** for every enabled t ∈ S and every sequence u1…un of transitions outside S:
//!   if m —u1…un t→ m′ then m —t u1…un→ m′;
//! - **(D2)** every enabled t ∈ S stays enabled after any sequence of transitions outside S,
//!   and every disabled t ∈ S stays disabled.
//!
//! Firing only the enabled members of a stubborn set at every marking reaches every
//! reachable dead marking (Valmari, "Stubborn sets for reduced state space generation",
//! 1991; the deadlock case needs no cycle proviso). Take a path to a dead marking: if it
//! contains a member of S, the first such member is enabled at m (a disabled member stays
//! disabled), and D1 moves it to the front, so the reduced search takes a first step on a
//! path of the same length minus one; if it contains none, an enabled member stays enabled
//! to the end (D2), contradicting deadness.
//!
//! S is the closure of one enabled seed under two rules, read off the arcs with their
//! weights (a read arc counts as needing one token and giving it back):
//! - **(a) an enabled member t**: for each place p that t needs, every transition that
//!   could be disabled by t or disable t through p joins S: all transitions needing p when
//!   t removes tokens from p, and only those that remove tokens from p when t does not (a
//!   transition that adds to p, or reads it, never disables t, and t does not take what it
//!   needs). Then no transition outside S takes from a place t needs, and t takes nothing
//!   any of them needs, so t commutes with them (D1) and stays enabled (D2).
//! - **(b) a disabled member t**: one *scapegoat* input place p with m(p) below what t needs;
//!   every transition that adds tokens to p (post > pre) joins S. Then p cannot grow outside
//!   S and t stays disabled (D2).
//!
//! # Choices (measured, see benches/README.md)
//! - **Scapegoat**: the insufficient place with the fewest producers, ties broken towards
//!   the lowest place id (deterministic).
//! - **Seed**: rules (a) and (b) make a graph on transitions ("t brings u"), and a closed
//!   set is everything reachable from its members. A depth-first search from an enabled
//!   transition with Tarjan's algorithm completes strong components successors first; the
//!   first completed component holding an enabled transition is the seed: its closure
//!   holds no other enabled transition, and the search usually stops long before it has
//!   seen the whole closure. Every enabled transition not in a set already found is tried
//!   as a root (one in a found set would give that set again), and the set with the fewest
//!   enabled transitions is kept. On the 121 MCC development nets, 10 s each, this decided
//!   93 where one root decided 87, eight roots 92, and closures of eight seeds without
//!   Tarjan's search 92, in the same time on the nets all of them decided.

use crate::system::net::Net;

/// Lists of transition or place indices per index, in one flat arena.
#[derive(Clone, Debug, Default)]
struct Lists {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    fn from_vecs(vecs: Vec<Vec<u32>>) -> Lists {
        let mut start = Vec::with_capacity(vecs.len() + 1);
        let mut items = Vec::with_capacity(vecs.iter().map(Vec::len).sum());
        start.push(0);
        for v in vecs {
            items.extend(v);
            start.push(items.len() as u32);
        }
        Lists { start, items }
    }

    fn of(&self, i: usize) -> &[u32] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// One input of a transition: the place, the tokens it needs there, and whether firing
/// leaves fewer tokens than before.
#[derive(Clone, Copy, Debug)]
struct Input {
    place: u32,
    need: u32,
    decreases: bool,
}

/// The static tables of the closure rules and the scratch of one computation.
pub(crate) struct NetStubborn {
    /// Per transition: its inputs.
    inputs: Vec<Vec<Input>>,
    /// Per transition: its inputs in the order rule (b) prefers a scapegoat (fewest
    /// producers, then lowest place id): the scapegoat is the first one short of tokens.
    scapegoat_order: Vec<Vec<Input>>,
    /// Per place: the transitions that need tokens there.
    needers: Lists,
    /// Per place: the transitions that leave fewer tokens there.
    decreasers: Lists,
    /// Per place: the transitions that leave more tokens there.
    increasers: Lists,
    /// `visited[t] == stamp`: the search from the current root reached t.
    visited: Vec<u32>,
    /// Tarjan's numbers of the transitions visited, and whether each is on the component
    /// stack.
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    /// `enabled[t] == enabled_stamp`: t is enabled at the current marking.
    enabled: Vec<u32>,
    /// `covered[t] == enabled_stamp`: t is in a set found at the current marking.
    covered: Vec<u32>,
    stamp: u32,
    enabled_stamp: u32,
    frames: Vec<Frame>,
    succ: Vec<u32>,
    component: Vec<u32>,
    /// The enabled members of the set being built, and of the best set so far.
    current: Vec<u32>,
    best: Vec<u32>,
}

impl NetStubborn {
    /// The closure tables of `net`.
    pub(crate) fn new(net: &Net) -> NetStubborn {
        let places = net.places.len();
        let mut needers = vec![Vec::new(); places];
        let mut decreasers = vec![Vec::new(); places];
        let mut increasers = vec![Vec::new(); places];
        let mut inputs = Vec::with_capacity(net.transitions.len());
        for (ti, t) in net.transitions.iter().enumerate() {
            let ti = ti as u32;
            let mut ins = Vec::new();
            for p in t.neighbourhood() {
                let pre = t.pre_weight(p);
                let post = t.post_weight(p);
                let need = if t.reads(p) { pre.max(1) } else { pre };
                let i = p.index();
                if need > 0 {
                    needers[i].push(ti);
                    ins.push(Input {
                        place: p.0,
                        need,
                        decreases: pre > post,
                    });
                }
                if pre > post {
                    decreasers[i].push(ti);
                }
                if post > pre {
                    increasers[i].push(ti);
                }
            }
            inputs.push(ins);
        }
        let n = net.transitions.len();
        let scapegoat_order = inputs
            .iter()
            .map(|ins: &Vec<Input>| {
                let mut sorted = ins.clone();
                sorted.sort_by_key(|i| (increasers[i.place as usize].len(), i.place));
                sorted
            })
            .collect();
        NetStubborn {
            inputs,
            scapegoat_order,
            needers: Lists::from_vecs(needers),
            decreasers: Lists::from_vecs(decreasers),
            increasers: Lists::from_vecs(increasers),
            visited: vec![0; n],
            index: vec![0; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            enabled: vec![0; n],
            covered: vec![0; n],
            stamp: 0,
            enabled_stamp: 0,
            frames: Vec::new(),
            succ: Vec::new(),
            component: Vec::new(),
            current: Vec::new(),
            best: Vec::new(),
        }
    }

    /// The enabled transitions of a stubborn set at `marking`, where `enabled` lists every
    /// enabled transition (non-empty). Written into `out` (cleared first), sorted.
    pub(crate) fn stubborn(&mut self, marking: &[u32], enabled: &[u32], out: &mut Vec<u32>) {
        out.clear();
        self.mark_enabled(enabled);
        self.best.clear();
        for &root in enabled {
            // A root inside a set already found gives that set again: its component reaches
            // no other enabled transition.
            if self.covered[root as usize] == self.enabled_stamp {
                continue;
            }
            self.first_enabled_component(root, marking);
            for &t in &self.current {
                self.covered[t as usize] = self.enabled_stamp;
            }
            if self.best.is_empty() || self.current.len() < self.best.len() {
                std::mem::swap(&mut self.best, &mut self.current);
                if self.best.len() == 1 {
                    break;
                }
            }
        }
        out.extend_from_slice(&self.best);
        out.sort_unstable();
    }

    /// The enabled transitions of the closure of `seeds` (enabled or not) under rules (a)
    /// and (b) at `marking`, where `enabled` lists every enabled transition. Written into
    /// `out` (cleared first), sorted. The closure is stubborn: D1 and D2 hold for every
    /// member, whatever the seeds.
    pub(crate) fn closure(&mut self, marking: &[u32], enabled: &[u32], seeds: &[u32], out: &mut Vec<u32>) {
        out.clear();
        self.mark_enabled(enabled);
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.fill(0);
            self.stamp = 1;
        }
        let mut todo = std::mem::take(&mut self.component);
        todo.clear();
        for &t in seeds {
            if self.visited[t as usize] != self.stamp {
                self.visited[t as usize] = self.stamp;
                todo.push(t);
            }
        }
        let mut succ = std::mem::take(&mut self.succ);
        while let Some(t) = todo.pop() {
            if self.enabled[t as usize] == self.enabled_stamp {
                out.push(t);
            }
            succ.clear();
            self.successors(t, marking, &mut succ);
            for &u in &succ {
                if self.visited[u as usize] != self.stamp {
                    self.visited[u as usize] = self.stamp;
                    todo.push(u);
                }
            }
        }
        self.succ = succ;
        self.component = todo;
        out.sort_unstable();
    }

    /// The transitions that leave more tokens on place `p` than they find.
    pub(crate) fn increasers(&self, p: usize) -> &[u32] {
        self.increasers.of(p)
    }

    /// The transitions that leave fewer tokens on place `p` than they find.
    pub(crate) fn decreasers(&self, p: usize) -> &[u32] {
        self.decreasers.of(p)
    }

    /// Stamps the transitions of `enabled` as the enabled ones of a new marking.
    fn mark_enabled(&mut self, enabled: &[u32]) {
        self.enabled_stamp = self.enabled_stamp.wrapping_add(1);
        if self.enabled_stamp == 0 {
            self.enabled.fill(0);
            self.covered.fill(0);
            self.enabled_stamp = 1;
        }
        for &t in enabled {
            self.enabled[t as usize] = self.enabled_stamp;
        }
    }

    /// Appends to `succ` the transitions that rules (a) and (b) add with `t`.
    fn successors(&self, t: u32, marking: &[u32], succ: &mut Vec<u32>) {
        let ti = t as usize;
        if self.enabled[ti] == self.enabled_stamp {
            // Rule (a).
            for input in &self.inputs[ti] {
                let list = if input.decreases {
                    &self.needers
                } else {
                    &self.decreasers
                };
                succ.extend_from_slice(list.of(input.place as usize));
            }
            return;
        }
        // Rule (b): the scapegoat with the fewest producers.
        let scapegoat = self.scapegoat_order[ti]
            .iter()
            .find(|i| marking[i.place as usize] < i.need);
        match scapegoat {
            Some(i) => succ.extend_from_slice(self.increasers.of(i.place as usize)),
            // Enabled by the marking yet not listed as enabled: the system knows better (a
            // NUPN unit forbids it). Keeping it disabled then needs every producer of every
            // input.
            None => {
                for input in &self.inputs[ti] {
                    succ.extend_from_slice(self.increasers.of(input.place as usize));
                }
            }
        }
    }

    /// Tarjan's depth-first search of the graph "t brings u" from `root`, stopped at the
    /// first strong component that holds an enabled transition; its enabled transitions end
    /// in `current`. Components are completed successors first, so every component
    /// reachable from that one was completed before it and holds no enabled transition:
    /// the closure of the component is stubborn, and its enabled transitions are exactly
    /// the component's.
    fn first_enabled_component(&mut self, root: u32, marking: &[u32]) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.fill(0);
            self.stamp = 1;
        }
        self.current.clear();
        self.frames.clear();
        self.succ.clear();
        self.component.clear();
        let mut counter = 0u32;
        self.enter(root, marking, &mut counter);
        while let Some(frame) = self.frames.last_mut() {
            if frame.next < frame.end {
                let u = self.succ[frame.next as usize];
                frame.next += 1;
                let t = frame.node as usize;
                let ui = u as usize;
                if self.visited[ui] != self.stamp {
                    self.enter(u, marking, &mut counter);
                } else if self.on_stack[ui] {
                    self.low[t] = self.low[t].min(self.index[ui]);
                }
                continue;
            }
            let frame = *frame;
            self.frames.pop();
            self.succ.truncate(frame.start as usize);
            let t = frame.node as usize;
            if self.low[t] == self.index[t] {
                while let Some(u) = self.component.pop() {
                    self.on_stack[u as usize] = false;
                    if self.enabled[u as usize] == self.enabled_stamp {
                        self.current.push(u);
                    }
                    if u as usize == t {
                        break;
                    }
                }
                if !self.current.is_empty() {
                    return;
                }
            }
            if let Some(parent) = self.frames.last() {
                let p = parent.node as usize;
                self.low[p] = self.low[p].min(self.low[t]);
            }
        }
    }

    /// Starts the visit of `t`: numbers it and lists its successors.
    fn enter(&mut self, t: u32, marking: &[u32], counter: &mut u32) {
        let ti = t as usize;
        self.visited[ti] = self.stamp;
        self.index[ti] = *counter;
        self.low[ti] = *counter;
        *counter += 1;
        self.on_stack[ti] = true;
        self.component.push(t);
        let start = self.succ.len() as u32;
        let mut succ = std::mem::take(&mut self.succ);
        self.successors(t, marking, &mut succ);
        self.succ = succ;
        self.frames.push(Frame {
            node: t,
            next: start,
            end: self.succ.len() as u32,
            start,
        });
    }
}

/// A transition being visited by [`NetStubborn::first_enabled_component`]: its successors
/// are `succ[start..end]`, of which those before `next` were looked at.
#[derive(Clone, Copy, Debug)]
struct Frame {
    node: u32,
    start: u32,
    next: u32,
    end: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::net::Net;

    /// Two independent transitions and a pair in conflict on one place.
    fn net() -> Net {
        let (mut net, [a, b, c, out]) = Net::with_places([("a", 1), ("b", 1), ("c", 1), ("out", 0)]);
        net.add_transition_between("t0", &[a], &[out]);
        net.add_transition_between("t1", &[b], &[out]);
        net.add_transition_between("t2", &[b, c], &[]);
        net
    }

    #[test]
    fn an_independent_transition_is_a_set_of_its_own() {
        let net = net();
        let mut s = NetStubborn::new(&net);
        let mut out = Vec::new();
        s.stubborn(&net.initial_marking(), &[0, 1, 2], &mut out);
        assert_eq!(out, vec![0]);
    }

    #[test]
    fn transitions_taking_from_one_place_stay_together() {
        let net = net();
        let mut s = NetStubborn::new(&net);
        let mut out = Vec::new();
        s.stubborn(&net.initial_marking(), &[1, 2], &mut out);
        assert_eq!(out, vec![1, 2]);
    }

    #[test]
    fn a_disabled_member_brings_the_producers_of_its_scapegoat() {
        // t1 moves a token from p to q; t0 needs q and r: t0's scapegoat q brings t1.
        let (mut net, [p, q, r]) = Net::with_places([("p", 1), ("q", 0), ("r", 1)]);
        net.add_transition_between("t0", &[q, r], &[]);
        net.add_transition_between("t1", &[p], &[q]);
        net.add_transition_between("t2", &[r], &[]);
        let mut s = NetStubborn::new(&net);
        let mut out = Vec::new();
        // Seed t2 (enabled): it takes from r, so t0 (needs r) joins; t0 is disabled at q,
        // whose producer t1 joins.
        s.stubborn(&net.initial_marking(), &[2, 1], &mut out);
        assert_eq!(out, vec![1], "the seed t1 alone is smaller than {{t1, t2}}");
        s.stubborn(&net.initial_marking(), &[2], &mut out);
        assert_eq!(out, vec![2]);
    }

    #[test]
    fn readers_do_not_conflict_with_each_other() {
        let (mut net, [p]) = Net::with_places([("p", 1)]);
        let t0 = net.add_transition("t0", None);
        net.add_read(t0, p);
        let t1 = net.add_transition("t1", None);
        net.add_read(t1, p);
        let mut s = NetStubborn::new(&net);
        let mut out = Vec::new();
        s.stubborn(&net.initial_marking(), &[0, 1], &mut out);
        assert_eq!(out.len(), 1);
    }
}
