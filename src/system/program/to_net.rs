//! Export of a program as a 1-safe P/T net with a NUPN decomposition, so that other tools
//! can check the same model (`qpor convert model.proc --to pnml|llnet`).
//!
//! The reachable local states of every component are found by a fixpoint over actions on
//! combinations of local states: starting from the initial local states, each round fires
//! every action on every combination of known before-states of the components it touches
//! that includes at least one state found in the previous round (semi-naive evaluation, so
//! no combination is tried twice), and adds the after-states. Combinations that are not
//! jointly reachable are tried too: this over-approximates the local states, and the
//! transitions it yields from unreachable combinations are never enabled in a reachable
//! marking, so the net has exactly the reachable state graph of the program.
//!
//! The net has one place per (component, local state), marked when the component is in that
//! state, and one transition per (action, combination of before-states that enables it).
//! Each component is a NUPN unit holding its places, under a root unit without places.
//!
//! Names say what each node is, and no two nodes of a kind share one, so that a witness of
//! the net reads like the program's: a place is `component: state` (a fault state with its
//! message), a transition `process: step`, followed, when the step has several
//! transitions, by the before-states that tell them apart (`with` the process's locals,
//! `when` the other components' states) and, failing those, the after-states (`to`).
//!
//! A net has no final states, so a terminated program would look deadlocked. With
//! [`ToNetOptions::termination_loop`] (the default) every process also gets a two-place unit
//! `P.final` / `P.busy` saying whether it is final (ended or never started), updated by the
//! transitions that change it, and a transition `terminated` loops on all `.final` places: it
//! is enabled exactly in the terminal states, which therefore are not dead. Fault states stay
//! dead, so a program's fault shows as a deadlock of the net.
//!
//! Components with more than [`ToNetOptions::max_local_states`] local states are refused:
//! the net would be too large to be of use (and its domains could be unbounded). The
//! over-approximation is coarse for counters that only the interplay of processes keeps
//! bounded — a semaphore signalled in a loop, a shared sum — which can then grow up to the
//! limit; [`ToNetOptions::reachable_only`] instead reads the local states and transitions off
//! a breadth-first search of the reachable global states, which gives the smallest such net
//! at the cost of exploring the state space.

use super::tables::{PendKind, Pending};
use super::Program;
use crate::system::net::{Net, Nupn, PlaceId, Unit};
use crate::system::{ActionId, CompId, Local, ModelError, Step, System};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// Options of [`to_net`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToNetOptions {
    /// Most local states a component may have (default 64).
    pub max_local_states: usize,
    /// Most transitions the net may have (default 1 000 000).
    pub max_transitions: usize,
    /// Add the termination units and the `terminated` loop (default true), so that normal
    /// termination is not a deadlock of the net.
    pub termination_loop: bool,
    /// Take the local states and transitions from the reachable global states (a
    /// breadth-first search of at most this many states) instead of the local fixpoint
    /// (default `None`). Exact, so it also exports models whose counters or semaphores the
    /// fixpoint over-approximates without bound, at the price of exploring the state space.
    pub reachable_only: Option<usize>,
    /// Export the program with every access to a shared variable a transition of its own
    /// ([`Program::system_every_access`]) instead of folding the guarded ones into the
    /// lock (default false).
    pub every_access: bool,
}

impl Default for ToNetOptions {
    fn default() -> Self {
        ToNetOptions {
            max_local_states: 64,
            max_transitions: 1_000_000,
            termination_loop: true,
            reachable_only: None,
            every_access: false,
        }
    }
}

impl ToNetOptions {
    /// Sets [`ToNetOptions::max_local_states`].
    pub fn max_local_states(mut self, n: usize) -> Self {
        self.max_local_states = n;
        self
    }

    /// Sets [`ToNetOptions::max_transitions`].
    pub fn max_transitions(mut self, n: usize) -> Self {
        self.max_transitions = n;
        self
    }

    /// Sets [`ToNetOptions::reachable_only`] with a bound on the number of global states.
    pub fn reachable_only(mut self, max_states: usize) -> Self {
        self.reachable_only = Some(max_states);
        self
    }

    /// Sets [`ToNetOptions::every_access`].
    pub fn every_access(mut self, on: bool) -> Self {
        self.every_access = on;
        self
    }

    /// Sets [`ToNetOptions::termination_loop`].
    pub fn termination_loop(mut self, on: bool) -> Self {
        self.termination_loop = on;
        self
    }
}

/// A transition found by the fixpoint: the step and, per touched component, the indices of
/// its before- and after-states in that component's state list.
struct Found {
    action: ActionId,
    touched: SmallVec<[CompId; 6]>,
    before: SmallVec<[u32; 6]>,
    after: SmallVec<[u32; 6]>,
}

