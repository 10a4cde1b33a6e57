//! The cex decider behind `qpor decide cex` (docs/paper.md#theorem-43): does cex(C)
//! hold an event of the target transition t*?
//!
//! The question is answered by the general backend ([`GeneralUnfolding`], branching
//! processes of P/T nets with individual tokens): C is built by firing the instance's
//! sequence through [`Unfolding::enabled`] and [`Unfolding::push`], then
//! [`Unfolding::add_conflicting_extensions`] runs the backend's co-set search, and the
//! answer is read off the events it created.
//!
//! # The occurrence net of C, on this side
//! A witness is the t*-event (t*, X) and its co-set X. The backend's [`Unfolding`] trait
//! names events, not conditions, so the decider keeps its own *occurrence net of C*: the
//! firing sequence replayed with individual tokens (each firing takes the oldest tokens
//! of a place), every condition named by its place, the firing that produced it (or
//! none: an initial token) and the firing of C that consumed it (or none). Each firing of
//! C is matched to the backend's event with the same transition and the same causes in C,
//! so the two nets are the same. X is then found in this net among the conditions that
//! the backend's event allows — produced by one of its causes, consumed (if at all) by
//! one of the events of C it conflicts with directly (its other consumers, which is what
//! the general backend's [`Unfolding::immediate_conflicts`] lists) — with the backend's
//! own search routine; a disagreement is reported, not hidden.
//!
//! # Invariants
//! - `causes[k]` is the set of firings of C strictly below firing k.
//! - The co-set reported is pairwise concurrent in the occurrence net of C, matches •t*
//!   with its weights and holds a condition consumed in C.

use super::decide::{AssignmentReader, DecideError};
use super::instance::{Instance, NetInstance};
use crate::system::ActionId;
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::general::net::Arcs;
use crate::unfold::general::{GeneralOptions, GeneralUnfolding};
use crate::unfold::{EventId, Unfolding};
use fixedbitset::FixedBitSet;
use std::time::Instant;

/// A condition of the occurrence net of C (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// Its place (the name the backend gives it: a read arc's self-loop and a source
    /// transition's virtual place included).
    pub place: String,
    /// The position in C's firing sequence of the firing that produced it; `None` for an
    /// initial token.
    pub producer: Option<usize>,
    /// The position of the firing of C that consumed it; `None` when it is still in the
    /// cut of C.
    pub consumer: Option<usize>,
}

/// The witness of a yes: a t*-event of cex(C).
#[derive(Clone, Debug)]
pub struct CexWitness {
    /// The event's co-set X, ordered by place as •t* lists them.
    pub coset: Vec<Condition>,
    /// The positions of the firings of C below the event (its history minus itself).
    pub causes: Vec<usize>,
    /// The positions of the firings of C that consume a condition of X: the events of C
    /// the t*-event is in conflict with, which make it a conflicting extension.
    pub conflicts: Vec<usize>,
}

/// The answer to "does cex(C) hold an event of t*?".
#[derive(Clone, Debug)]
pub struct CexAnswer {
    /// Whether a t*-event is in cex(C).
    pub exists: bool,
    /// The transitions of C's firing sequence (their ids), in order.
    pub config: Vec<String>,
    /// t*'s id.
    pub target: String,
    /// Nodes of the co-set search (conditions tried).
    pub search_nodes: u64,
    /// The general backend's own cex(C) (`None` when it would exceed the event limit).
    pub backend: Option<BackendCex>,
    /// Whether every firing of C matched an event of the backend with the same causes.
    pub matched_backend: bool,
    /// The first co-set found, as a t*-event of cex(C) (on yes).
    pub witness: Option<CexWitness>,
    /// The assignment read back from the co-set where the instance says what consumed
    /// conditions mean: `assignment[v - 1]` is xᵥ, `None` when X does not decide it.
    pub assignment: Option<Vec<Option<bool>>>,
    /// Events in U at the end.
    pub events: u64,
    /// Seconds spent building C.
    pub build_seconds: f64,
    /// Seconds spent in the co-set search.
    pub cex_seconds: f64,
}

/// The general backend's cex(C), computed by [`Unfolding::add_conflicting_extensions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendCex {
    /// |cex(C)| as the backend counts it.
    pub cex_events: u64,
    /// How many events of cex(C) are t*-events.
    pub target_events: u64,
}

