//! The text format of explicit prime event structures (`docs/pes-format.md`): events with
//! labels, causality pairs, conflict pairs and named sets of events (such as the
//! configuration C and the set D of an Alt question).
//!
//! The structure itself, [`Pes`], and the checks that make it a prime event structure
//! live in [`crate::unfold::pes`]; this reader turns the text into [`PesBuilder`]
//! declarations, each with its position, so that the builder's errors become
//! [`ParseError`]s at the offending declaration, naming the other declarations involved by
//! line and column. The reader itself checks the syntax, that events are declared before
//! use and that names are unique.

use super::proc::LineIndex;
use super::{ParseError, Pos};
use nom::bytes::complete::{take_while, take_while1};
use nom::IResult;

pub(crate) use crate::unfold::pes::{Pes, PesBuilder, PesEventId, PesOptions};

/// The format version the reader understands and the writer writes (`pes 1`).
pub const FORMAT_VERSION: u32 = 1;

/// A token of the format, with its byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Name(String),
    Str(String),
    Lt,
    Hash,
    Eq,
    LBrace,
    RBrace,
    Comma,
    Newline,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("`{n}`"),
            Tok::Str(_) => "a quoted label".into(),
            Tok::Lt => "`<`".into(),
            Tok::Hash => "`#`".into(),
            Tok::Eq => "`=`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Newline => "the end of the line".into(),
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '\''
}

fn name_token(i: &str) -> IResult<&str, &str> {
    take_while1(is_name_char)(i)
}

fn blanks(i: &str) -> IResult<&str, &str> {
    take_while(|c: char| c == ' ' || c == '\t' || c == '\r')(i)
}

/// Splits the text into tokens; `//` comments are dropped, line breaks kept.
fn tokens(text: &str) -> Result<Vec<(Tok, usize)>, (usize, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    let offset = |r: &str| text.len() - r.len();
    loop {
        if let Ok((r, _)) = blanks(rest) {
            rest = r;
        }
        let at = offset(rest);
        let Some(c) = rest.chars().next() else { break };
        let single = match c {
            '\n' => Some(Tok::Newline),
            '<' => Some(Tok::Lt),
            '#' => Some(Tok::Hash),
            '=' => Some(Tok::Eq),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            ',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(t) = single {
            out.push((t, at));
            rest = &rest[1..];
            continue;
        }
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            rest = &rest[end..];
            continue;
        }
        if c == '"' {
            let mut label = String::new();
            let mut chars = rest[1..].char_indices();
            let mut end = None;
            while let Some((k, ch)) = chars.next() {
                match ch {
                    '"' => {
                        end = Some(k + 2);
                        break;
                    }
                    '\\' => match chars.next() {
                        Some((_, '"')) => label.push('"'),
                        Some((_, '\\')) => label.push('\\'),
                        Some((_, 'n')) => label.push('\n'),
                        Some((k2, other)) => {
                            return Err((
                                at + 1 + k2,
                                format!("unknown escape `\\{other}` in a label (use \\\", \\\\ or \\n)"),
                            ))
                        }
                        None => break,
                    },
                    '\n' => break,
                    _ => label.push(ch),
                }
            }
            let Some(end) = end else {
                return Err((
                    at,
                    "unterminated label: a `\"` is missing before the end of the line".into(),
                ));
            };
            out.push((Tok::Str(label), at));
            rest = &rest[end..];
            continue;
        }
        match name_token(rest) {
            Ok((r, n)) => {
                out.push((Tok::Name(n.to_string()), at));
                rest = r;
            }
            Err(_) => {
                return Err((
                    at,
                    format!(
                        "unexpected {} (names are letters, digits, `_`, `.` and `'`)",
                        if c.is_control() {
                            crate::parse::char_shown(c)
                        } else {
                            format!("character `{c}`")
                        }
                    ),
                ))
            }
        }
    }
    Ok(out)
}

