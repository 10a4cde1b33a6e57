//! Theorem 4.3 (paper.md §3.3): SAT → "does cex(C) hold an event of transition t*?" in the
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
//! two tokens: for safe nets the question is polynomial (paper.md §3.3, caveat).
//!
//! A formula without variables gets one unused variable, so that t* still needs a token
//! that C consumed (the empty formula is satisfiable; without it t* would be enabled, not a
//! conflicting extension).

use super::instance::{Literal, PNML_TOOL};
use crate::parse::dimacs::Cnf;
use crate::system::net::{Net, TransId};
use std::fmt::Write as _;
use std::io;

/// The net of Theorem 4.3 with its question.
#[derive(Clone, Debug)]
pub struct NetReduction {
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
/// use qpor::parse::dimacs::Cnf;
/// let r = qpor::reduce::net::instance(&Cnf::new(2, vec![vec![1, -2], vec![-1]]));
/// assert_eq!(r.net.places.len(), 2 * 3 + 2 + 1);
/// assert_eq!(r.net.transitions[r.target.index()].id, "t_star");
/// let names: Vec<&str> = r.config.iter().map(|t| r.net.transitions[t.index()].id.as_str()).collect();
/// assert_eq!(names, ["pos_1", "neg_1", "pos_2", "neg_2", "lit_1_p1", "lit_1_n2", "lit_2_n1"]);
/// ```
pub fn instance(cnf: &Cnf) -> NetReduction {
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
    NetReduction {
        net,
        config,
        target,
        means,
    }
}

/// Escapes `--` so that text can sit in an XML comment.
fn comment_safe(s: &str) -> String {
    s.replace("--", "- -")
}

/// The instance as a self-contained PNML document: a comment saying what it encodes (with
/// the formula), the net, and the `toolspecific tool="qpor"` block with the question.
/// `source` names the formula's file.
pub fn instance_pnml(cnf: &Cnf, source: &str) -> io::Result<Vec<u8>> {
    let r = instance(cnf);
    let mut net_xml = Vec::new();
    crate::export::pnml::write(&r.net, &mut net_xml)?;
    let net_xml = String::from_utf8(net_xml).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let id = |t: TransId| r.net.transitions[t.index()].id.clone();
    let mut block = String::new();
    let _ = writeln!(block, "    <toolspecific tool=\"{PNML_TOOL}\" version=\"1\">");
    let _ = writeln!(block, "      <instance question=\"cex\" theorem=\"4.3\"/>");
    let _ = writeln!(block, "      <configuration>");
    for &t in &r.config {
        let _ = writeln!(block, "        <fire transition=\"{}\"/>", id(t));
    }
    let _ = writeln!(block, "      </configuration>");
    let _ = writeln!(block, "      <target transition=\"{}\"/>", id(r.target));
    for (t, lit) in &r.means {
        let _ = writeln!(
            block,
            "      <means transition=\"{}\" literal=\"{lit}\"/>",
            id(*t)
        );
    }
    let _ = writeln!(block, "    </toolspecific>");
    // The block goes last inside <net>; the writer's layout puts `  </net>` on a line of
    // its own.
    let Some(close) = net_xml.rfind("  </net>") else {
        return Err(io::Error::other(
            "[qpor internal bug] the PNML writer wrote no </net>",
        ));
    };
    let (head, tail) = net_xml.split_at(close);
    let Some(decl_end) = head.find("?>\n") else {
        return Err(io::Error::other(
            "[qpor internal bug] the PNML writer wrote no XML declaration",
        ));
    };
    let (decl, body) = head.split_at(decl_end + 3);
    let mut c = String::new();
    let _ = writeln!(
        c,
        "<!--\n  qpor reduction instance (Theorem 4.3, paper.md §3.3): a P/T net with non-safe places"
    );
    let _ = writeln!(
        c,
        "  made by `qpor reduce --to net` from {}.",
        comment_safe(source)
    );
    let _ = writeln!(
        c,
        "  Question: does cex(C) hold an event of t_star, C being the events of the firing sequence in"
    );
    let _ = writeln!(
        c,
        "  the toolspecific block below? It does iff the formula is satisfiable. V_i holds two tokens:"
    );
    let _ = writeln!(
        c,
        "  pos_i consumes the false one, neg_i the true one; lit_j_p<i> / lit_j_n<i> leave a W_j token"
    );
    let _ = writeln!(
        c,
        "  after pos_i / neg_i. A co-set for t_star takes one V_i token per variable (the true one:"
    );
    let _ = writeln!(
        c,
        "  x_i = 1) and one W_j token per clause concurrent with it: a satisfying assignment."
    );
    let _ = writeln!(c, "  Decide it: qpor decide cex FILE");
    let _ = writeln!(c);
    let _ = writeln!(
        c,
        "  The formula ({} variables, {} clauses):",
        cnf.num_vars,
        cnf.clauses.len()
    );
    for line in cnf.to_dimacs().lines() {
        let _ = writeln!(c, "    {line}");
    }
    if cnf.num_vars == 0 {
        let _ = writeln!(c, "  (no variables: the net has one unused variable x1)");
    }
    let _ = writeln!(c, "-->");
    Ok(format!("{decl}{c}{body}{block}{tail}").into_bytes())
}
