//! The line and column of quick-xml's events: a [`BufRead`] adapter counting the bytes
//! quick-xml consumes (see the parent module's "Positions").

use super::Pos;
use std::io::{self, BufRead, Read};

/// Byte-order mark that quick-xml skips at the start of a document without counting it.
pub(super) const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
/// Size of the tracker's read buffer.
const CHUNK: usize = 64 * 1024;

/// A [`BufRead`] adapter that knows the line and column of the next byte it hands out.
pub(super) struct LineTracker<R> {
    pub(super) inner: R,
    pub(super) chunk: Box<[u8]>,
    /// The unconsumed bytes are `chunk[start..end]`.
    pub(super) start: usize,
    pub(super) end: usize,
    /// Bytes consumed since the start of the input.
    pub(super) consumed: u64,
    /// Position of the next byte.
    pub(super) here: Pos,
    /// Length of the byte-order mark quick-xml skipped (0 or 3).
    pub(super) bom: u64,
    /// Where the current event started, and its bytes consumed so far.
    pub(super) mark_offset: u64,
    pub(super) mark_pos: Pos,
    pub(super) since_mark: Vec<u8>,
}

impl<R: BufRead> LineTracker<R> {
    pub(super) fn new(inner: R) -> Self {
        let start = Pos { line: 1, col: 1 };
        LineTracker {
            inner,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            start: 0,
            end: 0,
            consumed: 0,
            here: start,
            bom: 0,
            mark_offset: 0,
            mark_pos: start,
            since_mark: Vec::new(),
        }
    }

    /// Notes that an event starts at the next byte.
    pub(super) fn set_mark(&mut self) {
        self.mark_offset = self.consumed;
        self.mark_pos = self.here;
        self.since_mark.clear();
    }

    /// The position of byte `offset`, exact from the current mark on; earlier offsets, whose
    /// bytes are gone, map to the mark.
    pub(super) fn pos_at(&self, offset: u64) -> Pos {
        if offset <= self.mark_offset {
            return self.mark_pos;
        }
        let n = (offset - self.mark_offset).min(self.since_mark.len() as u64) as usize;
        advance(self.mark_pos, &self.since_mark[..n])
    }
}

impl<R: BufRead> Read for LineTracker<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineTracker<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.end = self.inner.read(&mut self.chunk)?;
            self.start = 0;
        }
        Ok(&self.chunk[self.start..self.end])
    }

    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.end - self.start);
        let bytes = &self.chunk[self.start..self.start + amt];
        if self.consumed == 0 && bytes == UTF8_BOM {
            // quick-xml drops the mark on its own, before the first event: it occupies no
            // column and quick-xml's offsets do not count it.
            self.bom = 3;
        } else {
            for &b in bytes {
                step(&mut self.here, b);
            }
        }
        self.since_mark.extend_from_slice(bytes);
        self.start += amt;
        self.consumed += amt as u64;
    }
}

/// The position after `bytes`, starting at `pos`.
pub(super) fn advance(mut pos: Pos, bytes: &[u8]) -> Pos {
    for &b in bytes {
        step(&mut pos, b);
    }
    pos
}

/// Moves `pos` over one byte; columns count characters, so UTF-8 continuation bytes do
/// not move it.
#[inline]
pub(super) fn step(pos: &mut Pos, b: u8) {
    if b == b'\n' {
        pos.line += 1;
        pos.col = 1;
    } else if b & 0xC0 != 0x80 {
        pos.col += 1;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Hands out one byte per `fill_buf`, as a slow pipe might.
    pub(crate) struct Trickle<'a>(pub(crate) &'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() || out.is_empty() {
                return Ok(0);
            }
            out[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }

    impl BufRead for Trickle<'_> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            Ok(&self.0[..self.0.len().min(1)])
        }
        fn consume(&mut self, amt: usize) {
            self.0 = &self.0[amt..];
        }
    }

    pub(crate) fn pos(line: usize, col: usize) -> Pos {
        Pos { line, col }
    }

    /// Consumes the whole input in pieces of `piece` bytes and returns the final position.
    fn track<R: BufRead>(inner: R, piece: usize) -> LineTracker<R> {
        let mut t = LineTracker::new(inner);
        loop {
            let n = t.fill_buf().unwrap().len().min(piece);
            if n == 0 {
                return t;
            }
            t.consume(n);
        }
    }

    #[test]
    fn lines_and_columns_follow_the_consumed_bytes() {
        let text = "ab\ncd\n\nxyz";
        let t = track(text.as_bytes(), 1);
        assert_eq!(t.here, pos(4, 4));
        assert_eq!(t.consumed, text.len() as u64);
        let t = track(Trickle(text.as_bytes()), 3);
        assert_eq!(t.here, pos(4, 4));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // 'é' is two bytes, '€' three, '𝄞' four: each moves the column by one.
        let t = track("é€𝄞x".as_bytes(), 2);
        assert_eq!(t.here, pos(1, 5));
        assert_eq!(advance(pos(3, 7), "é\n€".as_bytes()), pos(4, 2));
    }

    #[test]
    fn offsets_inside_the_current_event_are_exact() {
        let mut t = LineTracker::new("<a>\n<b\n  c='1'/>".as_bytes());
        t.fill_buf().unwrap();
        t.consume(4);
        t.set_mark();
        assert_eq!(t.mark_pos, pos(2, 1));
        t.consume(8);
        assert_eq!(t.pos_at(4), pos(2, 1), "the mark itself");
        assert_eq!(t.pos_at(6), pos(2, 3), "the newline after <b");
        assert_eq!(t.pos_at(9), pos(3, 3), "the attribute c");
        assert_eq!(t.pos_at(1), pos(2, 1), "bytes before the mark map to the mark");
        assert_eq!(
            t.pos_at(1000),
            pos(3, 6),
            "offsets beyond what was read stop at its end"
        );
    }

    #[test]
    fn a_byte_order_mark_takes_no_column() {
        let mut bytes = UTF8_BOM.to_vec();
        bytes.extend_from_slice(b"<pnml>");
        let mut t = LineTracker::new(bytes.as_slice());
        t.fill_buf().unwrap();
        t.consume(3);
        assert_eq!((t.here, t.bom), (pos(1, 1), 3));
        t.consume(1);
        assert_eq!(t.here, pos(1, 2));
    }
}
