//! The [`Unfolding`] implementation of the program-like unfolding: en(C), push and pop,
//! pruning and statistics here; the rest forwards to the modules of each job.

use super::summary::Tries;
use super::{CompatMemo, Event, ProgramUnfolding, NOT_IN_CONFIG};
use crate::system::{ActionId, CompId, Local, ModelError, System};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::{EventId, UnfoldError, UnfoldStats, Unfolding};
use smallvec::SmallVec;

impl<S: System + ?Sized> Unfolding for ProgramUnfolding<'_, S> {
    fn enabled(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError> {
        let mut steps = std::mem::take(&mut self.steps);
        steps.clear();
        self.sys.enabled_steps(&self.state, &mut steps);
        let mut preds: SmallVec<[EventId; 8]> = SmallVec::new();
        let mut result = Ok(());
        for step in &steps {
            if step.touched.is_empty() {
                // An action touching nothing is enabled in every state and cannot be an
                // event (its occurrences would all be the same event); engines handle
                // such systems before unfolding them (they never deadlock).
                continue;
            }
            preds.clear();
            preds.extend(step.touched.iter().map(|c| self.maxima[c.index()]));
            if preds.iter().any(|p| !p.is_none() && self.blocked(*p)) {
                continue;
            }
            match self.event(step, &preds) {
                Ok(Some(e)) => out.push(e),
                Ok(None) => {
                    result = Err(UnfoldError::Model(ModelError::new(format!(
                        "[qpor internal bug] step {} listed as enabled does not fire",
                        self.sys.action_name(step.action)
                    ))));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.steps = steps;
        result
    }

    fn add_conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError> {
        self.conflicting_extensions(new_from)
    }

    fn push(&mut self, e: EventId) {
        crate::unfold::debug_assert_pushable(self, e);
        let top = *self.config_summaries.last().unwrap();
        let entries: SmallVec<[(CompId, u32); 8]> = self.ev(e).nodes.iter().map(|n| (n.comp, e.0)).collect();
        let events = &self.events;
        let initial = &self.initial;
        let weight = |c: CompId, x: u32| Self::weight(events, initial, c, x);
        let next = self.tries.set_all(top, &entries, &weight);
        self.tries.retain(next);
        self.config_summaries.push(next);
        for i in 0..self.events[e.index()].nodes.len() {
            let n = &self.events[e.index()].nodes[i];
            self.maxima[n.comp.index()] = e;
            self.state[n.comp.index()] = n.post;
        }
        self.config_index[e.index()] = self.config.len() as u32;
        self.pushes += 1;
        self.config_serials.push(self.pushes);
        self.config.push(e);
    }

    fn pop(&mut self) -> EventId {
        let e = crate::unfold::pop_config(&mut self.config);
        self.config_serials.pop();
        let s = self.config_summaries.pop().unwrap();
        self.tries.release(s);
        for i in 0..self.events[e.index()].nodes.len() {
            let (c, p) = {
                let n = &self.events[e.index()].nodes[i];
                (n.comp, n.pred)
            };
            self.maxima[c.index()] = p;
            self.state[c.index()] = self.post_on(p, c);
        }
        self.config_index[e.index()] = NOT_IN_CONFIG;
        e
    }

    fn config(&self) -> &[EventId] {
        &self.config
    }

    fn in_config(&self, e: EventId) -> bool {
        self.config_pos(e) != NOT_IN_CONFIG
    }

    fn is_enabled(&self, e: EventId) -> bool {
        let ev = self.ev(e);
        self.config_pos(e) == NOT_IN_CONFIG && ev.nodes.iter().all(|n| self.maxima[n.comp.index()] == n.pred)
    }

    fn compatible(&self, e: EventId) -> bool {
        self.compatible_with_config(e)
    }

    fn conflict(&self, a: EventId, b: EventId) -> bool {
        self.in_conflict(a, b)
    }

    fn causally_le(&self, a: EventId, b: EventId) -> bool {
        if a == b {
            return true;
        }
        let Some(n) = self.ev(a).nodes.first() else {
            return false;
        };
        let c = n.comp;
        let z = self.max_in_history(b, c);
        !z.is_none() && self.is_ancestor(a, z, c)
    }

    fn immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        self.sibling_conflicts(e, out)
    }

    fn compatible_immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        self.compatible_sibling_conflicts(e, out)
    }

    fn history_outside_config(&mut self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        let mut found = Vec::new();
        self.walk_history(e, |u, x| {
            if u.config_pos(x) == NOT_IN_CONFIG {
                found.push(x);
            }
        });
        // Causes before effects: a cause's history is strictly smaller.
        found.sort_by_key(|x| (self.ev(*x).size, x.0));
        out.extend(found);
        debug_assert!(out[start..]
            .windows(2)
            .all(|w| self.ev(w[0]).size <= self.ev(w[1]).size));
    }

    fn is_cutoff(&self, e: EventId) -> bool {
        self.ev(e).cutoff
    }

    fn is_fault(&self, e: EventId) -> bool {
        self.ev(e).fault
    }

    fn action(&self, e: EventId) -> ActionId {
        self.ev(e).action
    }

    fn config_state(&self) -> &[Local] {
        &self.state
    }

    fn prune(&mut self, keep: &[EventId]) {
        // Freed ids will be reused: forget what the memos say about any id.
        for m in &self.compat_memo {
            m.set(CompatMemo::UNKNOWN);
        }
        self.run_memos.get_mut().clear();
        let mut roots: Vec<EventId> = keep.to_vec();
        roots.extend(self.config.iter().copied());
        // Only ERV pins its representatives: spare the other modes a pass over every event.
        if self.opts.cutoff == CutoffMode::Erv {
            roots.extend(
                self.events
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.alive && e.pinned)
                    .map(|(i, _)| EventId(i as u32)),
            );
        }
        let g = self.walk_closure(roots, |_, _| {});
        // Free the unmarked, effects before causes (larger histories first) so that every
        // freed event's live neighbours are fixed up.
        // Sizes gathered in the scan, so that the sort does not look every event up again.
        let mut dead: Vec<(std::cmp::Reverse<u32>, EventId)> = self
            .marks
            .iter()
            .enumerate()
            .filter(|&(i, &m)| m != g && self.events[i].alive)
            .map(|(i, _)| (std::cmp::Reverse(self.events[i].size), EventId(i as u32)))
            .collect();
        dead.sort_unstable();
        for (_, x) in dead {
            self.free_event(x);
        }
        self.stats.alive_after_prune = self.stats.events_alive;
        debug_assert_eq!(
            self.spilled_node_bytes,
            self.events
                .iter()
                .filter(|e| e.alive)
                .map(|e| super::events::spilled_bytes(&e.nodes))
                .sum::<u64>(),
            "[qpor internal bug] the count of spilled node bytes drifted"
        );
    }

    fn stats(&self) -> UnfoldStats {
        let mut s = self.stats;
        let per_event = std::mem::size_of::<Event>() as u64;
        s.bytes = self.events.len() as u64 * per_event
            + self.spilled_node_bytes
            + (self.tries.live_nodes() * Tries::NODE_BYTES) as u64;
        s
    }
}
