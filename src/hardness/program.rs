//! Theorem 4.2 (docs/paper.md#theorem-42): SAT → "is there an alternative to D after C?" in the
//! unfolding of a lock-only program.
//!
//! For φ over x₁ … x_n with clauses c₁ … c_m, the program has mutexes `v[i]` (variables)
//! and `c[j]` (clauses) and the threads
//! ```text
//! pos_i :  lock v[i]; for each j with xᵢ ∈ c_j (increasing): lock c[j]; unlock c[j];   // keeps v[i]
//! neg_i :  lock v[i]; for each j with ¬xᵢ ∈ c_j (increasing): lock c[j]; unlock c[j];  // keeps v[i]
//! k[j]  :  lock c[j];                                                                  // keeps c[j]
//! ```
//! all started by `init`, so C = ∅, and D = {d_j}, d_j the `lock c[j]` of `k[j]` (its
//! predecessor on `c[j]` is ⊥). A clause's lock is taken once per thread even when its
//! literal is written twice; a tautology puts both threads of a variable on it.
//!
//! An alternative must hold, for every clause, an acquisition of `c[j]` by a literal thread
//! with no lock predecessor (the only events in conflict with d_j that can coexist with
//! the rest), hence that thread's `lock v[i]`; `pos_i` and `neg_i` cannot both be there
//! since neither releases `v[i]`. So an alternative exists iff φ is satisfiable; the `means`
//! annotations read the assignment back from the threads present in J. The "never
//! release" lines are essential: with `unlock v[i]` both polarities could coexist.
//!
//! Array cells 0 of `v` and `c` are unused, so that `v[i]` is xᵢ and `c[j]` is clause j as
//! in DIMACS; a formula without variables or clauses still gets a valid program (an idle
//! process when there is no thread at all).

use super::instance::PROC_ANNOTATION;
use crate::system::cnf::Cnf;
use std::fmt::Write as _;

/// Longest annotation line the generator writes (it repeats `C =` / `D =` lines beyond).
const LINE: usize = 100;

/// For every variable (index i − 1), the clauses (1-based, increasing, each once) where
/// it occurs positively and negatively.
pub(crate) fn occurrences(cnf: &Cnf) -> Vec<[Vec<usize>; 2]> {
    let mut occ: Vec<[Vec<usize>; 2]> = vec![[Vec::new(), Vec::new()]; cnf.num_vars as usize];
    for (j, clause) in cnf.clauses.iter().enumerate() {
        for &l in clause {
            let list = &mut occ[l.unsigned_abs() as usize - 1][(l < 0) as usize];
            if list.last() != Some(&(j + 1)) {
                list.push(j + 1);
            }
        }
    }
    occ
}

/// The name of the thread of literal xᵢ (`value` true) or ¬xᵢ.
pub(crate) fn thread_name(var: u32, value: bool) -> String {
    format!("{}_{var}", if value { "pos" } else { "neg" })
}

/// The `.proc` text of the instance for `cnf`: what it encodes in comments (with the
/// formula), the `// @qpor` question, and the program. `source` names the formula's file.
///
/// ```
/// use qpor::formats::dimacs::Cnf;
/// let text = qpor::hardness::program_instance_text(&Cnf::new(2, vec![vec![1, -2], vec![-1]]), "f.cnf");
/// assert!(text.contains("process pos_1 {\n    lock v[1];\n    lock c[1];\n    unlock c[1];\n}"));
/// assert!(text.contains("// @qpor D = k[1] k[2]\n"));
/// let (instance, _) = qpor::hardness::read_program_instance(&text, "t.proc").unwrap();
/// assert_eq!(instance.d.len(), 2);
/// ```
pub fn instance_text(cnf: &Cnf, source: &str) -> String {
    let n = cnf.num_vars;
    let m = cnf.clauses.len();
    let occ = occurrences(cnf);
    let mut s = String::new();
    let c = |s: &mut String, line: &str| {
        if line.is_empty() {
            s.push_str("//\n");
        } else {
            let _ = writeln!(s, "// {line}");
        }
    };
    c(
        &mut s,
        "qpor reduction instance (Theorem 4.2, docs/paper.md#theorem-42): a lock-only program",
    );
    c(
        &mut s,
        &format!("made by `qpor hardness --to program` from {source}."),
    );
    c(
        &mut s,
        "Question: in the unfolding of this program, is there an alternative to D after C? It exists",
    );
    c(&mut s, "iff the formula below is satisfiable.");
    c(
        &mut s,
        "Thread pos_i (neg_i) takes v[i] and never releases it, then locks and unlocks c[j] for every",
    );
    c(
        &mut s,
        "clause j holding x_i (-x_i); k[j] takes c[j] and never releases it. C is empty, D holds the",
    );
    c(
        &mut s,
        "`lock c[j]` of every k[j]. An alternative acquires every c[j] first by a literal thread, and",
    );
    c(
        &mut s,
        "holds at most one of pos_i, neg_i: a satisfying assignment. Decide it: qpor decide alt FILE",
    );
    c(&mut s, "");
    c(&mut s, &format!("The formula ({n} variables, {m} clauses):"));
    for line in cnf.to_dimacs().lines() {
        c(&mut s, &format!("  {line}"));
    }
    s.push('\n');
    let _ = writeln!(s, "{PROC_ANNOTATION} instance alt");
    let _ = writeln!(s, "{PROC_ANNOTATION} C =");
    let d: Vec<String> = (1..=m).map(|j| format!("k[{j}]")).collect();
    annotation_list(&mut s, "D", &d);
    for i in 1..=n {
        for value in [true, false] {
            let _ = writeln!(
                s,
                "{PROC_ANNOTATION} means {} x{i}={}",
                thread_name(i, value),
                value as u8
            );
        }
    }
    s.push('\n');
    let _ = writeln!(
        s,
        "mutex v[{}], c[{}];    // cell 0 unused: v[i] is x_i, c[j] is clause j",
        n as u64 + 1,
        m as u64 + 1
    );
    let mut started: Vec<String> = Vec::new();
    for i in 1..=n {
        for value in [true, false] {
            let name = thread_name(i, value);
            let _ = writeln!(s, "\nprocess {name} {{");
            let _ = writeln!(s, "    lock v[{i}];");
            for j in &occ[i as usize - 1][(!value) as usize] {
                let _ = writeln!(s, "    lock c[{j}];");
                let _ = writeln!(s, "    unlock c[{j}];");
            }
            s.push_str("}\n");
            started.push(name);
        }
    }
    if m > 0 {
        let _ = writeln!(s, "\nprocess k[j in 1..={m}] {{");
        s.push_str("    lock c[j];\n}\n");
        started.push("k".into());
    }
    if started.is_empty() {
        s.push_str("\nprocess idle {\n    skip;\n}\n");
        started.push("idle".into());
    }
    let _ = writeln!(s, "\ninit {};", started.join(", "));
    s
}

/// `// @qpor KEY = a b c`, repeated on several lines when long.
fn annotation_list(s: &mut String, key: &str, items: &[String]) {
    let head = format!("{PROC_ANNOTATION} {key} =");
    let mut line = head.clone();
    for item in items {
        if line.len() + 1 + item.len() > LINE && line != head {
            let _ = writeln!(s, "{line}");
            line = head.clone();
        }
        line.push(' ');
        line.push_str(item);
    }
    let _ = writeln!(s, "{line}");
}
