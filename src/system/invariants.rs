//! Structural safeness of a net from place invariants (P-semiflows), for `qpor info` and
//! the general backend's warning about non-safe nets (docs/design.md#the-general-backend).
//!
//! A P-semiflow is y ≥ 0, y ≠ 0, with y · C = 0 for the incidence matrix C (read arcs do not
//! change it): y · m is the same in every reachable marking m, so m(p) ≤ (y · m0) / y(p).
//! A place is *structurally 1-bounded* when some semiflow has y · m0 < 2 · y(p); the net is
//! structurally safe when every place is. Semiflows come from the Farkas (Fourier–Motzkin)
//! algorithm over the transitions; it can grow exponentially, so
//! it stops after [`MAX_ROWS`] rows and the answer is then "not known".
//! A NUPN block declared safe, with every place in a unit, is also taken as a proof (its
//! units are 1-token invariants by definition; qpor checks it while exploring).

use super::net::Net;

/// Most rows the Farkas algorithm creates beyond one per place before giving up.
pub(crate) const MAX_ROWS: usize = 4000;

/// How many new rows pass between two questions to `stop`.
const STOP_EVERY: usize = 256;

/// What is known about the safeness of a net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Safeness {
    /// Every place is covered by a place invariant bounding it by 1 token.
    Invariants,
    /// The file's NUPN block is declared safe and covers every place.
    NupnUnits,
    /// Not known: these places are not bounded by 1 by any invariant found (the first
    /// few, by label), or the search gave up (`gave_up`).
    Unknown {
        /// Places without a 1-bounding invariant.
        unbounded: Vec<String>,
        /// Whether the invariant search stopped early: at its row limit (`MAX_ROWS`) or
        /// at the budget's time limit.
        gave_up: bool,
    },
}

impl Safeness {
    /// Whether the net is known to be safe.
    pub fn is_safe(&self) -> bool {
        !matches!(self, Safeness::Unknown { .. })
    }
}

/// A sparse vector: (index, nonzero value), sorted by index.
type Sparse = Vec<(u32, i64)>;

/// A row of the Farkas tableau: the incidence part c (over transitions not yet
/// eliminated) and the invariant part y (over places), both sparse, so that a wide net
/// costs memory in proportion to its arcs, not to places × transitions.
struct Row {
    c: Sparse,
    y: Sparse,
}

impl Row {
    fn at(&self, t: u32) -> i64 {
        self.c
            .binary_search_by_key(&t, |e| e.0)
            .map_or(0, |i| self.c[i].1)
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// ka · a + kb · b, without its zero entries; `None` when a value passes 2^40 (the search
/// then gives up rather than overflow).
fn combine(ka: i64, a: &Sparse, kb: i64, b: &Sparse) -> Option<Sparse> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let (k, v) = match (a.get(i), b.get(j)) {
            (Some(&(ia, va)), Some(&(ib, _))) if ia < ib => {
                i += 1;
                (ia, ka * va)
            }
            (Some(&(ia, _)), Some(&(ib, vb))) if ib < ia => {
                j += 1;
                (ib, kb * vb)
            }
            (Some(&(ia, va)), Some(&(_, vb))) => {
                i += 1;
                j += 1;
                (ia, ka * va + kb * vb)
            }
            (Some(&(ia, va)), None) => {
                i += 1;
                (ia, ka * va)
            }
            (None, Some(&(ib, vb))) => {
                j += 1;
                (ib, kb * vb)
            }
            (None, None) => unreachable!("the loop runs while one side has entries"),
        };
        if v.abs() > 1 << 40 {
            return None;
        }
        if v != 0 {
            out.push((k, v));
        }
    }
    Some(out)
}

/// Whether the support (indices) of `small` is contained in that of `big`.
fn support_within(small: &Sparse, big: &Sparse) -> bool {
    let mut j = 0;
    small.iter().all(|&(k, _)| {
        while j < big.len() && big[j].0 < k {
            j += 1;
        }
        j < big.len() && big[j].0 == k
    })
}

/// The Farkas tableau, with indexes from each transition and each place to the live rows
/// that have it in their support (the lists may name rows removed since; they are
/// skipped).
struct Tableau {
    rows: Vec<Option<Row>>,
    live: usize,
    by_transition: Vec<Vec<u32>>,
    by_place: Vec<Vec<u32>>,
}

