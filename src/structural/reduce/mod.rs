//! Structural reductions of P/T nets that keep deadlocks and reachability properties
//! (`qpor reduce-net`, and the pre-pass of `qpor check --reduce on`).
//!
//! [`reduce`] applies the rules of `rules` (removals: dead transitions, sink, constant and
//! duplicate places, dominated transitions), `agglomeration` (post- and
//! pre-agglomeration) and `implicit` (implicit places, by linear programming; Z3, so only
//! with the `lp` feature) until none applies. Every rule keeps deadlocks both ways: the
//! reduced net has a reachable dead marking iff the original has. Each rule's doc comment
//! states its conditions and why.
//!
//! A witness found on the reduced net is lifted to the original net by
//! [`ReducedNet::lift`]: the prefix the rules fired at the start, then each reduced
//! transition replaced by the original firing sequence it stands for, then the transitions
//! that pre-agglomeration deferred, fired while they can be (last rule first). The check
//! replays the result on the original model like any other witness.
//!
//! [`reduce_keeping`] also keeps the value of reachability properties: what they read
//! ([`Keep`]) stays, and each rule's doc comment says which of its conditions that adds
//! (Thierry-Mieg, Petri Nets 2020, and Bønneland et al., JLAMP 2019, restate the rules
//! per property the same way). Then every reachable marking of the original agrees, on the
//! kept places and in which kept transitions are enabled, with a reachable marking of the
//! reduced net, and the other way round; a witness of the reduced net lifts by
//! [`ReducedNet::lift_path`] to one of the original reaching a marking that agrees with
//! its end.
//!
//! Reductions keep the reachable markings of the places that stay (each is the
//! projection of a reachable marking of the original), so a NUPN decomposition restricted
//! to those places still holds and is kept.

mod agglomeration;
#[cfg(feature = "lp")]
mod implicit;
mod rules;
mod work;

use crate::engine::{Budget, ReductionSummary};
use crate::system::net::{Net, Nupn, Place, PlaceId, TransId, Transition, Unit};
use crate::system::property::Formula;
use std::time::Instant;
use work::WorkNet;

/// The rules, in the order they are tried (cheap removals first).
const RULES: &[Rule] = &[
    Rule::DeadTransition,
    Rule::SinkPlace,
    Rule::ConstantPlace,
    Rule::DuplicatePlace,
    Rule::DominatedTransition,
    Rule::PostAgglomeration,
    Rule::PreAgglomeration,
    #[cfg(feature = "lp")]
    Rule::ImplicitPlace,
];

/// A reduction rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rule {
    DeadTransition,
    SinkPlace,
    ConstantPlace,
    DuplicatePlace,
    DominatedTransition,
    PostAgglomeration,
    PreAgglomeration,
    /// Solved by Z3: only in a build with the `lp` feature.
    #[cfg(feature = "lp")]
    ImplicitPlace,
}

impl Rule {
    fn name(self) -> &'static str {
        match self {
            Rule::DeadTransition => "dead-transition",
            Rule::SinkPlace => "sink-place",
            Rule::ConstantPlace => "constant-place",
            Rule::DuplicatePlace => "duplicate-place",
            Rule::DominatedTransition => "dominated-transition",
            Rule::PostAgglomeration => "post-agglomeration",
            Rule::PreAgglomeration => "pre-agglomeration",
            #[cfg(feature = "lp")]
            Rule::ImplicitPlace => "implicit-place",
        }
    }

    /// Applies the rule to every candidate of the current net; how many it applied to.
    /// The linear programs of implicit places stop at `until`.
    #[cfg_attr(
        not(feature = "lp"),
        expect(
            unused_variables,
            reason = "only the implicit-place rule (`lp`) has a time limit"
        )
    )]
    fn apply(self, net: &mut WorkNet, budget: &Budget, until: Instant) -> u64 {
        let adj = net.adjacency();
        match self {
            Rule::DeadTransition => rules::dead_transitions(net, &adj),
            Rule::SinkPlace => rules::sink_places(net, &adj),
            Rule::ConstantPlace => rules::constant_places(net, &adj),
            Rule::DuplicatePlace => rules::duplicate_places(net, &adj),
            Rule::DominatedTransition => rules::dominated_transitions(net),
            Rule::PostAgglomeration => agglomeration::post_agglomeration(net, &adj),
            Rule::PreAgglomeration => agglomeration::pre_agglomeration(net, &adj),
            #[cfg(feature = "lp")]
            Rule::ImplicitPlace => implicit::implicit_places(net, &adj, budget, until),
        }
    }
}

