//! PEP ll_net reader. To be written.

use super::ParseError;
use crate::system::net::Net;

/// Parses an ll_net text; returns the net with the reader's warnings.
pub fn parse(_text: &str, file: &str) -> Result<(Net, Vec<String>), ParseError> {
    Err(ParseError {
        file: file.to_string(),
        pos: super::Pos { line: 1, col: 1 },
        message: "ll_net reader not written yet".into(),
    })
}
