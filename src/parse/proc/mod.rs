//! The process language front end (`.proc`): grammar, typed AST, checks, compiler to a
//! [`Program`](crate::system::program::Program). To be written.

use crate::parse::{ParseError, Pos};
use crate::system::program::Program;

/// Parses, checks and compiles a `.proc` text; `defines` override `param`s (`-D N=5`).
pub fn parse(
    _text: &str,
    file: &str,
    _defines: &[(String, i64)],
) -> Result<(Program, Vec<String>), ParseError> {
    Err(ParseError {
        file: file.to_string(),
        pos: Pos { line: 1, col: 1 },
        message: "the process language is not implemented yet".into(),
    })
}
