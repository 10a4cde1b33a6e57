//! Deciders of hardness instances with qpor's own algorithms (`qpor decide`).
//!
//! - [`decide_alt`] answers "is there an alternative to D after C?" with
//!   [`alternative`] in [`AltMode::Optimal`] — the comb over every unjustified event of D,
//!   exactly as Algorithm 1 calls it — on an explicit PES ([`PesUnfolding`]) or on the
//!   program-like unfolding of a program ([`ProgramUnfolding`]).
//! - [`super::cex::decide_cex`] answers "does cex(C) hold a t*-event?" with the general
//!   backend's co-set search.
//!
//! # What U holds for a program
//! `alternative()` searches the events already in U, as it does inside Algorithm 1, so the
//! decider must first put there the events an alternative may need. `enabled()` at C only
//! creates D and the first step of every thread; the spikes of D — acquisitions of the
//! clause locks by literal threads — exist only once those threads have run. The decider
//! therefore adds the events of *canonical runs*: for a choice of one process per variable
//! among those the `means` annotations name, the chosen processes run one after the
//! other, each as far as it can. It suffices that U holds one canonical run conflicting
//! with every event of D: if σ satisfies φ, the canonical run of σ's threads (in any order)
//! is one — for each clause its first acquisition there has no lock predecessor — and its
//! events form a conflict-free combination of the comb. There are 2ⁿ canonical runs, so
//! the decider does not build them all: it searches them depth-first, with `enabled()`,
//! `push` and `pop` only and without reading the formula, deciding first the process that
//! can still reach the D-event with the fewest such processes left, abandoning a run that
//! leaves some D-event out of reach, and stopping at the first run that conflicts with all
//! of D (`canonical_runs`). U then holds that run and the abandoned ones. Whatever U holds,
//! the answer is sound (an alternative within U is one in the whole unfolding, whose
//! relations do not depend on U); it is complete on the Theorem 4.2 programs, where what a
//! process reaches does not depend on when it runs. The comb then decides on U.
//!
//! # Invariants
//! - The returned alternative is disjoint from D and C ∪ J is a configuration (asserted
//!   by `alternative()` in debug builds).

use super::instance::{Instance, InstanceKind, Literal, ProgramInstance};
use crate::qpor::alt::{alternative, AltMode, AltScratch, AltStats};
use crate::system::{ActionId, CompId, Step, System, TouchSet};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::pes::{Pes, PesEventId, PesUnfolding};
use crate::unfold::program::{ProgramOptions, ProgramUnfolding};
use crate::unfold::{EventId, UnfoldError, Unfolding};
use hashbrown::{HashMap, HashSet};
use std::fmt;
use std::time::Instant;

/// Options of the deciders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecideOptions {
    /// How alternatives are computed; the question is answered by [`AltMode::Optimal`]
    /// (the default), the other modes are for measurements.
    pub mode: AltMode,
    /// Program instances: give up after creating this many events.
    pub max_events: Option<u64>,
}

impl Default for DecideOptions {
    fn default() -> Self {
        DecideOptions {
            mode: AltMode::Optimal,
            max_events: None,
        }
    }
}

/// Why an instance could not be decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecideError {
    /// The instance asks another question (an Alt decider on a net, a cex decider on a
    /// PES or program).
    WrongQuestion {
        /// The instance's kind.
        kind: InstanceKind,
        /// The question the decider answers (`alt`, `cex`).
        question: &'static str,
    },
    /// The instance is malformed beyond what its reader checks (a process of D with no
    /// step at C, a PES without a set D).
    Instance(String),
    /// The unfolding failed or reached its event limit.
    Unfold(UnfoldError),
}

impl fmt::Display for DecideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecideError::WrongQuestion { kind, question } => write!(
                f,
                "a {kind} instance does not ask `{question}` (pes and program instances ask `alt`, net instances `cex`)"
            ),
            DecideError::Instance(m) => f.write_str(m),
            DecideError::Unfold(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DecideError {}

impl From<UnfoldError> for DecideError {
    fn from(e: UnfoldError) -> Self {
        DecideError::Unfold(e)
    }
}

/// An event of a witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessEvent {
    /// PES: the event's name; program: its action (`pos_1: lock v[1] at 12:5`).
    pub name: String,
    /// PES: the event's label.
    pub label: Option<String>,
    /// Programs: the step (action and touched components), for replaying the witness.
    pub step: Option<Step>,
    /// Programs: for every touched component, parallel to `step.touched`, the position of
    /// the event's predecessor there in C followed by the alternative (`None` for ⊥).
    pub preds: Vec<Option<usize>>,
}

