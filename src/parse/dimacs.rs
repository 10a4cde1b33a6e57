//! DIMACS CNF reader (docs/design.md#inputs): the input of the NP-hardness reductions
//! (docs/hardness.md, `crate::hardness`), as a [`Cnf`] (`crate::system::cnf`).
//!
//! # What is read
//! - Comment lines: a line whose first non-blank character is `c`, anywhere in the file.
//! - The header `p cnf VARIABLES CLAUSES`, once, before the first clause.
//! - Clauses: non-zero integer literals (`3` is x₃, `-3` is ¬x₃) separated by blanks and
//!   line breaks, each clause ended by `0`; a clause may span several lines and a line may
//!   hold several clauses. `0` alone is the empty clause.
//! - The end marker `%` of the SATLIB benchmark files: everything after it is ignored.
//!
//! # What is refused, and what is only a warning
//! Errors (`file:line:col`): no header or a malformed one (`p dnf`, a missing or
//! non-numeric count, trailing tokens), a second header, a clause before the header, a
//! token that is not an integer, a literal whose variable exceeds the header's count.
//! Warnings, as SAT solvers give them: a clause count that differs from the header's, and
//! a last clause not ended by `0` (it is kept).
//!
//! Duplicate literals and tautologies are kept as written: the reductions must handle
//! them, and the tests check that they do.

use super::{pos_of_offset, LoadError, ParseError};
use crate::system::cnf::Cnf;
use nom::bytes::complete::{take_till1, take_while};
use nom::character::complete::{char, digit1};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};
use std::path::Path;

/// The largest variable index a formula may have (literals are `i32`).
pub const MAX_VARIABLES: u32 = i32::MAX as u32;

type Res<'a, O> = IResult<&'a str, O>;

/// Blanks inside a line (not the line break).
fn blanks(i: &str) -> Res<'_, &str> {
    take_while(|c: char| c == ' ' || c == '\t' || c == '\r' || c == '\x0c' || c == '\x0b')(i)
}

/// One token: everything up to the next white space.
fn word(i: &str) -> Res<'_, &str> {
    take_till1(|c: char| c.is_whitespace())(i)
}

/// An optionally negated decimal integer.
fn integer(i: &str) -> Res<'_, &str> {
    recognize((opt(char('-')), digit1)).parse(i)
}

struct Reader<'t> {
    text: &'t str,
    file: &'t str,
    header: Option<Header>,
    clauses: Vec<Vec<i32>>,
    current: Vec<i32>,
    /// Offset of the first literal of the clause being read.
    current_at: usize,
    warnings: Vec<String>,
}

struct Header {
    vars: u32,
    clauses: u64,
    at: usize,
}

impl<'t> Reader<'t> {
    /// The byte offset of `rest`, a slice of the text, from the start of the text.
    fn offset(&self, rest: &str) -> usize {
        rest.as_ptr() as usize - self.text.as_ptr() as usize
    }

    fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        ParseError::at(self.file, self.text, at, message)
    }

    fn warn(&mut self, at: usize, message: &str) {
        let warning = self.error(at, message);
        self.warnings.push(warning.to_string());
    }

    /// `line` without its line break; returns `false` at the `%` end marker.
    fn line(&mut self, line: &'t str) -> Result<bool, ParseError> {
        let (rest, _) = blanks(line).map_err(|_| self.error(self.offset(line), "unreadable line"))?;
        match rest.chars().next() {
            None | Some('c') => Ok(true),
            Some('%') => Ok(false),
            Some('p') => {
                self.header(rest)?;
                Ok(true)
            }
            Some(_) => {
                self.literals(rest)?;
                Ok(true)
            }
        }
    }

    fn header(&mut self, line: &'t str) -> Result<(), ParseError> {
        const SHAPE: &str = "expected the header `p cnf VARIABLES CLAUSES`";
        let at = self.offset(line);
        if let Some(h) = &self.header {
            let p = pos_of_offset(self.text, h.at);
            return Err(self.error(
                at,
                format!(
                    "a second `p` header; the first is at line {}, column {}",
                    p.line, p.col
                ),
            ));
        }
        if !self.clauses.is_empty() || !self.current.is_empty() {
            return Err(self.error(at, "the `p cnf` header must come before the first clause"));
        }
        let bad = |r: &Self, rest: &str, what: &str| {
            let found = word(rest)
                .map(|(_, w)| format!("`{w}`"))
                .unwrap_or("the end of the line".into());
            r.error(r.offset(rest), format!("{SHAPE}: expected {what}, found {found}"))
        };
        let (rest, p) = word(line).map_err(|_| bad(self, line, "`p`"))?;
        if p != "p" {
            return Err(bad(self, line, "`p` followed by a blank"));
        }
        let (rest, _) = blanks(rest).map_err(|_| bad(self, rest, "a blank"))?;
        let (after, kind) = word(rest).map_err(|_| bad(self, rest, "`cnf`"))?;
        if kind != "cnf" {
            return Err(self.error(
                self.offset(rest),
                format!("{SHAPE}: only CNF formulas are read, found `p {kind}`"),
            ));
        }
        let mut counts = [0u64; 2];
        let mut rest = after;
        for (k, what) in ["the number of variables", "the number of clauses"]
            .iter()
            .enumerate()
        {
            let (r, gap) = blanks(rest).map_err(|_| bad(self, rest, what))?;
            let number: Res<&str> = digit1(r);
            let Ok((r2, digits)) = number else {
                return Err(bad(self, r, what));
            };
            if gap.is_empty() || word(r2).is_ok() {
                // Digits glued to something else (`3x`).
                return Err(bad(self, r, what));
            }
            counts[k] = digits
                .parse()
                .map_err(|_| self.error(self.offset(r), format!("{what} is too large")))?;
            rest = r2;
        }
        let (rest, _) = blanks(rest).map_err(|_| bad(self, rest, "the end of the line"))?;
        if !rest.is_empty() {
            return Err(bad(self, rest, "the end of the line"));
        }
        if counts[0] > MAX_VARIABLES as u64 {
            return Err(self.error(
                at,
                format!("{} variables are too many (at most {MAX_VARIABLES})", counts[0]),
            ));
        }
        self.header = Some(Header {
            vars: counts[0] as u32,
            clauses: counts[1],
            at,
        });
        Ok(())
    }

    fn literals(&mut self, line: &'t str) -> Result<(), ParseError> {
        let mut rest = line;
        loop {
            let (r, _) = blanks(rest).map_err(|_| self.error(self.offset(rest), "unreadable line"))?;
            if r.is_empty() {
                return Ok(());
            }
            let at = self.offset(r);
            let (after, token) = word(r).map_err(|_| self.error(at, "unreadable token"))?;
            let Some(vars) = self.header.as_ref().map(|h| h.vars) else {
                return Err(self.error(
                    at,
                    format!("expected the header `p cnf VARIABLES CLAUSES` before the first clause, found `{token}`"),
                ));
            };
            let whole = matches!(integer(token), Ok(("", _)));
            if !whole {
                return Err(self.error(
                    at,
                    format!(
                        "expected a literal (a non-zero integer) or 0 to end the clause, found `{token}`"
                    ),
                ));
            }
            let value: i64 = token.parse().map_err(|_| {
                self.error(
                    at,
                    format!("literal `{token}` is out of range: the header declares {vars} variables"),
                )
            })?;
            if value == 0 {
                self.clauses.push(std::mem::take(&mut self.current));
            } else {
                if value.unsigned_abs() > vars as u64 {
                    return Err(self.error(
                        at,
                        format!(
                            "literal {value} is out of range: the header declares {vars} variable{}",
                            if vars == 1 { "" } else { "s" }
                        ),
                    ));
                }
                if self.current.is_empty() {
                    self.current_at = at;
                }
                self.current.push(value as i32);
            }
            rest = after;
        }
    }
}

/// Reads a DIMACS CNF text; `file` names it in errors and warnings.
///
/// Returns the formula and the warnings (`file:line:col: …`; the command line prints them after `warning: `).
///
/// ```
/// use qpor::formats::dimacs::parse;
/// let err = parse("p cnf 2 1\n1 3 0\n", "f.cnf").unwrap_err();
/// assert_eq!(err.to_string(), "f.cnf:2:3: literal 3 is out of range: the header declares 2 variables");
/// let (_, warnings) = parse("p cnf 2 3\n1 0\n", "f.cnf").unwrap();
/// assert_eq!(warnings, ["f.cnf:1:1: the header declares 3 clauses, the file has 1"]);
/// ```
pub fn parse(text: &str, file: &str) -> Result<(Cnf, Vec<String>), ParseError> {
    let mut r = Reader {
        text,
        file,
        header: None,
        clauses: Vec::new(),
        current: Vec::new(),
        current_at: 0,
        warnings: Vec::new(),
    };
    let mut end = text.len();
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        if !r.line(body)? {
            end = r.offset(body);
            break;
        }
    }
    let Some(header) = r.header.take() else {
        return Err(r.error(
            end,
            if text.trim().is_empty() {
                "empty file: expected the header `p cnf VARIABLES CLAUSES`"
            } else {
                "no header: expected `p cnf VARIABLES CLAUSES` before the clauses"
            },
        ));
    };
    if !r.current.is_empty() {
        let at = r.current_at;
        r.warn(at, "the last clause is not ended by 0; it is kept");
        let last = std::mem::take(&mut r.current);
        r.clauses.push(last);
    }
    if r.clauses.len() as u64 != header.clauses {
        let message = format!(
            "the header declares {} clause{}, the file has {}",
            header.clauses,
            if header.clauses == 1 { "" } else { "s" },
            r.clauses.len()
        );
        r.warn(header.at, &message);
    }
    Ok((Cnf::new(header.vars, r.clauses), r.warnings))
}

