//! Co-set search: the backtracking at the heart of ex(C), cex(C) and possible extensions
//! (paper.md §3.3; cunf.md §2.6, the "comb").
//!
//! An event (t, X) needs, for each place q of •t, W(q, t) distinct conditions labelled q,
//! all pairwise concurrent. The search gets one *column* of candidates per place (already
//! restricted to conditions concurrent with the anchor condition, sorted, shortest column
//! first) and picks `need` of each column in increasing position — so each set is found
//! once, never as a permutation — testing every new pick against the picks made so far.
//! Deciding whether any such set exists is NP-complete on non-safe nets (Theorem 4.3);
//! this search is exact and is fast when presets are small and columns short.
//!
//! The search is iterative: its depth is the number of slots, Σ W(q, t), not bounded by
//! anything in the unfolding.

/// One column: the candidate conditions (ids, in increasing order) and how many to pick.
pub type Column<'a> = (&'a [u32], usize);

/// Calls `found` with every way of choosing, for each column, `need` of its candidates in
/// increasing position such that every two chosen conditions are `compatible`. The chosen
/// conditions are passed column by column, in the order of `columns`. Stops at the first
/// error `found` returns.
pub fn search<E>(
    columns: &[Column<'_>],
    compatible: &mut dyn FnMut(u32, u32) -> bool,
    found: &mut dyn FnMut(&[u32]) -> Result<(), E>,
) -> Result<(), E> {
    let mut slots: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
    for (i, (cands, need)) in columns.iter().enumerate() {
        if cands.len() < *need {
            return Ok(());
        }
        slots.extend(std::iter::repeat_n(i, *need));
    }
    let n = slots.len();
    let mut chosen: smallvec::SmallVec<[u32; 8]> = smallvec::SmallVec::new();
    let mut cursor: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::from_elem(0, n + 1);
    let mut s = 0usize;
    loop {
        if s == n {
            found(&chosen)?;
            if s == 0 {
                return Ok(());
            }
            s -= 1;
            chosen.pop();
            continue;
        }
        let col = slots[s];
        let cands = columns[col].0;
        // Slots of the same column left after this one: keep room for them.
        let later_same = slots[s + 1..].iter().take_while(|&&c| c == col).count();
        let mut picked = false;
        while cursor[s] + later_same < cands.len() {
            let x = cands[cursor[s]];
            cursor[s] += 1;
            if chosen.iter().all(|&y| compatible(x, y)) {
                chosen.push(x);
                picked = true;
                break;
            }
        }
        if picked {
            s += 1;
            if s < n {
                cursor[s] = if slots[s] == slots[s - 1] {
                    cursor[s - 1]
                } else {
                    0
                };
            }
        } else {
            if s == 0 {
                return Ok(());
            }
            s -= 1;
            chosen.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(columns: &[Column<'_>], ok: &dyn Fn(u32, u32) -> bool) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        search::<()>(columns, &mut |a, b| ok(a, b), &mut |c| {
            out.push(c.to_vec());
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn picks_subsets_in_order_and_respects_compatibility() {
        let a = [1, 2, 3];
        let b = [10, 11];
        let got = all(&[(&a, 2), (&b, 1)], &|_, _| true);
        assert_eq!(got.len(), 3 * 2, "C(3,2) pairs times 2");
        assert_eq!(got[0], vec![1, 2, 10]);
        assert!(got.iter().all(|c| c[0] < c[1]));
        // 2 and 10 are not concurrent.
        let got = all(&[(&a, 2), (&b, 1)], &|x, y| {
            !matches!((x.min(y), x.max(y)), (2, 10))
        });
        assert_eq!(got.len(), 4);
        assert!(!got.iter().any(|c| c.contains(&2) && c.contains(&10)));
        assert_eq!(all(&[(&a, 4)], &|_, _| true).len(), 0, "too few candidates");
        assert_eq!(
            all(&[], &|_, _| true),
            vec![Vec::<u32>::new()],
            "nothing to pick: one empty choice"
        );
    }
}
