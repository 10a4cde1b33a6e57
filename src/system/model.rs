//! A loaded model: what an input file holds, before it is viewed as a component system.

use super::net::{Decomposition, Net, NetSystem};
use super::program::Program;
use super::{ModelError, System};

/// What an input file holds.
#[derive(Clone, Debug)]
pub enum Model {
    /// A place/transition net (PNML, ll_net).
    Net(Net),
    /// A compiled program of the process language (`.proc`).
    Program(Program),
}

/// How to turn a model into a component system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemOptions {
    /// For nets: the decomposition to use; `None` picks NUPN units when the file has them
    /// and one component per place otherwise.
    pub decomposition: Option<Decomposition>,
}

impl Model {
    /// The model as a component system.
    pub fn system(&self, opts: &SystemOptions) -> Result<Box<dyn System + '_>, ModelError> {
        match self {
            Model::Net(net) => {
                let d = opts.decomposition.unwrap_or(if net.nupn.is_some() {
                    Decomposition::Units
                } else {
                    Decomposition::Places
                });
                Ok(Box::new(NetSystem::new(net, d)?))
            }
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