impl Tableau {
    fn add(&mut self, row: Row) -> u32 {
        let id = self.rows.len() as u32;
        for &(t, _) in &row.c {
            self.by_transition[t as usize].push(id);
        }
        for &(p, _) in &row.y {
            self.by_place[p as usize].push(id);
        }
        self.rows.push(Some(row));
        self.live += 1;
        id
    }

    fn remove(&mut self, id: u32) -> Row {
        self.live -= 1;
        self.rows[id as usize].take().expect("a live row")
    }

    /// Whether some live row other than `except` has a support within `y`'s: a row whose
    /// support is within y's shares a place with y, so the place lists find every such
    /// row.
    fn covers(&self, y: &Sparse, except: Option<u32>) -> bool {
        y.iter().any(|&(p, _)| {
            self.by_place[p as usize].iter().any(|&id| {
                Some(id) != except
                    && self.rows[id as usize]
                        .as_ref()
                        .is_some_and(|r| support_within(&r.y, y))
            })
        })
    }
}

/// Structural safeness of `net`. The invariant search asks `stop` now and then and gives up
/// ("not known") when it answers true (a time limit or a cancel: the system layer knows
/// no budget).
pub(crate) fn structural_safeness(net: &Net, stop: &dyn Fn() -> bool) -> Safeness {
    if let Some(n) = &net.nupn {
        let mut covered = vec![false; net.places.len()];
        for u in &n.units {
            for p in &u.places {
                covered[p.index()] = true;
            }
        }
        if n.safe && covered.iter().all(|&c| c) {
            return Safeness::NupnUnits;
        }
    }
    let np = net.places.len();
    let nt = net.transitions.len();
    let mut incidence: Vec<Sparse> = vec![Vec::new(); np];
    for (ti, t) in net.transitions.iter().enumerate() {
        let mut effect: Vec<(u32, i64)> = t.post.iter().map(|&(p, w)| (p.0, w as i64)).collect();
        effect.extend(t.pre.iter().map(|&(p, w)| (p.0, -(w as i64))));
        effect.sort_unstable_by_key(|e| e.0);
        for chunk in effect.chunk_by(|a, b| a.0 == b.0) {
            let v: i64 = chunk.iter().map(|e| e.1).sum();
            if v != 0 {
                incidence[chunk[0].0 as usize].push((ti as u32, v));
            }
        }
    }
    let mut tab = Tableau {
        rows: Vec::with_capacity(np),
        live: 0,
        by_transition: vec![Vec::new(); nt],
        by_place: vec![Vec::new(); np],
    };
    for (p, c) in incidence.into_iter().enumerate() {
        tab.add(Row {
            c,
            y: vec![(p as u32, 1)],
        });
    }
    let gave_up = eliminate(&mut tab, nt, np + MAX_ROWS, stop).is_none();
    let mut bounded = vec![false; np];
    if !gave_up {
        for r in tab.rows.iter().flatten() {
            debug_assert!(r.c.is_empty());
            let weight: i64 =
                r.y.iter()
                    .map(|&(p, k)| k * net.places[p as usize].initial as i64)
                    .sum();
            for &(p, k) in &r.y {
                if k > 0 && weight < 2 * k {
                    bounded[p as usize] = true;
                }
            }
        }
    }
    if bounded.iter().all(|&b| b) && np > 0 {
        return Safeness::Invariants;
    }
    Safeness::Unknown {
        unbounded: net
            .places
            .iter()
            .zip(&bounded)
            .filter(|(_, &b)| !b)
            .take(5)
            .map(|(p, _)| p.label().to_string())
            .collect(),
        gave_up,
    }
}