/// The answer to "is there an alternative to D after C?".
#[derive(Clone, Debug)]
pub struct AltAnswer {
    /// Whether an alternative exists (in U, which is enough: see the module docs).
    pub exists: bool,
    /// The events of C, in firing order.
    pub config: Vec<WitnessEvent>,
    /// The events of D, in the instance's order.
    pub d: Vec<WitnessEvent>,
    /// J \ C, causes before effects (empty when there is none).
    pub alternative: Vec<WitnessEvent>,
    /// The assignment read back from C ∪ J where the instance says what events mean:
    /// `assignment[v - 1]` is xᵥ, `None` when nothing in C ∪ J decides it (any value
    /// will do).
    pub assignment: Option<Vec<Option<bool>>>,
    /// Counters of the Alt call.
    pub alt: AltStats,
    /// Events in U when Alt ran.
    pub events: u64,
    /// Seconds spent building U (and C, D).
    pub build_seconds: f64,
    /// Seconds spent in Alt.
    pub alt_seconds: f64,
}

impl AltAnswer {
    /// The assignment with undecided variables set to false.
    pub fn completed_assignment(&self) -> Option<Vec<bool>> {
        self.assignment
            .as_ref()
            .map(|a| a.iter().map(|v| v.unwrap_or(false)).collect())
    }
}

/// Answers the Alt question of a PES or program instance.
pub fn decide_alt(instance: &Instance, opts: &DecideOptions) -> Result<AltAnswer, DecideError> {
    match instance {
        Instance::Pes(pes) => decide_alt_pes(pes, opts),
        Instance::Program(p) => decide_alt_program(p, opts),
        Instance::Net(_) => Err(DecideError::WrongQuestion {
            kind: InstanceKind::Net,
            question: "alt",
        }),
    }
}

/// Records literal meanings into an assignment, marking contradictions as undecided.
pub(crate) struct AssignmentReader {
    values: Vec<Option<bool>>,
    contradicted: Vec<bool>,
}

impl AssignmentReader {
    pub(crate) fn new(vars: usize) -> Self {
        AssignmentReader {
            values: vec![None; vars],
            contradicted: vec![false; vars],
        }
    }

    pub(crate) fn note(&mut self, l: Literal) {
        let i = l.var as usize - 1;
        match self.values[i] {
            Some(v) if v != l.value => self.contradicted[i] = true,
            _ => self.values[i] = Some(l.value),
        }
    }

    pub(crate) fn finish(mut self) -> Vec<Option<bool>> {
        for (v, c) in self.values.iter_mut().zip(&self.contradicted) {
            if *c {
                *v = None;
            }
        }
        self.values
    }
}

/// The Alt question on an explicit PES: its set `D` after its set `C` (∅ when absent).
pub fn decide_alt_pes(pes: &Pes, opts: &DecideOptions) -> Result<AltAnswer, DecideError> {
    let start = Instant::now();
    let d_set = pes.set("D").ok_or_else(|| {
        DecideError::Instance("the PES has no set D: nothing to find an alternative to".into())
    })?;
    let mut c_set: Vec<PesEventId> = pes.set("C").map(|s| s.to_vec()).unwrap_or_default();
    // Push C causes first (the reader checked that it is a configuration).
    c_set.sort_by_key(|&e| (pes.causes(e).count_ones(..), e.0));
    let mut unf = PesUnfolding::new(pes);
    for &e in &c_set {
        unf.push(EventId(e.0));
    }
    let d: Vec<EventId> = d_set.iter().map(|e| EventId(e.0)).collect();
    let in_d: HashSet<EventId> = d.iter().copied().collect();
    let build_seconds = start.elapsed().as_secs_f64();
    let (found, stats, alt_seconds) = timed_alternative(&mut unf, &d, &in_d, opts.mode);
    let event = |e: PesEventId| WitnessEvent {
        name: pes.name(e).to_string(),
        label: pes.label(e).map(str::to_string),
        step: None,
        preds: Vec::new(),
    };
    let j: Vec<PesEventId> = found
        .as_ref()
        .map(|a| a.iter().map(|e| PesEventId(e.0)).collect())
        .unwrap_or_default();
    let meanings: Vec<Option<Literal>> = pes
        .events()
        .map(|e| pes.label(e).and_then(Literal::parse))
        .collect();
    let vars = meanings.iter().flatten().map(|l| l.var).max().unwrap_or(0) as usize;
    let assignment = found.as_ref().map(|_| {
        let mut r = AssignmentReader::new(vars);
        for e in c_set.iter().chain(&j) {
            if let Some(l) = meanings[e.index()] {
                r.note(l);
            }
        }
        r.finish()
    });
    Ok(AltAnswer {
        exists: found.is_some(),
        config: c_set.iter().map(|&e| event(e)).collect(),
        d: d_set.iter().map(|&e| event(e)).collect(),
        alternative: j.iter().map(|&e| event(e)).collect(),
        assignment,
        alt: stats,
        events: pes.len() as u64,
        build_seconds,
        alt_seconds,
    })
}