/// What a reduction must leave as it is: the places whose tokens some property reads and
/// the transitions whose enabledness it reads (with every place they need, since moving
/// tokens there changes when they are enabled). Nothing, for deadlocks.
#[derive(Clone, Debug, Default)]
pub struct Keep {
    places: Vec<bool>,
    transitions: Vec<bool>,
}

impl Keep {
    /// What `formulas` read on `net`.
    pub fn read_by<'f>(net: &Net, formulas: impl IntoIterator<Item = &'f Formula>) -> Keep {
        let mut keep = Keep {
            places: vec![false; net.places.len()],
            transitions: vec![false; net.transitions.len()],
        };
        for formula in formulas {
            let (places, transitions) = formula.support();
            for p in places {
                keep.places[p.index()] = true;
            }
            for t in transitions {
                keep.transitions[t.index()] = true;
                for (p, _) in net.transitions[t.index()].needs() {
                    keep.places[p.index()] = true;
                }
            }
        }
        keep
    }

    fn place(&self, index: usize) -> bool {
        self.places.get(index).copied().unwrap_or(false)
    }

    fn transition(&self, index: usize) -> bool {
        self.transitions.get(index).copied().unwrap_or(false)
    }
}

/// A net reduced by [`reduce`], with what it takes to lift its witnesses.
#[derive(Clone, Debug)]
pub struct ReducedNet {
    /// The reduced net. Places and transitions keep their ids and names; a transition
    /// built by agglomeration keeps those of the original transition it was built on.
    pub net: Net,
    /// Sizes before and after, and the rules applied.
    pub summary: ReductionSummary,
    /// Per transition of `net`: the original firing sequence it stands for.
    expansion: Vec<Vec<TransId>>,
    /// Original transitions fired before anything else.
    prefix: Vec<TransId>,
    /// Deferred original firing sequences, fired while they can be after a witness; the
    /// last one first.
    finish: Vec<Vec<TransId>>,
    /// Per original place: its place in `net`, if it stayed.
    place_index: Vec<Option<PlaceId>>,
    /// Per original transition: the transition of `net` that keeps its index, if any.
    transition_index: Vec<Option<TransId>>,
}

/// Most original transitions a lift may fire to finish a witness; beyond it the lift
/// fails (a net whose deferred transitions fire this often has huge token counts).
const MAX_FINISH_FIRINGS: usize = 10_000_000;

impl ReducedNet {
    /// The original firing sequence that transition `t` of the reduced net stands for.
    pub fn expansion(&self, t: TransId) -> &[TransId] {
        &self.expansion[t.index()]
    }

    /// The place of the reduced net that original place `p` became, if it stayed (every
    /// kept place stays).
    pub fn place(&self, p: PlaceId) -> Option<PlaceId> {
        self.place_index.get(p.index()).copied().flatten()
    }

    /// The transition of the reduced net with the index and name of original transition
    /// `t`, if any (every kept transition has one, with its inputs unchanged).
    pub fn transition(&self, t: TransId) -> Option<TransId> {
        self.transition_index.get(t.index()).copied().flatten()
    }

    /// The firing sequence of `original` (the net given to [`reduce`]) that corresponds to
    /// the firing sequence `steps` of the reduced net. When `steps` reaches a dead marking
    /// of the reduced net, the result reaches a dead marking of the original. An error
    /// means a step could not be fired on the original: a bug of a rule.
    pub fn lift(&self, original: &Net, steps: &[TransId]) -> Result<Vec<TransId>, String> {
        let (mut seq, mut marking) = self.lift_path(original, steps)?;
        let mut fired = 0;
        for deferred in self.finish.iter().rev() {
            loop {
                let mut next = marking.clone();
                if !deferred.iter().all(|&t| original.fire(&mut next, t)) {
                    break;
                }
                marking = next;
                seq.extend_from_slice(deferred);
                fired += deferred.len();
                if fired > MAX_FINISH_FIRINGS {
                    return Err(format!(
                        "finishing the witness takes more than {MAX_FINISH_FIRINGS} firings"
                    ));
                }
            }
        }
        Ok(seq)
    }