/// Options of the cex decider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CexOptions {
    /// Give up after creating this many events while building C; the backend's cex(C)
    /// stops there too (and is then left out of the answer).
    pub max_events: Option<u64>,
    /// Run the backend's full cex(C) too, as a cross-check, unless t* could have more than
    /// this many co-sets (a bound: the product over •t* of the ways to pick the tokens of
    /// each place; `Some(0)`: never; `None`: always). cex(C) holds one t*-event per co-set,
    /// so it is exponential in the formula; the default is 200 000. The backend then
    /// stops as soon as it has made this many events beyond those of C (the cross-check is
    /// left out), before any more co-sets are searched.
    pub backend_limit: Option<u64>,
}

impl Default for CexOptions {
    fn default() -> Self {
        CexOptions {
            max_events: None,
            backend_limit: Some(200_000),
        }
    }
}

/// The occurrence net of C's firing sequence, with individual tokens (module docs).
struct ConfigNet {
    /// (place, producer, consumer) of every condition.
    conds: Vec<(u32, Option<usize>, Option<usize>)>,
    /// `causes[k]`: the firings strictly below firing k.
    causes: Vec<FixedBitSet>,
}

impl ConfigNet {
    /// Replays `seq` on the token net (`pre`, `post` per transition, `initial` per place).
    fn new(pre: &[Arcs], post: &[Arcs], initial: &[u32], seq: &[u32]) -> Result<ConfigNet, String> {
        let n = seq.len();
        let mut conds: Vec<(u32, Option<usize>, Option<usize>)> = Vec::new();
        let mut avail: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); initial.len()];
        for (p, &m) in initial.iter().enumerate() {
            for _ in 0..m {
                avail[p].push_back(conds.len());
                conds.push((p as u32, None, None));
            }
        }
        let mut causes: Vec<FixedBitSet> = Vec::with_capacity(n);
        for (k, &t) in seq.iter().enumerate() {
            let mut below = FixedBitSet::with_capacity(n);
            for &(p, w) in &pre[t as usize] {
                for _ in 0..w {
                    let c = avail[p as usize]
                        .pop_front()
                        .ok_or_else(|| format!("firing {} is not enabled", k + 1))?;
                    conds[c].2 = Some(k);
                    if let Some(q) = conds[c].1 {
                        below.insert(q);
                        below.union_with(&causes[q]);
                    }
                }
            }
            causes.push(below);
            for &(p, w) in &post[t as usize] {
                for _ in 0..w {
                    avail[p as usize].push_back(conds.len());
                    conds.push((p, Some(k), None));
                }
            }
        }
        Ok(ConfigNet { conds, causes })
    }

    /// Whether condition `x` is causally below condition `y`.
    fn precedes(&self, x: usize, y: usize) -> bool {
        match (self.conds[x].2, self.conds[y].1) {
            (Some(c), Some(p)) => c == p || self.causes[p].contains(c),
            _ => false,
        }
    }

    fn co(&self, x: usize, y: usize) -> bool {
        !self.precedes(x, y) && !self.precedes(y, x)
    }
}

/// Answers the cex question of a net instance with the general backend.
pub fn decide_cex(instance: &Instance, opts: &CexOptions) -> Result<CexAnswer, DecideError> {
    match instance {
        Instance::Net(n) => decide_cex_net(n, opts),
        other => Err(DecideError::WrongQuestion {
            kind: other.kind(),
            question: "cex",
        }),
    }
}