/// Eliminates the transitions one by one: the rows with a nonzero coefficient at t are
/// replaced by the positive combinations of a positive and a negative one that cancel t.
/// Only rows of minimal support are kept: bounds are attained at minimal-support
/// semiflows (a bound of a positive combination is at least the least bound of its
/// parts), so nothing is lost. The rows left were minimal before the step, so only the
/// new rows need comparing. `None` when the search gives up: more than `max_live` rows,
/// a value too large, or `stop`.
fn eliminate(tab: &mut Tableau, nt: usize, max_live: usize, stop: &dyn Fn() -> bool) -> Option<()> {
    let mut made = 0usize;
    for t in 0..nt as u32 {
        let mut ids = std::mem::take(&mut tab.by_transition[t as usize]);
        ids.retain(|&id| tab.rows[id as usize].is_some());
        ids.sort_unstable();
        ids.dedup();
        let touching: Vec<Row> = ids.iter().map(|&id| tab.remove(id)).collect();
        let (pos, neg): (Vec<&Row>, Vec<&Row>) = touching.iter().partition(|r| r.at(t) > 0);
        let mut fresh: Vec<Row> = Vec::new();
        for a in &pos {
            for b in &neg {
                let (ka, kb) = (-b.at(t), a.at(t));
                let mut c = combine(ka, &a.c, kb, &b.c)?;
                let mut y = combine(ka, &a.y, kb, &b.y)?;
                let g = c.iter().chain(&y).fold(0, |g, e| gcd(g, e.1));
                if g > 1 {
                    c.iter_mut().chain(y.iter_mut()).for_each(|e| e.1 /= g);
                }
                fresh.push(Row { c, y });
                made += 1;
                if tab.live + fresh.len() > max_live {
                    return None;
                }
                if made % STOP_EVERY == 0 && stop() {
                    return None;
                }
            }
        }
        // The smallest supports first, so a kept row never contains a later one's.
        fresh.sort_by_key(|r| r.y.len());
        for row in fresh {
            if tab.covers(&row.y, None) {
                continue;
            }
            let id = tab.add(row);
            let y = tab.rows[id as usize]
                .as_ref()
                .map(|r| r.y.clone())
                .unwrap_or_default();
            let mut supersets: Vec<u32> = y
                .iter()
                .flat_map(|&(p, _)| tab.by_place[p as usize].iter().copied())
                .filter(|&other| {
                    other != id
                        && tab.rows[other as usize]
                            .as_ref()
                            .is_some_and(|r| support_within(&y, &r.y))
                })
                .collect();
            supersets.sort_unstable();
            supersets.dedup();
            for other in supersets {
                tab.remove(other);
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cycle_with_one_token_is_safe_and_two_tokens_are_not() {
        for (tokens, safe) in [(1, true), (2, false)] {
            let mut n = Net::default();
            let a = n.add_place("a", None, tokens);
            let b = n.add_place("b", None, 0);
            n.add_transition_between("t", &[a], &[b]);
            n.add_transition_between("u", &[b], &[a]);
            assert_eq!(
                structural_safeness(&n, &|| false).is_safe(),
                safe,
                "{tokens} tokens"
            );
        }
    }

    #[test]
    fn a_producer_without_consumer_is_not_known_safe() {
        let mut n = Net::default();
        let a = n.add_place("a", None, 1);
        let b = n.add_place("b", None, 0);
        n.add_transition_between("t", &[a], &[a, b]);
        match structural_safeness(&n, &|| false) {
            Safeness::Unknown { unbounded, .. } => assert_eq!(unbounded, vec!["b".to_string()]),
            s => panic!("b grows without bound, yet {s:?}"),
        }
    }

    #[test]
    fn invariants_found_by_combining_rows_bound_a_fork_and_join() {
        // a forks into b and c, which join back: a + b and a + c are the invariants.
        let mut n = Net::default();
        let a = n.add_place("a", None, 1);
        let b = n.add_place("b", None, 0);
        let c = n.add_place("c", None, 0);
        n.add_transition_between("fork", &[a], &[b, c]);
        n.add_transition_between("join", &[b, c], &[a]);
        assert_eq!(structural_safeness(&n, &|| false), Safeness::Invariants);
    }

    #[test]
    fn the_search_gives_up_when_asked_to_stop() {
        // One transition from 16 places to 16 others makes 256 rows in one step.
        let mut n = Net::default();
        let ins: Vec<_> = (0..16).map(|i| n.add_place(format!("i{i}"), None, 1)).collect();
        let outs: Vec<_> = (0..16).map(|i| n.add_place(format!("o{i}"), None, 0)).collect();
        n.add_transition_between("t", &ins, &outs);
        n.add_transition_between("u", &outs, &ins);
        match structural_safeness(&n, &|| true) {
            Safeness::Unknown { gave_up, .. } => assert!(gave_up),
            s => panic!("the search was told to stop, yet {s:?}"),
        }
        assert_eq!(structural_safeness(&n, &|| false), Safeness::Invariants);
    }
}
