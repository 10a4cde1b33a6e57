//! Reduction instance files: what kind a file is, judged by its content, and the readers of
//! the questions they carry (`docs/hardness.md`).
//!
//! - An explicit PES (`pes 1` first, [`crate::parse::pes`]) asks for an alternative to its
//!   set `D` after its set `C` (∅ when absent). Labels `xK=V` say what an event means.
//! - A `.proc` program with `// @qpor` comment lines asks the same of its unfolding:
//!   `// @qpor instance alt` marks it; `// @qpor C = P Q …` lists processes whose next
//!   steps, fired in that order from the initial state, make C; `// @qpor D = P …` lists
//!   processes whose next step at C is an event of D; `// @qpor means P xK=V` says that an
//!   alternative holding an event of process P sets xK to V. Repeated `C` and `D` lines
//!   append. The process language ignores comments, so the program also runs as it is.
//! - A PNML net with a `toolspecific tool="qpor"` block asks whether cex(C) holds an event
//!   of the target transition: `<configuration>` lists the `<fire transition="ID"/>` of a
//!   firing sequence whose events make C, `<target transition="ID"/>` names t*, and
//!   `<means transition="ID" literal="xK=V"/>` says that a co-set holding the condition
//!   that this firing consumed sets xK to V. The PNML reader skips the block.
//!
//! Every problem is a [`ParseError`] at `file:line:col`.

use crate::parse::pes;
use crate::parse::{pnml, pos_of_offset, proc, ParseError, Pos};
use crate::system::net::{Decomposition, Net, NetSystem, TransId};
use crate::system::program::Program;
use crate::system::{CompId, System};
use crate::unfold::pes::{Pes, PesOptions};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::fmt;

/// The prefix of annotation lines in `.proc` instances.
pub(crate) const PROC_ANNOTATION: &str = "// @qpor";

/// The `tool` attribute of the PNML block holding a net instance's question.
pub(crate) const PNML_TOOL: &str = "qpor";

/// The kinds of hardness instances.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InstanceKind {
    /// An explicit PES with sets C and D (Theorem 4.1).
    Pes,
    /// A lock program with C and D as annotations (Theorem 4.2).
    Program,
    /// A P/T net with a configuration and a target transition (Theorem 4.3).
    Net,
}

impl InstanceKind {
    /// The kind's name, as `qpor hardness --to` spells it.
    pub fn name(self) -> &'static str {
        match self {
            InstanceKind::Pes => "pes",
            InstanceKind::Program => "program",
            InstanceKind::Net => "net",
        }
    }
}

impl fmt::Display for InstanceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What an event (a process, a consumed condition) of an instance means for the formula:
/// the variable xᵥ takes `value`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Literal {
    /// The variable's index, from 1.
    pub var: u32,
    /// Its value.
    pub value: bool,
}

impl Literal {
    /// Reads `xK=V` (V is 0 or 1).
    pub fn parse(text: &str) -> Option<Literal> {
        let (var, value) = text.trim().strip_prefix('x')?.split_once('=')?;
        let var: u32 = var.trim().parse().ok().filter(|&v| v > 0)?;
        let value = match value.trim() {
            "0" => false,
            "1" => true,
            _ => return None,
        };
        Some(Literal { var, value })
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "x{}={}", self.var, self.value as u8)
    }
}

/// A program instance: the compiled program and its question, with processes resolved to
/// their components.
#[derive(Clone, Debug)]
pub struct ProgramInstance {
    /// The program.
    pub program: Program,
    /// The processes whose next steps make C, in firing order.
    pub config: Vec<CompId>,
    /// The processes whose next step at C is an event of D, in order.
    pub d: Vec<CompId>,
    /// What an alternative holding an event of a process means.
    pub means: Vec<(CompId, Literal)>,
}

