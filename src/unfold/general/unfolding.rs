//! The [`Unfolding`] implementation of the general unfolding: push and pop, the relations
//! between events (walking history differences), pruning and statistics; the searches
//! forward to [`super::extensions`].

use super::{Cond, Event, GeneralUnfolding, Representative, NONE, NOT_IN_C};
use crate::system::{ActionId, Local};
use crate::unfold::{sort_dedup_from, EventId, UnfoldError, UnfoldStats, Unfolding};

impl Unfolding for GeneralUnfolding {
    fn enabled(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError> {
        self.enabled_events(out)
    }

    fn add_conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError> {
        self.conflicting_extensions(new_from)
    }

    fn push(&mut self, e: EventId) {
        crate::unfold::debug_assert_pushable(self, e);
        self.rank_at.push(self.c_conds);
        let top = self.top_hist();
        let next = self
            .hists
            .insert(top, e.0, self.net.delta_hash[self.ev(e).trans as usize]);
        self.hists.retain(next);
        self.config_hist.push(next);
        for i in 0..self.ev(e).preset.len() {
            let c = self.ev(e).preset[i];
            self.cut_remove(c);
            self.conds[c.index()].c_consumer = e;
            let p = self.cond(c).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 -= 1;
            }
        }
        for i in 0..self.ev(e).postset.len() {
            let b = self.ev(e).postset[i];
            let p = self.cond(b).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 += 1;
            }
            if self.cond(b).usable {
                self.enter_c(b);
            }
        }
        self.events[e.index()].config_index = self.config.len() as u32;
        self.config.push(e);
    }

    fn pop(&mut self) -> EventId {
        let e = crate::unfold::pop_config(&mut self.config);
        for i in (0..self.ev(e).postset.len()).rev() {
            let b = self.ev(e).postset[i];
            let p = self.cond(b).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 -= 1;
            }
            if self.cond(b).usable {
                self.cut_remove(b);
                let last = self.in_c[p as usize].pop();
                debug_assert_eq!(last, Some(b), "[qpor internal bug] conditions of C out of order");
                self.conds[b.index()].rank = NOT_IN_C;
                self.c_conds -= 1;
            }
        }
        for i in 0..self.ev(e).preset.len() {
            let c = self.ev(e).preset[i];
            self.conds[c.index()].c_consumer = NONE;
            self.cut_insert(c);
            let p = self.cond(c).place;
            if self.net.is_real(p) {
                self.state[p as usize].0 += 1;
            }
        }
        let h = self
            .config_hist
            .pop()
            .expect("[qpor internal bug] no history to pop");
        self.hists.release(h);
        self.rank_at.pop();
        self.events[e.index()].config_index = NOT_IN_C;
        e
    }

    fn config(&self) -> &[EventId] {
        &self.config
    }

    fn in_config(&self, e: EventId) -> bool {
        self.ev(e).config_index != NOT_IN_C
    }

    fn is_enabled(&self, e: EventId) -> bool {
        let ev = self.ev(e);
        ev.config_index == NOT_IN_C
            && ev.preset.iter().all(|c| {
                let c = self.cond(*c);
                c.rank != NOT_IN_C && c.c_consumer.is_none()
            })
    }

    fn compatible(&self, e: EventId) -> bool {
        // C ∪ [e] is a configuration iff no event of [e] \ C consumes a condition that C
        // consumes.
        !self
            .hists
            .for_each_minus(self.ev(e).hist, self.top_hist(), &mut |x| {
                self.events[x as usize]
                    .preset
                    .iter()
                    .any(|c| !self.cond(*c).c_consumer.is_none())
            })
    }

    fn conflict(&self, a: EventId, b: EventId) -> bool {
        if a == b {
            return false;
        }
        // |[a] \ [b]| − |[b] \ [a]| = |[a]| − |[b]|: walk the smaller difference, looking
        // for an event of the other side sharing a condition.
        let (ha, hb) = (self.ev(a).hist, self.ev(b).hist);
        let (x, y) = if self.hists.size(ha) <= self.hists.size(hb) {
            (ha, hb)
        } else {
            (hb, ha)
        };
        self.hists.for_each_minus(x, y, &mut |z| {
            self.events[z as usize].preset.iter().any(|c| {
                self.cond(*c)
                    .consumers
                    .iter()
                    .any(|&w| w.0 != z && self.hists.contains(y, w.0))
            })
        })
    }

    fn causally_le(&self, a: EventId, b: EventId) -> bool {
        a == b || self.hists.contains(self.ev(b).hist, a.0)
    }

    fn immediate_conflicts(&self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        for c in &self.ev(e).preset {
            out.extend(self.cond(*c).consumers.iter().copied().filter(|&y| y != e));
        }
        if self.ev(e).preset.len() > 1 {
            sort_dedup_from(out, start);
        }
    }

    fn history_outside_config(&mut self, e: EventId, out: &mut Vec<EventId>) {
        let start = out.len();
        self.hists
            .for_each_minus(self.ev(e).hist, self.top_hist(), &mut |x| {
                out.push(EventId(x));
                false
            });
        // Causes before effects: a cause has a strictly smaller Foata level.
        let events = &self.events;
        out[start..].sort_by_key(|x| (events[x.index()].level, x.0));
    }

    fn stop_requested(&self) -> bool {
        self.check_clock().is_err()
    }

    fn is_cutoff(&self, e: EventId) -> bool {
        self.ev(e).cutoff
    }

    fn is_fault(&self, _e: EventId) -> bool {
        false
    }

    fn action(&self, e: EventId) -> ActionId {
        ActionId(self.ev(e).trans)
    }

    fn config_state(&self) -> &[Local] {
        &self.state
    }

    fn prune(&mut self, keep: &[EventId]) {
        self.generation = self.generation.wrapping_add(1);
        let g = self.generation;
        let mut stack: Vec<EventId> = keep.to_vec();
        stack.extend(self.config.iter().copied());
        while let Some(x) = stack.pop() {
            if self.events[x.index()].mark == g {
                continue;
            }
            self.events[x.index()].mark = g;
            for c in &self.events[x.index()].preset {
                let p = self.conds[c.index()].producer;
                if !p.is_none() && self.events[p.index()].mark != g {
                    stack.push(p);
                }
            }
        }
        // Free the live events left unmarked.
        let dead: Vec<EventId> =
            crate::unfold::live_ids(self.events.iter().map(|e| e.alive && e.mark != g)).collect();
        for x in dead {
            self.free_event(x);
        }
        self.stats.alive_after_prune = self.stats.events_alive;
    }

    fn stats(&self) -> UnfoldStats {
        let mut s = self.stats;
        s.bytes = (self.events.len() * std::mem::size_of::<Event>()
            + self.conds.len() * std::mem::size_of::<Cond>()
            + self.hists.live_bytes()
            + self.rep_data.len() * std::mem::size_of::<Representative>()) as u64;
        s
    }
}