/// The event owned by process `p` among `events`.
fn owned_by<S: System + ?Sized>(
    sys: &S,
    unf: &ProgramUnfolding<'_, S>,
    events: &[EventId],
    p: CompId,
) -> Option<EventId> {
    events
        .iter()
        .copied()
        .find(|&e| sys.action_owner(unf.action(e)) == Some(p))
}

/// The Alt question on a program instance (see the module docs for what U holds).
pub fn decide_alt_program(p: &ProgramInstance, opts: &DecideOptions) -> Result<AltAnswer, DecideError> {
    let start = Instant::now();
    let sys = p
        .program
        .system()
        .map_err(|e| DecideError::Instance(format!("the program cannot run: {e}")))?;
    let popts = ProgramOptions {
        cutoff: CutoffMode::None,
        max_events: opts.max_events,
        distances: None,
        canonical: None,
    };
    let mut unf = ProgramUnfolding::new(&sys, popts);
    let d = push_config_find_d(&sys, &mut unf, p)?;
    canonical_runs(&sys, &mut unf, &variable_groups(p), &d)?;
    let in_d: HashSet<EventId> = d.iter().copied().collect();
    let events = unf.stats().events_alive;
    let build_seconds = start.elapsed().as_secs_f64();

    let (found, stats, alt_seconds) = timed_alternative(&mut unf, &d, &in_d, opts.mode);

    let config: Vec<EventId> = unf.config().to_vec();
    let j = found.clone().unwrap_or_default();
    let all: Vec<EventId> = config.iter().chain(&j).copied().collect();
    let describe = |e: EventId| describe_program_event(&sys, &unf, e, &all);
    let vars = p.means.iter().map(|(_, l)| l.var).max().unwrap_or(0) as usize;
    let assignment = found.as_ref().map(|_| {
        let mut r = AssignmentReader::new(vars);
        for &e in &all {
            let owner = sys.action_owner(unf.action(e));
            for &(c, l) in &p.means {
                if Some(c) == owner {
                    r.note(l);
                }
            }
        }
        r.finish()
    });
    Ok(AltAnswer {
        exists: found.is_some(),
        config: config.iter().map(|&e| describe(e)).collect(),
        d: d.iter().map(|&e| describe(e)).collect(),
        alternative: j.iter().map(|&e| describe(e)).collect(),
        assignment,
        alt: stats,
        events,
        build_seconds,
        alt_seconds,
    })
}

/// Pushes the events of C (the next step of each listed process, in order) and returns
/// the events of D at C, without repeats.
fn push_config_find_d<S: System + ?Sized>(
    sys: &S,
    unf: &mut ProgramUnfolding<'_, S>,
    p: &ProgramInstance,
) -> Result<Vec<EventId>, DecideError> {
    let mut en = Vec::new();
    for &c in &p.config {
        en.clear();
        unf.enabled(&mut en)?;
        let e = owned_by(sys, unf, &en, c).ok_or_else(|| {
            DecideError::Instance(format!(
                "C: process {} has no enabled step after the {} before it",
                sys.component_name(c),
                unf.config().len()
            ))
        })?;
        unf.push(e);
    }
    en.clear();
    unf.enabled(&mut en)?;
    let mut d = Vec::with_capacity(p.d.len());
    for &c in &p.d {
        let e = owned_by(sys, unf, &en, c).ok_or_else(|| {
            DecideError::Instance(format!(
                "D: process {} has no enabled step at C, so no event of D",
                sys.component_name(c)
            ))
        })?;
        if !d.contains(&e) {
            d.push(e);
        }
    }
    Ok(d)
}

