//! The cutoff table of the general unfolding: representatives kept by marking (by value,
//! so that pruning never invalidates them), compared in the adequate order.

use super::net::{take_delta, MarkingDelta};
use super::{GeneralUnfolding, Representative};
use crate::system::ActionId;
use crate::unfold::cutoff::{compare_erv, CutoffMode, HistoryShape};
use crate::unfold::EventId;
use std::cmp::Ordering;

impl GeneralUnfolding {
    /// Mark(\[e\]) − m0, by walking \[e\].
    fn marking_delta(&mut self, e: EventId) -> MarkingDelta {
        let mut delta = std::mem::take(&mut self.delta);
        let mut touched = std::mem::take(&mut self.touched);
        let (events, net) = (&self.events, &self.net);
        self.hists.for_each(self.events[e.index()].hist, &mut |x| {
            net.apply(events[x as usize].trans, &mut delta, &mut touched);
            false
        });
        let out = take_delta(&mut delta, &mut touched);
        self.delta = delta;
        self.touched = touched;
        out
    }

    /// The ERV shape of \[e\]: (Foata level, transition) of each of its events.
    fn shape(&self, e: EventId) -> HistoryShape {
        let mut shape = HistoryShape::default();
        self.hists.for_each(self.ev(e).hist, &mut |x| {
            let ev = &self.events[x as usize];
            shape.events.push((ev.level, ActionId(ev.trans)));
            false
        });
        shape
    }

    /// Records a representative of the marking `delta` (of hash `hash`).
    pub(super) fn add_rep(&mut self, hash: u64, delta: MarkingDelta, size: u32, shape: HistoryShape) {
        let i = self.rep_data.len() as u32;
        self.rep_data.push(Representative {
            hash,
            delta,
            size,
            shape,
        });
        let data = &self.rep_data;
        self.reps.insert_unique(hash, i, |&r| data[r as usize].hash);
    }

    /// Whether e is a cutoff: a representative of Mark(\[e\]) is strictly smaller; a strictly
    /// larger one gives way to e.
    pub(super) fn decide_cutoff(&mut self, e: EventId) -> bool {
        let hist = self.ev(e).hist;
        let hash = self.initial_hash.wrapping_add(self.hists.hash(hist));
        let size = self.hists.size(hist);
        let delta = self.marking_delta(e);
        let data = &self.rep_data;
        let found = self
            .reps
            .find(hash, |&r| data[r as usize].delta == delta)
            .copied();
        // A representative's ERV shape only serves the tie-break.
        let ties = self.opts.cutoff == CutoffMode::Erv && self.opts.erv_ties;
        match found {
            None => {
                let shape = if ties {
                    self.shape(e)
                } else {
                    HistoryShape::default()
                };
                self.add_rep(hash, delta, size, shape);
                false
            }
            Some(r) => {
                let rep = &self.rep_data[r as usize];
                let mut shape = None;
                let order = match rep.size.cmp(&size) {
                    Ordering::Equal if ties => {
                        let s = self.shape(e);
                        let o = compare_erv(&self.rep_data[r as usize].shape, &s);
                        shape = Some(s);
                        o
                    }
                    o => o,
                };
                match order {
                    Ordering::Less => true,
                    Ordering::Equal => false,
                    Ordering::Greater => {
                        let shape = match shape {
                            Some(s) => s,
                            None if ties => self.shape(e),
                            None => HistoryShape::default(),
                        };
                        let rep = &mut self.rep_data[r as usize];
                        rep.size = size;
                        rep.shape = shape;
                        false
                    }
                }
            }
        }
    }
}