    /// The firing sequence of `original` that corresponds to `steps` of the reduced net,
    /// without the deadlock's finish: it reaches a marking that agrees with the end of
    /// `steps` on every place that stayed and, for a net reduced by [`reduce_keeping`],
    /// on which kept transitions are enabled; with that marking. What lifts the witnesses
    /// of properties.
    pub fn lift_path(&self, original: &Net, steps: &[TransId]) -> Result<(Vec<TransId>, Vec<u32>), String> {
        let mut marking = original.initial_marking();
        let mut seq = self.prefix.clone();
        for &t in steps {
            let expansion = self
                .expansion
                .get(t.index())
                .ok_or_else(|| format!("the reduced net has no transition {}", t.0))?;
            seq.extend_from_slice(expansion);
        }
        for (i, &t) in seq.iter().enumerate() {
            if !original.fire(&mut marking, t) {
                let name = original.transitions[t.index()].label();
                return Err(format!("lifted step {} ({name}) is not enabled", i + 1));
            }
        }
        Ok((seq, marking))
    }
}

/// Reduces `net` with every rule until none applies or the budget runs out (the net
/// reduced so far is as good: every rule application keeps deadlocks on its own).
pub fn reduce(net: &Net, budget: &Budget) -> ReducedNet {
    reduce_keeping(net, budget, &Keep::default())
}

/// Reduces `net` as [`reduce`] does, leaving what `keep` names as it is: the reduced net
/// then also gives every reachability property over kept things its original value.
pub fn reduce_keeping(net: &Net, budget: &Budget, keep: &Keep) -> ReducedNet {
    reduce_with(net, budget, keep, true)
}

/// [`reduce_keeping`] without the implicit-place rule: the rules that look at the net's
/// arcs only, which take milliseconds where the implicit-place programs may take a
/// second. The portfolio runs these before its first engine, and the implicit places
/// beside the engines ([`disconnect_implicit_places`]).
pub(crate) fn reduce_cheaply(net: &Net, budget: &Budget, keep: &Keep) -> ReducedNet {
    reduce_with(net, budget, keep, false)
}

