//! Positions in source text, shared by the readers (`parse`) and by the program IR
//! (`system::program`), which keeps the position of every statement for its messages.
//! It sits below both so that neither imports the other for it.

/// A position in an input file (1-based line and column, in characters).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

/// The 1-based line and column of byte `offset` in `text` (columns count characters).
pub(crate) fn pos_of_offset(text: &str, offset: usize) -> Pos {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    Pos { line, col }
}
