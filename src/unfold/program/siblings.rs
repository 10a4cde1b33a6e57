//! Immediate conflicts in the program-like unfolding: the siblings of an event in its
//! component trees, walked run by run (see [`super::trees`]), skipping the runs of its own
//! action, the trees of components that add no dependence of their own
//! ([`crate::system::System::redundant_dependence`]: two events in immediate conflict
//! there are siblings on another component too), and for Alt's spikes, the tails of runs
//! that cannot be compatible with C, and the members of a long run that were incompatible
//! at its last walk, through events of C still there ([`super::RunMemo`]).

use super::{ProgramUnfolding, RunMemo};
use crate::system::{CompId, System};
use crate::unfold::{sort_dedup_from, EventId};

/// The fewest members a walk of a run's tail reads for it to be recorded: on shorter
/// tails walking again costs about as much as the record.
const RUN_MEMO_MIN_WALK: u32 = 8;

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
                    if !next_same.is_none() && !self.recall_run_tail(x, c, threshold, out) {
                        self.walk_run_tail(x, next_same, c, threshold, out);
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

    /// When the last recorded walk of the tail of `head`'s run on `c` still holds for
    /// `threshold`, appends the members it found compatible that still are, and says so.
    fn recall_run_tail(&self, head: EventId, c: CompId, threshold: u32, out: &mut Vec<EventId>) -> bool {
        let memos = self.run_memos.borrow();
        let Some(m) = memos.get(&(head, c)) else {
            return false;
        };
        let holds = threshold >= m.threshold
            && self
                .config_serials
                .get(m.deepest as usize)
                .is_some_and(|&s| s == m.serial);
        if holds {
            out.extend(
                m.compatible
                    .iter()
                    .copied()
                    .filter(|&y| self.run_key_on(y, c) >= threshold && self.compatible_with_config(y)),
            );
        }
        holds
    }

    /// Walks the tail of `head`'s run on `c` from `first`, down to the first member whose
    /// key is below `threshold`, appending the members compatible with C to `out`, and
    /// records a long walk ([`RunMemo`]): Alt asks again and again about the same long
    /// runs (Mpat(6) read 140 million members in all; with the records, 49 of its 57
    /// thousand asks for a long run are answered from one).
    fn walk_run_tail(
        &self,
        head: EventId,
        first: EventId,
        c: CompId,
        threshold: u32,
        out: &mut Vec<EventId>,
    ) {
        let start = out.len();
        let mut deepest = 0;
        let mut walked = 0u32;
        let mut y = first;
        while !y.is_none() && self.run_key_on(y, c) >= threshold {
            walked += 1;
            if self.compatible_with_config(y) {
                out.push(y);
            } else {
                // compatible_with_config left the event of C that y conflicts with.
                let w = self.compat_memo[y.index()].get().conflicts_with;
                deepest = deepest.max(self.config_pos(w));
            }
            y = self.sibling_links(y, c).2;
        }
        if walked < RUN_MEMO_MIN_WALK {
            return;
        }
        // With C empty every member was compatible: nothing to remember.
        let Some(&serial) = self.config_serials.get(deepest as usize) else {
            return;
        };
        let memo = RunMemo {
            threshold,
            deepest,
            serial,
            compatible: out[start..].iter().copied().collect(),
        };
        self.run_memos.borrow_mut().insert((head, c), memo);
    }
}
