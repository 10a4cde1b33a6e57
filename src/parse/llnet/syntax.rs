//! Syntax errors: pest's report of the rules tried at the furthest position reached,
//! turned into a message about the format (which header line, block or field was expected).

use super::{ParseError, Reader, Rule};
use pest::error::{ErrorVariant, InputLocation};

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

/// What the header lacks where pest expected each rule, in the order of the header's lines;
/// `None` for the end of a header line, which only the end of the file can be missing.
const HEADER_LINES: [(Rule, Option<&str>); 4] = [
    (Rule::kw_pep, Some("the header line `PEP`")),
    (
        Rule::net_type,
        Some("`PTNet` or `PetriBox` on the second header line"),
    ),
    (Rule::header_end, None),
    (
        Rule::format_word,
        Some("`FORMAT_N` or `FORMAT_N2` on the third header line"),
    ),
];

/// What must follow a token where pest expected each rule: "expected … `token`".
const AFTER_TOKEN: [(Rule, &str); 4] = [
    (Rule::number, "a number after"),
    (Rule::string, "a quoted string after field"),
    (Rule::at_sign, "`@` between the two coordinates after"),
    (Rule::pair_sep, "`<`, `>` or `@` after"),
];

impl Reader<'_> {
    /// Turns pest's report (the rules tried at the furthest position reached) into a
    /// message about the format: which header line, block or field was expected.
    pub(super) fn syntax_error(&self, error: &pest::error::Error<Rule>) -> ParseError {
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
        if let Some((_, what)) = HEADER_LINES.iter().find(|(r, _)| has(*r)) {
            let message = match what {
                Some(what) => format!("expected {what}, found {found}"),
                None => "the file ends inside the header: expected the three lines `PEP`, `PTNet` (or \
                         `PetriBox`) and `FORMAT_N`"
                    .to_string(),
            };
            return (offset, message);
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
                    format!(
                        "unexpected {} in this {line_kind}: expected a field, a number, a quoted string or the end of the line",
                        crate::parse::char_shown(c)
                    )
                }
                _ => format!("unexpected end of this {line_kind}"),
            };
            return (offset, message);
        }
        let after = previous_token(text, offset);
        if let Some((_, what)) = AFTER_TOKEN.iter().find(|(r, _)| has(*r)) {
            return (offset, format!("expected {what} `{after}`, found {found}"));
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
            let line = current.map_or(String::new(), |c| format!("{} or ", with_article(BLOCKS[c].line)));
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
        Some(c) => crate::parse::char_shown(c),
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

/// `what` with its indefinite article: "an arc line", "a place line".
fn with_article(what: &str) -> String {
    let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {what}")
}