/// C in the general backend: every firing of `seq` matched to an enabled event with the
/// same transition and the same causes in C as in `cnet` (the first event of the
/// transition when none has them; the flag says whether all matched).
fn build_config(
    inst: &NetInstance,
    max_events: Option<u64>,
    seq: &[u32],
    cnet: Option<&ConfigNet>,
) -> Result<(GeneralUnfolding, bool), DecideError> {
    let gopts = GeneralOptions {
        cutoff: CutoffMode::None,
        max_events,
        erv_ties: false,
    };
    let mut unf = GeneralUnfolding::new(&inst.net, gopts);
    let mut en = Vec::new();
    let mut matched_all = true;
    for (k, &t) in seq.iter().enumerate() {
        en.clear();
        unf.enabled(&mut en)?;
        let cands: Vec<EventId> = en
            .iter()
            .copied()
            .filter(|&e| unf.action(e) == ActionId(t))
            .collect();
        let config: Vec<EventId> = unf.config().to_vec();
        let same_causes = |e: EventId| {
            cnet.is_some_and(|cnet| {
                config
                    .iter()
                    .enumerate()
                    .all(|(i, &f)| unf.causally_le(f, e) == cnet.causes[k].contains(i))
            })
        };
        let chosen = match cands.iter().copied().find(|&e| same_causes(e)) {
            Some(e) => e,
            None => {
                matched_all = false;
                *cands.first().ok_or_else(|| {
                    DecideError::Instance(format!(
                        "C: `{}` (firing {}) is not enabled",
                        inst.net.transitions[t as usize].id,
                        k + 1
                    ))
                })?
            }
        };
        unf.push(chosen);
    }
    Ok((unf, matched_all))
}

/// The cex question on a net instance (see the module docs).
pub fn decide_cex_net(inst: &NetInstance, opts: &CexOptions) -> Result<CexAnswer, DecideError> {
    let start = Instant::now();
    let seq: Vec<u32> = inst.config.iter().map(|t| t.0).collect();
    let cnet = {
        let tn = crate::unfold::general::net::TokenNet::new(&inst.net);
        ConfigNet::new(&tn.pre, &tn.post, &tn.initial, &seq)
            .map_err(|m| DecideError::Instance(format!("C: {m} in the token net")))?
    };
    let tid = |t: u32| inst.net.transitions[t as usize].id.clone();
    let (mut unf, matched_all) = build_config(inst, opts.max_events, &seq, Some(&cnet))?;
    let build_seconds = start.elapsed().as_secs_f64();
    let target = inst.target.0;
    let pre = unf.token_net().pre[target as usize].clone();

    // The decision: the first co-set for t* holding a condition consumed in C.
    let t0 = Instant::now();
    let mut nodes = 0u64;
    let found = first_coset(&cnet, &pre, &seq, target, &mut nodes);
    let cex_seconds = t0.elapsed().as_secs_f64();

    // The backend's own cex(C), when it fits under the limits. The backend makes each
    // event as soon as its co-set is found and stops at its event limit, so the limits
    // bound its memory. Its search for t* also *visits* up to the product over •t* of the
    // ways to pick each place's tokens among C's conditions of that place, creating nothing
    // on the unsatisfiable instances: that product is the gate `backend_limit` puts on the
    // search's time. Past the gate, the backend may make `backend_limit` events beyond C's
    // (on top of `max_events`), which holds every t*-event when the gate is passed.
    let bound = pre.iter().fold(1u64, |acc, &(q, w)| {
        let k = cnet.conds.iter().filter(|c| c.0 == q).count() as u64;
        acc.saturating_mul(binomial(k, w as u64))
    });
    let backend = if opts.backend_limit.is_some_and(|l| bound > l) {
        None
    } else {
        if let Some(l) = opts.backend_limit {
            let cap = unf.stats().events_created.saturating_add(l);
            unf.set_max_events(Some(opts.max_events.map_or(cap, |m| m.min(cap))));
        }
        backend_cex(&mut unf, target)?
    };
    if let Some(b) = &backend {
        if (b.target_events > 0) != found.is_some() {
            return Err(DecideError::Instance(format!(
                "[qpor internal bug] the general backend's cex(C) has {} t*-events but the co-set search \
                 says {}",
                b.target_events,
                if found.is_some() { "yes" } else { "no" }
            )));
        }
    }
    let mut answer = CexAnswer {
        exists: found.is_some(),
        config: seq.iter().map(|&t| tid(t)).collect(),
        target: tid(target),
        search_nodes: nodes,
        backend,
        witness: None,
        assignment: None,
        events: unf.stats().events_alive,
        build_seconds,
        cex_seconds,
        matched_backend: matched_all,
    };
    let Some(x) = found else {
        return Ok(answer);
    };
    let mut conflicts: Vec<usize> = x.iter().filter_map(|&c| cnet.conds[c as usize].2).collect();
    conflicts.sort_unstable();
    conflicts.dedup();
    let mut below = FixedBitSet::with_capacity(seq.len());
    for &c in &x {
        if let Some(k) = cnet.conds[c as usize].1 {
            below.insert(k);
            below.union_with(&cnet.causes[k]);
        }
    }
    let causes: Vec<usize> = below.ones().collect();
    let names = &unf.token_net().names;
    let coset: Vec<Condition> = x
        .iter()
        .map(|&c| {
            let (p, producer, consumer) = cnet.conds[c as usize];
            Condition {
                place: names[p as usize].clone(),
                producer,
                consumer,
            }
        })
        .collect();
    let vars = inst.means.iter().map(|(_, l)| l.var).max().unwrap_or(0) as usize;
    let mut r = AssignmentReader::new(vars);
    for c in &coset {
        if let Some(k) = c.consumer {
            for &(t, l) in &inst.means {
                if t.0 == seq[k] {
                    r.note(l);
                }
            }
        }
    }
    answer.assignment = Some(r.finish());
    answer.witness = Some(CexWitness {
        coset,
        causes,
        conflicts,
    });
    Ok(answer)
}