/// Reads the DIMACS CNF file at `path`.
pub fn read(path: &Path) -> Result<(Cnf, Vec<String>), LoadError> {
    let text = super::read_text(path)?;
    Ok(parse(&text, &path.display().to_string())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> (Cnf, Vec<String>) {
        parse(text, "t.cnf").unwrap_or_else(|e| panic!("{e}"))
    }

    fn err(text: &str) -> String {
        parse(text, "t.cnf").unwrap_err().to_string()
    }

    #[test]
    fn clauses_span_lines_and_lines_hold_clauses() {
        let (cnf, w) = ok("c a comment\np cnf 3 3\n1 -2\n 3 0 -1 0\nc inside\n0\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(cnf.clauses, vec![vec![1, -2, 3], vec![-1], vec![]]);
    }

    #[test]
    fn satlib_end_marker_stops_reading() {
        let (cnf, w) = ok("p cnf 2 1\n1 2 0\n%\n0\n\n");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(cnf.clauses, vec![vec![1, 2]]);
    }

    #[test]
    fn header_errors_point_at_the_problem() {
        assert_eq!(err("p dnf 3 2\n"), "t.cnf:1:3: expected the header `p cnf VARIABLES CLAUSES`: only CNF formulas are read, found `p dnf`");
        assert_eq!(
            err("p cnf x 2\n"),
            "t.cnf:1:7: expected the header `p cnf VARIABLES CLAUSES`: expected the number of variables, found `x`"
        );
        assert_eq!(
            err("p cnf 3\n"),
            "t.cnf:1:8: expected the header `p cnf VARIABLES CLAUSES`: expected the number of clauses, found the end of the line"
        );
        assert_eq!(
            err("p cnf 3 2 7\n"),
            "t.cnf:1:11: expected the header `p cnf VARIABLES CLAUSES`: expected the end of the line, found `7`"
        );
        assert_eq!(
            err("p cnf 3 2\np cnf 3 2\n"),
            "t.cnf:2:1: a second `p` header; the first is at line 1, column 1"
        );
        assert_eq!(
            err("1 2 0\n"),
            "t.cnf:1:1: expected the header `p cnf VARIABLES CLAUSES` before the first clause, found `1`"
        );
        assert_eq!(
            err(""),
            "t.cnf:1:1: empty file: expected the header `p cnf VARIABLES CLAUSES`"
        );
        assert_eq!(
            err("c only\n"),
            "t.cnf:2:1: no header: expected `p cnf VARIABLES CLAUSES` before the clauses"
        );
        assert!(err("p cnf 99999999999 1\n").contains("too many"));
    }

    #[test]
    fn bad_literals_are_errors() {
        assert_eq!(
            err("p cnf 2 1\n1 -3 0\n"),
            "t.cnf:2:3: literal -3 is out of range: the header declares 2 variables"
        );
        assert_eq!(
            err("p cnf 2 1\n1 x 0\n"),
            "t.cnf:2:3: expected a literal (a non-zero integer) or 0 to end the clause, found `x`"
        );
        assert!(err("p cnf 2 1\n1 +2 0\n").contains("found `+2`"));
        assert!(err("p cnf 2 1\n1 99999999999999999999 0\n").contains("out of range"));
    }

    #[test]
    fn count_mismatch_and_open_clause_are_warnings() {
        let (cnf, w) = ok("p cnf 2 1\n1 0\n2 -1\n");
        assert_eq!(cnf.clauses, vec![vec![1], vec![2, -1]]);
        assert_eq!(
            w,
            [
                "t.cnf:3:1: the last clause is not ended by 0; it is kept",
                "t.cnf:1:1: the header declares 1 clause, the file has 2"
            ]
        );
    }

    #[test]
    fn dimacs_round_trip() {
        let cnf = Cnf::new(4, vec![vec![1, -2, 2], vec![], vec![-4, -4]]);
        let (back, w) = ok(&cnf.to_dimacs());
        assert!(w.is_empty());
        assert_eq!(back, cnf);
        assert_eq!(Cnf::clause_text(&[1, -2]), "x1 | -x2");
    }
}