struct Reader<'t> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    lines: LineIndex<'t>,
    end: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn offset(&self) -> usize {
        self.toks.get(self.at).map(|(_, o)| *o).unwrap_or(self.end)
    }

    fn pos(&self) -> Pos {
        self.lines.pos(self.offset())
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).map(|(t, _)| t.clone());
        self.at += 1;
        t
    }

    fn found(&self) -> String {
        self.peek()
            .map(|t| t.describe())
            .unwrap_or_else(|| "the end of the file".into())
    }

    fn fail<T>(&self, message: String) -> Result<T, (Pos, String)> {
        Err((self.pos(), message))
    }

    fn skip_newlines(&mut self) {
        while self.peek() == Some(&Tok::Newline) {
            self.at += 1;
        }
    }

    fn end_of_statement(&mut self) -> Result<(), (Pos, String)> {
        match self.peek() {
            None => Ok(()),
            Some(Tok::Newline) => {
                self.at += 1;
                Ok(())
            }
            Some(_) => self.fail(format!("expected the end of the line, found {}", self.found())),
        }
    }

    fn name(&mut self, what: &str) -> Result<(String, Pos), (Pos, String)> {
        let pos = self.pos();
        match self.peek() {
            Some(Tok::Name(n)) if !is_keyword(n) => {
                let n = n.clone();
                self.at += 1;
                Ok((n, pos))
            }
            _ => self.fail(format!("expected {what}, found {}", self.found())),
        }
    }
}

fn is_keyword(n: &str) -> bool {
    matches!(n, "pes" | "event" | "set")
}

/// Reads an explicit PES text; `file` names it in errors.
///
/// ```
/// use qpor::formats::pes::parse;
/// use qpor::unfolding::PesOptions;
/// let text = "pes 1\nevent a \"x1=1\"\nevent b\nevent d\na # b d\nset C = {}\nset D = { d }\n";
/// let pes = parse(text, "t.pes", &PesOptions::default()).unwrap();
/// let (a, d) = (pes.find("a").unwrap(), pes.find("d").unwrap());
/// assert!(pes.conflict(d, a));
/// assert_eq!(pes.label(a), Some("x1=1"));
/// assert_eq!(pes.set("D"), Some(&[d][..]));
/// let err = parse("pes 1\nevent a\na < a\n", "t.pes", &PesOptions::default()).unwrap_err();
/// assert_eq!(err.to_string(), "t.pes:3:1: causality must be irreflexive: `a < a`");
/// ```
pub fn parse(text: &str, file: &str, opts: &PesOptions) -> Result<Pes, ParseError> {
    let lines = LineIndex::new(text);
    let error = |pos: Pos, message: String| ParseError {
        file: file.to_string(),
        pos,
        message,
    };
    let toks = tokens(text).map_err(|(o, m)| error(lines.pos(o), m))?;
    let mut r = Reader {
        toks,
        at: 0,
        lines,
        end: text.len(),
    };
    let builder = read_statements(&mut r).map_err(|(p, m)| error(p, m))?;
    builder
        .build(opts)
        .map_err(|e| error(e.pos.unwrap_or(Pos { line: 1, col: 1 }), e.message))
}

/// Whether `text` looks like an explicit PES file: its first token is `pes`.
pub fn looks_like_pes(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("//") {
            rest = rest.find('\n').map(|k| &rest[k..]).unwrap_or("");
            continue;
        }
        return rest.starts_with("pes") && rest[3..].chars().next().is_none_or(|c| !is_name_char(c));
    }
}

/// Reads the whole file into builder declarations: the header, then one statement a line.
fn read_statements(r: &mut Reader) -> Result<PesBuilder, (Pos, String)> {
    let mut b = PesBuilder::new();
    read_header(r)?;
    loop {
        r.skip_newlines();
        let Some(t) = r.peek().cloned() else { break };
        let stmt_pos = r.pos();
        match t {
            Tok::Name(k) if k == "event" => read_event(r, &mut b)?,
            Tok::Name(k) if k == "set" => read_set(r, &mut b, stmt_pos)?,
            Tok::Name(_) => read_relation(r, &mut b, stmt_pos)?,
            _ => {
                return r.fail(format!(
                    "expected a statement (`event`, `set`, `A < B`, `A # B`), found {}",
                    r.found()
                ))
            }
        }
        r.end_of_statement()?;
    }
    Ok(b)
}

/// `pes` with an optional version, which must be [`FORMAT_VERSION`].
fn read_header(r: &mut Reader) -> Result<(), (Pos, String)> {
    r.skip_newlines();
    match r.peek() {
        Some(Tok::Name(n)) if n == "pes" => {
            r.at += 1;
        }
        _ => {
            return r.fail(format!(
                "expected the header `pes {FORMAT_VERSION}` (an explicit prime event structure), found {}",
                r.found()
            ))
        }
    }
    if let Some(Tok::Name(v)) = r.peek() {
        if v != &FORMAT_VERSION.to_string() {
            return r.fail(format!(
                "unknown format version `{v}`: this reader knows version {FORMAT_VERSION}"
            ));
        }
        r.at += 1;
    }
    r.end_of_statement()
}

