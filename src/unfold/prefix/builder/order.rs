//! The adequate order of the prefix builder on queued candidates and popped events:
//! sizes, then (ERV) Parikh vectors as sorted words and Foata normal forms, the Foata
//! forms computed at the first comparison that needs them.

use super::super::keys::{compare_foata, FoataForm};
use super::{Builder, Semantics, NONE};
use crate::unfold::cutoff::CutoffMode;
use std::cmp::Ordering;

/// Compares sparse Parikh vectors as sorted words (the order of [`crate::unfold::cutoff::compare_parikh`]: at the
/// first action where the counts differ, more occurrences is smaller; a proper prefix is
/// smaller).
pub(crate) fn compare_sparse(a: &[(u32, u32)], b: &[(u32, u32)]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let ((ta, ka), (tb, kb)) = (a[i], b[j]);
        if ta != tb {
            return ta.cmp(&tb);
        }
        if ka != kb {
            // Past the common copies, the word with more copies of ta goes on with ta; the
            // other goes on with its next action (larger than ta) or ends.
            let (next_a, next_b) = if ka > kb {
                (Some(ta), b.get(j + 1).map(|x| x.0))
            } else {
                (a.get(i + 1).map(|x| x.0), Some(tb))
            };
            return match (next_a, next_b) {
                (Some(x), Some(y)) => x.cmp(&y),
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            };
        }
        i += 1;
        j += 1;
    }
    (a.len() - i).cmp(&(b.len() - j))
}

impl<M: Semantics + ?Sized> Builder<'_, M> {
    /// The interned Foata normal form of a candidate's \[e\], computed at its first use.
    pub(super) fn foata_of(&mut self, i: u32) -> u32 {
        let c = self.cand(i);
        if c.foata != NONE {
            return c.foata;
        }
        let preset = c.preset.clone();
        let own = (c.level, c.action);
        // With one producer p, [e] is [p] plus e, alone on the level after [p]'s last.
        let mut producers = preset
            .iter()
            .map(|&b| self.producer[b as usize])
            .filter(|&p| p != NONE);
        let first = producers.next();
        let form = match first {
            Some(p) if producers.all(|q| q == p) => {
                let fp = self.foata_of_event(p);
                self.foatas.get(fp).with_top_level(own.1)
            }
            None => FoataForm::new(&mut [own]),
            Some(_) => {
                let mut events = vec![own];
                self.walk(&preset, |x| events.push((x.level, x.action)));
                FoataForm::new(&mut events)
            }
        };
        let id = self.foatas.intern(form);
        self.cands[i as usize]
            .as_mut()
            .expect("[qpor internal bug] queued candidate missing")
            .foata = id;
        id
    }

    /// The interned Foata normal form of a popped event's \[e\], computed at its first use.
    pub(super) fn foata_of_event(&mut self, e: u32) -> u32 {
        let ev = &self.events[e as usize];
        if ev.foata != NONE {
            return ev.foata;
        }
        let preset = ev.preset.clone();
        let mut events = vec![(ev.level, ev.action)];
        self.walk(&preset, |x| events.push((x.level, x.action)));
        let id = self.foatas.intern(FoataForm::new(&mut events));
        self.events[e as usize].foata = id;
        id
    }

    /// The ERV order on keys of equal size: Parikh vectors, then Foata forms (`fa`, `fb`
    /// are computed only when the Parikh vectors are equal).
    pub(super) fn order_keys(
        &mut self,
        pa: u32,
        pb: u32,
        fa: impl FnOnce(&mut Self) -> u32,
        fb: impl FnOnce(&mut Self) -> u32,
    ) -> Ordering {
        if pa != pb {
            return compare_sparse(self.parikhs.get(pa), self.parikhs.get(pb));
        }
        let (fa, fb) = (fa(self), fb(self));
        if fa == fb {
            Ordering::Equal
        } else {
            compare_foata(self.foatas.get(fa), self.foatas.get(fb))
        }
    }

    /// The adequate order between two candidates, without the discovery tie-break.
    fn order(&mut self, a: u32, b: u32) -> Ordering {
        let (ca, cb) = (self.cand(a), self.cand(b));
        let o = ca.size.cmp(&cb.size);
        if o != Ordering::Equal || self.opts.cutoff != CutoffMode::Erv {
            return o;
        }
        let (pa, pb) = (ca.parikh, cb.parikh);
        self.order_keys(pa, pb, |s| s.foata_of(a), |s| s.foata_of(b))
    }

    /// Whether candidate `a` ◁ candidate `b`, ties broken by discovery order.
    pub(super) fn less(&mut self, a: u32, b: u32) -> bool {
        match self.order(a, b) {
            Ordering::Equal => self.cand(a).seq < self.cand(b).seq,
            o => o == Ordering::Less,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::ActionId;
    use crate::unfold::cutoff::compare_parikh;

    fn dense(v: &[(u32, u32)]) -> Vec<ActionId> {
        v.iter()
            .flat_map(|&(t, k)| std::iter::repeat_n(ActionId(t), k as usize))
            .collect()
    }

    #[test]
    fn sparse_parikh_order_is_the_sorted_word_order() {
        let vs: Vec<Vec<(u32, u32)>> = vec![
            vec![],
            vec![(0, 1)],
            vec![(0, 2)],
            vec![(0, 1), (1, 1)],
            vec![(1, 2)],
            vec![(0, 1), (2, 1)],
            vec![(1, 1), (2, 1)],
            vec![(0, 3)],
            vec![(2, 1)],
        ];
        for a in &vs {
            for b in &vs {
                assert_eq!(
                    compare_sparse(a, b),
                    compare_parikh(&dense(a), &dense(b)),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }
}
