//! The conditions of C in the general unfolding: making conditions, C's cut per place
//! (with the list of marked places), and the concurrency of two conditions of C.

use super::{Cond, CondId, GeneralUnfolding, NONE, NOT_IN_C};
use crate::unfold::EventId;
use smallvec::SmallVec;

impl GeneralUnfolding {
    /// A new condition of `place` produced by `producer` (a freed id, or a new one).
    pub(super) fn new_cond(&mut self, place: u32, producer: EventId, usable: bool) -> CondId {
        let c = Cond {
            place,
            producer,
            consumers: SmallVec::new(),
            c_consumer: NONE,
            cut_pos: u32::MAX,
            rank: NOT_IN_C,
            usable,
            alive: true,
        };
        match self.free_conds.pop() {
            Some(id) => {
                self.conds[id.index()] = c;
                id
            }
            None => {
                self.conds.push(c);
                CondId(self.conds.len() as u32 - 1)
            }
        }
    }

    /// A usable condition joins C (as a minimal condition or the output of a push).
    #[inline]
    pub(super) fn enter_c(&mut self, c: CondId) {
        let p = self.cond(c).place as usize;
        self.conds[c.index()].rank = self.c_conds;
        self.c_conds += 1;
        self.in_c[p].push(c);
        self.cut_insert(c);
    }

    /// `c` joins the cut of its place.
    #[inline]
    pub(super) fn cut_insert(&mut self, c: CondId) {
        let p = self.cond(c).place as usize;
        self.conds[c.index()].cut_pos = self.cut[p].len() as u32;
        self.cut[p].push(c);
        if self.cut[p].len() == 1 {
            self.marked_pos[p] = self.marked.len() as u32;
            self.marked.push(p as u32);
        }
    }

    /// `c` leaves the cut of its place.
    #[inline]
    pub(super) fn cut_remove(&mut self, c: CondId) {
        let p = self.cond(c).place as usize;
        let pos = self.cond(c).cut_pos as usize;
        debug_assert_eq!(
            self.cut[p][pos], c,
            "[qpor internal bug] cut position out of date"
        );
        self.cut[p].swap_remove(pos);
        if let Some(&moved) = self.cut[p].get(pos) {
            self.conds[moved.index()].cut_pos = pos as u32;
        }
        self.conds[c.index()].cut_pos = u32::MAX;
        if self.cut[p].is_empty() {
            let mp = self.marked_pos[p] as usize;
            self.marked.swap_remove(mp);
            if let Some(&q) = self.marked.get(mp) {
                self.marked_pos[q as usize] = mp as u32;
            }
            self.marked_pos[p] = u32::MAX;
        }
    }

    /// Whether condition `x` of C precedes condition `y` of C: x is consumed in C by a
    /// cause of y's producer (or by the producer itself).
    #[inline]
    fn precedes_in_c(&self, x: CondId, y: CondId) -> bool {
        let cc = self.cond(x).c_consumer;
        let py = self.cond(y).producer;
        if cc.is_none() || py.is_none() {
            return false;
        }
        if cc == py {
            return true;
        }
        // Causes are pushed before their effects.
        self.ev(cc).config_index < self.ev(py).config_index && self.hists.contains(self.ev(py).hist, cc.0)
    }

    /// Whether conditions x and y of C are concurrent (C is conflict-free, so this is
    /// "neither precedes the other").
    #[inline]
    pub(super) fn co_in_c(&self, x: CondId, y: CondId) -> bool {
        !self.precedes_in_c(x, y) && !self.precedes_in_c(y, x)
    }
}