/// The first co-set X of the occurrence net of C with h(X) = •t* (weights included)
/// holding a condition consumed in C and not the preset of a t*-firing of C.
///
/// The backend's `coset::search` enumerates every co-set (as cex(C) needs); to decide
/// existence this search adds *conflict-directed backjumping*: when no candidate of a slot
/// is concurrent with the picks so far, it goes back to the latest slot whose pick ruled a
/// candidate out, not merely the previous one, so picks that cannot matter (another true
/// literal of a satisfied clause) are not retried. Columns are ordered so that a column
/// comes as soon as all its candidates clash with some placed column (a clause after its
/// variables), otherwise the one clashing most with the partly constrained columns.
fn first_coset(cnet: &ConfigNet, pre: &Arcs, seq: &[u32], target: u32, nodes: &mut u64) -> Option<Vec<u32>> {
    let lists: Vec<Vec<u32>> = pre
        .iter()
        .map(|&(q, _)| {
            (0..cnet.conds.len() as u32)
                .filter(|&c| cnet.conds[c as usize].0 == q)
                .collect()
        })
        .collect();
    let order = column_order(cnet, &lists);
    // Slots: one per token to pick, a column's slots consecutive.
    let mut slots: Vec<usize> = Vec::new();
    for &c in &order {
        for _ in 0..pre[c].1 {
            slots.push(c);
        }
    }
    let accept = |x: &[u32]| {
        let consumers: Vec<Option<usize>> = x.iter().map(|&c| cnet.conds[c as usize].2).collect();
        if consumers.iter().all(|k| k.is_none()) {
            return false; // (t*, X) is enabled at C, not a conflicting extension
        }
        // The t*-events of C are not extensions of C.
        let first = consumers[0];
        !(consumers.iter().all(|&k| k == first) && first.is_some_and(|k| seq[k] == target))
    };
    let mut x = backjumping_search(cnet, &lists, &slots, accept, nodes)?;
    let place = |c: u32| cnet.conds[c as usize].0;
    x.sort_by_key(|&c| (pre.iter().position(|&(q, _)| q == place(c)), c));
    Some(x)
}

/// The order in which [`first_coset`] fills the columns (the places of •t*, with their
/// candidate conditions `lists`): next the column all of whose candidates clash with some
/// placed column, otherwise the one clashing most with the partly constrained columns.
fn column_order(cnet: &ConfigNet, lists: &[Vec<u32>]) -> Vec<usize> {
    let k = lists.len();
    // clash[a][b]: some candidate of a is not concurrent with some candidate of b.
    let mut clash = vec![vec![false; k]; k];
    for a in 0..k {
        for b in a + 1..k {
            let c = lists[a]
                .iter()
                .any(|&x| lists[b].iter().any(|&y| !cnet.co(x as usize, y as usize)));
            clash[a][b] = c;
            clash[b][a] = c;
        }
    }
    let mut placed = vec![false; k];
    let mut order: Vec<usize> = Vec::with_capacity(k);
    // Candidates of each column that clash with a placed column.
    let mut hit: Vec<Vec<bool>> = lists.iter().map(|l| vec![false; l.len()]).collect();
    while order.len() < k {
        let covered = |i: usize| hit[i].iter().filter(|&&h| h).count();
        let partly = |i: usize| {
            (0..k)
                .filter(|&j| !placed[j] && j != i && clash[i][j] && covered(j) > 0)
                .count()
        };
        let key = |i: usize| {
            let full = !lists[i].is_empty() && covered(i) == lists[i].len();
            (
                std::cmp::Reverse(full),
                std::cmp::Reverse(partly(i)),
                lists[i].len(),
                i,
            )
        };
        let Some(best) = (0..k).filter(|&i| !placed[i]).min_by_key(|&i| key(i)) else {
            break;
        };
        placed[best] = true;
        order.push(best);
        for i in 0..k {
            if !placed[i] && clash[i][best] {
                for (n, &x) in lists[i].iter().enumerate() {
                    if lists[best].iter().any(|&y| !cnet.co(x as usize, y as usize)) {
                        hit[i][n] = true;
                    }
                }
            }
        }
    }
    order
}