/// A net instance: the net, the firing sequence making C, the target transition t*.
#[derive(Clone, Debug)]
pub struct NetInstance {
    /// The net.
    pub net: Net,
    /// The firing sequence whose events make C.
    pub config: Vec<TransId>,
    /// The target transition t*.
    pub target: TransId,
    /// What a co-set holding the condition consumed by a firing of C means (by the
    /// firing's transition; each such transition fires once in C).
    pub means: Vec<(TransId, Literal)>,
}

/// A hardness instance, read from its file.
#[derive(Clone, Debug)]
pub enum Instance {
    /// An explicit PES; the question is in its sets `C` and `D`.
    Pes(Pes),
    /// A program with its question.
    Program(Box<ProgramInstance>),
    /// A net with its question.
    Net(NetInstance),
}

impl Instance {
    /// The instance's kind.
    pub fn kind(&self) -> InstanceKind {
        match self {
            Instance::Pes(_) => InstanceKind::Pes,
            Instance::Program(_) => InstanceKind::Program,
            Instance::Net(_) => InstanceKind::Net,
        }
    }
}

/// The kind of instance `text` holds, judged by its content, if it is one.
pub(crate) fn detect(text: &str) -> Option<InstanceKind> {
    if pes::looks_like_pes(text) {
        return Some(InstanceKind::Pes);
    }
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if body.starts_with('<') {
        return Some(InstanceKind::Net);
    }
    text.lines()
        .any(|l| annotation(l).is_some_and(|a| a.trim_start().starts_with("instance")))
        .then_some(InstanceKind::Program)
}

/// The rest of a `// @qpor` line, if `line` is one.
fn annotation(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix(PROC_ANNOTATION)?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some(rest)
}

/// Reads a hardness instance of any kind; `file` names it in errors. Returns the instance
/// and the readers' warnings.
pub fn read(text: &str, file: &str, opts: &PesOptions) -> Result<(Instance, Vec<String>), ParseError> {
    match detect(text) {
        Some(InstanceKind::Pes) => Ok((Instance::Pes(pes::parse(text, file, opts)?), Vec::new())),
        Some(InstanceKind::Program) => {
            let (p, w) = read_program(text, file)?;
            Ok((Instance::Program(Box::new(p)), w))
        }
        Some(InstanceKind::Net) => {
            let (n, w) = read_net(text, file)?;
            Ok((Instance::Net(n), w))
        }
        None => Err(ParseError {
            file: file.to_string(),
            pos: Pos { line: 1, col: 1 },
            message: "not a reduction instance: expected an explicit PES (`pes 1`), a .proc program with a \
                      `// @qpor instance` line, or a PNML net with a `toolspecific tool=\"qpor\"` block (see \
                      `qpor hardness`)"
                .into(),
        }),
    }
}

/// Reads a `.proc` instance: the program and its `// @qpor` annotations.
pub fn read_program(text: &str, file: &str) -> Result<(ProgramInstance, Vec<String>), ParseError> {
    let (program, warnings) = proc::parse(text, file, &[])?;
    let sys = program.system().map_err(|e| ParseError {
        file: file.to_string(),
        pos: Pos { line: 1, col: 1 },
        message: e.to_string(),
    })?;
    let processes: Vec<(String, CompId)> = (0..sys.num_components() as u32)
        .map(CompId)
        .filter(|&c| sys.component_kind(c) == "process")
        .map(|c| (sys.component_name(c), c))
        .collect();
    let err = |at: usize, message: String| ParseError::at(file, text, at, message);
    let mut question = ProgramQuestion::default();
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let Some(rest) = annotation(line) else { continue };
        let words = annotation_words(rest, line_start + (line.len() - rest.len()));
        question.read_annotation(&words, &processes, &err)?;
    }
    if !question.kind_seen {
        return Err(ParseError {
            file: file.to_string(),
            pos: Pos { line: 1, col: 1 },
            message: "no `// @qpor instance alt` line: this program asks no question".into(),
        });
    }
    Ok((
        ProgramInstance {
            program,
            config: question.config,
            d: question.d,
            means: question.means,
        },
        warnings,
    ))
}

