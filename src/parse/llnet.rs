//! The PEP low-level net reader (`.ll_net`, DESIGN.md §2): the format of PEP, Punf, Cunf
//! and Mole, with Cunf's `RA` block of read arcs.
//!
//! The syntax is the pest grammar `grammars/llnet.pest`; this module gives it meaning and
//! checks what a grammar cannot. We read files the way Cunf does (`research/cunf.md` §1.1)
//! with these differences:
//! - `M<k>` may exceed 1: non-safe nets are supported.
//! - Arc weights `w<k>` count (Cunf ignores them); a read arc has no weight above 1.
//! - In `RA`, `p>t` means "place p read by t": the separator points at the transition, as
//!   in `TP` (`t<p`) and `PT` (`p>t`). Cunf reads the first number as the transition
//!   whatever the separator, so it silently reverses such lines. In `TP` and `PT` the block
//!   already fixes the direction, and a separator pointing the other way is an error.
//! - Where Cunf keeps the last value or silently drops a line, we stop with an error: two
//!   ids or two names on one line, two different markings or weights, a duplicate arc, an
//!   id 0 (Cunf takes it for "no id"), a string running past the end of its line.
//! - No marked place is not an error: the initial marking is then simply dead.
//!
//! Ids follow Cunf: an entity without a number takes its 1-based position in its block,
//! until a line gives an explicit id other than its position; from then on ids are
//! mandatory. Ids may be sparse, never repeated. [`Place::id`](crate::system::net::Place::id)
//! and the transition id are the number as text; names are the quoted strings, verbatim.
//! Coordinates, boxes, phantom transitions and arcs, defaults and texts are checked for
//! syntax and dropped.
//!
//! The classic benchmark files are Latin-1 (`Römer` in their `TX` block); [`decode`] turns
//! file bytes into text without failing on them.

use super::{pos_of_offset, ParseError};
use crate::system::net::{Net, PlaceId, TransId};
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser as _;
use std::borrow::Cow;
use std::collections::HashMap;

/// The parser generated from the grammar; private, so its `Rule` enum stays internal.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammars/llnet.pest"]
    pub(super) struct LlNetParser;
}

use grammar::{LlNetParser, Rule};

/// Parses an ll_net text; returns the net with the reader's warnings (`file:line:col: …`).
///
/// ```
/// let text = "PEP\nPTNet\nFORMAT_N\nPL\n1\"idle\"M1\n2\"busy\"\nTR\n1\"go\"\nTP\n1<2\nPT\n1>1\n";
/// let (net, warnings) = qpor::parse::llnet::parse(text, "tiny.ll_net").unwrap();
/// assert_eq!(net.places.len(), 2);
/// assert_eq!(net.transitions[0].name.as_deref(), Some("go"));
/// assert!(warnings.is_empty());
/// ```
pub fn parse(text: &str, file: &str) -> Result<(Net, Vec<String>), ParseError> {
    let mut reader = Reader::new(text, file);
    let mut pairs = LlNetParser::parse(Rule::file, text).map_err(|e| reader.syntax_error(&e))?;
    let Some(top) = pairs.next() else {
        return Err(reader.error_at(0, "empty parse of the ll_net file (qpor internal bug)"));
    };
    for block in top.into_inner() {
        match block.as_rule() {
            Rule::dpt_block => reader.arc_defaults(block)?,
            Rule::pl_block => reader.places(block)?,
            Rule::tr_block => reader.transitions(block)?,
            Rule::tp_block => reader.arcs(block, ArcBlock::Tp)?,
            Rule::pt_block => reader.arcs(block, ArcBlock::Pt)?,
            Rule::ra_block => reader.arcs(block, ArcBlock::Ra)?,
            // The header, and blocks whose content qpor does not use.
            _ => {}
        }
    }
    reader.finish_warnings();
    Ok((reader.net, reader.warnings))
}

/// The text of an ll_net file: its bytes as UTF-8 when they are valid UTF-8, otherwise as
/// Latin-1 (ISO 8859-1), the encoding of the classic PEP and Corbett benchmark files. Never
/// fails: every byte is a Latin-1 character.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// The blocks of an ll_net file, in the only order the format allows.
struct Block {
    keyword: &'static str,
    rule: Rule,
    mandatory: bool,
    /// What the block holds, for messages.
    holds: &'static str,
    /// The entity lines of the block, for messages.
    line: &'static str,
    /// The field letters the block allows, for messages.
    fields: &'static str,
}

