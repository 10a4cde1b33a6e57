//! Compiled programs of the process language as component systems. To be written.

use super::{ActionId, CompId, Local, ModelError, Step, System};

/// A compiled program.
#[derive(Clone, Debug, Default)]
pub struct Program {}

impl Program {
    /// The program as a component system.
    pub fn system(&self) -> Result<impl System + '_, ModelError> {
        Ok(ProgramSystem { _program: self })
    }
}

/// A [`Program`] seen as a component system.
pub struct ProgramSystem<'p> {
    _program: &'p Program,
}

impl System for ProgramSystem<'_> {
    fn num_components(&self) -> usize {
        0
    }
    fn component_name(&self, _c: CompId) -> String {
        String::new()
    }
    fn component_kind(&self, _c: CompId) -> &'static str {
        "process"
    }
    fn initial_state(&self) -> Vec<Local> {
        Vec::new()
    }
    fn enabled_steps(&self, _state: &[Local], _out: &mut Vec<Step>) {}
    fn fire(&self, _step: &Step, _before: &[Local], _after: &mut [Local]) -> Result<bool, ModelError> {
        Ok(false)
    }
    fn action_name(&self, _a: ActionId) -> String {
        String::new()
    }
    fn local_name(&self, _c: CompId, _l: Local) -> String {
        String::new()
    }
}