/// `event NAME ["LABEL"]`, at the keyword.
fn read_event(r: &mut Reader, b: &mut PesBuilder) -> Result<(), (Pos, String)> {
    r.at += 1;
    let (name, pos) = r.name("an event name")?;
    let label = match r.peek() {
        Some(Tok::Str(s)) => {
            let s = s.clone();
            r.at += 1;
            Some(s)
        }
        _ => None,
    };
    b.event_at(&name, label, Some(pos))
        .map_err(|e| (pos, e.message))?;
    Ok(())
}

/// `set NAME = { E … }` (names separated by blanks, commas or line breaks), at the
/// keyword.
fn read_set(r: &mut Reader, b: &mut PesBuilder, stmt_pos: Pos) -> Result<(), (Pos, String)> {
    r.at += 1;
    let (name, _) = r.name("a set name")?;
    if r.next() != Some(Tok::Eq) {
        r.at -= 1;
        return r.fail(format!("expected `=` after the set name, found {}", r.found()));
    }
    r.skip_newlines();
    if r.next() != Some(Tok::LBrace) {
        r.at -= 1;
        return r.fail(format!("expected `{{` to open the set, found {}", r.found()));
    }
    let mut events = Vec::new();
    loop {
        match r.peek() {
            Some(Tok::RBrace) => {
                r.at += 1;
                break;
            }
            Some(Tok::Newline) | Some(Tok::Comma) => r.at += 1,
            Some(Tok::Name(_)) => {
                let (e, pos) = r.name("an event name")?;
                events.push(resolve(b, &e, pos)?);
            }
            _ => return r.fail(format!("expected an event name or `}}`, found {}", r.found())),
        }
    }
    b.set_at(name, events, Some(stmt_pos));
    Ok(())
}

/// `A < B C …` (causality) or `A # B C …` (conflict), at `A`.
fn read_relation(r: &mut Reader, b: &mut PesBuilder, stmt_pos: Pos) -> Result<(), (Pos, String)> {
    let (first, pos) = r.name("an event name")?;
    let a = resolve(b, &first, pos)?;
    let causal = match r.next() {
        Some(Tok::Lt) => true,
        Some(Tok::Hash) => false,
        _ => {
            r.at -= 1;
            return r.fail(format!(
                "expected `<` (causality) or `#` (conflict) after `{first}`, found {}",
                r.found()
            ));
        }
    };
    let mut any = false;
    loop {
        match r.peek() {
            None | Some(Tok::Newline) if any => break,
            Some(Tok::Comma) if any => r.at += 1,
            _ => {
                let (e, epos) = r.name("an event name")?;
                let x = resolve(b, &e, epos)?;
                if causal {
                    b.causality_at(a, x, Some(stmt_pos));
                } else {
                    b.conflict_at(a, x, Some(stmt_pos));
                }
                any = true;
            }
        }
    }
    Ok(())
}

