//! The process language front end (`.proc`, reference in `docs/language.md`): the pest
//! grammar `grammars/proc.pest` (`parser.rs`), a syntax tree with byte spans (`ast.rs`),
//! name resolution, constant evaluation, type and static checks (`check.rs`), and the
//! lowering of process bodies to flat code plus the flow checks that need it
//! (`compile.rs`). The result is a [`Program`], which `system::program` runs as a
//! component system.
//!
//! Every problem is reported as a [`ParseError`] at `file:line:col`; warnings come back as
//! `file:line:col: …` strings (the command line prints them after `warning: `). Nothing
//! here panics on any input: the grammar's
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
    pub(crate) fn at(offset: usize, message: impl Into<String>) -> Diag {
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
    pub(crate) fn new(text: &'t str) -> Self {
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
    pub(crate) fn pos(&self, offset: usize) -> Pos {
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
/// Returns the program and the warnings (`file:line:col: …`), or the first error.
///
/// ```
/// let text = "mutex m;\nprocess p[i in 0..2] { lock m; unlock m; }\ninit p;\n";
/// let (program, warnings) = qpor::program::parse(text, "two.proc", &[]).unwrap();
/// assert!(warnings.is_empty());
/// let err = qpor::program::parse("process p { lock m; }\ninit p;\n", "bad.proc", &[]).unwrap_err();
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
            format!("{file}:{}:{}: {}", p.line, p.col, d.message)
        })
        .collect();
    Ok((program, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        let lines = LineIndex::new("ab\nçé x\n");
        assert_eq!(lines.pos(0), Pos { line: 1, col: 1 });
        assert_eq!(lines.pos(3), Pos { line: 2, col: 1 });
        assert_eq!(lines.pos(8), Pos { line: 2, col: 4 });
        assert_eq!(lines.pos(100), Pos { line: 3, col: 1 });
    }
}