struct Explorer<'s, 'p> {
    sys: &'s super::ProgramSystem<'p>,
    opts: &'s ToNetOptions,
    lists: Vec<Vec<Local>>,
    index: Vec<FxHashMap<Local, u32>>,
    /// Per component: states below this index were fully combined in earlier rounds.
    seen: Vec<usize>,
    /// Per component: the number of states at the start of the current round.
    cur: Vec<usize>,
    found: Vec<Found>,
}

/// Exports `program` as a net (see the module doc). Fails when a component has more local
/// states than allowed, or the net more transitions.
///
/// ```
/// use qpor::program::{to_net, ToNetOptions};
/// let text = "mutex m;\nprocess p[i in 0..2] { lock m; unlock m; }\ninit p;\n";
/// let (program, _) = qpor::program::parse(text, "two.proc", &[]).unwrap();
/// // Exactly the reachable local states: p[0] and p[1] before lock, before unlock, done;
/// // m free, held by p[0], held by p[1]; two termination units of two places each.
/// let exact = to_net(&program, &ToNetOptions::default().reachable_only(1000)).unwrap();
/// assert_eq!(exact.places.len(), 3 + 3 + 3 + 4);
/// // The local fixpoint also tries, say, p[0]'s unlock while p[1] holds m, and so finds
/// // three fault states per process that no reachable marking visits.
/// let net = to_net(&program, &ToNetOptions::default()).unwrap();
/// assert_eq!(net.places.len(), 3 * 2 + 3 * 2 + 3 + 4);
/// ```
pub fn to_net(program: &Program, opts: &ToNetOptions) -> Result<Net, ModelError> {
    let sys = if opts.every_access {
        program.system_every_access()?
    } else {
        program.system()?
    };
    let init = sys.initial_state();
    let n = init.len();
    let mut ex = Explorer {
        sys: &sys,
        opts,
        lists: init.iter().map(|l| vec![*l]).collect(),
        index: init
            .iter()
            .map(|l| {
                let mut m = FxHashMap::default();
                m.insert(*l, 0u32);
                m
            })
            .collect(),
        seen: vec![0; n],
        cur: vec![0; n],
        found: Vec::new(),
    };
    if let Some(max) = opts.reachable_only {
        ex.reachable(max)?;
        return ex.build(program);
    }
    let ninst = program.instances.len();
    loop {
        ex.cur = ex.lists.iter().map(|l| l.len()).collect();
        if ex.cur == ex.seen {
            break;
        }
        for d in 0..ninst {
            for si in 0..ex.cur[d] {
                let ld = ex.lists[d][si];
                let Some(p) = sys.pending(d as u32, ld) else {
                    continue;
                };
                ex.drive(d, si, &p)?;
            }
        }
        ex.seen = ex.cur.clone();
    }
    ex.build(program)
}

impl Explorer<'_, '_> {
    fn drive(&mut self, d: usize, si: usize, p: &Pending) -> Result<(), ModelError> {
        let dnew = si >= self.seen[d];
        match p.kind {
            PendKind::Recv { .. } => Ok(()),
            PendKind::Send { chan, .. } => {
                let ld = self.lists[d][si];
                for &r in self.sys.receivers(chan) {
                    let r = r as usize;
                    if r == d {
                        continue;
                    }
                    for ri in 0..self.cur[r] {
                        let lr = self.lists[r][ri];
                        if let Some(step) = self.sys.meet_of(d as u32, ld, r as u32, lr) {
                            let fixed = [(CompId(d as u32), si), (CompId(r as u32), ri)];
                            self.combine(&step, &fixed, dnew || ri >= self.seen[r])?;
                        }
                    }
                }
                Ok(())
            }
            _ => {
                for &a in &p.actions {
                    let step = Step {
                        action: a,
                        touched: p.touched.clone(),
                    };
                    self.combine(&step, &[(CompId(d as u32), si)], dnew)?;
                }
                Ok(())
            }
        }
    }

