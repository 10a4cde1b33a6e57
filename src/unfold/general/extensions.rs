//! The co-set searches of the general unfolding: en(C) from the cut, and cex(C) from
//! the new conditions of C (see the module documentation of [`super`]).

use super::{coset, CondId, GeneralUnfolding, NOT_IN_C};
use crate::unfold::{EventId, UnfoldError};
use smallvec::SmallVec;

impl GeneralUnfolding {
    /// Appends en(C), creating the events ([`crate::unfold::Unfolding::enabled`]).
    pub(super) fn enabled_events(&mut self, out: &mut Vec<EventId>) -> Result<(), UnfoldError> {
        let mut x: SmallVec<[CondId; 8]> = SmallVec::new();
        // Creating events leaves C, its cut and `marked` as they are: indices stay valid.
        for i in 0..self.marked.len() {
            let p = self.marked[i] as usize;
            for k in 0..self.net.anchored[p].len() {
                let t = self.net.anchored[p][k];
                let pre = &self.net.pre[t as usize];
                if pre.iter().any(|&(q, w)| self.cut[q as usize].len() < w as usize) {
                    continue;
                }
                // Cut conditions are pairwise concurrent: every choice is an event, made as
                // soon as it is found (see `search_anchored`).
                let lists: SmallVec<[Vec<u32>; 4]> = pre
                    .iter()
                    .map(|&(q, _)| {
                        let mut v: Vec<u32> = self.cut[q as usize].iter().map(|c| c.0).collect();
                        v.sort_unstable();
                        v
                    })
                    .collect();
                let columns: SmallVec<[coset::Column<'_>; 4]> = lists
                    .iter()
                    .zip(pre.iter())
                    .map(|(l, &(_, w))| (l.as_slice(), w as usize))
                    .collect();
                coset::search_in::<_, UnfoldError>(
                    &columns,
                    self,
                    |_, _, _| true,
                    |u, chosen| {
                        x.clear();
                        x.extend(chosen.iter().map(|&c| CondId(c)));
                        x.sort_unstable();
                        out.push(u.event(t, &x)?);
                        Ok(())
                    },
                    |u| u.check_clock(),
                )?;
            }
        }
        Ok(())
    }

    /// Inserts the events of cex(C) with a condition produced at position `new_from` or
    /// later in C; returns how many it found
    /// ([`crate::unfold::Unfolding::add_conflicting_extensions`]).
    pub(super) fn conflicting_extensions(&mut self, new_from: usize) -> Result<usize, UnfoldError> {
        let mut found = 0;
        let mut fresh: Vec<CondId> = Vec::new();
        for i in new_from..self.config.len() {
            let e = self.config[i];
            fresh.extend(
                self.ev(e)
                    .postset
                    .iter()
                    .copied()
                    .filter(|b| self.cond(*b).usable),
            );
        }
        for r in fresh {
            let p = self.cond(r).place as usize;
            for k in 0..self.net.consumers[p].len() {
                let t = self.net.consumers[p][k];
                self.search_anchored(t, r, &mut found)?;
            }
        }
        Ok(found)
    }

    /// Searches cex(C) for transition `t` anchored at the new condition `r` of C; see
    /// the module documentation.
    fn search_anchored(&mut self, t: u32, r: CondId, found: &mut usize) -> Result<(), UnfoldError> {
        let rp = self.cond(r).place;
        let rank = self.cond(r).rank;
        let mut lists: SmallVec<[Vec<u32>; 4]> = SmallVec::new();
        let mut needs: SmallVec<[usize; 4]> = SmallVec::new();
        for &(q, w) in &self.net.pre[t as usize] {
            let need = if q == rp { w as usize - 1 } else { w as usize };
            if need == 0 {
                continue;
            }
            let mut col = Vec::new();
            for &x in &self.in_c[q as usize] {
                if self.cond(x).rank >= rank {
                    break;
                }
                if self.co_in_c(x, r) {
                    col.push(x.0);
                }
            }
            if col.len() < need {
                return Ok(());
            }
            lists.push(col);
            needs.push(need);
        }
        let mut order: SmallVec<[usize; 4]> = (0..lists.len()).collect();
        order.sort_by_key(|&i| lists[i].len());
        let columns: SmallVec<[coset::Column<'_>; 4]> =
            order.iter().map(|&i| (lists[i].as_slice(), needs[i])).collect();
        // Each co-set becomes its event at once (streaming, so that memory follows the
        // events made and the event limit stops the search, however many co-sets remain).
        // Creating events adds conditions outside C and never changes C, so the
        // concurrency of the conditions of C the search tests stays as it was.
        let mut x: SmallVec<[CondId; 8]> = SmallVec::new();
        coset::search_in(
            &columns,
            self,
            |u, a, b| u.co_in_c(CondId(a), CondId(b)),
            |u, chosen| {
                x.clear();
                x.extend(chosen.iter().map(|&c| CondId(c)));
                x.push(r);
                // Some condition consumed in C: otherwise (t, X) is in en(C).
                if x.iter().all(|c| u.cond(*c).c_consumer.is_none()) {
                    return Ok(());
                }
                x.sort_unstable();
                if let Some(e) = u.find(t, &x) {
                    if u.ev(e).config_index != NOT_IN_C {
                        return Ok(());
                    }
                }
                u.event(t, &x)?;
                *found += 1;
                Ok(())
            },
            |u| u.check_clock(),
        )
    }
}
