//! Shared, reference-counted keys of the prefix builder's queue: the Parikh vector and the
//! Foata normal form of a local configuration (the ERV order, docs/paper.md#adequate-orders), and the
//! postset labels of a queued extension.
//!
//! On a non-safe net the token-level branching process has many extensions that differ
//! only in which tokens they consume (Kanban: millions queued at a few thousand events),
//! and their local configurations mostly have equal sizes, Parikh vectors and Foata forms.
//! Interning each key once makes a queued extension a few words, and makes the common
//! comparison of two equal keys an id test instead of a walk over two histories.
//!
//! # Invariants
//! - Equal values have equal ids while both are held; an id is reused only after its last
//!   holder released it.

use crate::unfold::cutoff::lexicographic;
use hashbrown::HashTable;
use std::cmp::Ordering;
use std::hash::{BuildHasher, Hash};

/// Values stored once, by id, with a count of holders.
pub(crate) struct Interner<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    table: HashTable<u32>,
    /// Approximate heap bytes of the stored values.
    bytes: u64,
}

struct Slot<T> {
    value: T,
    refs: u32,
}

/// How many heap bytes a stored value owns (for the builder's memory limit).
pub(crate) trait HeapSize {
    /// Heap bytes owned, approximately.
    fn heap_bytes(&self) -> usize;
}

impl<T> HeapSize for Vec<T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<T>()
    }
}

impl<A: smallvec::Array> HeapSize for smallvec::SmallVec<A> {
    fn heap_bytes(&self) -> usize {
        if self.spilled() {
            self.capacity() * std::mem::size_of::<A::Item>()
        } else {
            0
        }
    }
}

fn hash_of<T: Hash>(v: &T) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(v)
}

impl<T: Hash + Eq + HeapSize + Default> Interner<T> {
    pub(crate) fn new() -> Self {
        Interner {
            slots: Vec::new(),
            free: Vec::new(),
            table: HashTable::new(),
            bytes: 0,
        }
    }

    /// The id of `value`, held once more.
    pub(crate) fn intern(&mut self, value: T) -> u32 {
        let h = hash_of(&value);
        let slots = &self.slots;
        if let Some(&id) = self.table.find(h, |&id| slots[id as usize].value == value) {
            self.slots[id as usize].refs += 1;
            return id;
        }
        self.bytes += (value.heap_bytes() + std::mem::size_of::<Slot<T>>() + 8) as u64;
        let slot = Slot { value, refs: 1 };
        let id = match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = slot;
                id
            }
            None => {
                self.slots.push(slot);
                self.slots.len() as u32 - 1
            }
        };
        let slots = &self.slots;
        self.table
            .insert_unique(h, id, |&id| hash_of(&slots[id as usize].value));
        id
    }

    /// Releases one hold of `id`; the value is dropped with its last holder.
    pub(crate) fn release(&mut self, id: u32) {
        let slot = &mut self.slots[id as usize];
        debug_assert!(
            slot.refs > 0,
            "[qpor internal bug] interned key released too often"
        );
        slot.refs -= 1;
        if slot.refs > 0 {
            return;
        }
        let h = hash_of(&slot.value);
        if let Ok(entry) = self.table.find_entry(h, |&x| x == id) {
            entry.remove();
        }
        let value = std::mem::take(&mut self.slots[id as usize].value);
        self.bytes = self
            .bytes
            .saturating_sub((value.heap_bytes() + std::mem::size_of::<Slot<T>>() + 8) as u64);
        self.free.push(id);
    }

    /// The value of `id`.
    pub(crate) fn get(&self, id: u32) -> &T {
        &self.slots[id as usize].value
    }

    /// Approximate bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// A Foata normal form: for each level 1, 2, …, the sparse Parikh vector (action, count)
/// of the events at that level, sorted by action; `starts[l]` is where level l + 1 begins
/// in `entries` (and `starts` ends with `entries.len()`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct FoataForm {
    starts: Vec<u32>,
    entries: Vec<(u32, u32)>,
}

impl HeapSize for FoataForm {
    fn heap_bytes(&self) -> usize {
        self.starts.heap_bytes() + self.entries.heap_bytes()
    }
}

