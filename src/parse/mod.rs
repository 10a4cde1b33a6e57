//! Readers of every input format (docs/design.md#inputs). Each reader reports bad input as a
//! [`ParseError`] carrying `file:line:col` and never panics.

pub(crate) mod dimacs;
pub(crate) mod llnet;
pub(crate) mod pes;
pub(crate) mod pnml;
pub(crate) mod proc;
pub(crate) mod property;

use crate::system::model::Model;
use crate::system::net::Net;
use crate::system::program::Program;
use std::fmt;
use std::io::{BufRead, Read};
use std::path::Path;

/// The file name that stands for standard input (the format must then be given).
pub(crate) const STDIN: &str = "-";

pub(crate) use crate::source::{pos_of_offset, Pos};

/// The input formats qpor reads.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Format {
    /// PNML place/transition nets (`.pnml`).
    Pnml,
    /// PEP low-level nets (`.ll_net`).
    LlNet,
    /// The process language (`.proc`).
    Proc,
}

impl Format {
    /// The format named by a file's extension, if qpor knows it.
    pub fn from_path(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if name.ends_with(".pnml") || name.ends_with(".xml") {
            Some(Format::Pnml)
        } else if name.ends_with(".ll_net") || name.ends_with(".ll") {
            Some(Format::LlNet)
        } else if name.ends_with(".proc") {
            Some(Format::Proc)
        } else {
            None
        }
    }

    /// The format called `name` on the command line (`pnml`, `llnet`).
    pub fn from_name(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "pnml" => Some(Format::Pnml),
            "llnet" | "ll_net" | "ll" | "pep" => Some(Format::LlNet),
            "proc" => Some(Format::Proc),
            _ => None,
        }
    }

    /// The format's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pnml => "pnml",
            Format::LlNet => "llnet",
            Format::Proc => "proc",
        }
    }
}

/// Bad input: where and what was expected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError {
    /// The file, as the user named it.
    pub file: String,
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong or what was expected.
    pub message: String,
}

impl ParseError {
    /// The error `message` at byte `offset` of `text`, the contents of `file`. Its text,
    /// `file:line:col: message`, is also how a reader words a warning.
    pub(crate) fn at(file: &str, text: &str, offset: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            file: file.to_string(),
            pos: pos_of_offset(text, offset),
            message: message.into(),
        }
    }
}

/// `c` as messages show a character found: in backquotes, or by its code when it is a
/// control character that would print as nothing (a NUL byte).
pub(crate) fn char_shown(c: char) -> String {
    if c.is_control() {
        format!("control character U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

/// The text of the file at `path`: an I/O error, or an error at the line and column of the
/// first byte that is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    Ok(utf8_text(bytes, &shown)?)
}

/// `bytes`, the contents of `file`, as text; an error at the line and column of the first
/// byte that is not UTF-8.
pub(crate) fn utf8_text(bytes: Vec<u8>, file: &str) -> Result<String, ParseError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
        ParseError::at(
            file,
            valid,
            at,
            format!(
                "byte 0x{:02X} is not UTF-8: the file must be UTF-8 text",
                bytes[at]
            ),
        )
    })
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.pos.line, self.pos.col, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// Why a model could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file's extension names no known format and none was given.
    UnknownFormat(String),
    /// The model comes from standard input and no format was given.
    StdinWithoutFormat,
    /// The file is malformed.
    Parse(ParseError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io { path, source } => write!(f, "{path}: cannot read: {source}"),
            LoadError::UnknownFormat(path) => write!(
                f,
                "{path}: unknown format (expected a .pnml, .ll_net or .proc file; use --format to say which)"
            ),
            LoadError::StdinWithoutFormat => write!(
                f,
                "a model read from standard input (`-`) needs --format pnml|llnet|proc"
            ),
            LoadError::Parse(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<ParseError> for LoadError {
    fn from(e: ParseError) -> Self {
        LoadError::Parse(e)
    }
}

/// A model together with what the reader wants the user to know about it.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The model.
    pub model: Model,
    /// Warnings (`file:line:col: …`), e.g. "the file holds 3 nets; using the first".
    pub warnings: Vec<String>,
}

impl Loaded {
    /// A net as a reader gives it, with its warnings.
    fn net((net, warnings): (Net, Vec<String>)) -> Loaded {
        Loaded {
            model: Model::Net(net),
            warnings,
        }
    }

    /// A program as the reader gives it, with its warnings.
    fn program((program, warnings): (Program, Vec<String>)) -> Loaded {
        Loaded {
            model: Model::Program(Box::new(program)),
            warnings,
        }
    }
}

/// Options of the readers.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// The format; `None` guesses from the extension.
    pub format: Option<Format>,
    /// Values of the program's parameters given on the command line (`-D N=5`).
    pub defines: Vec<(String, i64)>,
}

/// Reads the model in `path`; the path `-` reads standard input (the format must be given).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let stdin = path.as_os_str() == STDIN;
    let shown = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let format = match opts.format {
        Some(f) => f,
        None if stdin => return Err(LoadError::StdinWithoutFormat),
        None => Format::from_path(path).ok_or_else(|| LoadError::UnknownFormat(shown.clone()))?,
    };
    let io = |source| LoadError::Io {
        path: shown.clone(),
        source,
    };
    let mut input: Box<dyn BufRead> = if stdin {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(io)?))
    };
    match format {
        Format::Pnml => Ok(Loaded::net(pnml::read(input, &shown)?)),
        Format::LlNet => {
            // The classic benchmark files carry Latin-1 comments ("Römer").
            let mut bytes = Vec::new();
            input.read_to_end(&mut bytes).map_err(io)?;
            let text = llnet::decode(&bytes);
            Ok(Loaded::net(llnet::parse(&text, &shown)?))
        }
        Format::Proc => {
            let mut bytes = Vec::new();
            input.read_to_end(&mut bytes).map_err(io)?;
            let text = utf8_text(bytes, &shown)?;
            Ok(Loaded::program(proc::parse(&text, &shown, &opts.defines)?))
        }
    }
}

/// Reads a model from text in memory (tests, and inputs that are not files).
pub fn load_str(
    text: &str,
    file: &str,
    format: Format,
    defines: &[(String, i64)],
) -> Result<Loaded, ParseError> {
    match format {
        Format::Pnml => Ok(Loaded::net(pnml::read(text.as_bytes(), file)?)),
        Format::LlNet => Ok(Loaded::net(llnet::parse(text, file)?)),
        Format::Proc => Ok(Loaded::program(proc::parse(text, file, defines)?)),
    }
}
