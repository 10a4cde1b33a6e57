//! cex(C) in the program-like unfolding: for every anchor component and position on C's
//! chain there, the anchored steps are tried with predecessors searched along the other
//! components' chains, pruned by history consistency and local states (see the module
//! documentation of [`super`]).

use super::{ProgramUnfolding, NONE, NOT_IN_CONFIG};
use crate::system::{CompId, ModelError, Step, System};
use crate::unfold::{EventId, UnfoldError};
use smallvec::SmallVec;

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
    /// Inserts the events of cex(C) with a predecessor at position `new_from` or later in
    /// C; returns how many it found
    /// ([`crate::unfold::Unfolding::add_conflicting_extensions`]).
    pub(super) fn conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError> {
        let new_from = new_from as u32;
        let n = self.sys.num_components();
        let mut chains: Vec<Vec<EventId>> = vec![Vec::new(); n];
        for (c, chain) in chains.iter_mut().enumerate() {
            self.chain(CompId(c as u32), chain);
        }
        let mut found = 0usize;
        let mut anchored = Vec::new();
        for c in 0..n {
            let c = CompId(c as u32);
            let positions: Vec<EventId> = chains[c.index()]
                .iter()
                .copied()
                .chain(std::iter::once(NONE))
                .collect();
            for x in positions {
                if !x.is_none() && self.blocked(x) {
                    continue;
                }
                anchored.clear();
                if !self.sys.anchored_steps(c, self.post_on(x, c), &mut anchored) {
                    return Err(UnfoldError::Model(ModelError::new(
                        "this system cannot list its anchored steps, which the unfolding needs",
                    )));
                }
                let x_new = !x.is_none() && self.config_pos(x) >= new_from;
                for step in &anchored {
                    let Some(ai) = step.touched.iter().position(|&d| d == c) else {
                        continue;
                    };
                    // Some predecessor must be new: if x is old, one of the other
                    // components needs a new event at the top of its chain.
                    if !x_new
                        && !step.touched.iter().any(|d| {
                            *d != c
                                && chains[d.index()]
                                    .first()
                                    .is_some_and(|&t| self.config_pos(t) >= new_from)
                        })
                    {
                        continue;
                    }
                    let mut assign: SmallVec<[Option<EventId>; 8]> =
                        SmallVec::from_elem(None, step.touched.len());
                    assign[ai] = Some(x);
                    // Components that add no dependence of their own come last: their
                    // predecessor is then the last event on them in the others' histories.
                    let mut order: SmallVec<[usize; 8]> =
                        (0..step.touched.len()).filter(|&j| j != ai).collect();
                    order.sort_by_key(|&j| self.redundant[step.touched[j].index()]);
                    self.search_preds(step, &mut assign, &order, &chains, new_from, x_new, &mut found)?;
                }
            }
        }
        Ok(found)
    }

    /// The events of C's chain on `c`, from the top down to the root.
    fn chain(&self, c: CompId, out: &mut Vec<EventId>) {
        out.clear();
        let mut x = self.maxima[c.index()];
        while !x.is_none() {
            out.push(x);
            x = self.node(x, c).pred;
        }
    }

    /// Searches predecessors for the unassigned components of `step` (`assign[j]` is
    /// `None` until chosen; `Some(NONE)` is ⊥) along C's chains, and creates every
    /// consistent, enabled event found. `order` lists the component indices to assign;
    /// `chains[c]` is C's chain on component c, from the top down.
    /// Only combinations with a predecessor at position `new_from` or later in C are
    /// wanted (the others were found at an earlier leaf); `have_new` says whether the
    /// choices so far include one.
    #[allow(clippy::too_many_arguments)]
    fn search_preds(
        &mut self,
        step: &Step,
        assign: &mut [Option<EventId>],
        order: &[usize],
        chains: &[Vec<EventId>],
        new_from: u32,
        have_new: bool,
        found: &mut usize,
    ) -> Result<(), UnfoldError> {
        self.tick()?;
        let Some((&at, rest)) = order.split_first() else {
            if !have_new {
                return Ok(());
            }
            let preds: SmallVec<[EventId; 8]> = assign.iter().map(|p| p.unwrap_or(NONE)).collect();
            if let Some(e) = self.event(step, &preds)? {
                if self.config_pos(e) == NOT_IN_CONFIG {
                    *found += 1;
                }
            }
            return Ok(());
        };
        let c = step.touched[at];
        let chain = &chains[c.index()];
        // The chosen predecessors' histories must not hold a later c-event than ours.
        let mut low: i64 = -1;
        let mut last_seen = NONE;
        for &p in assign.iter().flatten() {
            if !p.is_none() {
                let m = self.max_in_history(p, c);
                let d = self.depth_on(m, c);
                if d > low {
                    (low, last_seen) = (d, m);
                }
            }
        }
        let must_be_new = rest.is_empty() && !have_new;
        if self.redundant[c.index()] {
            // Every other component is assigned (they come first). Two events touching c
            // that are both enabled somewhere share another component, so a c-event
            // outside the others' histories would be a later event on that component than
            // its predecessor there: the only consistent choice is the last c-event they
            // hold.
            let z = last_seen;
            let new = !z.is_none() && self.config_pos(z) >= new_from;
            if (must_be_new && !new)
                || !self.consistent_with(z, step, assign)
                || (!z.is_none() && self.blocked(z))
                || !self.sys.may_enable(step, at, self.post_on(z, c))
            {
                return Ok(());
            }
            assign[at] = Some(z);
            self.search_preds(step, assign, rest, chains, new_from, have_new || new, found)?;
            assign[at] = None;
            return Ok(());
        }
        // Nor may z's history hold later events on the components already chosen. Down
        // the chain histories shrink, so the consistent candidates are a suffix of it:
        // a binary search skips the rest, which on a long configuration is most of the
        // chain (a lock request far down a thread would otherwise test every later
        // access of its mutex, quadratic in the length of C).
        let first = chain.partition_point(|&z| !self.consistent_with(z, step, assign));
        let mut candidates: SmallVec<[EventId; 16]> = SmallVec::new();
        for &x in &chain[first..] {
            if (self.tree_depth(x, c) as i64) < low || (must_be_new && self.config_pos(x) < new_from) {
                break;
            }
            candidates.push(x);
        }
        if low < 0 && !must_be_new {
            candidates.push(NONE);
        }
        for z in candidates {
            debug_assert!(self.consistent_with(z, step, assign));
            if !z.is_none() && self.blocked(z) {
                continue;
            }
            if !self.sys.may_enable(step, at, self.post_on(z, c)) {
                continue;
            }
            let new = !z.is_none() && self.config_pos(z) >= new_from;
            assign[at] = Some(z);
            self.search_preds(step, assign, rest, chains, new_from, have_new || new, found)?;
            assign[at] = None;
        }
        Ok(())
    }

    /// Whether `z`'s history holds no later event than the chosen predecessor on any
    /// component of `step` already assigned.
    fn consistent_with(&self, z: EventId, step: &Step, assign: &[Option<EventId>]) -> bool {
        z.is_none()
            || assign.iter().enumerate().all(|(j, p)| match p {
                None => true,
                Some(p) => {
                    let cj = step.touched[j];
                    self.depth_on(self.max_in_history(z, cj), cj) <= self.depth_on(*p, cj)
                }
            })
    }
}