/// The words of an annotation (the rest of a `// @qpor` line, at byte `rest_at` of the
/// file), each with its offset in the file.
fn annotation_words(rest: &str, rest_at: usize) -> Vec<(&str, usize)> {
    let mut words: Vec<(&str, usize)> = Vec::new();
    let mut k = 0;
    for w in rest.split(|c: char| c.is_whitespace()) {
        if !w.is_empty() {
            words.push((w, rest_at + k));
        }
        k += w.len() + 1;
    }
    words
}

/// The question of a program instance, as its annotations so far declare it.
#[derive(Default)]
struct ProgramQuestion {
    config: Vec<CompId>,
    d: Vec<CompId>,
    means: Vec<(CompId, Literal)>,
    /// Whether the `instance alt` line was seen.
    kind_seen: bool,
}

impl ProgramQuestion {
    /// Adds one annotation, given as its words with their offsets; `err` makes an error
    /// at an offset.
    fn read_annotation(
        &mut self,
        words: &[(&str, usize)],
        processes: &[(String, CompId)],
        err: &impl Fn(usize, String) -> ParseError,
    ) -> Result<(), ParseError> {
        let Some(&(key, key_at)) = words.first() else {
            return Ok(());
        };
        let resolve = |(name, at): (&str, usize)| {
            processes
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, c)| *c)
                .ok_or_else(|| err(at, format!("unknown process `{name}` in the annotation")))
        };
        match key {
            "instance" => {
                match words.get(1) {
                    Some(&("alt", _)) => {}
                    Some(&(other, at)) => {
                        return Err(err(
                            at,
                            format!("unknown question `{other}`: program instances ask `alt`"),
                        ))
                    }
                    None => return Err(err(key_at, "expected `instance alt`".into())),
                }
                self.kind_seen = true;
            }
            "C" | "D" => {
                if words.get(1).map(|w| w.0) != Some("=") {
                    return Err(err(key_at, format!("expected `{key} = PROCESS …`")));
                }
                for &w in &words[2..] {
                    let c = resolve(w)?;
                    if key == "C" {
                        self.config.push(c);
                    } else {
                        self.d.push(c);
                    }
                }
            }
            "means" => {
                let (Some(&p), Some(&(lit, lit_at))) = (words.get(1), words.get(2)) else {
                    return Err(err(key_at, "expected `means PROCESS xK=V`".into()));
                };
                let c = resolve(p)?;
                let literal = Literal::parse(lit).ok_or_else(|| {
                    err(
                        lit_at,
                        format!("expected a literal `xK=V` (V is 0 or 1), found `{lit}`"),
                    )
                })?;
                self.means.push((c, literal));
            }
            other => {
                return Err(err(
                    key_at,
                    format!("unknown annotation `{other}` (expected instance, C, D or means)"),
                ))
            }
        }
        Ok(())
    }
}

/// Reads a PNML instance: the net (with [`pnml::read`]) and the `qpor` block, checking
/// that the configuration is a firing sequence of the net.
pub fn read_net(text: &str, file: &str) -> Result<(NetInstance, Vec<String>), ParseError> {
    let (net, warnings) = pnml::read(text.as_bytes(), file)?;
    let cx = NetText {
        text,
        file,
        net: &net,
    };
    let block = read_question_block(&cx)?;
    let Some(block_at) = block.at else {
        return Err(cx.err(
            0,
            format!("this PNML net asks no question: it has no toolspecific block of tool \"{PNML_TOOL}\""),
        ));
    };
    let Some((target, _)) = block.target else {
        return Err(cx.err(
            block_at,
            "the qpor block has no <target transition=\"…\"/>".into(),
        ));
    };
    check_firing_sequence(&net, &block.config).map_err(|m| cx.err(block_at, m))?;
    Ok((
        NetInstance {
            net,
            config: block.config,
            target,
            means: block.means,
        },
        warnings,
    ))
}

