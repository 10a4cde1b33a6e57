//! Structural safeness of a net from place invariants (P-semiflows), for `qpor info` and
//! the general backend's warning about non-safe nets (DESIGN.md §3).
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

/// Most intermediate rows the Farkas algorithm keeps before giving up.
pub(crate) const MAX_ROWS: usize = 4000;

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
        /// Whether the invariant search stopped at its row limit (`MAX_ROWS`).
        gave_up: bool,
    },
}

impl Safeness {
    /// Whether the net is known to be safe.
    pub fn is_safe(&self) -> bool {
        !matches!(self, Safeness::Unknown { .. })
    }
}

/// A row of the Farkas tableau: the incidence part (over transitions) and the invariant
/// part y (over places).
type Row = (Vec<i64>, Vec<i64>);

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Keeps the rows whose support (places with y > 0) contains no other row's support; of
/// rows with equal supports, the first. Bounds are attained at minimal-support semiflows
/// (a bound of a positive combination is at least the least bound of its parts), so
/// nothing is lost.
fn minimal_supports(mut rows: Vec<Row>) -> Vec<Row> {
    let words = rows.first().map(|r| r.1.len().div_ceil(64)).unwrap_or(0);
    let support = |y: &[i64]| {
        let mut b = vec![0u64; words];
        for (i, &v) in y.iter().enumerate() {
            if v != 0 {
                b[i / 64] |= 1 << (i % 64);
            }
        }
        b
    };
    let mut keyed: Vec<(u32, Vec<u64>, Row)> = rows
        .drain(..)
        .map(|r| {
            let s = support(&r.1);
            (s.iter().map(|w| w.count_ones()).sum(), s, r)
        })
        .collect();
    keyed.sort_by_key(|k| k.0);
    let mut kept: Vec<(Vec<u64>, Row)> = Vec::new();
    for (_, s, r) in keyed {
        let covered = kept
            .iter()
            .any(|(k, _)| k.iter().zip(&s).all(|(a, b)| a & !b == 0));
        if !covered {
            kept.push((s, r));
        }
    }
    kept.into_iter().map(|(_, r)| r).collect()
}

/// Structural safeness of `net`.
pub(crate) fn structural_safeness(net: &Net) -> Safeness {
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
    // Rows: (incidence row over transitions, y over places).
    let mut rows: Vec<Row> = (0..np)
        .map(|p| {
            let mut y = vec![0; np];
            y[p] = 1;
            (vec![0; nt], y)
        })
        .collect();
    for (ti, t) in net.transitions.iter().enumerate() {
        for &(p, w) in &t.pre {
            rows[p.index()].0[ti] -= w as i64;
        }
        for &(p, w) in &t.post {
            rows[p.index()].0[ti] += w as i64;
        }
    }
    let mut gave_up = false;
    for t in 0..nt {
        let (zero, nonzero): (Vec<_>, Vec<_>) =
            std::mem::take(&mut rows).into_iter().partition(|r| r.0[t] == 0);
        let (pos, neg): (Vec<_>, Vec<_>) = nonzero.into_iter().partition(|r| r.0[t] > 0);
        let mut next = zero;
        'pairs: for a in &pos {
            for b in &neg {
                let (ka, kb) = (-b.0[t], a.0[t]);
                let mut c: Vec<i64> = a.0.iter().zip(&b.0).map(|(x, y)| ka * x + kb * y).collect();
                let mut y: Vec<i64> = a.1.iter().zip(&b.1).map(|(x, z)| ka * x + kb * z).collect();
                let g = c.iter().chain(y.iter()).fold(0, |g, &v| gcd(g, v));
                if g > 1 {
                    c.iter_mut().for_each(|v| *v /= g);
                    y.iter_mut().for_each(|v| *v /= g);
                }
                if y.iter().any(|v| v.abs() > 1 << 40) {
                    gave_up = true;
                    break 'pairs;
                }
                next.push((c, y));
                if next.len() > MAX_ROWS {
                    gave_up = true;
                    break 'pairs;
                }
            }
        }
        if gave_up {
            break;
        }
        rows = minimal_supports(next);
    }
    let mut bounded = vec![false; np];
    if !gave_up {
        for (c, y) in &rows {
            debug_assert!(c.iter().all(|&v| v == 0));
            let weight: i64 = y.iter().zip(&net.places).map(|(k, p)| k * p.initial as i64).sum();
            for p in 0..np {
                if y[p] > 0 && weight < 2 * y[p] {
                    bounded[p] = true;
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
            assert_eq!(structural_safeness(&n).is_safe(), safe, "{tokens} tokens");
        }
    }

    #[test]
    fn a_producer_without_consumer_is_not_known_safe() {
        let mut n = Net::default();
        let a = n.add_place("a", None, 1);
        let b = n.add_place("b", None, 0);
        n.add_transition_between("t", &[a], &[a, b]);
        match structural_safeness(&n) {
            Safeness::Unknown { unbounded, .. } => assert_eq!(unbounded, vec!["b".to_string()]),
            s => panic!("b grows without bound, yet {s:?}"),
        }
    }
}
