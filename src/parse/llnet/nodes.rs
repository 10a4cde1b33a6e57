//! The `PL` and `TR` blocks: places and transitions, numbered the way Cunf numbers them.

use super::{pos_of_offset, ParseError, Reader, Rule};
use crate::system::net::{PlaceId, TransId};
use pest::iterators::Pair;
use std::collections::HashMap;

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

/// Cunf's id assignment in one block (docs/paper.md#the-pep-low-level-net-format,
/// "Identifiers and autonumbering").
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

impl<'t> Reader<'t> {
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

    pub(super) fn places(&mut self, block: Pair<'t, Rule>) -> Result<(), ParseError> {
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

    pub(super) fn transitions(&mut self, block: Pair<'t, Rule>) -> Result<(), ParseError> {
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

    pub(super) fn place(&self, number: &Pair<'t, Rule>) -> Result<PlaceId, ParseError> {
        self.node(&self.place_ids, number, "place", "PL")
    }

    pub(super) fn transition(&self, number: &Pair<'t, Rule>) -> Result<TransId, ParseError> {
        self.node(&self.trans_ids, number, "transition", "TR")
    }

    /// The `kind` (place or transition) that `number` names in `ids`, the numbering of
    /// the block `block`.
    fn node<T: Copy>(
        &self,
        ids: &HashMap<u32, T>,
        number: &Pair<'t, Rule>,
        kind: &str,
        block: &str,
    ) -> Result<T, ParseError> {
        let id = self.id(number, kind)?;
        ids.get(&id).copied().ok_or_else(|| {
            self.error_at(
                number.as_span().start(),
                format!("unknown {kind} id {id}: {block} defines no {kind} {id}"),
            )
        })
    }
}