fn resolve(b: &PesBuilder, name: &str, pos: Pos) -> Result<PesEventId, (Pos, String)> {
    b.find(name).ok_or_else(|| {
        (
            pos,
            format!("unknown event `{name}` (declare it with `event {name}` first)"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Pes, String> {
        parse(text, "t.pes", &PesOptions::default()).map_err(|e| e.to_string())
    }

    fn read_closed(text: &str) -> Result<Pes, String> {
        parse(text, "t.pes", &PesOptions { close_conflict: true }).map_err(|e| e.to_string())
    }

    #[test]
    fn causality_is_closed_transitively() {
        let pes = read("pes\nevent a\nevent b\nevent c\na < b\nb < c\n").unwrap();
        let [a, b, c] = ["a", "b", "c"].map(|n| pes.find(n).unwrap());
        assert!(pes.lt(a, c) && pes.lt(a, b) && !pes.lt(c, a));
        assert_eq!(pes.immediate_causes(c), vec![b]);
    }

    #[test]
    fn cycles_are_reported_where_they_close() {
        let e = read("pes 1\nevent a\nevent b\nevent c\na < b\nb < c\nc < a\n").unwrap_err();
        assert_eq!(
            e,
            "t.pes:7:1: causality must be acyclic, but it has the cycle `a < b < c < a` (declared at 5:1, 6:1, 7:1)"
        );
    }

    #[test]
    fn conflict_must_be_irreflexive_and_inherited() {
        assert_eq!(
            read("pes\nevent a\na # a\n").unwrap_err(),
            "t.pes:3:1: conflict must be irreflexive: `a # a`"
        );
        let text = "pes\nevent a\nevent b\nevent c\na # b\nb < c\n";
        let e = read(text).unwrap_err();
        assert!(
            e.starts_with("t.pes:5:1: conflict must be inherited: `a # b` and `b < c` imply `a # c`"),
            "{e}"
        );
        let pes = read_closed(text).unwrap();
        let [a, c] = ["a", "c"].map(|n| pes.find(n).unwrap());
        assert!(pes.conflict(a, c) && pes.conflict(c, a));
        assert!(!pes.is_minimal_conflict(a, c));
        assert_eq!(pes.immediate_conflicts(a), vec![pes.find("b").unwrap()]);
        assert!(read(&format!("{text}a # c\n")).is_ok());
    }

    #[test]
    fn self_conflict_by_inheritance_is_refused() {
        let e = read_closed("pes\nevent a\nevent b\na < b\na # b\n").unwrap_err();
        assert!(e.contains("`b` would be in conflict with itself"), "{e}");
        let e = read_closed("pes\nevent a\nevent b\nevent x\na < x\nb < x\na # b\n").unwrap_err();
        assert!(
            e.starts_with("t.pes:7:1: `a # b` but both are causes of `x`"),
            "{e}"
        );
    }

    #[test]
    fn sets_are_checked() {
        let base = "pes\nevent a\nevent b\nevent c\na < b\na # c\nb # c\n";
        assert!(read(&format!("{base}set C = {{ a }}\nset D = {{ b c }}\n")).is_ok());
        let e = read(&format!("{base}set C = {{ b }}\n")).unwrap_err();
        assert_eq!(
            e,
            "t.pes:8:1: set C must be a configuration, but it holds `b` but not its cause `a`"
        );
        let e = read(&format!("{base}set C = {{ a c }}\n")).unwrap_err();
        assert!(e.contains("which are in conflict"), "{e}");
        let e = read(&format!("{base}set D = {{ b }}\n")).unwrap_err();
        assert_eq!(
            e,
            "t.pes:8:1: `b` in D is not an extension of C: its cause `a` is not in C"
        );
        let e = read(&format!("{base}set C = {{ a }}\nset D = {{\n  a\n}}\n")).unwrap_err();
        assert!(e.contains("in both C and D"), "{e}");
        let e = read(&format!("{base}set C = {{ x }}\n")).unwrap_err();
        assert_eq!(
            e,
            "t.pes:8:11: unknown event `x` (declare it with `event x` first)"
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        assert_eq!(
            read("event a\n").unwrap_err(),
            "t.pes:1:1: expected the header `pes 1` (an explicit prime event structure), found `event`"
        );
        assert_eq!(
            read("pes 2\n").unwrap_err(),
            "t.pes:1:5: unknown format version `2`: this reader knows version 1"
        );
        assert_eq!(
            read("pes\nevent a \"x\n").unwrap_err(),
            "t.pes:2:9: unterminated label: a `\"` is missing before the end of the line"
        );
        assert_eq!(
            read("pes\nevent a\na b\n").unwrap_err(),
            "t.pes:3:3: expected `<` (causality) or `#` (conflict) after `a`, found `b`"
        );
        assert_eq!(
            read("pes\nevent a\nevent a\n").unwrap_err(),
            "t.pes:3:7: event `a` is declared twice (first at 2:7)"
        );
        assert_eq!(
            read("pes\nevent a ;\n").unwrap_err(),
            "t.pes:2:9: unexpected character `;` (names are letters, digits, `_`, `.` and `'`)"
        );
        assert_eq!(
            read("pes\nevent a\na <\n").unwrap_err(),
            "t.pes:3:4: expected an event name, found the end of the line"
        );
    }

    #[test]
    fn detection_skips_comments() {
        assert!(looks_like_pes("// hello\n\n  pes 1\n"));
        assert!(!looks_like_pes("pest\n"));
        assert!(!looks_like_pes("<?xml"));
    }
}