/// A net instance's text, with what its errors and transition names refer to.
struct NetText<'a> {
    text: &'a str,
    file: &'a str,
    net: &'a Net,
}

impl NetText<'_> {
    /// An error at byte `at` of the file.
    fn err(&self, at: usize, message: String) -> ParseError {
        ParseError::at(self.file, self.text, at, message)
    }

    /// The transition with id `id`, named at byte `at`.
    fn find(&self, id: &str, at: usize) -> Result<TransId, ParseError> {
        self.net
            .transitions
            .iter()
            .position(|t| t.id == id)
            .map(|i| TransId(i as u32))
            .ok_or_else(|| self.err(at, format!("unknown transition `{id}`")))
    }
}

/// The question of a net instance, as the `qpor` block declares it.
#[derive(Default)]
struct QuestionBlock {
    /// Where the block starts (`None`: no block).
    at: Option<usize>,
    config: Vec<TransId>,
    /// t*, with where it is named.
    target: Option<(TransId, usize)>,
    means: Vec<(TransId, Literal)>,
    /// Whether the reader is inside `<configuration>`.
    in_config: bool,
}

/// Finds the `toolspecific tool="qpor"` block of the PNML text and reads it.
fn read_question_block(cx: &NetText) -> Result<QuestionBlock, ParseError> {
    let mut xml = Reader::from_str(cx.text);
    let mut depth_in_block: Option<usize> = None;
    let mut depth = 0usize;
    let mut block = QuestionBlock::default();
    let err = |at: usize, message: String| cx.err(at, message);
    loop {
        let at = xml.buffer_position() as usize;
        let event = xml
            .read_event()
            .map_err(|e| err(xml.error_position() as usize, format!("malformed XML: {e}")))?;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                depth -= 1;
                if depth_in_block == Some(depth) {
                    depth_in_block = None;
                }
                if depth_in_block.is_some_and(|d| depth == d + 1) {
                    block.in_config = false;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = e.local_name().into_inner().to_string();
        match depth_in_block {
            None => {
                if name == "toolspecific" && attr(e, "tool", at, &err)?.as_deref() == Some(PNML_TOOL) {
                    if block.at.is_some() {
                        return Err(err(
                            at,
                            format!("a second toolspecific block of tool \"{PNML_TOOL}\""),
                        ));
                    }
                    block.at = Some(at);
                    if !empty {
                        depth_in_block = Some(depth);
                    }
                }
            }
            Some(d) => block.read_element(cx, depth - d, &name, e, at, empty)?,
        }
        if !empty {
            depth += 1;
        }
    }
    Ok(block)
}

impl QuestionBlock {
    /// Reads the element `name` (`e`, at byte `at`) found `inner` levels inside the block.
    fn read_element(
        &mut self,
        cx: &NetText,
        inner: usize,
        name: &str,
        e: &BytesStart,
        at: usize,
        empty: bool,
    ) -> Result<(), ParseError> {
        let err = |at: usize, message: String| cx.err(at, message);
        let transition = |at: usize| -> Result<(String, usize), ParseError> {
            attr(e, "transition", at, &err)?
                .map(|t| (t, at))
                .ok_or_else(|| err(at, format!("<{name}> needs a transition attribute")))
        };
        match (inner, name, self.in_config) {
            (1, "configuration", _) => self.in_config = !empty,
            (2, "fire", true) => {
                let (t, at) = transition(at)?;
                self.config.push(cx.find(&t, at)?);
            }
            (1, "target", _) => {
                if let Some((_, first)) = self.target {
                    let p = pos_of_offset(cx.text, first);
                    return Err(err(
                        at,
                        format!(
                            "a second <target>; the first is at line {}, column {}",
                            p.line, p.col
                        ),
                    ));
                }
                let (t, at) = transition(at)?;
                self.target = Some((cx.find(&t, at)?, at));
            }
            (1, "means", _) => {
                let (t, at) = transition(at)?;
                let tid = cx.find(&t, at)?;
                let lit = attr(e, "literal", at, &err)?.unwrap_or_default();
                let literal = Literal::parse(&lit).ok_or_else(|| {
                    err(
                        at,
                        format!("expected literal=\"xK=V\" (V is 0 or 1), found \"{lit}\""),
                    )
                })?;
                self.means.push((tid, literal));
            }
            (1, "instance", _) | (1, "formula", _) => {}
            _ => {
                return Err(err(
                    at,
                    format!(
                        "unexpected <{name}> in the {PNML_TOOL} block (expected configuration/fire, \
                         target, means)"
                    ),
                ))
            }
        }
        Ok(())
    }
}

/// Checks that `config` is a firing sequence of `net`; the error says which firing is not
/// enabled, and at which marking.
fn check_firing_sequence(net: &Net, config: &[TransId]) -> Result<(), String> {
    let sys = NetSystem::new(net, Decomposition::Places).map_err(|e| e.to_string())?;
    let mut state = sys.initial_state();
    let mut next = Vec::new();
    for (k, &t) in config.iter().enumerate() {
        let fired = sys
            .successor(&state, &sys.step_of(t), &mut next)
            .map_err(|e| e.to_string())?;
        if !fired {
            return Err(format!(
                "the configuration is not a firing sequence: `{}` (firing {}) is not enabled at {}",
                net.transitions[t.index()].id,
                k + 1,
                net.marking_text(&sys.marking(&state))
            ));
        }
        std::mem::swap(&mut state, &mut next);
    }
    Ok(())
}

fn attr(
    e: &BytesStart,
    key: &str,
    at: usize,
    err: &impl Fn(usize, String) -> ParseError,
) -> Result<Option<String>, ParseError> {
    for a in e.attributes() {
        let a = a.map_err(|x| err(at, format!("malformed XML attribute: {x}")))?;
        if a.key.local_name().into_inner() == key {
            let v = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|x| err(at, format!("bad value of the attribute {key}: {x}")))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_read_and_print() {
        assert_eq!(Literal::parse("x12=1"), Some(Literal { var: 12, value: true }));
        assert_eq!(Literal::parse("x0=1"), None);
        assert_eq!(Literal::parse("x3=2"), None);
        assert_eq!(Literal { var: 3, value: false }.to_string(), "x3=0");
    }

    #[test]
    fn kinds_come_from_the_content() {
        assert_eq!(detect("// c\npes 1\n"), Some(InstanceKind::Pes));
        assert_eq!(
            detect("<?xml version=\"1.0\"?>\n<pnml/>"),
            Some(InstanceKind::Net)
        );
        assert_eq!(
            detect("// @qpor instance alt\nprocess p { skip; }\n"),
            Some(InstanceKind::Program)
        );
        assert_eq!(detect("process p { skip; }\ninit p;\n"), None);
    }

    #[test]
    fn program_annotations_are_checked() {
        let head = "mutex m;\nprocess a { lock m; }\nprocess b { lock m; }\ninit a, b;\n";
        let ok =
            format!("{head}// @qpor instance alt\n// @qpor D = a\n// @qpor D = b\n// @qpor means a x1=1\n");
        let (p, _) = read_program(&ok, "t.proc").unwrap();
        assert_eq!(p.d, [CompId(0), CompId(1)]);
        assert_eq!(p.means, [(CompId(0), Literal { var: 1, value: true })]);
        let bad = format!("{head}// @qpor instance alt\n// @qpor D = a zz\n");
        assert_eq!(
            read_program(&bad, "t.proc").unwrap_err().to_string(),
            "t.proc:6:16: unknown process `zz` in the annotation"
        );
        let bad = format!("{head}// @qpor instance alt\n// @qpor means a y\n");
        assert!(read_program(&bad, "t.proc")
            .unwrap_err()
            .to_string()
            .starts_with("t.proc:6:18: expected a literal"));
        assert!(read_program(head, "t.proc")
            .unwrap_err()
            .message
            .contains("asks no question"));
    }
}
