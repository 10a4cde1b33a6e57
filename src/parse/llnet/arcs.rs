//! The arc blocks: `DPT` (arc defaults), `TP`, `PT` and Cunf's `RA` (read arcs).

use super::{pos_of_offset, ParseError, Reader, Rule};
use crate::system::net::{PlaceId, TransId};
use pest::iterators::Pair;
use std::collections::HashMap;

/// The arc blocks qpor reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ArcBlock {
    Tp,
    Pt,
    Ra,
}

impl ArcBlock {
    fn keyword(self) -> &'static str {
        match self {
            ArcBlock::Tp => "TP",
            ArcBlock::Pt => "PT",
            ArcBlock::Ra => "RA",
        }
    }
}

/// How an arc of `kind` is written, for messages.
fn arc_shape(kind: ArcBlock) -> &'static str {
    match kind {
        ArcBlock::Tp => "t<p",
        ArcBlock::Pt => "p>t",
        ArcBlock::Ra => "t<p or p>t",
    }
}

impl<'t> Reader<'t> {
    /// `DPT`: a default weight other than 1 would change every arc without `w` in PEP; qpor
    /// gives such arcs weight 1, and says so.
    pub(super) fn arc_defaults(&mut self, block: Pair<'t, Rule>) -> Result<(), ParseError> {
        for field in block.into_inner().flatten() {
            if field.as_rule() == Rule::default_weight {
                if let Some(number) = field.into_inner().next() {
                    let w = self.unsigned(&number, "default arc weight")?;
                    if w != 1 {
                        let message =
                            format!("default arc weight w{w} ignored: arcs without w have weight 1");
                        self.warn_at(number.as_span().start(), &message);
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads a `TP`, `PT` or `RA` block into the net. An arc given twice in its block is
    /// one arc whose weight is the sum, as LoLA and verifypn read parallel arcs (Mole and
    /// the PEP tools write one line per use of a place); a read arc given twice is one read
    /// arc, since reading a token twice at once still needs only that token.
    pub(super) fn arcs(&mut self, block: Pair<'t, Rule>, kind: ArcBlock) -> Result<(), ParseError> {
        // Per arc of the block: the offset of its first line and how many lines give it.
        let mut seen: HashMap<(TransId, PlaceId), (usize, u32)> = HashMap::new();
        for line in block.into_inner().filter(|p| p.as_rule() == Rule::arc_line) {
            let start = line.as_span().start();
            let (ends, weight) = self.arc_line(line, kind)?;
            let text = ends.as_str();
            let at = ends.as_span().start();
            let (t, p) = self.arc_ends(ends, kind)?;
            let w = weight.unwrap_or(1);
            let (first, lines) = seen.entry((t, p)).or_insert((start, 0));
            *lines += 1;
            if *lines > 1 {
                let (first, lines) = (*first, *lines);
                self.parallel.add(lines, kind, || (at, text.to_string(), first));
                let transition = &self.net.transitions[t.index()];
                let earlier = match kind {
                    ArcBlock::Tp => transition.post_weight(p),
                    ArcBlock::Pt => transition.pre_weight(p),
                    ArcBlock::Ra => 0,
                };
                if earlier.checked_add(w).is_none() {
                    return Err(self.error_at(
                        at,
                        format!(
                            "the weights of the parallel arcs {text} add up to more than {}",
                            u32::MAX
                        ),
                    ));
                }
            }
            match kind {
                ArcBlock::Tp => self.net.add_post(t, p, w),
                ArcBlock::Pt => self.net.add_pre(t, p, w),
                ArcBlock::Ra => self.net.add_read(t, p),
            }
        }
        Ok(())
    }

    /// The items of an arc line: its one arc (still to be resolved) and its weight, if given.
    fn arc_line(
        &self,
        line: Pair<'t, Rule>,
        kind: ArcBlock,
    ) -> Result<(Pair<'t, Rule>, Option<u32>), ParseError> {
        let keyword = kind.keyword();
        let start = line.as_span().start();
        let mut ends: Option<Pair<'t, Rule>> = None;
        let mut weight: Option<u32> = None;
        for item in line.into_inner() {
            let at = item.as_span().start();
            match item.as_rule() {
                Rule::pair => {
                    if ends.is_some() {
                        return Err(
                            self.error_at(at, format!("second arc {} on one {keyword} line", item.as_str()))
                        );
                    }
                    ends = Some(item);
                }
                Rule::ident => {
                    return Err(self.error_at(
                        at,
                        format!(
                            "a lone number {} on a {keyword} line: expected an arc {}",
                            item.as_str(),
                            arc_shape(kind)
                        ),
                    ))
                }
                Rule::weight => {
                    let Some(number) = item.into_inner().next() else {
                        continue;
                    };
                    let w = self.arc_weight(&number, kind)?;
                    match weight {
                        Some(first) if first != w => {
                            return Err(self
                                .error_at(at, format!("conflicting weights w{first} and w{w} on one arc")))
                        }
                        _ => weight = Some(w),
                    }
                }
                _ => {}
            }
        }
        let Some(ends) = ends else {
            return Err(self.error_at(
                start,
                format!("expected an arc {} on this {keyword} line", arc_shape(kind)),
            ));
        };
        Ok((ends, weight))
    }

    /// The number of a `w` field: at least 1, and exactly 1 on a read arc.
    fn arc_weight(&self, number: &Pair<'t, Rule>, kind: ArcBlock) -> Result<u32, ParseError> {
        let w = self.unsigned(number, "arc weight")?;
        if w == 0 {
            return Err(self.error_at(
                number.as_span().start(),
                "zero arc weight w0: weights are at least 1 (leave w out for 1)",
            ));
        }
        if kind == ArcBlock::Ra && w != 1 {
            return Err(self.error_at(
                number.as_span().start(),
                format!("read arc with weight w{w}: a read arc only tests for one token"),
            ));
        }
        Ok(w)
    }

    /// The transition and place an arc `a<b`, `a>b` or `a@b` joins.
    fn arc_ends(&self, ends: Pair<'t, Rule>, kind: ArcBlock) -> Result<(TransId, PlaceId), ParseError> {
        let at = ends.as_span().start();
        let mut parts = ends.into_inner();
        let (Some(first), Some(sep), Some(second)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(self.error_at(at, "malformed arc (qpor internal bug)"));
        };
        // The separator points at the transition; `@` says nothing, so the block's
        // usual order applies.
        let transition_first = match (kind, sep.as_str()) {
            (ArcBlock::Tp | ArcBlock::Ra, "<" | "@") => true,
            (ArcBlock::Pt, ">" | "@") => false,
            (ArcBlock::Ra, _) => false,
            (ArcBlock::Tp, _) => {
                return Err(self.error_at(
                    sep.as_span().start(),
                    "expected `<` in a TP line: an arc t<p names the transition first",
                ))
            }
            (ArcBlock::Pt, _) => {
                return Err(self.error_at(
                    sep.as_span().start(),
                    "expected `>` in a PT line: an arc p>t names the place first",
                ))
            }
        };
        Ok(if transition_first {
            (self.transition(&first)?, self.place(&second)?)
        } else {
            (self.transition(&second)?, self.place(&first)?)
        })
    }
}

/// The arcs of a net that repeat an arc of their block, for the net's one warning.
#[derive(Default)]
pub(super) struct ParallelArcs {
    /// Input and output arcs in groups of two or more with the same ends and block, and
    /// such groups (each summed into one weight).
    summed: (usize, usize),
    /// The same for read arcs (each group merged into one read arc).
    merged: (usize, usize),
    /// The repeat that comes first in the file: its offset, its text, and the offset of the
    /// line it repeats.
    first: Option<(usize, String, usize)>,
}

impl ParallelArcs {
    /// Counts the `lines`-th line giving one arc of `kind` (`lines` ≥ 2); `repeat` gives the
    /// line's offset, its arc text and the offset of the first line, asked only for the first
    /// repeat of the net.
    fn add(&mut self, lines: u32, kind: ArcBlock, repeat: impl FnOnce() -> (usize, String, usize)) {
        let (arcs, groups) = if kind == ArcBlock::Ra {
            &mut self.merged
        } else {
            &mut self.summed
        };
        if lines == 2 {
            *arcs += 2;
            *groups += 1;
        } else {
            *arcs += 1;
        }
        if self.first.is_none() {
            self.first = Some(repeat());
        }
    }
}

/// What `groups` groups of parallel arcs became, e.g. `one weight` or `3 weights`.
fn into(groups: usize, one: &str, many: &str) -> String {
    if groups == 1 {
        format!("one {one}")
    } else {
        format!("{groups} {many}")
    }
}

impl Reader<'_> {
    /// The net's one warning about its parallel arcs, if it has any.
    pub(super) fn warn_parallel_arcs(&mut self) {
        let Some((at, text, first)) = self.parallel.first.take() else {
            return;
        };
        let mut parts = Vec::new();
        let (arcs, groups) = self.parallel.summed;
        if arcs > 0 {
            parts.push(format!(
                "{arcs} parallel arcs summed into {}",
                into(groups, "weight", "weights")
            ));
        }
        let (arcs, groups) = self.parallel.merged;
        if arcs > 0 {
            parts.push(format!(
                "{arcs} repeated read arcs merged into {}",
                into(groups, "read arc", "read arcs")
            ));
        }
        let message = format!(
            "{} (first: {text}, here and at line {})",
            parts.join("; "),
            pos_of_offset(self.text, first).line
        );
        self.warn_at(at, &message);
    }
}
