//! Text content: collecting the text of `text` elements and NUPN lists, and reading it as
//! names, markings and weights.

use super::elements::Ctx;
use super::tracker::advance;
use super::{ParseError, Parser, Pos};
use quick_xml::events::BytesRef;

/// What the text of a `text` element is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Target {
    NetName,
    PlaceName(u32),
    TransitionName(u32),
    Marking(u32),
    Weight(u32),
}

pub(super) fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Why a number in the file was not read.
enum BadNumber {
    Empty,
    Negative,
    NotANumber,
    TooLarge,
}

fn parse_count(text: &str) -> Result<u32, BadNumber> {
    let t = text.trim_matches(is_xml_space);
    if t.is_empty() {
        return Err(BadNumber::Empty);
    }
    if let Some(digits) = t.strip_prefix('-') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(BadNumber::Negative);
        }
    }
    if !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadNumber::NotANumber);
    }
    // Only digits are left, so the one way to fail is to exceed u32.
    t.parse().map_err(|_| BadNumber::TooLarge)
}

/// `text` for a message: trimmed, and cut when long.
pub(super) fn shown(text: &str) -> String {
    let t = text.trim_matches(is_xml_space);
    match t.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

impl Parser<'_> {
    pub(super) fn collecting(&self) -> bool {
        matches!(
            self.stack.last().map(|f| f.ctx),
            Some(Ctx::Text(_) | Ctx::UnitList(..))
        )
    }

    pub(super) fn text(&mut self, content: &str, at: Pos, exact: bool) {
        if !self.collecting() {
            return;
        }
        if self.text_pos.is_none() {
            self.text_pos = Some(at);
        }
        self.text_exact &= exact;
        self.text.push_str(content);
    }

    pub(super) fn general_ref(&mut self, r: &BytesRef, at: Pos) -> Result<(), ParseError> {
        if !self.collecting() {
            return Ok(());
        }
        let c = match r.resolve_char_ref() {
            Ok(Some(c)) => c,
            Ok(None) => match &**r {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "apos" => '\'',
                "quot" => '"',
                other => {
                    return Err(self.error(
                        at,
                        format!(
                            "unknown entity &{other}; (PNML text may use &lt; &gt; &amp; &apos; \
                             &quot; and character references such as &#233;)"
                        ),
                    ))
                }
            },
            Err(e) => return Err(self.error(at, format!("bad character reference &{};: {e}", &**r))),
        };
        let mut utf8 = [0; 4];
        self.text(c.encode_utf8(&mut utf8), at, false);
        Ok(())
    }

    pub(super) fn open_text(&mut self, ctx: Ctx) -> Ctx {
        self.text.clear();
        self.text_pos = None;
        self.text_exact = true;
        ctx
    }

    /// Where the collected text shows its first non-blank character (the element itself when
    /// the text is blank or absent).
    fn text_start(&self, element: Pos) -> Pos {
        match self.text_pos {
            None => element,
            Some(pos) if !self.text_exact => pos,
            Some(pos) => {
                let blank = self.text.len() - self.text.trim_start_matches(is_xml_space).len();
                if blank == self.text.len() {
                    pos
                } else {
                    advance(pos, &self.text.as_bytes()[..blank])
                }
            }
        }
    }

    pub(super) fn finish_text(&mut self, target: Target, element: Pos) -> Result<(), ParseError> {
        let pos = self.text_start(element);
        match target {
            Target::NetName => self.net_name = Some(self.text.clone()),
            Target::PlaceName(i) => self.places[i as usize].name = Some(self.text.clone()),
            Target::TransitionName(i) => self.transitions[i as usize].name = Some(self.text.clone()),
            Target::Marking(i) => self.places[i as usize].initial = self.marking(i, pos)?,
            Target::Weight(i) => self.arcs[i as usize].weight = self.weight(pos)?,
        }
        Ok(())
    }

    /// The collected text as a count; `message` says what is wrong with it, given the text
    /// as shown in messages.
    fn count(&self, pos: Pos, message: impl FnOnce(BadNumber, &str) -> String) -> Result<u32, ParseError> {
        parse_count(&self.text).map_err(|bad| self.error(pos, message(bad, &shown(&self.text))))
    }

    /// The collected text as the initial marking of place `i`.
    fn marking(&self, i: u32, pos: Pos) -> Result<u32, ParseError> {
        let place = self.syms.id(self.places[i as usize].sym);
        let tokens = "a number of tokens (0 to 4294967295)";
        self.count(pos, |bad, t| match bad {
            BadNumber::Empty => format!("the initial marking of place {place} is empty; expected {tokens}"),
            BadNumber::Negative => {
                format!("the initial marking of place {place} is negative ({t}); expected {tokens}")
            }
            BadNumber::NotANumber => {
                format!("expected {tokens} as the initial marking of place {place}, found \"{t}\"")
            }
            BadNumber::TooLarge => format!(
                "the initial marking of place {place} ({t}) is too large: qpor counts at \
                 most 4294967295 tokens on a place"
            ),
        })
    }

    /// The collected text as the weight of the arc being read.
    fn weight(&self, pos: Pos) -> Result<u32, ParseError> {
        let arc = &self.arc_id;
        let weight = "an arc weight (a whole number from 1 to 4294967295)";
        let w = self.count(pos, |bad, t| match bad {
            BadNumber::Empty => format!("the inscription of arc {arc} is empty; expected {weight}"),
            BadNumber::Negative => format!("the weight of arc {arc} is negative ({t}); expected {weight}"),
            BadNumber::NotANumber => {
                format!("expected {weight} as the inscription of arc {arc}, found \"{t}\"")
            }
            BadNumber::TooLarge => {
                format!("the weight of arc {arc} ({t}) is too large: qpor allows at most 4294967295")
            }
        })?;
        if w == 0 {
            return Err(self.error(
                pos,
                format!("the weight of arc {arc} is 0; expected {weight} (leave the arc out instead)"),
            ));
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert!(matches!(parse_count(" 12\n"), Ok(12)));
        assert!(matches!(parse_count("4294967295"), Ok(u32::MAX)));
        assert!(matches!(parse_count("4294967296"), Err(BadNumber::TooLarge)));
        assert!(matches!(
            parse_count("99999999999999999999999"),
            Err(BadNumber::TooLarge)
        ));
        assert!(matches!(parse_count("-3"), Err(BadNumber::Negative)));
        assert!(matches!(parse_count("+3"), Err(BadNumber::NotANumber)));
        assert!(matches!(parse_count("1.5"), Err(BadNumber::NotANumber)));
        assert!(matches!(parse_count("  "), Err(BadNumber::Empty)));
    }
}
