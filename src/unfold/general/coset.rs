//! Co-set search: the backtracking at the heart of ex(C), cex(C) and possible extensions
//! (docs/paper.md#theorem-43;
//! docs/paper.md#possible-extensions, the "comb").
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
//!
//! The search *streams*: each set is handed to the caller as soon as it is found, and the
//! caller may stop the search by returning an error. A net can have exponentially many
//! such sets (one per satisfying assignment on the Theorem 4.3 instances), so a caller that
//! creates the event of each set at once, and checks its limits there, holds memory for
//! the events it made, never for all the sets; [`search_in`] lends the caller's state to
//! both callbacks so that it can do that while the search runs.

/// One column: the candidate conditions (ids, in increasing order) and how many to pick.
pub(crate) type Column<'a> = (&'a [u32], usize);

/// Calls `found` with every way of choosing, for each column, `need` of its candidates in
/// increasing position such that every two chosen conditions are `compatible`. The chosen
/// conditions are passed column by column, in the order of `columns`. Stops at the first
/// error `found` returns.
pub(crate) fn search<E>(
    columns: &[Column<'_>],
    compatible: &mut dyn FnMut(u32, u32) -> bool,
    found: &mut dyn FnMut(&[u32]) -> Result<(), E>,
) -> Result<(), E> {
    search_in(
        columns,
        &mut (),
        |_, a, b| compatible(a, b),
        |_, chosen| found(chosen),
        |_| Ok(()),
    )
}

/// How many candidate picks [`search_in`] tries between two calls of its `tick`.
pub(crate) const TICK_PICKS: u32 = 4096;

/// [`search`] with a state lent to both callbacks: `compatible` reads it, `found` may
/// change it (create the event of the set just found, count it against a limit) before
/// the search goes on. The sets come in the same order as from [`search`], each as soon as
/// it is found; `found`'s first error ends the search and is returned.
///
/// `compatible` must not depend on what `found` changes: the picks already made are not
/// tested again.
///
/// `tick` is called once every [`TICK_PICKS`] candidate picks tried, so that a caller can
/// end a long search (one that finds few sets, or none) at a deadline: its first error
/// ends the search and is returned, like `found`'s.
pub(crate) fn search_in<S: ?Sized, E>(
    columns: &[Column<'_>],
    state: &mut S,
    mut compatible: impl FnMut(&S, u32, u32) -> bool,
    mut found: impl FnMut(&mut S, &[u32]) -> Result<(), E>,
    mut tick: impl FnMut(&mut S) -> Result<(), E>,
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
    // Conflict-directed backjumping: `blame` of slot s (`words` bits from s · words) holds
    // the earlier slots whose picks ruled out a candidate of s or bound its range. When s
    // runs out, no choice of the slots between its latest blamed slot h and s can help, so
    // the search goes back to h at once, handing it the rest of the blame; the sets found
    // and their order are those of plain backtracking, without its barren subtrees (on
    // the Theorem 4.3 nets, all the variables after the ones a clause rejects).
    let words = n.div_ceil(64).max(1);
    let mut blame: smallvec::SmallVec<[u64; 8]> = smallvec::SmallVec::from_elem(0, n * words);
    let mut s = 0usize;
    let mut until_tick = TICK_PICKS;
    loop {
        if s == n {
            found(state, &chosen)?;
            if s == 0 {
                return Ok(());
            }
            s -= 1;
            chosen.pop();
            // Past a set found, s's next candidates lead to other sets: go back in order.
            blame_all_before(&mut blame[s * words..(s + 1) * words], s);
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
            until_tick -= 1;
            if until_tick == 0 {
                until_tick = TICK_PICKS;
                tick(state)?;
            }
            match chosen.iter().position(|&y| !compatible(&*state, x, y)) {
                None => {
                    chosen.push(x);
                    picked = true;
                    break;
                }
                Some(i) => blame[s * words + i / 64] |= 1 << (i % 64),
            }
        }
        if picked {
            s += 1;
            if s < n {
                let own = &mut blame[s * words..(s + 1) * words];
                own.fill(0);
                cursor[s] = if slots[s] == slots[s - 1] {
                    // The range of s starts after the pick of s − 1.
                    own[(s - 1) / 64] |= 1 << ((s - 1) % 64);
                    cursor[s - 1]
                } else {
                    0
                };
            }
        } else {
            let Some(h) = latest(&blame[s * words..(s + 1) * words]) else {
                return Ok(());
            };
            for w in 0..words {
                let rest = blame[s * words + w];
                blame[h * words + w] |= rest;
            }
            blame[h * words + h / 64] &= !(1 << (h % 64));
            chosen.truncate(h);
            s = h;
        }
    }
}

/// Sets the bits of slots 0 … s − 1 in a slot's blame.
fn blame_all_before(own: &mut [u64], s: usize) {
    for (w, word) in own.iter_mut().enumerate() {
        let lo = w * 64;
        *word = if s >= lo + 64 {
            u64::MAX
        } else if s > lo {
            (1u64 << (s - lo)) - 1
        } else {
            0
        };
    }
}

/// The highest slot in a blame set.
fn latest(own: &[u64]) -> Option<usize> {
    own.iter()
        .enumerate()
        .rev()
        .find(|(_, &w)| w != 0)
        .map(|(i, &w)| i * 64 + 63 - w.leading_zeros() as usize)
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

    /// Plain chronological backtracking: the reference the backjumping search must match,
    /// set for set and in the same order.
    fn plain(columns: &[Column<'_>], ok: &dyn Fn(u32, u32) -> bool) -> Vec<Vec<u32>> {
        fn go(
            columns: &[Column<'_>],
            col: usize,
            from: usize,
            left: usize,
            chosen: &mut Vec<u32>,
            ok: &dyn Fn(u32, u32) -> bool,
            out: &mut Vec<Vec<u32>>,
        ) {
            if col == columns.len() {
                out.push(chosen.clone());
                return;
            }
            let (cands, need) = columns[col];
            if left == 0 {
                let next = columns.get(col + 1).map_or(0, |c| c.1);
                return go(columns, col + 1, 0, next, chosen, ok, out);
            }
            for i in from..cands.len() {
                if cands.len() - i < left {
                    break;
                }
                let x = cands[i];
                if chosen.iter().all(|&y| ok(x, y)) {
                    chosen.push(x);
                    go(columns, col, i + 1, left - 1, chosen, ok, out);
                    chosen.pop();
                }
            }
            let _ = need;
        }
        let mut out = Vec::new();
        if columns.iter().any(|(c, need)| c.len() < *need) {
            return out;
        }
        let first = columns.first().map_or(0, |c| c.1);
        go(columns, 0, 0, first, &mut Vec::new(), ok, &mut out);
        out
    }

    #[test]
    fn backjumping_finds_the_sets_of_plain_backtracking_in_its_order() {
        let mut next = crate::unfold::test_rng(0x9e37_79b9_7f4a_7c15);
        let (mut with_sets, mut wide_with_sets) = (0, 0);
        for case in 0..400 {
            // Columns of distinct ids; a random symmetric incompatibility.
            // One case in ten has more than 64 slots (blame sets of several words), mostly
            // single-candidate columns so that plain backtracking stays small.
            let wide = case % 10 == 0;
            let cols = if wide { 66 + next(5) } else { 1 + next(6) } as usize;
            let mut id = 0u32;
            let mut lists: Vec<Vec<u32>> = Vec::new();
            let mut needs: Vec<usize> = Vec::new();
            for _ in 0..cols {
                let len = if wide {
                    1 + usize::from(next(8) == 0)
                } else {
                    1 + next(4) as usize
                };
                lists.push((0..len).map(|k| id + k as u32).collect());
                id += len as u32;
                needs.push(1 + next(len.min(2) as u64) as usize);
            }
            // Incompatible pairs per thousand.
            let density = if wide { next(3) } else { 10 + next(400) };
            let mut bad = std::collections::HashSet::new();
            for a in 0..id {
                for b in a + 1..id {
                    if next(1000) < density {
                        bad.insert((a, b));
                    }
                }
            }
            let ok = |x: u32, y: u32| !bad.contains(&(x.min(y), x.max(y)));
            let columns: Vec<Column<'_>> = lists
                .iter()
                .zip(&needs)
                .map(|(l, &k)| (l.as_slice(), k))
                .collect();
            let got = all(&columns, &ok);
            assert_eq!(got, plain(&columns, &ok), "case {case}: {columns:?}");
            let slots: usize = needs.iter().sum();
            with_sets += usize::from(!got.is_empty());
            wide_with_sets += usize::from(!got.is_empty() && slots > 64);
        }
        assert!(
            with_sets >= 100 && wide_with_sets >= 3,
            "{with_sets} {wide_with_sets}"
        );
    }

    #[test]
    fn streams_the_sets_and_stops_at_the_first_error() {
        // 2^16 sets (one of two candidates in each of 16 columns); the caller keeps only a
        // count and stops at 10, as the backend does at its event limit.
        let cands: Vec<[u32; 2]> = (0..16).map(|i| [2 * i, 2 * i + 1]).collect();
        let columns: Vec<Column<'_>> = cands.iter().map(|c| (&c[..], 1)).collect();
        let mut made = 0u32;
        let r = search_in(
            &columns,
            &mut made,
            |_, _, _| true,
            |made, chosen| {
                assert_eq!(chosen.len(), 16);
                if *made == 10 {
                    return Err(*made);
                }
                *made += 1;
                Ok(())
            },
            |_| Ok(()),
        );
        assert_eq!(r, Err(10));
        assert_eq!(made, 10);
        // The state is lent to `compatible` too, and the order is the one of `search`.
        let a = [1, 2, 3];
        let b = [10, 11];
        let mut seen: Vec<Vec<u32>> = Vec::new();
        search_in::<_, ()>(
            &[(&a, 2), (&b, 1)],
            &mut seen,
            |seen, x, y| seen.len() < 100 && (x, y) != (10, 2),
            |seen, chosen| {
                seen.push(chosen.to_vec());
                Ok(())
            },
            |_| Ok(()),
        )
        .unwrap();
        let expected = all(&[(&a, 2), (&b, 1)], &|x, y| (x, y) != (10, 2));
        assert_eq!(seen, expected);
    }

    #[test]
    fn tick_ends_a_long_search() {
        // 2^20 sets; `found` never stops the search, `tick` does at its third call.
        let cands: Vec<[u32; 2]> = (0..20).map(|i| [2 * i, 2 * i + 1]).collect();
        let columns: Vec<Column<'_>> = cands.iter().map(|c| (&c[..], 1)).collect();
        let mut state = (0u32, 0u32);
        let r = search_in(
            &columns,
            &mut state,
            |_, _, _| true,
            |(sets, _), _| {
                *sets += 1;
                Ok(())
            },
            |(_, ticks)| {
                *ticks += 1;
                if *ticks == 3 {
                    Err("deadline")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("deadline"));
        assert_eq!(state.1, 3);
        // About one set per two picks: the search stopped after 3 · TICK_PICKS picks.
        assert!(state.0 > 0 && state.0 <= 3 * TICK_PICKS, "{} sets", state.0);
    }
}