/// The net of `net` without its implicit places, as the rule of `implicit` finds them
/// within its time share of `budget`, and without touching what `keep` names.
///
/// The places are not taken out but disconnected: no arc touches them and they hold no
/// token. Places and transitions keep their ids, so a firing sequence, a property and a
/// NUPN unit (which says "at most one token") mean the same on both nets, and a firing
/// sequence of one fires on the other (an implicit place never disables a transition);
/// only the disconnected places' tokens differ.
#[cfg(feature = "lp")]
pub(crate) fn disconnect_implicit_places(net: &Net, budget: &Budget, keep: &Keep) -> Disconnected {
    let start = Instant::now();
    let mut work = WorkNet::new(net, keep);
    let adjacency = work.adjacency();
    let removed = implicit::implicit_places(&mut work, &adjacency, budget, implicit::deadline(budget));
    let mut disconnected = net.clone();
    if removed > 0 {
        let gone: Vec<bool> = work.places.iter().map(|p| !p.alive).collect();
        for (place, &gone) in disconnected.places.iter_mut().zip(&gone) {
            if gone {
                place.initial = 0;
            }
        }
        for t in &mut disconnected.transitions {
            t.pre.retain(|(p, _)| !gone[p.index()]);
            t.post.retain(|(p, _)| !gone[p.index()]);
            t.read.retain(|p| !gone[p.index()]);
        }
    }
    Disconnected {
        net: disconnected,
        removed,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// How long [`disconnect_implicit_places`] may take when it starts now within `budget`
/// (its linear programs end then; one already built may still run to its own timeout).
#[cfg(feature = "lp")]
pub(crate) fn implicit_time_share(budget: &Budget) -> std::time::Duration {
    implicit::share(budget)
}

/// What [`disconnect_implicit_places`] made of a net.
#[cfg(feature = "lp")]
#[derive(Clone, Debug)]
pub(crate) struct Disconnected {
    /// The net, its implicit places disconnected.
    pub net: Net,
    /// How many places were disconnected.
    pub removed: u64,
    /// The time the linear programs took, in seconds.
    pub seconds: f64,
}

/// Reduces `net` keeping what `keep` names, with the implicit-place rule when `implicit`.
fn reduce_with(net: &Net, budget: &Budget, keep: &Keep, implicit: bool) -> ReducedNet {
    let start = Instant::now();
    #[cfg(feature = "lp")]
    let implicit_until = if implicit {
        implicit::deadline(budget)
    } else {
        start
    };
    // Without `lp` no rule reads it.
    #[cfg(not(feature = "lp"))]
    let (implicit_until, _) = (start, implicit);
    let mut work = WorkNet::new(net, keep);
    let mut counts = [0u64; RULES.len()];
    'rounds: while budget.exhausted().is_none() {
        for (i, rule) in RULES.iter().enumerate() {
            // Even a rule with no time left starts Z3: skipped rather than asked.
            #[cfg(feature = "lp")]
            if *rule == Rule::ImplicitPlace && !implicit {
                continue;
            }
            let applied = rule.apply(&mut work, budget, implicit_until);
            if applied > 0 {
                counts[i] += applied;
                #[cfg(feature = "lp")]
                if *rule != Rule::ImplicitPlace {
                    // The net changed: a place not implicit before may be now.
                    for place in &mut work.places {
                        place.not_implicit = false;
                    }
                }
                continue 'rounds;
            }
        }
        break;
    }
    let rules = RULES
        .iter()
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(r, n)| (r.name(), n))
        .collect();
    let (reduced, expansion, place_index, transition_index) = compact(net, &work);
    let summary = ReductionSummary {
        places_before: net.places.len() as u64,
        places_after: reduced.places.len() as u64,
        transitions_before: net.transitions.len() as u64,
        transitions_after: reduced.transitions.len() as u64,
        rules,
        seconds: start.elapsed().as_secs_f64(),
        beside_seconds: None,
    };
    ReducedNet {
        net: reduced,
        summary,
        expansion,
        prefix: work.prefix,
        finish: work.finish,
        place_index,
        transition_index,
    }
}

/// The parts of a reduced net: the net, the expansion of each transition, and where each
/// original place and transition went.
type Compacted = (Net, Vec<Vec<TransId>>, Vec<Option<PlaceId>>, Vec<Option<TransId>>);

/// The alive part of `work` as a net of its own, the expansion of each transition, and
/// where each original place and transition went.
fn compact(net: &Net, work: &WorkNet) -> Compacted {
    let mut index = vec![None; work.places.len()];
    let mut places = Vec::new();
    for p in work.alive_places() {
        index[p as usize] = Some(PlaceId(places.len() as u32));
        let original = &net.places[p as usize];
        places.push(Place {
            id: original.id.clone(),
            name: original.name.clone(),
            initial: work.places[p as usize].initial,
        });
    }
    let arcs = |arcs: &[(u32, u32)]| -> Vec<(PlaceId, u32)> {
        arcs.iter()
            .filter_map(|&(p, w)| Some((index[p as usize]?, w)))
            .collect()
    };
    let mut transitions = Vec::new();
    let mut expansion = Vec::new();
    let mut transition_index = vec![None; work.trans.len()];
    for t in work.alive_transitions() {
        transition_index[t as usize] = Some(TransId(transitions.len() as u32));
        let original = &net.transitions[t as usize];
        let tr = &work.trans[t as usize];
        transitions.push(Transition {
            id: original.id.clone(),
            name: original.name.clone(),
            pre: arcs(&tr.pre),
            post: arcs(&tr.post),
            read: tr.read.iter().filter_map(|&p| index[p as usize]).collect(),
        });
        expansion.push(tr.expansion.clone());
    }
    let nupn = net.nupn.as_ref().map(|n| Nupn {
        units: n
            .units
            .iter()
            .map(|u| Unit {
                id: u.id.clone(),
                places: u.places.iter().filter_map(|p| index[p.index()]).collect(),
                subunits: u.subunits.clone(),
            })
            .collect(),
        root: n.root,
        safe: n.safe,
    });
    let reduced = Net {
        name: net.name.clone(),
        places,
        transitions,
        nupn,
    };
    (reduced, expansion, index, transition_index)
}

#[cfg(test)]
mod tests;
