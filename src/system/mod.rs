//! The component-system IR: the one intermediate form every input is compiled to
//! (docs/design.md#component-systems).
//!
//! A [`System`] is a finite set of *components*, each holding a *local state*, and a set of
//! *actions*. An action touches a fixed set of components, is enabled by their local states
//! alone and changes only them. Two actions are independent iff they touch disjoint
//! components; this is the independence relation every engine of qpor relies on, so the
//! touch set of an action is the only source of (in)dependence.
//!
//! Local states are opaque [`Local`] ids interpreted by the system: a token count for a
//! place, the marked place of a NUPN unit, an interned (control point, locals) pair for a
//! process. They are computed lazily when an action fires, never enumerated up front.
//!
//! # Invariants
//! - An [`ActionId`] always touches the same components, listed sorted and without
//!   repetition in [`Step::touched`].
//! - [`System::fire`] reads and writes only the local states of the touched components: for
//!   equal `before` slices it gives equal results, whatever the rest of the state is.
//! - [`System::enabled_steps`] lists exactly the steps whose `fire` succeeds, in a
//!   deterministic order.

pub(crate) mod cnf;
pub(crate) mod invariants;
pub(crate) mod model;
pub(crate) mod net;
pub(crate) mod one_safe;
pub(crate) mod program;
pub(crate) mod property;

use smallvec::SmallVec;
use std::fmt;

/// One value of a state as data ([`System::state_entries`]): a count of tokens, or a
/// local state's name.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(untagged)]
pub enum StateValue {
    /// Tokens on a place.
    Tokens(u32),
    /// A local state by name (a process's control point and locals, a mutex's holder).
    Text(String),
}

/// Identifies a component of a system: a place, a NUPN unit, a process instance, a mutex, …
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct CompId(pub u32);

impl CompId {
    /// The id as an index into per-component tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The local state of one component, as an id only its system interprets.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Local(pub u32);

/// Identifies an action of a system (a transition of a net, a resolved statement of a
/// process instance). The same id always touches the same components.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ActionId(pub u32);

impl ActionId {
    /// The id as an index into per-action tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The touch set of a step. Most actions touch few components, so it rarely allocates.
pub type TouchSet = SmallVec<[CompId; 6]>;

/// An action together with the components it touches, sorted ascending.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Step {
    /// The action.
    pub action: ActionId,
    /// The components the action reads and writes, sorted, without repetition.
    pub touched: TouchSet,
}

/// An error of the model itself, found while exploring it (the input was syntactically
/// fine but its semantics cannot be honoured).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ModelError {
    /// What went wrong, in words a user can act on.
    pub message: String,
}

impl ModelError {
    /// A model error with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        ModelError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ModelError {}

/// A component system: the semantics every engine explores.
///
/// The methods take `&self`; systems that intern local states or actions lazily (the process
/// language) use interior mutability for their tables.
pub trait System {
    /// Number of components; their ids are `0..num_components()`.
    fn num_components(&self) -> usize;

    /// Human-readable name of a component (a place name, `unit u3`, `writer[2]`, `m[1]`).
    fn component_name(&self, c: CompId) -> String;

    /// What kind of component this is (`place`, `unit`, `process`, `mutex`, …), for reports.
    fn component_kind(&self, c: CompId) -> &'static str;

    /// The initial local state of every component, indexed by [`CompId`].
    fn initial_state(&self) -> Vec<Local>;

    /// Appends to `out` every step enabled at the global state `state`, in a deterministic
    /// order. `out` is not cleared.
    fn enabled_steps(&self, state: &[Local], out: &mut Vec<Step>);

    /// Appends to `out` the steps enabled at `state` that touch component `c`. Engines use
    /// this to find what a new event may have enabled; systems override it with an index.
    fn enabled_steps_touching(&self, state: &[Local], c: CompId, out: &mut Vec<Step>) {
        let start = out.len();
        self.enabled_steps(state, out);
        let mut kept = start;
        for i in start..out.len() {
            if out[i].touched.contains(&c) {
                out.swap(kept, i);
                kept += 1;
            }
        }
        out.truncate(kept);
    }

