//! PNML writer. To be written.

use crate::system::net::Net;
use std::io::{self, Write};

/// Writes `net` as a PNML P/T net document.
pub fn write<W: Write>(_net: &Net, _out: W) -> io::Result<()> {
    Err(io::Error::other("PNML writer not written yet"))
}