/// The processes the `means` annotations name, grouped per variable, in variable order.
fn variable_groups(p: &ProgramInstance) -> Vec<Vec<CompId>> {
    let mut groups: Vec<(u32, Vec<CompId>)> = Vec::new();
    for &(c, l) in &p.means {
        match groups.iter_mut().find(|(v, _)| *v == l.var) {
            Some((_, g)) => {
                if !g.contains(&c) {
                    g.push(c)
                }
            }
            None => groups.push((l.var, vec![c])),
        }
    }
    groups.sort_by_key(|(v, _)| *v);
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Event `e` of a program's witness, its predecessors given as positions in `listed`
/// (C followed by the alternative).
fn describe_program_event<S: System + ?Sized>(
    sys: &S,
    unf: &ProgramUnfolding<'_, S>,
    e: EventId,
    listed: &[EventId],
) -> WitnessEvent {
    let action: ActionId = unf.action(e);
    let mut touched = TouchSet::new();
    let mut preds = Vec::new();
    for (c, pred) in unf.preds(e) {
        touched.push(c);
        preds.push(if pred.is_none() {
            None
        } else {
            Some(listed.iter().position(|&x| x == pred).unwrap_or(usize::MAX))
        });
    }
    let owner = sys
        .action_owner(action)
        .map(|c| format!("{}: ", sys.component_name(c)))
        .unwrap_or_default();
    WitnessEvent {
        name: format!("{owner}{}", sys.action_name(action)),
        label: None,
        step: Some(Step { action, touched }),
        preds,
    }
}

/// Runs process `p` as far as it goes; returns how many events it pushed.
fn run_process<S: System + ?Sized>(
    sys: &S,
    unf: &mut ProgramUnfolding<'_, S>,
    p: CompId,
    en: &mut Vec<EventId>,
) -> Result<usize, DecideError> {
    let mut pushed = 0;
    loop {
        en.clear();
        unf.enabled(en)?;
        let Some(e) = owned_by(sys, unf, en, p) else {
            return Ok(pushed);
        };
        unf.push(e);
        pushed += 1;
    }
}

/// Which events of D a run puts in conflict with the configuration.
///
/// A run puts d[i] in conflict with the configuration iff one of its events is in
/// immediate conflict with d[i] (an event of C cannot be, C ∪ run being a configuration),
/// that is, shares a component and the predecessor there with d[i]: a table lookup per
/// event instead of a conflict test per D-event.
struct ConflictsWithD<'d> {
    d: &'d [EventId],
    /// The D-events (indices) per (component, predecessor there).
    d_at: HashMap<(CompId, EventId), Vec<usize>>,
}

impl<'d> ConflictsWithD<'d> {
    fn new<S: System + ?Sized>(unf: &ProgramUnfolding<'_, S>, d: &'d [EventId]) -> Self {
        let mut d_at: HashMap<(CompId, EventId), Vec<usize>> = HashMap::new();
        for (i, &x) in d.iter().enumerate() {
            for key in unf.preds(x) {
                d_at.entry(key).or_default().push(i);
            }
        }
        ConflictsWithD { d, d_at }
    }

    /// Sets `out` to the D-events (indices, maybe repeated) in conflict with the last
    /// `pushed` events of the configuration.
    fn hits<S: System + ?Sized>(&self, unf: &ProgramUnfolding<'_, S>, pushed: usize, out: &mut Vec<usize>) {
        out.clear();
        for &e in &unf.config()[unf.config().len() - pushed..] {
            for key in unf.preds(e) {
                if let Some(ds) = self.d_at.get(&key) {
                    out.extend(ds.iter().copied().filter(|&i| self.d[i] != e));
                }
            }
        }
    }
}

/// One decided group of [`canonical_runs`]: which one, its members in the order to try,
/// the next one, and how many events the current member pushed.
struct Level {
    group: usize,
    order: Vec<usize>,
    next: usize,
    pushed: usize,
}

impl Level {
    /// Group `group` of `members` processes, trying `first` first.
    fn new(group: usize, first: usize, members: usize) -> Level {
        let mut order: Vec<usize> = vec![first];
        order.extend((0..members).filter(|&m| m != first));
        Level {
            group,
            order,
            next: 0,
            pushed: 0,
        }
    }
}

/// For every D-event, the (group, member) pairs whose run alone from C conflicts with it.
fn reachers<S: System + ?Sized>(
    sys: &S,
    unf: &mut ProgramUnfolding<'_, S>,
    groups: &[Vec<CompId>],
    conflicts: &ConflictsWithD,
    en: &mut Vec<EventId>,
) -> Result<Vec<Vec<(usize, usize)>>, DecideError> {
    let mut hit = Vec::new();
    let mut reachers: Vec<Vec<(usize, usize)>> = vec![Vec::new(); conflicts.d.len()];
    for (g, members) in groups.iter().enumerate() {
        for (m, &p) in members.iter().enumerate() {
            let pushed = run_process(sys, unf, p, en)?;
            conflicts.hits(unf, pushed, &mut hit);
            for &i in &hit {
                if reachers[i].last() != Some(&(g, m)) {
                    reachers[i].push((g, m));
                }
            }
            for _ in 0..pushed {
                unf.pop();
            }
        }
    }
    Ok(reachers)
}