    /// Fires `step` on the local states `before` of its touched components (parallel to
    /// `step.touched`), writing their new local states into `after`. Returns `Ok(false)`,
    /// leaving `after` unspecified, when the step is not enabled at `before`.
    fn fire(&self, step: &Step, before: &[Local], after: &mut [Local]) -> Result<bool, ModelError>;

    /// Appends to `out` the steps *anchored* at component `c` that may be enabled in some
    /// global state where `c` is in local state `l` (a superset is fine; each step is later
    /// checked with [`System::fire`]). Every action must be anchored at one of the components
    /// it touches (a net transition at its first input place, a program statement at its
    /// process). Unfolding engines use this to find the conflicting extensions of a
    /// configuration without a global state. Returns `false` if the system does not support
    /// it (then such engines refuse the system).
    fn anchored_steps(&self, _c: CompId, _l: Local, _out: &mut Vec<Step>) -> bool {
        false
    }

    /// A quick necessary condition: whether local state `l` of `step.touched[index]`
    /// allows `step` to be enabled. Engines use it to prune searches before calling
    /// [`System::fire`]; the default allows everything.
    fn may_enable(&self, _step: &Step, _index: usize, _l: Local) -> bool {
        true
    }

    /// Whether component `c` adds no dependence of its own: two steps that touch it and
    /// are both enabled at a reachable state always share another component too. Then no
    /// two events are in immediate conflict through `c` alone, and unfoldings need not
    /// look for conflicts among the events that touch it. A program's folded shared cells
    /// are such components (`program::exclusive`); the default is `false`.
    fn redundant_dependence(&self, _c: CompId) -> bool {
        false
    }

    /// Human-readable name of an action, as it appears in witnesses.
    fn action_name(&self, a: ActionId) -> String;

    /// The identifier the model file gives action `a` (a net transition's PNML id), when
    /// the model names actions by one: witnesses show it, and a saved witness is replayed
    /// by it, since names need not be unique. `None`: the name identifies the action.
    fn action_file_id(&self, _a: ActionId) -> Option<String> {
        None
    }

    /// What identifies action `a` whatever order the actions were met in: equal for the
    /// same action in every process that loaded the same model, different for different
    /// actions. Processes of a distributed run name actions by it. The id itself, for
    /// systems whose actions are numbered up front; systems that number actions as they
    /// meet them must override it.
    fn action_key(&self, a: ActionId) -> Vec<u32> {
        vec![a.0]
    }

    /// The component that "owns" an action (the process executing it), if the system has
    /// such a notion; witnesses group steps by owner.
    fn action_owner(&self, _a: ActionId) -> Option<CompId> {
        None
    }

    /// Human-readable value of a local state.
    fn local_name(&self, c: CompId, l: Local) -> String;

    /// A global state as data, for JSON reports: (name, value) pairs. By default every
    /// component by name with its value's name; nets list their marked places by id with
    /// their tokens.
    fn state_entries(&self, state: &[Local]) -> Vec<(String, StateValue)> {
        state
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let c = CompId(i as u32);
                (self.component_name(c), StateValue::Text(self.local_name(c, *l)))
            })
            .collect()
    }

    /// A global state in words, for reports: by default `component=value` for every
    /// component; nets list their marked places.
    fn describe_state(&self, state: &[Local]) -> String {
        let parts: Vec<String> = state
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let c = CompId(i as u32);
                format!("{}={}", self.component_name(c), self.local_name(c, *l))
            })
            .collect();
        parts.join(", ")
    }

    /// Whether the system declares final states at all (nets do not, programs do).
    fn has_final_states(&self) -> bool {
        false
    }

    /// Whether `l` is a final local state of `c`. A global state is final iff every
    /// component is in a final local state; a dead final state is a termination, not a
    /// deadlock.
    fn is_final(&self, _c: CompId, _l: Local) -> bool {
        false
    }

    /// If `l` is a fault state of `c` (a failed assertion, an index out of range), what the
    /// fault is. Reaching a fault state is a verdict of its own.
    fn fault(&self, _c: CompId, _l: Local) -> Option<String> {
        None
    }

    /// The global successor of `state` by `step`, written into `next` (resized to fit).
    /// Returns `Ok(false)` when the step is not enabled.
    fn successor(&self, state: &[Local], step: &Step, next: &mut Vec<Local>) -> Result<bool, ModelError> {
        let before: SmallVec<[Local; 8]> = step.touched.iter().map(|c| state[c.index()]).collect();
        let mut after: SmallVec<[Local; 8]> = SmallVec::from_elem(Local(0), before.len());
        if !self.fire(step, &before, &mut after)? {
            return Ok(false);
        }
        next.clear();
        next.extend_from_slice(state);
        for (c, l) in step.touched.iter().zip(after.iter()) {
            next[c.index()] = *l;
        }
        Ok(true)
    }
}

