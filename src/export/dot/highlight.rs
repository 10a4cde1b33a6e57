//! Which events `--highlight deadlock` fills: the first deadlock configuration found in a
//! prefix.
//!
//! A complete prefix holds, for every reachable state, a configuration reaching it
//! (docs/paper.md#complete-prefixes). [`deadlock_configuration`] looks for one whose state is a deadlock: a
//! depth-first search over the configurations of the prefix, adding one enabled event
//! (preset inside the current cut) at a time, lowest id first, while replaying the
//! events' actions on the system to know the global state. A state is a deadlock when the
//! *system* enables nothing there and it is not final (the prefix alone cannot tell a dead
//! state from one cut by cutoffs); fault states are not extended. The answer is the set of
//! events of that configuration, sorted.
//!
//! Configurations are told apart by their cut (in an occurrence net a configuration is
//! determined by its cut), not by their state: two configurations with the same state may
//! have different extensions in a prefix (one of them may hold a cutoff event, past which
//! the prefix stops), so merging them by state could miss the only configuration that
//! reaches the deadlock. The search is therefore exhaustive over the prefix's
//! configurations, up to a bound.
//!
//! This is a query on a finished prefix, kept beside the picture that needs it; it could
//! move to `unfold::prefix` once other users appear.
//!
//! # Invariants
//! - Every configuration on the search stack is causally closed and conflict-free, and
//!   its state is the system's state after its events in id order.

use crate::system::{classify_dead, find_fault, ActionId, CompId, DeadKind, Local, Step, System};
use crate::unfold::prefix::Prefix;
use hashbrown::HashSet;

/// Most configurations [`deadlock_configuration`] visits before giving up.
pub const MAX_SEARCHED_CONFIGURATIONS: usize = 1_000_000;

/// What the search for a deadlock configuration found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeadlockSearch {
    /// A deadlock configuration: its events, sorted.
    Found(Vec<u32>),
    /// No configuration of the prefix reaches a deadlock.
    NotFound,
    /// The search stopped after this many configurations.
    LimitReached(usize),
}

struct Frame {
    state: Vec<Local>,
    /// The cut, sorted.
    cut: Vec<u32>,
    events: Vec<u32>,
}

/// Looks for a deadlock configuration of `prefix`, which must have been built from `sys`
/// (its events' actions are `sys`'s action ids). Fails when an event of the prefix is not
/// enabled in the system where the prefix says it is: prefix and system disagree.
pub fn deadlock_configuration<S: System + ?Sized>(
    prefix: &Prefix,
    sys: &S,
    max_configurations: usize,
) -> Result<DeadlockSearch, String> {
    let mut consumers: Vec<Vec<u32>> = vec![Vec::new(); prefix.conditions.len()];
    for (i, e) in prefix.events.iter().enumerate() {
        for &c in &e.preset {
            let list = consumers
                .get_mut(c as usize)
                .ok_or_else(|| format!("event e{i} consumes condition c{c}, which does not exist"))?;
            list.push(i as u32);
        }
        if let Some(c) = e.postset.iter().find(|&&c| c as usize >= prefix.conditions.len()) {
            return Err(format!(
                "event e{i} produces condition c{c}, which does not exist"
            ));
        }
    }
    let init = sys.initial_state();
    let init_cut: Vec<u32> = prefix.initial_conditions().collect();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    seen.insert(init_cut.clone());
    let mut stack = vec![Frame {
        state: init,
        cut: init_cut,
        events: Vec::new(),
    }];
    let mut steps: Vec<Step> = Vec::new();
    let mut enabled: Vec<u32> = Vec::new();
    let mut next = Vec::new();
    while let Some(f) = stack.pop() {
        if find_fault(sys, &f.state).is_some() {
            continue;
        }
        steps.clear();
        sys.enabled_steps(&f.state, &mut steps);
        if steps.is_empty() {
            if classify_dead(sys, &f.state) == DeadKind::Deadlock {
                let mut events = f.events;
                events.sort_unstable();
                return Ok(DeadlockSearch::Found(events));
            }
            continue;
        }
        enabled.clear();
        for &c in &f.cut {
            for &e in &consumers[c as usize] {
                let pre = &prefix.events[e as usize].preset;
                if pre.iter().all(|p| f.cut.binary_search(p).is_ok()) {
                    enabled.push(e);
                }
            }
        }
        enabled.sort_unstable();
        enabled.dedup();
        // Pushed in reverse, so the lowest id is searched first.
        for &e in enabled.iter().rev() {
            let ev = &prefix.events[e as usize];
            let step = matching_step(prefix, e, sys, &f.state, &steps, &mut next)?.ok_or_else(|| {
                format!(
                    "the prefix's event e{e} ({}) is not enabled in the model where the prefix says it is",
                    ev.label
                )
            })?;
            if !sys
                .successor(&f.state, step, &mut next)
                .map_err(|err| err.to_string())?
            {
                return Err(format!("the prefix's event e{e} ({}) cannot fire", ev.label));
            }
            let cut = ev.fire(&f.cut);
            if seen.contains(&cut) {
                continue;
            }
            if seen.len() >= max_configurations {
                return Ok(DeadlockSearch::LimitReached(seen.len()));
            }
            seen.insert(cut.clone());
            let mut events = f.events.clone();
            events.push(e);
            debug_assert!(
                ev.preset.windows(2).all(|w| w[0] < w[1]),
                "[qpor internal bug] prefix preset not sorted"
            );
            stack.push(Frame {
                state: next.clone(),
                cut,
                events,
            });
        }
    }
    Ok(DeadlockSearch::NotFound)
}

/// The enabled step of `sys` at `state` that event `e` of the prefix stands for.
///
/// The prefix's action ids are those of the system instance that built it. A program's
/// system interns actions and local states lazily, so another instance of the same model
/// may number them differently: when the id does not name an enabled step with the
/// event's label, the step is found by its name and the components it touches (the places
/// of the event's preset conditions), and among several such steps the one whose
/// successor has the local states the event's postset conditions name
/// (`component=state`), if any.
fn matching_step<'s, S: System + ?Sized>(
    prefix: &Prefix,
    e: u32,
    sys: &S,
    state: &[Local],
    steps: &'s [Step],
    next: &mut Vec<Local>,
) -> Result<Option<&'s Step>, String> {
    let ev = &prefix.events[e as usize];
    if let Some(s) = steps
        .iter()
        .find(|s| s.action == ActionId(ev.action) && sys.action_name(s.action) == ev.label)
    {
        return Ok(Some(s));
    }
    let mut touched: Vec<u32> = ev
        .preset
        .iter()
        .filter_map(|&c| prefix.conditions.get(c as usize).map(|c| c.place))
        .collect();
    touched.sort_unstable();
    touched.dedup();
    let candidates: Vec<&Step> = steps
        .iter()
        .filter(|s| {
            s.touched.len() == touched.len()
                && s.touched.iter().zip(&touched).all(|(a, b)| a.0 == *b)
                && sys.action_name(s.action) == ev.label
        })
        .collect();
    if candidates.len() <= 1 {
        return Ok(candidates.first().copied());
    }
    for &s in &candidates {
        if !sys.successor(state, s, next).map_err(|err| err.to_string())? {
            continue;
        }
        let agrees = ev.postset.iter().all(|&c| {
            let cond = &prefix.conditions[c as usize];
            let comp = CompId(cond.place);
            next.get(comp.index()).is_none_or(|l| {
                cond.label == format!("{}={}", sys.component_name(comp), sys.local_name(comp, *l))
            })
        });
        if agrees {
            return Ok(Some(s));
        }
    }
    Ok(candidates.first().copied())
}
