//! The co-relation of the prefix builder (docs/paper.md#the-co-relation): the initial cut is a co-set, and
//! co(c) of each c ∈ e• is ⋂ co(b), b ∈ •e, plus the siblings of c processed before it.
//! Each condition, once its co list is set, drives the backend's search for the
//! extensions it enables.

use super::{Builder, Conditions, Extension, Semantics, NONE};
use crate::system::ModelError;
use smallvec::SmallVec;

impl<M: Semantics + ?Sized> Builder<'_, M> {
    /// The initial conditions, a co-set, one at a time, each followed by the search for
    /// the extensions it enables; then the source extensions. Returns why it stopped early,
    /// if a limit was reached.
    pub(super) fn add_initial_cut(&mut self) -> Result<Option<String>, ModelError> {
        let initial = self.sem.initial();
        let mut found = Vec::new();
        let mut live: Vec<u32> = Vec::new();
        for l in initial {
            let c = self.new_condition(l, NONE);
            if self.is_inert(c) {
                continue;
            }
            let stopped = self.set_co_and_search(c, live.clone(), &mut found)?;
            live.push(c);
            if stopped.is_some() {
                return Ok(stopped);
            }
        }
        self.sem.source_extensions(&mut found)?;
        Ok(self.enqueue_all(&mut found))
    }

    /// The co-relation of e's postset, one condition at a time, each followed by the search
    /// for the extensions it enables. Returns why it stopped early, if the time or memory
    /// limit was reached while it queued extensions (the rest are dropped).
    pub(super) fn extend(&mut self, e: u32) -> Result<Option<String>, ModelError> {
        let preset = self.events[e as usize].preset.clone();
        let postset = self.events[e as usize].postset.clone();
        // ⋂ co(b) over the preset, shortest list first.
        let mut order: SmallVec<[u32; 4]> = preset.clone();
        order.sort_by_key(|&b| self.co[b as usize].len());
        let mut common: Vec<u32> = match order.first() {
            Some(&b) => self.co[b as usize].clone(),
            None => Vec::new(),
        };
        for &b in order.iter().skip(1) {
            intersect(&mut common, &self.co[b as usize]);
        }
        // A source event (empty preset) touches nothing, so it has no postset either.
        debug_assert!(!preset.is_empty() || postset.is_empty());
        let mut done: SmallVec<[u32; 4]> = SmallVec::new();
        let mut found = Vec::new();
        for &c in &postset {
            if self.is_inert(c) {
                continue;
            }
            let mut co = common.clone();
            co.extend(done.iter().copied());
            co.sort_unstable();
            let stopped = self.set_co_and_search(c, co, &mut found)?;
            done.push(c);
            if stopped.is_some() {
                return Ok(stopped);
            }
        }
        Ok(None)
    }

    /// Sets co(c) to `co` (sorted; c joins the lists of its members), then queues the
    /// extensions the backend finds from c (`found` is scratch). Returns why it stopped
    /// early, if a limit was reached.
    fn set_co_and_search(
        &mut self,
        c: u32,
        co: Vec<u32>,
        found: &mut Vec<Extension>,
    ) -> Result<Option<String>, ModelError> {
        let label = self.labels[c as usize];
        for &x in &co {
            self.co[x as usize].push(c);
            self.repeated_label |= self.labels[x as usize] == label;
        }
        self.co_entries += 2 * co.len() as u64;
        self.co[c as usize] = co;
        found.clear();
        {
            let conds = Conditions {
                labels: &self.labels,
                co: &self.co,
            };
            self.sem.extensions(&conds, c, found)?;
        }
        Ok(self.enqueue_all(found))
    }

    /// Whether condition `c` can never be consumed (it takes no part in the co-relation).
    fn is_inert(&self, c: u32) -> bool {
        self.sem.inert(self.labels[c as usize])
    }
}

/// Keeps in `a` the elements also in `b` (both sorted): a merge when the lengths are
/// close, binary searches in `b` when `a` is much shorter.
fn intersect(a: &mut Vec<u32>, b: &[u32]) {
    if a.len() * 16 < b.len() {
        a.retain(|x| b.binary_search(x).is_ok());
        return;
    }
    let mut j = 0;
    a.retain(|&x| {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        j < b.len() && b[j] == x
    });
}