/// Field letters, for messages.
const NODE_DEFAULT_FIELDS: &str = "n a s t";
const PLACE_FIELDS: &str = "M (initial marking), and the ignored n N a A B b u Z z y R T m k v s t c e x";
const TRANS_FIELDS: &str = "the ignored S r n N a A h H j b u P g R i T v s t c";
const PHANTOM_FIELDS: &str = "the ignored r n N a A h H j b u P g R i T v s t c";
const ARC_FIELDS: &str = "w (weight), and the ignored J , n N q Q p v t c";
const READ_ARC_FIELDS: &str = "w (weight 1 only), and the ignored J , n N q Q p v t c";
const PHANTOM_ARC_FIELDS: &str = "the ignored w J , n N q Q p v t c";

const fn block(
    keyword: &'static str,
    rule: Rule,
    mandatory: bool,
    holds: &'static str,
    line: &'static str,
    fields: &'static str,
) -> Block {
    Block {
        keyword,
        rule,
        mandatory,
        holds,
        line,
        fields,
    }
}

#[rustfmt::skip]
const BLOCKS: [Block; 14] = [
    block("DBL", Rule::kw_dbl, false, "box defaults", "defaults line", NODE_DEFAULT_FIELDS),
    block("DPL", Rule::kw_dpl, false, "place defaults", "defaults line", NODE_DEFAULT_FIELDS),
    block("DTR", Rule::kw_dtr, false, "transition defaults", "defaults line", NODE_DEFAULT_FIELDS),
    block("DPT", Rule::kw_dpt, false, "arc defaults", "defaults line", "n t w"),
    block("BL", Rule::kw_bl, false, "boxes", "box line", "n N a A b R T u"),
    block("PL", Rule::kw_pl, true, "places", "place line", PLACE_FIELDS),
    block("TR", Rule::kw_tr, true, "transitions", "transition line", TRANS_FIELDS),
    block("PTR", Rule::kw_ptr, false, "phantom transitions", "phantom transition line", PHANTOM_FIELDS),
    block("TP", Rule::kw_tp, true, "transition-to-place arcs", "arc line", ARC_FIELDS),
    block("PT", Rule::kw_pt, true, "place-to-transition arcs", "arc line", ARC_FIELDS),
    block("RA", Rule::kw_ra, false, "read arcs", "read arc line", READ_ARC_FIELDS),
    block("PTP", Rule::kw_ptp, false, "phantom transition-to-place arcs", "arc line", PHANTOM_ARC_FIELDS),
    block("PPT", Rule::kw_ppt, false, "phantom place-to-transition arcs", "arc line", PHANTOM_ARC_FIELDS),
    block("TX", Rule::kw_tx, false, "texts", "text line", "N"),
];

const BLOCK_ORDER: &str = "DBL DPL DTR DPT BL PL TR PTR TP PT RA PTP PPT TX";

fn block_named(word: &str) -> Option<usize> {
    BLOCKS.iter().position(|b| b.keyword == word)
}

fn block_of_rule(rule: Rule) -> Option<usize> {
    BLOCKS.iter().position(|b| b.rule == rule)
}

/// Whether `rule` is one item of an entity line: the failure of all of them at one position
/// means the line holds something no field of its block starts with.
fn is_line_item(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::pair
            | Rule::ident
            | Rule::name
            | Rule::marking
            | Rule::weight
            | Rule::default_weight
            | Rule::ignored_coords_nodedef
            | Rule::ignored_number_nodedef
            | Rule::ignored_coords_arcdef
            | Rule::ignored_number_arcdef
            | Rule::ignored_coords_box
            | Rule::ignored_string_box
            | Rule::ignored_coords_place
            | Rule::ignored_string_place
            | Rule::ignored_number_place
            | Rule::ignored_flag_place
            | Rule::ignored_coords_trans
            | Rule::ignored_string_trans
            | Rule::ignored_number_trans
            | Rule::ignored_flag_trans
            | Rule::ignored_flag_phantom
            | Rule::ignored_coords_arc
            | Rule::ignored_string_arc
            | Rule::ignored_number_arc
            | Rule::ignored_coords_text
            | Rule::node_default_line
            | Rule::arc_default_line
            | Rule::box_line
            | Rule::place_line
            | Rule::trans_line
            | Rule::phantom_line
            | Rule::arc_line
            | Rule::text_line
    )
}

