//! The process language front end (`.proc`, reference in `docs/language.md`): the pest
//! grammar `grammars/proc.pest` (`parser.rs`), a syntax tree with byte spans (`ast.rs`),
//! name resolution, constant evaluation, type and static checks (`check.rs`), and the
//! lowering of process bodies to flat code plus the flow checks that need it
//! (`compile.rs`). The result is a [`Program`], which `system::program` runs as a
//! component system.
//!
//! Every problem is reported as a [`ParseError`] at `file:line:col`; warnings come back as
//! `file:line:col: warning: …` strings. Nothing here panics on any input: the grammar's
//! recursion is bounded by a pre-scan of the bracket depth, and expression trees by
//! 200 levels (`parser::MAX_EXPR_DEPTH`).

mod ast;
mod check;
mod compile;
mod parser;

use crate::parse::{ParseError, Pos};
use crate::system::program::Program;

/// A problem at a byte offset, before it is turned into `file:line:col`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Diag {
    pub offset: usize,
    pub message: String,
}

impl Diag {
    pub fn at(offset: usize, message: impl Into<String>) -> Diag {
        Diag {
            offset,
            message: message.into(),
        }
    }
}

/// Line starts of a text, to turn byte offsets into positions without rescanning.
pub(crate) struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// 1-based line and column (in characters) of byte `offset`.
    pub fn pos(&self, offset: usize) -> Pos {
        let offset = offset.min(self.text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let col = match self.text.get(start..offset) {
            Some(s) => s.chars().count() + 1,
            None => {
                String::from_utf8_lossy(&self.text.as_bytes()[start..offset])
                    .chars()
                    .count()
                    + 1
            }
        };
        Pos { line: line + 1, col }
    }
}

/// Parses, checks and compiles a `.proc` text; `defines` override `param`s (`-D N=5`).
///
/// Returns the program and the warnings (`file:line:col: warning: …`), or the first error.
///
/// ```
/// let text = "mutex m;\nprocess p[i in 0..2] { lock m; unlock m; }\ninit p;\n";
/// let (program, warnings) = qpor::parse::proc::parse(text, "two.proc", &[]).unwrap();
/// assert!(warnings.is_empty());
/// let err = qpor::parse::proc::parse("process p { lock m; }\ninit p;\n", "bad.proc", &[]).unwrap_err();
/// assert_eq!(err.to_string(), "bad.proc:1:18: unknown name `m`");
/// # let _ = program;
/// ```
pub fn parse(
    text: &str,
    file: &str,
    defines: &[(String, i64)],
) -> Result<(Program, Vec<String>), ParseError> {
    let lines = LineIndex::new(text);
    let to_error = |d: Diag| ParseError {
        file: file.to_string(),
        pos: lines.pos(d.offset),
        message: d.message,
    };
    let ast = parser::parse_file(text).map_err(to_error)?;
    let (program, warnings) = check::check(&ast, text, &lines, file, defines).map_err(to_error)?;
    let warnings = warnings
        .into_iter()
        .map(|d| {
            let p = lines.pos(d.offset);
            format!("{file}:{}:{}: warning: {}", p.line, p.col, d.message)
        })
        .collect();
    Ok((program, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOptions, Silent, Verdict};

    fn verdict(text: &str) -> Verdict {
        let (p, _) = parse(text, "t.proc", &[]).unwrap_or_else(|e| panic!("{e}"));
        let sys = p.system().unwrap();
        crate::explicit::check(&sys, &CheckOptions::default(), &mut Silent)
            .unwrap()
            .verdict
    }

    #[test]
    fn operators_bind_as_documented() {
        let text = "const A = 1 + 2 * 3 ** 2;\nconst B = 2 ** 3 ** 2;\nconst C = 10 - 2 - 3;\n\
            process main {\n    assert A == 19 && B == 512 && C == 5;\n    assert -7 % 3 == 2 && -7 / 3 == -3 && 7 / -2 == -3;\n    \
            assert !(1 > 2) || false && false;\n}\ninit main;\n";
        assert_eq!(verdict(text), Verdict::NoDeadlock);
    }

    #[test]
    fn expression_depth_is_bounded() {
        let sum = |n: usize| vec!["1"; n].join(" + ");
        let ok = format!("process main {{\n    assert {} > 0;\n}}\ninit main;\n", sum(150));
        assert_eq!(verdict(&ok), Verdict::NoDeadlock);
        let deep = format!("process main {{\n    assert {} > 0;\n}}\ninit main;\n", sum(400));
        let err = parse(&deep, "t.proc", &[]).unwrap_err();
        assert!(err.message.contains("nested more than 200 levels"), "{err}");
        let nots = format!(
            "process main {{\n    assert {}true;\n}}\ninit main;\n",
            "!".repeat(1000)
        );
        assert!(parse(&nots, "t.proc", &[])
            .unwrap_err()
            .message
            .contains("nested more than"));
    }

    #[test]
    fn nesting_is_bounded_before_parsing() {
        let body = |n: usize| format!("{}skip;{}", "if true { ".repeat(n), " }".repeat(n));
        let ok = format!("process main {{\n{}\n}}\ninit main;\n", body(60));
        assert_eq!(verdict(&ok), Verdict::NoDeadlock);
        let deep = format!("process main {{\n{}\n}}\ninit main;\n", body(100));
        let err = parse(&deep, "t.proc", &[]).unwrap_err();
        assert_eq!(
            (err.pos.line, err.message.contains("64 levels")),
            (2, true),
            "{err}"
        );
        let parens = format!(
            "process main {{\n    assert {}1{} == 1;\n}}\ninit main;\n",
            "(".repeat(63),
            ")".repeat(63)
        );
        assert_eq!(verdict(&parens), Verdict::NoDeadlock);
        // Brackets in comments do not count.
        let commented = format!("// {}\nprocess main {{ skip; }}\ninit main;\n", "(".repeat(100));
        assert!(parse(&commented, "t.proc", &[]).is_ok());
    }

    #[test]
    fn long_else_if_chains_need_no_recursion() {
        let mut text = String::from("process main {\n    var k: int = 7;\n    if k == 0 { skip; }");
        for i in 1..2000 {
            text.push_str(&format!(" else if k == {i} {{ skip; }}"));
        }
        text.push_str(" else { assert false; }\n}\ninit main;\n");
        assert_eq!(verdict(&text), Verdict::NoDeadlock);
    }

    #[test]
    fn positions_count_characters() {
        let lines = LineIndex::new("ab\nçé x\n");
        assert_eq!(lines.pos(0), Pos { line: 1, col: 1 });
        assert_eq!(lines.pos(3), Pos { line: 2, col: 1 });
        assert_eq!(lines.pos(8), Pos { line: 2, col: 4 });
        assert_eq!(lines.pos(100), Pos { line: 3, col: 1 });
    }
}
