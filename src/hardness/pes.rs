//! Theorem 4.1 (docs/paper.md#theorem-41): SAT → "is there an alternative to D after C?" on an explicit
//! prime event structure.
//!
//! For φ = c₁ ∧ … ∧ c_m over x₁ … x_n:
//! - events `a<i>` (label `x<i>=1`) and `b<i>` (label `x<i>=0`) for every variable, and
//!   `d<j>` (label `clause j: …`) for every clause; no causality;
//! - conflicts `a<i> # b<i>`, `d<j> # a<i>` iff xᵢ ∈ c_j, `d<j> # b<i>` iff ¬xᵢ ∈ c_j (a
//!   literal written twice gives one conflict; a tautology gives both);
//! - C = ∅ and D = {d₁ … d_m} ⊆ en(∅).
//!
//! D is written in an order that helps the comb, which takes the spikes of D newest
//! first: reversed, D lists the clauses greedily, each next clause the one bringing the
//! fewest variables not seen yet, so a partial combination meets its conflicts early.
//! The order changes the time of the search, never its answer.
//!
//! A conflict-free J disjoint from D that conflicts with every d_j picks, for every clause,
//! the event of one of its literals and never both `a<i>` and `b<i>`: a satisfying assignment,
//! read back from the labels. So an alternative exists iff φ is satisfiable; the comb of
//! `alternative()` has one spike per clause holding its literals' events.

use crate::system::cnf::Cnf;
use crate::unfold::pes::{Pes, PesBuilder, PesEventId, PesOptions};

/// The PES of Theorem 4.1 for `cnf`, with its sets `C` (empty) and `D` (the clause events,
/// in clause order).
///
/// ```
/// use qpor::formats::dimacs::Cnf;
/// let pes = qpor::hardness::pes_instance(&Cnf::new(2, vec![vec![1, 2], vec![-1]]));
/// let [a1, b1, a2, d1, d2] = ["a1", "b1", "a2", "d1", "d2"].map(|n| pes.find(n).unwrap());
/// assert!(pes.conflict(a1, b1) && pes.conflict(d1, a1) && pes.conflict(d1, a2) && pes.conflict(d2, b1));
/// assert!(!pes.conflict(d2, a1));
/// assert_eq!(pes.set("D"), Some(&[d1, d2][..])); // clause 2 (no new variable) first, listed last
/// ```
pub fn instance(cnf: &Cnf) -> Pes {
    let mut b = PesBuilder::new();
    let n = cnf.num_vars as usize;
    let mut pos = Vec::with_capacity(n);
    let mut neg = Vec::with_capacity(n);
    let bug = "[qpor internal bug] generated event names are unique";
    for i in 1..=n {
        pos.push(b.event(&format!("a{i}"), Some(format!("x{i}=1"))).expect(bug));
        neg.push(b.event(&format!("b{i}"), Some(format!("x{i}=0"))).expect(bug));
    }
    for i in 0..n {
        b.conflict(pos[i], neg[i]);
    }
    let mut d: Vec<PesEventId> = Vec::with_capacity(cnf.clauses.len());
    for (j, clause) in cnf.clauses.iter().enumerate() {
        let e = b
            .event(
                &format!("d{}", j + 1),
                Some(format!("clause {}: {}", j + 1, Cnf::clause_text(clause))),
            )
            .expect(bug);
        for &l in clause {
            let v = l.unsigned_abs() as usize - 1;
            b.conflict(e, if l > 0 { pos[v] } else { neg[v] });
        }
        d.push(e);
    }
    b.set("C", Vec::new());
    let mut listed: Vec<PesEventId> = greedy_clause_order(cnf).into_iter().map(|j| d[j]).collect();
    listed.reverse();
    b.set("D", listed);
    b.build(&PesOptions::default())
        .expect("[qpor internal bug] the Theorem 4.1 construction is a PES")
}

/// How many bytes building the PES of [`instance`] takes at least: an explicit PES keeps
/// its causality and conflict relations as one bitset per event over all events (five of
/// them while it is built), so the instance grows with the square of 2 · variables +
/// clauses. `qpor hardness` refuses a formula whose instance would not fit its memory cap.
pub fn instance_bytes(cnf: &Cnf) -> u64 {
    let events = 2 * cnf.num_vars as u64 + cnf.clauses.len() as u64;
    (events.saturating_mul(events) / 8).saturating_mul(5)
}

/// The clauses (indices) in the greedy order of the module docs: each next clause the one
/// with the fewest variables not in earlier clauses, ties by index.
pub(crate) fn greedy_clause_order(cnf: &Cnf) -> Vec<usize> {
    let m = cnf.clauses.len();
    let mut seen = vec![false; cnf.num_vars as usize + 1];
    let mut done = vec![false; m];
    let mut order = Vec::with_capacity(m);
    for _ in 0..m {
        let fresh = |j: usize, seen: &[bool]| {
            let mut vars: Vec<usize> = cnf.clauses[j].iter().map(|l| l.unsigned_abs() as usize).collect();
            vars.sort_unstable();
            vars.dedup();
            vars.iter().filter(|&&v| !seen[v]).count()
        };
        let Some(best) = (0..m).filter(|&j| !done[j]).min_by_key(|&j| (fresh(j, &seen), j)) else {
            break;
        };
        done[best] = true;
        for l in &cnf.clauses[best] {
            seen[l.unsigned_abs() as usize] = true;
        }
        order.push(best);
    }
    order
}