/// The first pairwise concurrent pick of one candidate of `lists[slots[s]]` per slot s
/// that `accept` takes, slots of one column picking in increasing position; `nodes`
/// counts the concurrency tests. Conflict-directed backjumping: see [`first_coset`].
fn backjumping_search(
    cnet: &ConfigNet,
    lists: &[Vec<u32>],
    slots: &[usize],
    accept: impl Fn(&[u32]) -> bool,
    nodes: &mut u64,
) -> Option<Vec<u32>> {
    let n = slots.len();
    let mut chosen: Vec<u32> = Vec::with_capacity(n);
    let mut cursor: Vec<usize> = vec![0; n + 1];
    let mut blame: Vec<FixedBitSet> = vec![FixedBitSet::with_capacity(n); n + 1];
    let mut s = 0usize;
    loop {
        if s == n {
            if accept(&chosen) {
                return Some(chosen);
            }
            if n == 0 {
                return None;
            }
            // Rejected at the leaf: try the last slot's next candidate, blaming everything.
            s = n - 1;
            chosen.pop();
            blame[s].insert_range(..s);
        }
        let col = slots[s];
        let cands = &lists[col];
        let mut picked = None;
        while cursor[s] < cands.len() {
            let p = cursor[s];
            let x = cands[p];
            cursor[s] += 1;
            let mut ok = true;
            for (i, &y) in chosen.iter().enumerate() {
                *nodes += 1;
                if !cnet.co(x as usize, y as usize) {
                    blame[s].insert(i);
                    ok = false;
                    break;
                }
            }
            if ok {
                picked = Some(p);
                break;
            }
        }
        match picked {
            Some(p) => {
                chosen.push(cands[p]);
                s += 1;
                if s < n {
                    // Slots of one column pick in increasing position: the range depends on
                    // the previous slot's pick.
                    let same = slots[s] == slots[s - 1];
                    cursor[s] = if same { p + 1 } else { 0 };
                    blame[s].clear();
                    if same {
                        blame[s].insert(s - 1);
                    }
                }
            }
            None => {
                // Back to the latest slot to blame, handing it the rest of the blame.
                let h = blame[s].maximum()?;
                let rest: Vec<usize> = blame[s].ones().filter(|&i| i != h).collect();
                for i in rest {
                    blame[h].insert(i);
                }
                chosen.truncate(h);
                s = h;
            }
        }
    }
}

/// The backend's cex(C), unless it reaches the unfolding's event limit.
fn backend_cex(unf: &mut GeneralUnfolding, target: u32) -> Result<Option<BackendCex>, DecideError> {
    let cex_events = match unf.add_conflicting_extensions(0) {
        Ok(n) => n as u64,
        Err(crate::unfold::UnfoldError::EventLimit(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let candidates: Vec<EventId> = unf
        .live_events()
        .filter(|&e| unf.action(e) == ActionId(target) && !unf.in_config(e) && !unf.is_enabled(e))
        .collect();
    let mut target_events = 0;
    let mut h = Vec::new();
    for e in candidates {
        h.clear();
        unf.history_outside_config(e, &mut h);
        if h == [e] {
            target_events += 1;
        }
    }
    Ok(Some(BackendCex {
        cex_events,
        target_events,
    }))
}

/// C(n, k), saturating.
fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u64 = 1;
    for i in 0..k {
        r = r.saturating_mul(n - i) / (i + 1);
    }
    r
}
