//! A loaded model: what an input file holds, before it is viewed as a component system.

use super::net::{Decomposition, Net, NetSystem};
use super::one_safe::OneSafeWatch;
use super::program::{Param, Program};
use super::{ModelError, System};

/// What an input file holds.
#[derive(Clone, Debug)]
pub enum Model {
    /// A place/transition net (PNML, ll_net).
    Net(Net),
    /// A compiled program of the process language (`.proc`), boxed: its tables make it
    /// three times the size of a net's header.
    Program(Box<Program>),
}

/// What kind of model a model is, for what depends on it alone (which engines answer
/// which question).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ModelKind {
    /// A place/transition net.
    Net,
    /// A program of the process language.
    Program,
}

/// How to turn a model into a component system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemOptions {
    /// For nets: the decomposition to use; `None` picks NUPN units when the file has them
    /// and one component per place otherwise.
    pub decomposition: Option<Decomposition>,
    /// Nets only: view the net place by place with a place holding two tokens or more as
    /// a fault, so that engines answer the OneSafe question (see `system::one_safe`).
    pub one_safe_watch: bool,
    /// Programs only: make every access to a shared variable a step of its own, also
    /// those a mutex guards, which are otherwise folded into the step that takes it
    /// (`system::program`, `guards.rs`).
    pub every_access: bool,
}

impl SystemOptions {
    /// How `net` is cut into components: the decomposition asked for, else NUPN units when
    /// the file has them, else one component per place.
    pub fn decomposition_of(&self, net: &Net) -> Decomposition {
        self.decomposition.unwrap_or(if net.nupn.is_some() {
            Decomposition::Units
        } else {
            Decomposition::Places
        })
    }
}

impl Model {
    /// Whether this is a net or a program.
    pub fn kind(&self) -> ModelKind {
        match self {
            Model::Net(_) => ModelKind::Net,
            Model::Program(_) => ModelKind::Program,
        }
    }

    /// The model as a component system.
    pub fn system(&self, opts: &SystemOptions) -> Result<Box<dyn System + Sync + '_>, ModelError> {
        match self {
            Model::Net(net) if opts.one_safe_watch => Ok(Box::new(OneSafeWatch::new(NetSystem::new(
                net,
                Decomposition::Places,
            )?))),
            Model::Program(_) if opts.one_safe_watch => Err(ModelError::new(
                "the OneSafe question is about the places of a net; this model is a program".to_string(),
            )),
            Model::Net(net) => Ok(Box::new(NetSystem::new(net, opts.decomposition_of(net))?)),
            Model::Program(p) if opts.every_access => Ok(Box::new(p.system_every_access()?)),
            Model::Program(p) => Ok(Box::new(p.system()?)),
        }
    }

    /// The net, when the model is one.
    pub fn as_net(&self) -> Option<&Net> {
        match self {
            Model::Net(n) => Some(n),
            Model::Program(_) => None,
        }
    }
}

/// Sizes and structural facts of a model, for `qpor info`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// `net` or `program`.
    pub kind: &'static str,
    /// The model's name, when it has one.
    pub name: Option<String>,
    /// For nets: places, transitions, arcs, the largest arc weight.
    pub net: Option<NetInfo>,
    /// The components of the component system, as (kind, name), in id order.
    pub components: Vec<(&'static str, String)>,
    /// For programs: the shared cells whose accesses are folded into the lock of the mutex
    /// that guards them, as (cell, mutex).
    pub guarded: Vec<(String, String)>,
    /// For programs: the exclusive variables, whose accesses never race and are folded
    /// into the step before them.
    pub exclusive: Vec<String>,
    /// For programs: the `param`s, in declaration order, with the values used.
    pub params: Vec<Param>,
}

/// Sizes of a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetInfo {
    /// Number of places.
    pub places: usize,
    /// Number of transitions.
    pub transitions: usize,
    /// Number of arcs (input, output and read).
    pub arcs: usize,
    /// Number of read arcs among them.
    pub read_arcs: usize,
    /// The largest arc weight.
    pub max_weight: u32,
    /// Whether the initial marking puts at most one token on each place.
    pub initially_one_bounded: bool,
    /// Number of NUPN units (with or without places), if the file has a NUPN block.
    pub nupn_units: Option<usize>,
    /// The NUPN block's `safe` attribute.
    pub nupn_safe: Option<bool>,
    /// Whether the net is structurally safe (1-token invariants or safe NUPN units).
    pub safeness: super::invariants::Safeness,
}

impl Model {
    /// Sizes and structure of the model, with its components as `opts` cuts it. The
    /// invariant search for structural safeness stops ("not known") when `stop` answers
    /// true.
    pub fn info(&self, opts: &SystemOptions, stop: &dyn Fn() -> bool) -> Result<ModelInfo, ModelError> {
        let sys = self.system(opts)?;
        let components = (0..sys.num_components())
            .map(|i| {
                let c = super::CompId(i as u32);
                (sys.component_kind(c), sys.component_name(c))
            })
            .collect();
        Ok(match self {
            Model::Net(net) => ModelInfo {
                kind: "net",
                name: net.name.clone(),
                net: Some(NetInfo {
                    places: net.places.len(),
                    transitions: net.transitions.len(),
                    arcs: net.num_arcs(),
                    read_arcs: net.transitions.iter().map(|t| t.read.len()).sum(),
                    max_weight: net.max_weight(),
                    initially_one_bounded: net.initially_one_bounded(),
                    nupn_units: net.nupn.as_ref().map(|n| n.units.len()),
                    nupn_safe: net.nupn.as_ref().map(|n| n.safe),
                    safeness: super::invariants::structural_safeness(net, stop),
                }),
                components,
                guarded: Vec::new(),
                exclusive: Vec::new(),
                params: Vec::new(),
            },
            Model::Program(p) => ModelInfo {
                kind: "program",
                name: None,
                net: None,
                components,
                guarded: p.guards(),
                exclusive: p.exclusives(),
                params: p.params().to_vec(),
            },
        })
    }
}
