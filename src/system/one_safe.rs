//! The Model Checking Contest's OneSafe question (is every reachable marking 1-bounded?)
//! asked through the engines' own vocabulary: a net viewed place by place, where a place
//! holding two tokens or more is a *fault* and every dead state is *final*.
//!
//! An engine that reports faults then answers the question unchanged: a fault found is a
//! marking that is not 1-safe, with its firing sequence (replayed like any witness); a
//! complete exploration without one proves safeness. Dead markings become terminations,
//! so they neither stop a search nor count as answers.

use super::net::NetSystem;
use super::{ActionId, CompId, Local, ModelError, StateValue, Step, System};

/// A net, one component per place (the local state is the token count), whose
/// faults are the places holding more than one token.
pub(crate) struct OneSafeWatch<'n> {
    inner: NetSystem<'n>,
}

impl<'n> OneSafeWatch<'n> {
    /// Watches `inner`, which must be cut into places.
    pub(crate) fn new(inner: NetSystem<'n>) -> OneSafeWatch<'n> {
        OneSafeWatch { inner }
    }
}

impl System for OneSafeWatch<'_> {
    fn num_components(&self) -> usize {
        self.inner.num_components()
    }

    fn component_name(&self, c: CompId) -> String {
        self.inner.component_name(c)
    }

    fn component_kind(&self, c: CompId) -> &'static str {
        self.inner.component_kind(c)
    }

    fn initial_state(&self) -> Vec<Local> {
        self.inner.initial_state()
    }

    fn enabled_steps(&self, state: &[Local], out: &mut Vec<Step>) {
        self.inner.enabled_steps(state, out)
    }

    fn enabled_steps_touching(&self, state: &[Local], c: CompId, out: &mut Vec<Step>) {
        self.inner.enabled_steps_touching(state, c, out)
    }

    fn fire(&self, step: &Step, before: &[Local], after: &mut [Local]) -> Result<bool, ModelError> {
        self.inner.fire(step, before, after)
    }

    fn action_name(&self, a: ActionId) -> String {
        self.inner.action_name(a)
    }

    fn action_file_id(&self, a: ActionId) -> Option<String> {
        self.inner.action_file_id(a)
    }

    fn action_key(&self, a: ActionId) -> Vec<u32> {
        self.inner.action_key(a)
    }

    fn local_name(&self, c: CompId, l: Local) -> String {
        self.inner.local_name(c, l)
    }

    fn describe_state(&self, state: &[Local]) -> String {
        self.inner.describe_state(state)
    }

    fn state_entries(&self, state: &[Local]) -> Vec<(String, StateValue)> {
        self.inner.state_entries(state)
    }

    fn has_final_states(&self) -> bool {
        true
    }

    fn is_final(&self, _c: CompId, _l: Local) -> bool {
        true
    }

    fn fault(&self, c: CompId, l: Local) -> Option<String> {
        (l.0 > 1).then(|| format!("place {} holds {} tokens", self.inner.component_name(c), l.0))
    }
}
