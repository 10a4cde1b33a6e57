//! Complete finite prefixes as occurrence nets: the data `qpor unfold` builds and
//! `qpor dot --view prefix|pes` draws (docs/design.md#complete-finite-prefixes;
//! docs/paper.md#complete-prefixes).
//!
//! Both backends produce the same shape. For the general backend conditions are its
//! own; for the program-like backend a condition is a (component, local state) produced by
//! an event on one of its components (or initially), consumed by the next event on that
//! component.
//!
//! # Invariants
//! - Every event's preset and postset list condition indices; every condition has at
//!   most one producer (none for the initial cut) and is in the preset of its consumers.
//! - Events are listed in the order they were added to the prefix; an event's causes
//!   come before it.
//! - `cutoff` is `Some(corr)` for cutoff events, where `corr` is the corresponding event
//!   (the smaller local configuration with the same state) or `None` for the empty
//!   configuration.
//!
//! The builder is [`builder`] (the ERV algorithm, shared), over the token view of a net
//! ([`tokens`], the general backend) or the component view of a system ([`components`],
//! the program-like backend); [`build_general`], [`build_program`] and [`build_model`] are
//! the entry points.

pub(crate) mod builder;
pub(crate) mod components;
mod keys;
pub(crate) mod tokens;

pub use builder::{PrefixOptions, PrefixOutcome, PrefixStats};

use crate::system::model::{Model, SystemOptions};
use crate::system::net::{Decomposition, Net};
use crate::system::{ModelError, System};
use crate::unfold::Backend;

/// The complete finite prefix of the branching process of `net` (the general backend).
pub fn build_general(net: &Net, opts: &PrefixOptions) -> Result<PrefixOutcome, ModelError> {
    crate::unfold::fits_general_backend(net)?;
    builder::build(&mut tokens::Tokens::new(net), opts, "general")
}

/// The complete finite prefix of the program-like unfolding of `sys`.
pub fn build_program<S: System + ?Sized>(sys: &S, opts: &PrefixOptions) -> Result<PrefixOutcome, ModelError> {
    if !crate::unfold::fits_program_backend(sys) {
        return Err(ModelError::new(
            "this model cannot be unfolded (its system does not list anchored steps)",
        ));
    }
    builder::build(&mut components::Components::new(sys), opts, "program")
}

/// The prefix of `model` with the backend `backend` stands for (see
/// [`Backend::resolve`]; the general backend takes nets only, and unfolds
/// them token by token whatever `system` says).
pub fn build_model(
    model: &Model,
    backend: Backend,
    system: &SystemOptions,
    opts: &PrefixOptions,
) -> Result<PrefixOutcome, ModelError> {
    match (backend.resolve(model, system), model) {
        (Backend::General, _) => build_general(super::general_backend_net(model)?, opts),
        (_, _) => {
            let sys = model.system(system)?;
            build_program(&*sys, opts)
        }
    }
}

/// The system whose states and action ids the prefix of `model` built with `backend`
/// refers to: for the general backend, the net with one component per place.
pub fn prefix_system_options(model: &Model, backend: Backend, system: &SystemOptions) -> SystemOptions {
    match backend.resolve(model, system) {
        Backend::General => SystemOptions {
            decomposition: Some(Decomposition::Places),
            ..*system
        },
        _ => *system,
    }
}

/// An event of a prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefixEvent {
    /// The action's (transition's) name.
    pub label: String,
    /// The action's index (transition index for nets).
    pub action: u32,
    /// Conditions consumed (sorted).
    pub preset: Vec<u32>,
    /// Conditions produced (sorted).
    pub postset: Vec<u32>,
    /// For a cutoff: its corresponding event (`Some(None)`: the empty configuration).
    pub cutoff: Option<Option<u32>>,
    /// The process (or other owner) performing the event, for clustering; `None` for nets.
    pub owner: Option<String>,
}

impl PrefixEvent {
    /// The cut reached when this event fires from `cut`: its preset leaves, its postset
    /// joins; sorted.
    pub fn fire(&self, cut: &[u32]) -> Vec<u32> {
        let mut next: Vec<u32> = cut
            .iter()
            .copied()
            .filter(|c| self.preset.binary_search(c).is_err())
            .chain(self.postset.iter().copied())
            .collect();
        next.sort_unstable();
        next
    }
}

/// A condition of a prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The place (or `component=state`) it stands for.
    pub label: String,
    /// Index of the place (or component) in the model.
    pub place: u32,
    /// The event producing it; `None` for initial conditions.
    pub producer: Option<u32>,
    /// The component's local state it stands for (the program backend: for a net, the
    /// place's tokens or the unit's marked place); 0 for the general backend.
    pub local: u32,
}

/// A complete finite prefix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prefix {
    /// Events, in insertion order.
    pub events: Vec<PrefixEvent>,
    /// Conditions, initial ones first.
    pub conditions: Vec<Condition>,
}

impl Prefix {
    /// Number of cutoff events.
    pub fn cutoffs(&self) -> usize {
        self.events.iter().filter(|e| e.cutoff.is_some()).count()
    }

    /// The initial conditions (the minimal cut).
    pub fn initial_conditions(&self) -> impl Iterator<Item = u32> + '_ {
        self.conditions
            .iter()
            .enumerate()
            .filter(|(_, c)| c.producer.is_none())
            .map(|(i, _)| i as u32)
    }
}