/// How a dead state (no step enabled) is classified.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum DeadKind {
    /// Not final: a deadlock.
    Deadlock,
    /// Every component final: normal termination.
    Termination,
}

/// Classifies a dead global state of `sys`.
pub fn classify_dead<S: System + ?Sized>(sys: &S, state: &[Local]) -> DeadKind {
    if sys.has_final_states()
        && state
            .iter()
            .enumerate()
            .all(|(i, l)| sys.is_final(CompId(i as u32), *l))
    {
        DeadKind::Termination
    } else {
        DeadKind::Deadlock
    }
}

/// The fault a step left in `state`, as `component: message`, looking only at the
/// components `step` touched (faults arise only where something changed), or at every
/// component when there is no step (the initial state).
pub(crate) fn fault_after<S: System + ?Sized>(
    sys: &S,
    state: &[Local],
    step: Option<&Step>,
) -> Option<String> {
    match step {
        Some(step) => step.touched.iter().find_map(|c| {
            sys.fault(*c, state[c.index()])
                .map(|m| format!("{}: {m}", sys.component_name(*c)))
        }),
        None => find_fault(sys, state).map(|(c, m)| format!("{}: {m}", sys.component_name(c))),
    }
}

/// Why [`state_after`] could not fire a sequence of actions.
#[derive(Debug)]
pub(crate) enum FiringError {
    /// Step `index` (from 0) is not enabled where it is fired, or does not fire.
    Blocked {
        /// The step's index in the sequence.
        index: usize,
        /// The action's name.
        action: String,
    },
    /// The model's semantics failed while firing.
    Model(ModelError),
}

impl std::fmt::Display for FiringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FiringError::Blocked { index, action } => {
                write!(f, "step {} ({action}) is not enabled", index + 1)
            }
            FiringError::Model(e) => e.fmt(f),
        }
    }
}

/// Fires `step`, which `sys` listed as enabled at `state`, into `next`; a step that then
/// does not fire is a bug of the system, reported as such.
pub(crate) fn fire_listed<S: System + ?Sized>(
    sys: &S,
    state: &[Local],
    step: &Step,
    next: &mut Vec<Local>,
) -> Result<(), ModelError> {
    if sys.successor(state, step, next)? {
        return Ok(());
    }
    Err(ModelError::new(format!(
        "[qpor internal bug] step {} listed as enabled does not fire",
        sys.action_name(step.action)
    )))
}

/// The state reached by firing `actions` from the initial state of `sys` (an action has
/// one touch set, so its id names the step).
pub(crate) fn state_after<S: System + ?Sized>(
    sys: &S,
    actions: impl IntoIterator<Item = ActionId>,
) -> Result<Vec<Local>, FiringError> {
    let mut state = sys.initial_state();
    let mut next = Vec::new();
    let mut steps = Vec::new();
    for (index, a) in actions.into_iter().enumerate() {
        steps.clear();
        sys.enabled_steps(&state, &mut steps);
        let blocked = || FiringError::Blocked {
            index,
            action: sys.action_name(a),
        };
        let step = steps.iter().find(|s: &&Step| s.action == a).ok_or_else(blocked)?;
        if !sys
            .successor(&state, step, &mut next)
            .map_err(FiringError::Model)?
        {
            return Err(blocked());
        }
        std::mem::swap(&mut state, &mut next);
    }
    Ok(state)
}

/// The first fault found in a global state, as (component, message).
pub fn find_fault<S: System + ?Sized>(sys: &S, state: &[Local]) -> Option<(CompId, String)> {
    state
        .iter()
        .enumerate()
        .find_map(|(i, l)| sys.fault(CompId(i as u32), *l).map(|m| (CompId(i as u32), m)))
}