/// The arc blocks qpor reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ArcBlock {
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

/// What an entity line of `PL` or `TR` says.
struct Entity<'t> {
    /// Byte offset of the line's first item.
    start: usize,
    /// The explicit id and its offset.
    id: Option<(u32, usize)>,
    name: Option<&'t str>,
    /// The initial marking and its offset (places only).
    marking: Option<(u32, usize)>,
    /// Offset of a capacity field `k` (places only), which qpor ignores.
    capacity: Option<usize>,
}

/// Cunf's id assignment in one block (`research/cunf.md` §1.1, "Identifiers and
/// autonumbering").
struct Numbering {
    /// "place" or "transition".
    kind: &'static str,
    /// Entity lines read so far in the block.
    lines: u64,
    /// Where autonumbering was switched off: the line's offset, its id and its position.
    stopped: Option<(usize, u32, u64)>,
    /// Every id given so far, with the offset of its line.
    seen: HashMap<u32, usize>,
}

impl Numbering {
    fn new(kind: &'static str) -> Self {
        Numbering {
            kind,
            lines: 0,
            stopped: None,
            seen: HashMap::new(),
        }
    }

    /// The id of the next entity line, whose explicit id (if any) is `explicit`.
    fn assign(
        &mut self,
        reader: &Reader<'_>,
        explicit: Option<(u32, usize)>,
        start: usize,
    ) -> Result<u32, ParseError> {
        self.lines += 1;
        let (id, at) = match explicit {
            Some((id, at)) => {
                if u64::from(id) != self.lines && self.stopped.is_none() {
                    self.stopped = Some((start, id, self.lines));
                }
                (id, at)
            }
            None => match self.stopped {
                None => match u32::try_from(self.lines) {
                    Ok(id) => (id, start),
                    Err(_) => return Err(reader.error_at(start, format!("too many {}s", self.kind))),
                },
                Some((off, id, position)) => {
                    return Err(reader.error_at(
                        start,
                        format!(
                            "missing {} id: ids are mandatory from line {} on, whose id {id} is not its \
                             position {position} in the block",
                            self.kind,
                            pos_of_offset(reader.text, off).line
                        ),
                    ))
                }
            },
        };
        if let Some(&first) = self.seen.get(&id) {
            return Err(reader.error_at(
                at,
                format!(
                    "duplicate {} id {id}: line {} already has it",
                    self.kind,
                    pos_of_offset(reader.text, first).line
                ),
            ));
        }
        self.seen.insert(id, start);
        Ok(id)
    }
}