/// The next (group, member) to run: a member of an open group that reaches the D-event
/// not yet hit with the fewest open reachers. `Ok(None)`: every D-event is hit (the run
/// covers D); `Err(())`: some D-event is out of reach (the run is dead).
fn choose_next(
    reachers: &[Vec<(usize, usize)>],
    open: &[bool],
    hit_by: &[Option<usize>],
) -> Result<Option<(usize, usize)>, ()> {
    let mut best: Option<(usize, usize)> = None;
    for (i, r) in reachers.iter().enumerate() {
        if hit_by[i].is_some() {
            continue;
        }
        let left = r.iter().filter(|&&(g, _)| open[g]).count();
        if left == 0 {
            return Err(());
        }
        if best.is_none_or(|(l, _)| left < l) {
            best = Some((left, i));
        }
    }
    Ok(best.map(|(_, i)| {
        let &(g, m) = reachers[i].iter().find(|&&(g, _)| open[g]).unwrap();
        (g, m)
    }))
}

/// Adds to U the events of canonical runs (module docs) until one of them conflicts with
/// every event of `d` or none can; the configuration is C again at the end.
///
/// A depth-first search over the groups, one chosen process per group run as far as it
/// goes. It decides next the group of a process that can still reach the D-event with the
/// fewest such processes left (one left: that choice is forced), and abandons a run as
/// soon as some D-event is neither in conflict with it nor reachable by a process of the
/// groups still open. What a process can reach is what its run alone from C conflicts
/// with; on the Theorem 4.2 programs that is its clause locks, wherever it runs, so this
/// is DPLL with unit propagation and the canonical run of a satisfying assignment is never
/// abandoned.
fn canonical_runs<S: System + ?Sized>(
    sys: &S,
    unf: &mut ProgramUnfolding<'_, S>,
    groups: &[Vec<CompId>],
    d: &[EventId],
) -> Result<(), DecideError> {
    let base = unf.config().len();
    let mut en = Vec::new();
    let conflicts = ConflictsWithD::new(unf, d);
    let reachers = reachers(sys, unf, groups, &conflicts, &mut en)?;
    let mut hit = Vec::new();
    // hit_by[i]: the level whose run put d[i] in conflict with the configuration.
    let mut hit_by: Vec<Option<usize>> = vec![None; d.len()];
    let mut open = vec![true; groups.len()];
    let mut stack: Vec<Level> = Vec::new();
    match choose_next(&reachers, &open, &hit_by) {
        Ok(Some((g, m))) => {
            open[g] = false;
            stack.push(Level::new(g, m, groups[g].len()));
        }
        // No D-event, or one no process can reach: nothing to run.
        Ok(None) | Err(()) => return Ok(()),
    }
    while !stack.is_empty() {
        let depth = stack.len() - 1;
        let top = &mut stack[depth];
        // Undo the previous member's run at this level.
        for _ in 0..top.pushed {
            unf.pop();
        }
        top.pushed = 0;
        for h in hit_by.iter_mut() {
            if *h == Some(depth) {
                *h = None;
            }
        }
        if top.next == top.order.len() {
            open[top.group] = true;
            stack.pop();
            continue;
        }
        let p = groups[top.group][top.order[top.next]];
        top.next += 1;
        let pushed = run_process(sys, unf, p, &mut en)?;
        top.pushed = pushed;
        conflicts.hits(unf, pushed, &mut hit);
        for &i in &hit {
            if hit_by[i].is_none() {
                hit_by[i] = Some(depth);
            }
        }
        match choose_next(&reachers, &open, &hit_by) {
            Ok(Some((g, m))) => {
                open[g] = false;
                stack.push(Level::new(g, m, groups[g].len()));
            }
            Ok(None) => {
                // This run conflicts with all of D: U holds an alternative.
                while unf.config().len() > base {
                    unf.pop();
                }
                return Ok(());
            }
            Err(()) => {}
        }
    }
    Ok(())
}

/// Alt(C, D) on `unf` in `mode`, with its statistics and the seconds it took.
fn timed_alternative<U: Unfolding + ?Sized>(
    unf: &mut U,
    d: &[EventId],
    in_d: &HashSet<EventId>,
    mode: AltMode,
) -> (Option<Vec<EventId>>, AltStats, f64) {
    let t = Instant::now();
    let mut stats = AltStats::default();
    let found = alternative(unf, d, in_d, mode, &mut stats, &mut AltScratch::default());
    (found, stats, t.elapsed().as_secs_f64())
}