    /// Fires `step` on every combination of before-states of its touched components that
    /// agrees with `fixed` and has not been tried: all of them when a fixed state is new,
    /// else those with at least one new state among the others.
    fn combine(&mut self, step: &Step, fixed: &[(CompId, usize)], fixed_new: bool) -> Result<(), ModelError> {
        let k = step.touched.len();
        let mut choice: SmallVec<[Option<usize>; 6]> = SmallVec::from_elem(None, k);
        let mut others: SmallVec<[usize; 6]> = SmallVec::new();
        for (pos, c) in step.touched.iter().enumerate() {
            match fixed.iter().find(|(f, _)| f == c) {
                Some((_, i)) => choice[pos] = Some(*i),
                None => others.push(pos),
            }
        }
        // Ranges per "other" position for each first-new split; with a new fixed state a
        // single split covering everything.
        let splits: Vec<Vec<(usize, usize)>> = if fixed_new || others.is_empty() {
            if !fixed_new {
                return Ok(());
            }
            vec![others
                .iter()
                .map(|&p| (0, self.cur[step.touched[p].index()]))
                .collect()]
        } else {
            (0..others.len())
                .map(|first| {
                    others
                        .iter()
                        .enumerate()
                        .map(|(j, &p)| {
                            let c = step.touched[p].index();
                            match j.cmp(&first) {
                                std::cmp::Ordering::Less => (0, self.seen[c]),
                                std::cmp::Ordering::Equal => (self.seen[c], self.cur[c]),
                                std::cmp::Ordering::Greater => (0, self.cur[c]),
                            }
                        })
                        .collect()
                })
                .collect()
        };
        let mut before: SmallVec<[Local; 6]> = SmallVec::from_elem(Local(0), k);
        let mut after: SmallVec<[Local; 6]> = SmallVec::from_elem(Local(0), k);
        for ranges in splits {
            if ranges.iter().any(|(a, b)| a >= b) {
                continue;
            }
            let mut at: SmallVec<[usize; 6]> = ranges.iter().map(|(a, _)| *a).collect();
            loop {
                for (j, &p) in others.iter().enumerate() {
                    choice[p] = Some(at[j]);
                }
                for (pos, c) in step.touched.iter().enumerate() {
                    let i = choice[pos].unwrap_or(0);
                    before[pos] = self.lists[c.index()][i];
                }
                if self.sys.fire(step, &before, &mut after)? {
                    self.record(step, &choice, &after)?;
                }
                // Odometer over the ranges, last position fastest; a carry out of the
                // first position (or no position at all) ends the split.
                let mut carry = true;
                let mut j = at.len();
                while carry && j > 0 {
                    j -= 1;
                    at[j] += 1;
                    if at[j] < ranges[j].1 {
                        carry = false;
                    } else {
                        at[j] = ranges[j].0;
                    }
                }
                if carry {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Breadth-first search of the reachable global states, recording every distinct
    /// (action, before-states) pair fired on the way.
    fn reachable(&mut self, max: usize) -> Result<(), ModelError> {
        let init = self.sys.initial_state();
        let mut seen: FxHashSet<Vec<Local>> = FxHashSet::default();
        let mut fired: FxHashSet<(ActionId, SmallVec<[u32; 6]>)> = FxHashSet::default();
        let mut queue = std::collections::VecDeque::new();
        seen.insert(init.clone());
        queue.push_back(init);
        let mut steps = Vec::new();
        let mut next = Vec::new();
        while let Some(state) = queue.pop_front() {
            steps.clear();
            self.sys.enabled_steps(&state, &mut steps);
            for step in &steps {
                let choice: SmallVec<[Option<usize>; 6]> = step
                    .touched
                    .iter()
                    .map(|c| self.index[c.index()].get(&state[c.index()]).map(|&i| i as usize))
                    .collect();
                let key = (
                    step.action,
                    choice.iter().map(|c| c.unwrap_or(0) as u32).collect(),
                );
                if !self.sys.successor(&state, step, &mut next)? {
                    continue;
                }
                if fired.insert(key) {
                    let after: SmallVec<[Local; 6]> = step.touched.iter().map(|c| next[c.index()]).collect();
                    self.record(step, &choice, &after)?;
                }
                if !seen.contains(&next) {
                    if seen.len() >= max {
                        return Err(ModelError::new(format!(
                            "the program has more than {max} reachable states; raise the bound of ToNetOptions::reachable_only"
                        )));
                    }
                    seen.insert(next.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        Ok(())
    }

    fn record(&mut self, step: &Step, choice: &[Option<usize>], after: &[Local]) -> Result<(), ModelError> {
        if self.found.len() >= self.opts.max_transitions {
            return Err(ModelError::new(format!(
                "the net would have more than {} transitions; shrink the model's parameters (or raise ToNetOptions::max_transitions)",
                self.opts.max_transitions
            )));
        }
        let mut f = Found {
            action: step.action,
            touched: step.touched.iter().copied().collect(),
            before: choice.iter().map(|c| c.unwrap_or(0) as u32).collect(),
            after: SmallVec::new(),
        };
        for (pos, c) in step.touched.iter().enumerate() {
            let ci = c.index();
            let l = after[pos];
            let idx = match self.index[ci].get(&l) {
                Some(&i) => i,
                None => {
                    if self.lists[ci].len() >= self.opts.max_local_states {
                        return Err(ModelError::new(format!(
                            "component {} has more than {} local states; the net export needs small domains (shrink the model's parameters and variable ranges, raise ToNetOptions::max_local_states, or export the reachable states only)",
                            self.sys.component_name(*c),
                            self.opts.max_local_states
                        )));
                    }
                    let i = self.lists[ci].len() as u32;
                    self.lists[ci].push(l);
                    self.index[ci].insert(l, i);
                    i
                }
            };
            f.after.push(idx);
        }
        self.found.push(f);
        Ok(())
    }

    fn build(self, program: &Program) -> Result<Net, ModelError> {
        let sys = self.sys;
        let mut net = Net {
            name: Some(program.name.clone()),
            ..Net::default()
        };
        let clean = |s: String| s.replace('"', "'");
        let mut place_of: Vec<Vec<PlaceId>> = Vec::with_capacity(self.lists.len());
        let mut units = vec![Unit {
            id: "u0".into(),
            places: Vec::new(),
            subunits: Vec::new(),
        }];
        for (ci, list) in self.lists.iter().enumerate() {
            let c = CompId(ci as u32);
            let cname = sys.component_name(c);
            let mut places = Vec::with_capacity(list.len());
            for (k, l) in list.iter().enumerate() {
                let id = format!("p{}", net.places.len());
                let name = clean(format!("{cname}: {}", state_name(sys, c, *l)));
                places.push(net.add_place(id, Some(name), (k == 0) as u32));
            }
            units.push(Unit {
                id: format!("u{}", units.len()),
                places: places.clone(),
                subunits: Vec::new(),
            });
            place_of.push(places);
        }
        let ninst = program.instances.len();
        // Termination flags: (final place, busy place) per process.
        let mut flags: Vec<(PlaceId, PlaceId)> = Vec::new();
        if self.opts.termination_loop {
            for ci in 0..ninst {
                let c = CompId(ci as u32);
                let fin = sys.is_final(c, self.lists[ci][0]);
                let name = sys.component_name(c);
                let f = net.add_place(
                    format!("p{}", net.places.len()),
                    Some(clean(format!("{name}.final"))),
                    fin as u32,
                );
                let b = net.add_place(
                    format!("p{}", net.places.len()),
                    Some(clean(format!("{name}.busy"))),
                    !fin as u32,
                );
                units.push(Unit {
                    id: format!("u{}", units.len()),
                    places: vec![f, b],
                    subunits: Vec::new(),
                });
                flags.push((f, b));
            }
        }
        let names = self.transition_names();
        for (f, name) in self.found.iter().zip(names) {
            let t = net.add_transition(format!("t{}", net.transitions.len()), Some(clean(name)));
            for (pos, c) in f.touched.iter().enumerate() {
                let ci = c.index();
                let pb = place_of[ci][f.before[pos] as usize];
                let pa = place_of[ci][f.after[pos] as usize];
                net.add_pre(t, pb, 1);
                net.add_post(t, pa, 1);
                if self.opts.termination_loop && ci < ninst {
                    let fb = sys.is_final(*c, self.lists[ci][f.before[pos] as usize]);
                    let fa = sys.is_final(*c, self.lists[ci][f.after[pos] as usize]);
                    if fb != fa {
                        let (fin, busy) = flags[ci];
                        net.add_pre(t, if fb { fin } else { busy }, 1);
                        net.add_post(t, if fa { fin } else { busy }, 1);
                    }
                }
            }
        }
        if self.opts.termination_loop && !flags.is_empty() {
            let t = net.add_transition(format!("t{}", net.transitions.len()), Some("terminated".into()));
            for (fin, _) in &flags {
                net.add_pre(t, *fin, 1);
                net.add_post(t, *fin, 1);
            }
        }
        unique_names(net.places.iter_mut().map(|p| &mut p.name));
        unique_names(net.transitions.iter_mut().map(|t| &mut t.name));
        let subunits = (1..units.len()).collect();
        units[0].subunits = subunits;
        net.nupn = Some(Nupn {
            units,
            root: 0,
            safe: true,
        });
        Ok(net)
    }

    /// One name per transition, each saying which process takes the step and what it does
    /// (`phil[0]: lock fork[0] at 10:9`), and told apart from the other transitions of the
    /// same step by the before-states that differ among them (`with i=1` for the process's
    /// own locals, `when x=2` for the other components), then, where those agree, by the
    /// after-states (`to phil[0]=…`).
    fn transition_names(&self) -> Vec<String> {
        let sys = self.sys;
        let mut names: Vec<String> = self
            .found
            .iter()
            .map(|f| {
                let action = sys.action_name(f.action);
                match sys.action_owner(f.action) {
                    Some(owner) => format!("{}: {action}", sys.component_name(owner)),
                    None => action,
                }
            })
            .collect();
        self.tell_apart(
            &mut names,
            |f| &f.before,
            |f, c, l| {
                let owner = sys.action_owner(f.action) == Some(c);
                match sys.instance_of(c).filter(|_| owner) {
                    Some(inst) => {
                        let locals = sys.locals_text(inst, l);
                        let own = if locals.is_empty() {
                            state_name(sys, c, l)
                        } else {
                            locals
                        };
                        (" with ", own)
                    }
                    None => (
                        " when ",
                        format!("{}={}", sys.component_name(c), state_name(sys, c, l)),
                    ),
                }
            },
        );
        self.tell_apart(
            &mut names,
            |f| &f.after,
            |_, c, l| {
                (
                    " to ",
                    format!("{}={}", sys.component_name(c), state_name(sys, c, l)),
                )
            },
        );
        names
    }

    /// Appends to every name that several transitions share what tells them apart: the
    /// states (before or after, as `states` picks) of the components that differ among
    /// them, each given as `describe` words it, parts of one word joined by commas.
    fn tell_apart(
        &self,
        names: &mut [String],
        states: impl Fn(&Found) -> &SmallVec<[u32; 6]>,
        describe: impl Fn(&Found, CompId, Local) -> (&'static str, String),
    ) {
        let mut groups: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for (i, name) in names.iter().enumerate() {
            groups.entry(name.clone()).or_default().push(i);
        }
        let mut groups: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
        // The order of the additions does not matter (each touches its own names), but a
        // fixed one keeps the export deterministic to read in a debugger.
        groups.sort_unstable();
        for group in groups {
            let differing = self.differing(&group, &states);
            for &i in &group {
                let f = &self.found[i];
                let mut words: Vec<(&'static str, Vec<String>)> = Vec::new();
                for (c, s) in f.touched.iter().zip(states(f).iter()) {
                    if !differing.contains(c) {
                        continue;
                    }
                    let (word, part) = describe(f, *c, self.lists[c.index()][*s as usize]);
                    match words.iter_mut().find(|(w, _)| *w == word) {
                        Some((_, parts)) => parts.push(part),
                        None => words.push((word, vec![part])),
                    }
                }
                for (word, parts) in words {
                    names[i].push_str(word);
                    names[i].push_str(&parts.join(", "));
                }
            }
        }
    }

    /// The components whose state (before or after, as `states` picks) is not the same in
    /// every transition of `group`, or that only some of them touch.
    fn differing(&self, group: &[usize], states: &impl Fn(&Found) -> &SmallVec<[u32; 6]>) -> Vec<CompId> {
        let mut seen: FxHashMap<CompId, (Option<u32>, usize)> = FxHashMap::default();
        for &i in group {
            let f = &self.found[i];
            for (c, s) in f.touched.iter().zip(states(f).iter()) {
                let e = seen.entry(*c).or_insert((Some(*s), 0));
                if e.0 != Some(*s) {
                    e.0 = None;
                }
                e.1 += 1;
            }
        }
        let mut out: Vec<CompId> = seen
            .into_iter()
            .filter(|(_, (same, n))| same.is_none() || *n < group.len())
            .map(|(c, _)| c)
            .collect();
        out.sort_unstable();
        out
    }
}

/// The name of local state `l` of component `c` in the net. A process has one fault state
/// per fault message, so the message tells them apart where the system's name of the state
/// only says `fault`.
fn state_name(sys: &super::ProgramSystem<'_>, c: CompId, l: Local) -> String {
    match sys.fault(c, l) {
        Some(what) => format!("fault: {what}"),
        None => sys.local_name(c, l),
    }
}

/// Makes the names unique by numbering the second and later bearers of a name (`… #2`).
/// The names built above already differ wherever the states or steps do; this only guards
/// the net's invariant that a name identifies one node, should two steps ever read alike.
fn unique_names<'n>(names: impl Iterator<Item = &'n mut Option<String>>) {
    let mut count: FxHashMap<String, usize> = FxHashMap::default();
    for name in names.flatten() {
        let n = count.entry(name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            let mut k = *n;
            let mut fresh = format!("{name} #{k}");
            while count.contains_key(&fresh) {
                k += 1;
                fresh = format!("{name} #{k}");
            }
            count.insert(fresh.clone(), 1);
            *name = fresh;
        }
    }
}