/// The state of one parse.
struct Reader<'t> {
    text: &'t str,
    file: &'t str,
    net: Net,
    warnings: Vec<String>,
    /// File id of each place → its index and the offset of its line.
    place_ids: HashMap<u32, PlaceId>,
    trans_ids: HashMap<u32, TransId>,
    /// First place with a capacity field, and how many have one.
    capacities: Option<(usize, usize)>,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, file: &'t str) -> Self {
        Reader {
            text,
            file,
            net: Net::default(),
            warnings: Vec::new(),
            place_ids: HashMap::new(),
            trans_ids: HashMap::new(),
            capacities: None,
        }
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            pos: pos_of_offset(self.text, offset),
            message: message.into(),
        }
    }

    fn warn_at(&mut self, offset: usize, message: &str) {
        let pos = pos_of_offset(self.text, offset);
        self.warnings
            .push(format!("{}:{}:{}: {message}", self.file, pos.line, pos.col));
    }

    fn finish_warnings(&mut self) {
        if let Some((at, count)) = self.capacities {
            let message = format!(
                "capacity fields (k) ignored on {count} place{}: qpor does not bound places",
                if count == 1 { "" } else { "s" }
            );
            self.warn_at(at, &message);
        }
    }

    /// The value of a `number` token that must fit a `u32`; `what` names it in messages.
    fn unsigned(&self, number: &Pair<'t, Rule>, what: &str) -> Result<u32, ParseError> {
        let text = number.as_str();
        let at = number.as_span().start();
        if text.starts_with('-') {
            return Err(self.error_at(at, format!("negative {what} {text}: expected 0 or more")));
        }
        text.parse::<u32>()
            .map_err(|_| self.error_at(at, format!("{what} {text} is too large (at most {})", u32::MAX)))
    }

    /// A place or transition id: a number from 1 to `u32::MAX`.
    fn id(&self, number: &Pair<'t, Rule>, kind: &str) -> Result<u32, ParseError> {
        let text = number.as_str();
        let at = number.as_span().start();
        if text.starts_with('-') {
            return Err(self.error_at(at, format!("expected a positive {kind} id, found {text}")));
        }
        match text.parse::<u32>() {
            Ok(0) => Err(self.error_at(at, format!("{kind} id 0: ids start at 1"))),
            Ok(id) => Ok(id),
            Err(_) => Err(self.error_at(
                at,
                format!("{kind} id {text} is too large (at most {})", u32::MAX),
            )),
        }
    }

    /// `DPT`: a default weight other than 1 would change every arc without `w` in PEP; qpor
    /// gives such arcs weight 1, and says so.
    fn arc_defaults(&mut self, block: Pair<'t, Rule>) -> Result<(), ParseError> {
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

    /// Reads the items of a `PL` or `TR` line.
    fn entity(&self, line: Pair<'t, Rule>, kind: &str) -> Result<Entity<'t>, ParseError> {
        let mut entity = Entity {
            start: line.as_span().start(),
            id: None,
            name: None,
            marking: None,
            capacity: None,
        };
        for item in line.into_inner() {
            let at = item.as_span().start();
            match item.as_rule() {
                Rule::ident => {
                    let Some(number) = item.into_inner().next() else {
                        continue;
                    };
                    let id = self.id(&number, kind)?;
                    if let Some((first, _)) = entity.id {
                        return Err(self.error_at(
                            at,
                            format!("second id {id} on one {kind} line (the first is {first})"),
                        ));
                    }
                    entity.id = Some((id, at));
                }
                Rule::name => {
                    let text = item
                        .into_inner()
                        .next()
                        .and_then(|s| s.into_inner().next())
                        .map(|t| t.as_str())
                        .unwrap_or("");
                    if let Some(first) = entity.name {
                        return Err(self.error_at(
                            at,
                            format!("second name \"{text}\" on one {kind} line (the first is \"{first}\")"),
                        ));
                    }
                    entity.name = Some(text);
                }
                Rule::marking => {
                    let Some(number) = item.into_inner().next() else {
                        continue;
                    };
                    let k = self.unsigned(&number, "initial marking")?;
                    match entity.marking {
                        Some((first, _)) if first != k => {
                            return Err(self.error_at(
                                at,
                                format!("conflicting initial markings M{first} and M{k} on one place line"),
                            ))
                        }
                        _ => entity.marking = Some((k, at)),
                    }
                }
                Rule::ignored_number_place if item.as_str().starts_with('k') => {
                    entity.capacity.get_or_insert(at);
                }
                _ => {}
            }
        }
        Ok(entity)
    }

    fn places(&mut self, block: Pair<'t, Rule>) -> Result<(), ParseError> {
        let mut numbering = Numbering::new("place");
        for line in block.into_inner().filter(|p| p.as_rule() == Rule::place_line) {
            let entity = self.entity(line, "place")?;
            let id = numbering.assign(self, entity.id, entity.start)?;
            let initial = entity.marking.map_or(0, |(k, _)| k);
            let place = self
                .net
                .add_place(id.to_string(), entity.name.map(str::to_string), initial);
            self.place_ids.insert(id, place);
            if let Some(at) = entity.capacity {
                let (first, count) = self.capacities.get_or_insert((at, 0));
                *first = (*first).min(at);
                *count += 1;
            }
        }
        Ok(())
    }

    fn transitions(&mut self, block: Pair<'t, Rule>) -> Result<(), ParseError> {
        let mut numbering = Numbering::new("transition");
        for line in block.into_inner().filter(|p| p.as_rule() == Rule::trans_line) {
            let entity = self.entity(line, "transition")?;
            let id = numbering.assign(self, entity.id, entity.start)?;
            let t = self
                .net
                .add_transition(id.to_string(), entity.name.map(str::to_string));
            self.trans_ids.insert(id, t);
        }
        Ok(())
    }

    fn place(&self, number: &Pair<'t, Rule>) -> Result<PlaceId, ParseError> {
        let id = self.id(number, "place")?;
        self.place_ids.get(&id).copied().ok_or_else(|| {
            self.error_at(
                number.as_span().start(),
                format!("unknown place id {id}: PL defines no place {id}"),
            )
        })
    }

    fn transition(&self, number: &Pair<'t, Rule>) -> Result<TransId, ParseError> {
        let id = self.id(number, "transition")?;
        self.trans_ids.get(&id).copied().ok_or_else(|| {
            self.error_at(
                number.as_span().start(),
                format!("unknown transition id {id}: TR defines no transition {id}"),
            )
        })
    }

    fn arcs(&mut self, block: Pair<'t, Rule>, kind: ArcBlock) -> Result<(), ParseError> {
        let keyword = kind.keyword();
        // Offset of the first line giving each arc, to name it in a duplicate's error.
        let mut seen: HashMap<(TransId, PlaceId), usize> = HashMap::new();
        for line in block.into_inner().filter(|p| p.as_rule() == Rule::arc_line) {
            let start = line.as_span().start();
            let mut ends: Option<Pair<'t, Rule>> = None;
            let mut weight: Option<u32> = None;
            for item in line.into_inner() {
                let at = item.as_span().start();
                match item.as_rule() {
                    Rule::pair => {
                        if ends.is_some() {
                            return Err(self.error_at(
                                at,
                                format!("second arc {} on one {keyword} line", item.as_str()),
                            ));
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
                        let w = self.unsigned(&number, "arc weight")?;
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
                        match weight {
                            Some(first) if first != w => {
                                return Err(self.error_at(
                                    at,
                                    format!("conflicting weights w{first} and w{w} on one arc"),
                                ))
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
            let text = ends.as_str();
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
            let (t, p) = if transition_first {
                (self.transition(&first)?, self.place(&second)?)
            } else {
                (self.transition(&second)?, self.place(&first)?)
            };
            if let Some(&earlier) = seen.get(&(t, p)) {
                return Err(self.error_at(
                    at,
                    format!(
                        "duplicate {} {text}: line {} already gives it",
                        if kind == ArcBlock::Ra { "read arc" } else { "arc" },
                        pos_of_offset(self.text, earlier).line
                    ),
                ));
            }
            seen.insert((t, p), start);
            let w = weight.unwrap_or(1);
            match kind {
                ArcBlock::Tp => self.net.add_post(t, p, w),
                ArcBlock::Pt => self.net.add_pre(t, p, w),
                ArcBlock::Ra => self.net.add_read(t, p),
            }
        }
        Ok(())
    }

    /// Turns pest's report (the rules tried at the furthest position reached) into a
    /// message about the format: which header line, block or field was expected.
    fn syntax_error(&self, error: &pest::error::Error<Rule>) -> ParseError {
        let offset = match error.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((s, _)) => s,
        };
        let positives: &[Rule] = match &error.variant {
            ErrorVariant::ParsingError { positives, .. } => positives,
            ErrorVariant::CustomError { .. } => &[],
        };
        let (offset, message) = self.expected(offset, positives);
        self.error_at(offset, message)
    }

    fn expected(&self, offset: usize, positives: &[Rule]) -> (usize, String) {
        let text = self.text;
        let has = |r: Rule| positives.contains(&r);
        let found = found_at(text, offset);
        if has(Rule::kw_pep) {
            return (offset, format!("expected the header line `PEP`, found {found}"));
        }
        if has(Rule::net_type) {
            return (
                offset,
                format!("expected `PTNet` or `PetriBox` on the second header line, found {found}"),
            );
        }
        if has(Rule::header_end) {
            return (
                offset,
                "the file ends inside the header: expected the three lines `PEP`, `PTNet` (or `PetriBox`) \
                 and `FORMAT_N`"
                    .to_string(),
            );
        }
        if has(Rule::format_word) {
            return (
                offset,
                format!("expected `FORMAT_N` or `FORMAT_N2` on the third header line, found {found}"),
            );
        }
        if has(Rule::dq_close) || has(Rule::sq_close) {
            let quote = if has(Rule::dq_close) { '"' } else { '\'' };
            let open = text[..offset].rfind(quote).unwrap_or(offset);
            return (
                open,
                format!("unterminated string: the closing {quote} is missing on this line"),
            );
        }
        let allowed: Vec<usize> = positives.iter().filter_map(|&r| block_of_rule(r)).collect();
        let current = current_block(text, offset);
        let word = word_at(text, offset);
        let at_keyword = word.len() >= 2 && word.chars().take(2).all(|c| c.is_ascii_uppercase());
        if !allowed.is_empty() && (offset >= text.len() || at_keyword) {
            return (offset, self.block_expected(offset, &allowed, current, word));
        }
        let line_kind = current.map_or("line", |b| BLOCKS[b].line);
        if positives.iter().any(|&r| is_line_item(r)) {
            let c = text.get(offset..).and_then(|rest| rest.chars().next());
            let message = match c {
                Some(c) if c.is_ascii_alphabetic() => format!(
                    "unknown field `{c}` in this {line_kind} (expected {})",
                    current.map_or("a field of its block", |b| BLOCKS[b].fields)
                ),
                Some(c) if c != '\n' && c != '\r' => {
                    format!("unexpected `{c}` in this {line_kind}: expected a field, a number, a quoted string or the end of the line")
                }
                _ => format!("unexpected end of this {line_kind}"),
            };
            return (offset, message);
        }
        let after = previous_token(text, offset);
        if has(Rule::number) {
            return (
                offset,
                format!("expected a number after `{after}`, found {found}"),
            );
        }
        if has(Rule::string) {
            return (
                offset,
                format!("expected a quoted string after field `{after}`, found {found}"),
            );
        }
        if has(Rule::at_sign) {
            return (
                offset,
                format!("expected `@` between the two coordinates after `{after}`, found {found}"),
            );
        }
        if has(Rule::pair_sep) {
            return (
                offset,
                format!("expected `<`, `>` or `@` after `{after}`, found {found}"),
            );
        }
        (offset, format!("unexpected {found} in this {line_kind}"))
    }

    /// The message when a block keyword or the end of the file comes where the blocks in
    /// `allowed` (indices into [`BLOCKS`]) were expected.
    fn block_expected(&self, offset: usize, allowed: &[usize], current: Option<usize>, word: &str) -> String {
        let next = allowed.iter().copied().min().unwrap_or(0);
        let mandatory = allowed.iter().copied().find(|&b| BLOCKS[b].mandatory);
        if offset >= self.text.len() {
            return match mandatory {
                Some(m) => format!(
                    "missing block {} ({}): the file ends before it",
                    BLOCKS[m].keyword, BLOCKS[m].holds
                ),
                None => "unexpected end of the file".to_string(),
            };
        }
        let list = allowed
            .iter()
            .map(|&b| BLOCKS[b].keyword)
            .collect::<Vec<_>>()
            .join(", ");
        let Some(found) = block_named(word) else {
            let line = current.map_or(String::new(), |c| format!("a {} or ", BLOCKS[c].line));
            return format!("unknown block keyword `{word}` (expected {line}one of {list})");
        };
        match mandatory {
            Some(m) if found > m => {
                if has_keyword_line(self.text, BLOCKS[m].keyword) {
                    format!(
                        "block {word} is out of order: {} must come before it (blocks go {BLOCK_ORDER})",
                        BLOCKS[m].keyword
                    )
                } else {
                    format!(
                        "missing block {} ({}): expected it before {word}",
                        BLOCKS[m].keyword, BLOCKS[m].holds
                    )
                }
            }
            _ if found < next => format!(
                "block {word} is out of order or repeated: it cannot follow {} (blocks go {BLOCK_ORDER})",
                current.map_or("the header", |c| BLOCKS[c].keyword)
            ),
            _ => format!("unexpected block {word} (expected one of {list})"),
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

/// The word (letters, digits, `_`) starting at `offset`, empty if there is none.
fn word_at(text: &str, offset: usize) -> &str {
    let rest = &text[offset.min(text.len())..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// What the input holds at `offset`, for "found …" in messages.
fn found_at(text: &str, offset: usize) -> String {
    let rest = &text[offset.min(text.len())..];
    match rest.chars().next() {
        None => "the end of the file".to_string(),
        Some('\n' | '\r') => "the end of the line".to_string(),
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => {
            let word: String = word_at(text, offset).chars().take(24).collect();
            format!("`{word}`")
        }
        Some(c) => format!("`{c}`"),
    }
}

/// The token just before `offset` on its line (a field letter with its number, a
/// separator), for "after …" in messages.
fn previous_token(text: &str, offset: usize) -> &str {
    let before = text[..offset.min(text.len())].trim_end_matches([' ', '\t', '\x08']);
    let word = before.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '-');
    if word.len() < before.len() {
        &before[word.len()..]
    } else {
        before
            .char_indices()
            .next_back()
            .map_or("", |(i, _)| &before[i..])
    }
}

/// The block whose keyword line is the last one before `offset`. The lines before the
/// furthest point pest reached are well formed, so the first word of each tells the block.
fn current_block(text: &str, offset: usize) -> Option<usize> {
    text[..offset.min(text.len())]
        .lines()
        .filter_map(|line| block_named(word_at(line.trim_start_matches([' ', '\t', '\x08']), 0)))
        .next_back()
}

/// Whether some line of `text` starts with the block keyword `keyword`.
fn has_keyword_line(text: &str, keyword: &str) -> bool {
    text.lines()
        .any(|line| word_at(line.trim_start_matches([' ', '\t', '\x08']), 0) == keyword)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "PEP\nPTNet\nFORMAT_N\n";

    fn net(body: &str) -> Net {
        parse(&format!("{HEADER}{body}"), "t.ll_net").unwrap().0
    }

    fn error(body: &str) -> ParseError {
        parse(&format!("{HEADER}{body}"), "t.ll_net").unwrap_err()
    }

    #[test]
    fn autonumbering_follows_positions_until_an_id_differs() {
        let n = net("PL\n\"a\"M2\n2\"b\"\n\"c\"\n7\"d\"\nTR\n\"t\"\nTP\n1<7\nPT\n3>1\n");
        let ids: Vec<&str> = n.places.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3", "7"]);
        assert_eq!(n.places[0].initial, 2);
        assert_eq!(n.transitions[0].post, vec![(PlaceId(3), 1)]);
        assert_eq!(n.transitions[0].pre, vec![(PlaceId(2), 1)]);
    }

    #[test]
    fn blank_lines_comments_and_spaces_are_skipped() {
        let n = net(
            "% c\n\nPL % places\n 1 \"a\" 10 @ 20 M1 % marked\n\n2'b'\nTR\n1\"t\"\nTP\n1 < 2 w 2\nPT\n1>1\n",
        );
        assert_eq!(n.places.len(), 2);
        assert_eq!(n.places[1].name.as_deref(), Some("b"));
        assert_eq!(n.transitions[0].post, vec![(PlaceId(1), 2)]);
    }

    #[test]
    fn last_line_without_newline() {
        let n = net("PL\n\"a\"M1\nTR\n\"t\"\nTP\nPT\n1>1");
        assert_eq!(n.transitions[0].pre, vec![(PlaceId(0), 1)]);
    }

    #[test]
    fn read_arcs_read_the_separator() {
        let n = net("PL\n\"a\"\n\"b\"\nTR\n\"t\"\n\"u\"\nTP\nPT\nRA\n1<2\n1>2\n");
        assert_eq!(n.transitions[0].read, vec![PlaceId(1)]);
        assert_eq!(n.transitions[1].read, vec![PlaceId(0)]);
    }

    #[test]
    fn keyword_in_the_middle_of_a_line_is_a_field_error() {
        let e = error("PL\n\"a\" TR\n");
        assert_eq!((e.pos.line, e.pos.col), (5, 6), "{e}");
        assert!(e.message.contains("after field `T`"), "{e}");
    }

    #[test]
    fn capacities_and_default_weights_warn() {
        let (_, warnings) = parse(
            &format!("{HEADER}DPT w2t1\nPL\n\"a\"k1\n\"b\"k1\nTR\nTP\nPT\n"),
            "t.ll_net",
        )
        .unwrap();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("t.ll_net:4:6: default arc weight w2"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("t.ll_net:6:4: capacity fields (k) ignored on 2 places"),
            "{warnings:?}"
        );
    }

    #[test]
    fn latin1_bytes_decode() {
        assert_eq!(decode(b"R\xf6mer"), "Römer");
        assert_eq!(decode("Römer".as_bytes()), "Römer");
    }
}