impl FoataForm {
    /// The form of the (level, action) pairs of a local configuration's events, in any
    /// order (`events` is sorted in place).
    pub(crate) fn new(events: &mut [(u32, u32)]) -> FoataForm {
        events.sort_unstable();
        let mut f = FoataForm::default();
        let mut level = 0;
        for &(l, a) in events.iter() {
            debug_assert!(
                l == level || l == level + 1,
                "[qpor internal bug] Foata level skipped"
            );
            if l != level {
                // A new level starts with a new entry.
                f.starts.push(f.entries.len() as u32);
                level = l;
                f.entries.push((a, 1));
            } else {
                match f.entries.last_mut() {
                    Some(last) if last.0 == a => last.1 += 1,
                    _ => f.entries.push((a, 1)),
                }
            }
        }
        f.starts.push(f.entries.len() as u32);
        f.starts.shrink_to_fit();
        f.entries.shrink_to_fit();
        f
    }

    /// This form with one more level, holding one event of `action`.
    pub(crate) fn with_top_level(&self, action: u32) -> FoataForm {
        let mut f = FoataForm {
            starts: Vec::with_capacity(self.starts.len() + 1),
            entries: Vec::with_capacity(self.entries.len() + 1),
        };
        f.starts.extend_from_slice(&self.starts);
        f.entries.extend_from_slice(&self.entries);
        if f.starts.is_empty() {
            f.starts.push(0);
        }
        f.entries.push((action, 1));
        f.starts.push(f.entries.len() as u32);
        f
    }

    fn level(&self, l: usize) -> &[(u32, u32)] {
        if l + 1 < self.starts.len() {
            &self.entries[self.starts[l] as usize..self.starts[l + 1] as usize]
        } else {
            &[]
        }
    }

    fn levels(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

/// The Foata step of the ERV order on two local configurations with equal Parikh vectors:
/// level by level, the sparse Parikh vectors compared as sorted words
/// ([`super::builder::compare_sparse`]); the same answer as
/// [`crate::unfold::cutoff::compare_erv`] on their shapes.
pub(crate) fn compare_foata(a: &FoataForm, b: &FoataForm) -> Ordering {
    let levels = 0..a.levels().max(b.levels());
    lexicographic(levels.map(|l| super::builder::compare_sparse(a.level(l), b.level(l))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::ActionId;
    use crate::unfold::cutoff::{compare_erv, HistoryShape};

    #[test]
    fn foata_forms_compare_as_compare_erv() {
        // Shapes over 3 actions, up to 3 levels, with equal Parikh vectors or not.
        let mut next = crate::unfold::test_rng(0x2545_f491_4f6c_dd1d);
        let mut shapes: Vec<Vec<(u32, u32)>> = Vec::new();
        for _ in 0..200 {
            let levels = 1 + next(3) as u32;
            let mut v = Vec::new();
            for l in 1..=levels {
                for _ in 0..1 + next(2) {
                    v.push((l, next(3) as u32));
                }
            }
            shapes.push(v);
        }
        for a in &shapes {
            for b in &shapes {
                let (sa, sb) = (
                    HistoryShape {
                        events: a.iter().map(|&(l, t)| (l, ActionId(t))).collect(),
                    },
                    HistoryShape {
                        events: b.iter().map(|&(l, t)| (l, ActionId(t))).collect(),
                    },
                );
                let mut pa: Vec<u32> = a.iter().map(|e| e.1).collect();
                let mut pb: Vec<u32> = b.iter().map(|e| e.1).collect();
                pa.sort_unstable();
                pb.sort_unstable();
                if pa != pb {
                    continue;
                }
                let (fa, fb) = (FoataForm::new(&mut a.clone()), FoataForm::new(&mut b.clone()));
                assert_eq!(compare_foata(&fa, &fb), compare_erv(&sa, &sb), "{a:?} vs {b:?}");
                assert_eq!(
                    fa == fb,
                    compare_erv(&sa, &sb) == Ordering::Equal,
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn a_top_level_is_the_form_with_one_more_level() {
        let mut base = vec![(1, 0), (1, 2), (2, 1), (2, 1)];
        let f = FoataForm::new(&mut base.clone()).with_top_level(0);
        base.push((3, 0));
        assert_eq!(f, FoataForm::new(&mut base));
        assert_eq!(
            FoataForm::default().with_top_level(4),
            FoataForm::new(&mut [(1, 4)])
        );
    }

    #[test]
    fn interned_values_share_ids_until_released() {
        let mut i: Interner<Vec<(u32, u32)>> = Interner::new();
        let a = i.intern(vec![(1, 2)]);
        let b = i.intern(vec![(1, 2)]);
        assert_eq!(a, b);
        let c = i.intern(vec![(3, 1)]);
        assert_ne!(a, c);
        i.release(a);
        assert_eq!(i.get(b), &vec![(1, 2)]);
        i.release(b);
        let d = i.intern(vec![(5, 5)]);
        assert_eq!(d, a, "the slot is reused");
        assert_eq!(i.intern(vec![(3, 1)]), c);
    }
}
