//! The event store of the general unfolding: events hash-consed by (transition, preset),
//! their creation (history, postset, cutoff) and their freeing, with ids reused through a
//! free list.

use super::history::History;
use super::{CondId, Event, GeneralUnfolding, EVENTS_PER_CLOCK_CHECK, NOT_IN_C};
use crate::unfold::cutoff::CutoffMode;
use crate::unfold::{EventId, UnfoldError};
use smallvec::SmallVec;
use std::hash::{BuildHasher, Hasher};

/// The hash-consing key of an event: its transition and its preset.
fn key_hash(trans: u32, preset: &[CondId]) -> u64 {
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    h.write_u32(trans);
    for c in preset {
        h.write_u32(c.0);
    }
    h.finish()
}

impl GeneralUnfolding {
    /// Looks up the event (t, X).
    #[inline]
    pub(super) fn find(&self, trans: u32, preset: &[CondId]) -> Option<EventId> {
        let h = key_hash(trans, preset);
        self.table
            .find(h, |&id| {
                let e = &self.events[id.index()];
                e.trans == trans && e.preset.as_slice() == preset
            })
            .copied()
    }

    /// The event (t, X) for a sorted co-set X matching •t, created if needed.
    #[inline]
    pub(super) fn event(&mut self, trans: u32, preset: &[CondId]) -> Result<EventId, UnfoldError> {
        if let Some(e) = self.find(trans, preset) {
            return Ok(e);
        }
        if let Some(max) = self.opts.max_events {
            if self.stats.events_created >= max {
                return Err(UnfoldError::EventLimit(max));
            }
        }
        if self.stats.events_created % EVENTS_PER_CLOCK_CHECK == EVENTS_PER_CLOCK_CHECK - 1 {
            self.check_clock()?;
        }
        Ok(self.create(trans, preset))
    }

    /// Makes the event (t, X): its history, its postset, whether it is a cutoff.
    fn create(&mut self, trans: u32, preset: &[CondId]) -> EventId {
        debug_assert!(preset.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(preset.iter().all(|c| self.cond(*c).alive && self.cond(*c).usable));
        let id = match self.free_events.pop() {
            Some(id) => id,
            None => {
                self.events.push(Event {
                    trans,
                    preset: SmallVec::new(),
                    postset: SmallVec::new(),
                    hist: History::EMPTY,
                    level: 0,
                    cutoff: false,
                    alive: false,
                    config_index: NOT_IN_C,
                    mark: 0,
                });
                EventId(self.events.len() as u32 - 1)
            }
        };
        // [e]: the producers' histories, then e.
        let mut hist = History::EMPTY;
        let mut level = 1;
        {
            let events = &self.events;
            let delta_hash = &self.net.delta_hash;
            let weight = |x: u32| delta_hash[events[x as usize].trans as usize];
            for c in preset {
                let p = self.conds[c.index()].producer;
                if p.is_none() {
                    continue;
                }
                level = level.max(events[p.index()].level + 1);
                let merged = self.hists.union(hist, events[p.index()].hist, &weight);
                self.hists.retain(merged);
                self.hists.release(hist);
                hist = merged;
            }
        }
        let with_e = self.hists.insert(hist, id.0, self.net.delta_hash[trans as usize]);
        self.hists.retain(with_e);
        self.hists.release(hist);
        {
            let e = &mut self.events[id.index()];
            e.trans = trans;
            e.preset = SmallVec::from_slice(preset);
            e.postset.clear();
            e.hist = with_e;
            e.level = level;
            e.cutoff = false;
            e.alive = true;
            e.config_index = NOT_IN_C;
        }
        for c in preset {
            self.conds[c.index()].consumers.push(id);
        }
        self.stats.events_created += 1;
        self.stats.events_alive += 1;
        self.stats.events_alive_peak = self.stats.events_alive_peak.max(self.stats.events_alive);
        let cutoff = self.opts.cutoff != CutoffMode::None && self.decide_cutoff(id);
        self.events[id.index()].cutoff = cutoff;
        if cutoff {
            self.stats.cutoff_events += 1;
        }
        let mut postset = SmallVec::new();
        for i in 0..self.net.post[trans as usize].len() {
            let (p, w) = self.net.post[trans as usize][i];
            for _ in 0..w {
                postset.push(self.new_cond(p, id, !cutoff));
            }
        }
        self.events[id.index()].postset = postset;
        let h = key_hash(trans, preset);
        let events = &self.events;
        self.table.insert_unique(h, id, |&x| {
            let e = &events[x.index()];
            key_hash(e.trans, &e.preset)
        });
        id
    }

    /// Frees `x` and its postset (which holds no condition of C); its id goes to the free
    /// list.
    pub(super) fn free_event(&mut self, x: EventId) {
        let h = key_hash(self.ev(x).trans, &self.ev(x).preset);
        if let Ok(entry) = self.table.find_entry(h, |&y| y == x) {
            entry.remove();
        }
        let preset = std::mem::take(&mut self.events[x.index()].preset);
        for c in &preset {
            let cond = &mut self.conds[c.index()];
            if cond.alive {
                cond.consumers.retain(|y| *y != x);
            }
        }
        let postset = std::mem::take(&mut self.events[x.index()].postset);
        for b in &postset {
            debug_assert_eq!(
                self.cond(*b).rank,
                NOT_IN_C,
                "[qpor internal bug] freeing a condition of C"
            );
            self.conds[b.index()].alive = false;
            self.conds[b.index()].consumers.clear();
            self.free_conds.push(*b);
        }
        let hist = self.events[x.index()].hist;
        self.hists.release(hist);
        let e = &mut self.events[x.index()];
        e.preset = crate::unfold::emptied(preset);
        e.postset = crate::unfold::emptied(postset);
        e.hist = History::EMPTY;
        e.alive = false;
        self.free_events.push(x);
        self.stats.events_alive -= 1;
    }
}
