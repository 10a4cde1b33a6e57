//! Theorem 4.3 (docs/paper.md#theorem-43): SAT → "does cex(C) hold an event of transition t*?" in the
//! unfolding (branching process) of a P/T net with non-safe places.
//!
//! For φ over x₁ … x_n with clauses c₁ … c_m:
//! - places `V_i` with two tokens, `Yp_i`, `Yn_i`, `W_j` and `Done`, all else empty;
//! - `pos_i : V_i → Yp_i` and `neg_i : V_i → Yn_i`;
//! - for every literal ℓ of c_j (each once), `lit_j_p<i>` (ℓ = xᵢ) or `lit_j_n<i>` (ℓ = ¬xᵢ):
//!   `Y(ℓ) → Y(ℓ) + W_j`, a self-loop on the literal's place that leaves a token in W_j;
//! - the target `t_star : V_1 + … + V_n + W_1 + … + W_m → Done`, all weights 1.
//!
//! C is the firing sequence `pos_1 neg_1 … pos_n neg_n` and then every `lit` transition,
//! clause by clause. `pos_i` consumes one V_i-condition (call it fᵢ, the *false* token) and
//! `neg_i` the other (tᵢ, the *true* token). The W_j-condition left by `lit_j_pi` lies
//! causally after fᵢ, the one left by `lit_j_ni` after tᵢ, and the W-conditions are pairwise
//! concurrent. So a co-set X with one V_i-condition per variable and one W_j-condition per
//! clause is a choice of σ(xᵢ) = [tᵢ ∈ X] and, for every clause, of a literal true under σ;
//! (t_star, X) is an extension of C, and a conflicting one since C consumed X's
//! V-conditions. Hence cex(C) has a t_star-event iff φ is satisfiable. The places V_i hold
//! two tokens: for safe nets the question is polynomial (docs/paper.md#safe-nets-are-easier).
//!
//! A formula without variables gets one unused variable, so that t* still needs a token
//! that C consumed (the empty formula is satisfiable; without it t* would be enabled, not a
//! conflicting extension).

use super::instance::Literal;
use crate::system::cnf::Cnf;
use crate::system::net::{Net, TransId};

/// The net of Theorem 4.3 with its question.
#[derive(Clone, Debug)]
pub struct HardnessNet {
    /// The net.
    pub net: Net,
    /// The firing sequence making C.
    pub config: Vec<TransId>,
    /// t*.
    pub target: TransId,
    /// What holding the V-condition consumed by a firing means: `neg_i` ↦ xᵢ=1 (its
    /// condition is tᵢ), `pos_i` ↦ xᵢ=0.
    pub means: Vec<(TransId, Literal)>,
}

/// The net, configuration and target transition of Theorem 4.3 for `cnf`.
///
/// ```
/// use qpor::formats::dimacs::Cnf;
/// let r = qpor::hardness::net_instance(&Cnf::new(2, vec![vec![1, -2], vec![-1]]));
/// assert_eq!(r.net.places.len(), 2 * 3 + 2 + 1);
/// assert_eq!(r.net.transitions[r.target.index()].id, "t_star");
/// let names: Vec<&str> = r.config.iter().map(|t| r.net.transitions[t.index()].id.as_str()).collect();
/// assert_eq!(names, ["pos_1", "neg_1", "pos_2", "neg_2", "lit_1_p1", "lit_1_n2", "lit_2_n1"]);
/// ```
pub fn instance(cnf: &Cnf) -> HardnessNet {
    let n = cnf.num_vars.max(1);
    let mut net = Net {
        name: Some("qpor-reduction-cex".into()),
        ..Net::default()
    };
    let v: Vec<_> = (1..=n)
        .map(|i| net.add_place(format!("V_{i}"), None, 2))
        .collect();
    let yp: Vec<_> = (1..=n)
        .map(|i| net.add_place(format!("Yp_{i}"), None, 0))
        .collect();
    let yn: Vec<_> = (1..=n)
        .map(|i| net.add_place(format!("Yn_{i}"), None, 0))
        .collect();
    let w: Vec<_> = (1..=cnf.clauses.len())
        .map(|j| net.add_place(format!("W_{j}"), None, 0))
        .collect();
    let done = net.add_place("Done", None, 0);
    let mut config = Vec::new();
    let mut means = Vec::new();
    for i in 0..n as usize {
        let pos = net.add_transition(format!("pos_{}", i + 1), None);
        net.add_pre(pos, v[i], 1);
        net.add_post(pos, yp[i], 1);
        let neg = net.add_transition(format!("neg_{}", i + 1), None);
        net.add_pre(neg, v[i], 1);
        net.add_post(neg, yn[i], 1);
        config.push(pos);
        config.push(neg);
        let var = i as u32 + 1;
        means.push((neg, Literal { var, value: true }));
        means.push((pos, Literal { var, value: false }));
    }
    for (j, clause) in cnf.clauses.iter().enumerate() {
        let mut seen: Vec<i32> = Vec::new();
        for &l in clause {
            if seen.contains(&l) {
                continue;
            }
            seen.push(l);
            let i = l.unsigned_abs() as usize - 1;
            let (sign, y) = if l > 0 { ('p', yp[i]) } else { ('n', yn[i]) };
            let t = net.add_transition(format!("lit_{}_{sign}{}", j + 1, i + 1), None);
            net.add_pre(t, y, 1);
            net.add_post(t, y, 1);
            net.add_post(t, w[j], 1);
            config.push(t);
        }
    }
    let target = net.add_transition("t_star", None);
    for &p in v.iter().chain(w.iter()) {
        net.add_pre(target, p, 1);
    }
    net.add_post(target, done, 1);
    HardnessNet {
        net,
        config,
        target,
        means,
    }
}
