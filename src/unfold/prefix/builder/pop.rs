//! Popping a candidate into the prefix: Mark(\[e\]), the cutoff decision against the
//! recorded markings, and the event with its postset conditions.

use super::super::PrefixEvent;
use super::{Builder, Delta, Label, Popped, Semantics, NONE};
use crate::unfold::cutoff::CutoffMode;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cmp::Ordering;

impl<M: Semantics + ?Sized> Builder<'_, M> {
    /// Mark(\[e\]) − m0 for candidate `i`.
    fn delta_of(&mut self, i: u32) -> Delta {
        let preset = self.cand(i).preset.clone();
        let mut acc: FxHashMap<Label, i32> = FxHashMap::default();
        let labels = std::mem::take(&mut self.labels);
        self.walk(&preset, |x| {
            for &b in &x.preset {
                *acc.entry(labels[b as usize]).or_insert(0) -= 1;
            }
            for &b in &x.postset {
                *acc.entry(labels[b as usize]).or_insert(0) += 1;
            }
        });
        self.labels = labels;
        let c = self.cand(i);
        for &b in &c.preset {
            *acc.entry(self.labels[b as usize]).or_insert(0) -= 1;
        }
        for &l in self.posts.get(c.post) {
            *acc.entry(l).or_insert(0) += 1;
        }
        let mut d: Delta = acc.into_iter().filter(|(_, v)| *v != 0).collect();
        d.sort_unstable();
        d
    }

    /// The cutoff decision for candidate `i` with marking `delta`: `Some(corr)` (NONE for
    /// the empty configuration) when a recorded configuration with that marking is strictly
    /// smaller: in size, or in ERV's order while its tie-break is sound.
    fn cutoff_of(&mut self, i: u32, delta: &Delta) -> Option<u32> {
        let reps: SmallVec<[u32; 1]> = self.reps.get(delta)?.clone();
        let size = self.cand(i).size;
        for r in reps {
            if r == NONE {
                return Some(NONE);
            }
            let rs = self.events[r as usize].size;
            let smaller = match rs.cmp(&size) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal
                    if self.opts.cutoff == CutoffMode::Erv && self.erv_ties && !self.repeated_label =>
                {
                    let (pr, pi) = (self.events[r as usize].parikh, self.cand(i).parikh);
                    let less =
                        self.order_keys(pr, pi, |s| s.foata_of_event(r), |s| s.foata_of(i)) == Ordering::Less;
                    self.took_erv_tie |= less;
                    less
                }
                Ordering::Equal => false,
            };
            if smaller {
                return Some(r);
            }
        }
        None
    }

    /// Adds candidate `i` to the prefix; returns its event id and whether it is extended.
    pub(super) fn pop_into_prefix(&mut self, i: u32) -> (u32, bool) {
        let cutoff = if self.opts.cutoff == CutoffMode::None {
            None
        } else {
            let delta = self.delta_of(i);
            let c = self.cutoff_of(i, &delta);
            if c.is_none() {
                let id = self.events.len() as u32;
                self.reps_bytes += (delta.len() * std::mem::size_of::<(Label, i32)>() + 64) as u64;
                self.reps.entry(delta).or_default().push(id);
            }
            c
        };
        if i == self.bar {
            self.bar = NONE;
        }
        let cand = self.cands[i as usize]
            .take()
            .expect("[qpor internal bug] popped candidate missing");
        self.free_cands.push(i);
        let id = self.events.len() as u32;
        let post = self.posts.get(cand.post).clone();
        self.posts.release(cand.post);
        let fault = self.sem.blocked(cand.action, &post);
        if fault {
            self.faults.push(id);
        }
        let blocked = cutoff.is_some() || fault;
        let mut postset: SmallVec<[u32; 4]> = SmallVec::new();
        for &l in &post {
            postset.push(self.new_condition(l, id));
        }
        self.prefix.events.push(PrefixEvent {
            label: self.sem.action_name(cand.action),
            action: cand.action,
            preset: cand.preset.to_vec(),
            postset: postset.to_vec(),
            cutoff: cutoff.map(|c| (c != NONE).then_some(c)),
            owner: self.sem.action_owner(cand.action),
        });
        // The event keeps the candidate's holds of its keys.
        self.events.push(Popped {
            action: cand.action,
            preset: cand.preset,
            postset,
            level: cand.level,
            size: cand.size,
            parikh: cand.parikh,
            foata: cand.foata,
            mark: 0,
        });
        (id, !blocked)
    }
}
