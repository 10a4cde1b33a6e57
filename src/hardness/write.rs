//! The instance files of the NP-hardness reductions (`qpor hardness`): the generated PES or
//! net with comments saying what it encodes and the formula it came from, in the formats
//! `qpor decide` reads back.

use super::instance::PNML_TOOL;
use crate::system::cnf::Cnf;
use crate::system::net::TransId;
use std::fmt::Write as _;
use std::io;

/// The instance as a self-contained text file: what it encodes (with the formula) in
/// comments, then the PES. `source` names the formula's file in the comment.
pub fn pes_instance_text(cnf: &Cnf, source: &str) -> String {
    let pes = super::pes::instance(cnf);
    let mut c = String::new();
    let _ = writeln!(
        c,
        "qpor reduction instance (Theorem 4.1, docs/paper.md#theorem-41): an explicit prime event structure"
    );
    let _ = writeln!(c, "made by `qpor hardness --to pes` from {source}.");
    let _ = writeln!(
        c,
        "Question: is there an alternative to D after C? It exists iff the formula below is satisfiable."
    );
    let _ = writeln!(
        c,
        "Events a<i> (label x<i>=1) and b<i> (x<i>=0) are in conflict; d<j> is clause j, in conflict"
    );
    let _ = writeln!(
        c,
        "with the events of its literals. C = {{}}, D = every d<j>. An alternative picks one literal event"
    );
    let _ = writeln!(
        c,
        "per clause, never both a<i> and b<i>: a satisfying assignment. Decide it: qpor decide alt FILE"
    );
    c.push('\n');
    write_formula(&mut c, cnf, "");
    crate::export::pes::write(&pes, &c)
}

/// Writes to the comment `c` the formula's size, then its DIMACS lines indented by two
/// more spaces, each line after `indent`.
fn write_formula(c: &mut String, cnf: &Cnf, indent: &str) {
    let _ = writeln!(
        c,
        "{indent}The formula ({} variables, {} clauses):",
        cnf.num_vars,
        cnf.clauses.len()
    );
    for line in cnf.to_dimacs().lines() {
        let _ = writeln!(c, "{indent}  {line}");
    }
}

/// Escapes `--` so that text can sit in an XML comment.
fn comment_safe(s: &str) -> String {
    s.replace("--", "- -")
}

/// The instance as a self-contained PNML document: a comment saying what it encodes (with
/// the formula), the net, and the `toolspecific tool="qpor"` block with the question.
/// `source` names the formula's file.
pub fn net_instance_pnml(cnf: &Cnf, source: &str) -> io::Result<Vec<u8>> {
    let r = super::net::instance(cnf);
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
        "<!--\n  qpor reduction instance (Theorem 4.3, docs/paper.md#theorem-43): a P/T net with non-safe places"
    );
    let _ = writeln!(
        c,
        "  made by `qpor hardness --to net` from {}.",
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
    write_formula(&mut c, cnf, "  ");
    if cnf.num_vars == 0 {
        let _ = writeln!(c, "  (no variables: the net has one unused variable x1)");
    }
    let _ = writeln!(c, "-->");
    Ok(format!("{decl}{c}{body}{block}{tail}").into_bytes())
}
