//! Immediate conflicts in the program-like unfolding: the siblings of an event in its
//! component trees, walked run by run (see [`super::trees`]), skipping the runs of its own
//! action, the trees of components that add no dependence of their own
//! ([`crate::system::System::redundant_dependence`]: two events in immediate conflict
//! there are siblings on another component too), and for Alt's spikes, the tails of runs
//! that cannot be compatible with C.

use super::ProgramUnfolding;
use crate::system::System;
use crate::unfold::{sort_dedup_from, EventId};

impl<S: System + ?Sized> ProgramUnfolding<'_, S> {
    /// A superset of the events in immediate conflict with `e`, appended to `out`
    /// ([`crate::unfold::Unfolding::immediate_conflicts`]).
    pub(super) fn sibling_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        // Siblings in e's trees, except those with e's own action: two events of the same
        // action that share a predecessor differ on another component, where their
        // predecessors are ordered (or conflicting), so each conflicts with a cause of the
        // other — never an immediate conflict. (These are the many variants cex creates.)
        let start = out.len();
        let action = self.ev(e).action;
        for n in &self.ev(e).nodes {
            if self.redundant[n.comp.index()] {
                continue;
            }
            let mut x = if n.pred.is_none() {
                self.roots[n.comp.index()]
            } else {
                self.node(n.pred, n.comp).first_child
            };
            while !x.is_none() {
                let (x_action, next_sibling, next_same) = self.sibling_links(x, n.comp);
                if x_action != action {
                    out.push(x);
                    let mut y = next_same;
                    while !y.is_none() {
                        out.push(y);
                        y = self.sibling_links(y, n.comp).2;
                    }
                }
                x = next_sibling;
            }
        }
        if self.ev(e).nodes.len() > 1 {
            sort_dedup_from(out, start);
        }
    }

    /// The sibling conflicts of `e` compatible with C, sorted, appended to `out`
    /// ([`crate::unfold::Unfolding::compatible_immediate_conflicts`]).
    pub(super) fn compatible_sibling_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        // The walk of `sibling_conflicts`, leaving a run at its first member whose key
        // says it is incompatible with C (`run_key`). That needs the run to have no member
        // in C, which holds when e's predecessor is C's maximum on the component (none of
        // its children is in C) — always so for Alt, which asks about events enabled at C.
        let start = out.len();
        let ev = self.ev(e);
        let action = ev.action;
        for n in &ev.nodes {
            let c = n.comp;
            if self.redundant[c.index()] {
                continue;
            }
            let mut x = if n.pred.is_none() {
                self.roots[c.index()]
            } else {
                self.node(n.pred, c).first_child
            };
            let may_skip = self.maxima[c.index()] == n.pred;
            while !x.is_none() {
                let (x_action, next_sibling, next_same) = self.sibling_links(x, c);
                if x_action != action {
                    if self.compatible_with_config(x) {
                        out.push(x);
                    }
                    // Members whose key is below this are incompatible with C.
                    let mut threshold = 0;
                    let xe = self.ev(x);
                    if may_skip && !next_same.is_none() && xe.nodes.len() > 1 {
                        let at = xe.node_index(c).unwrap();
                        let key_comp = xe.nodes[(at == 0) as usize].comp;
                        threshold = (self.depth_on(self.maxima[key_comp.index()], key_comp) + 1) as u32;
                    }
                    let mut y = next_same;
                    while !y.is_none() && self.run_key_on(y, c) >= threshold {
                        if self.compatible_with_config(y) {
                            out.push(y);
                        }
                        y = self.sibling_links(y, c).2;
                    }
                }
                x = next_sibling;
            }
        }
        sort_dedup_from(out, start);
        #[cfg(debug_assertions)]
        {
            let mut all = Vec::new();
            self.sibling_conflicts(e, &mut all);
            sort_dedup_from(&mut all, 0);
            all.retain(|&x| self.compatible_with_config(x));
            debug_assert_eq!(
                &out[start..],
                &all[..],
                "[qpor internal bug] a run skipped a compatible event"
            );
        }
    }
}
