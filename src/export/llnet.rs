//! ll_net writer. To be written.

use crate::system::net::Net;
use std::io::{self, Write};

/// Writes `net` in the PEP ll_net format.
pub fn write<W: Write>(_net: &Net, _out: W) -> io::Result<()> {
    Err(io::Error::other("ll_net writer not written yet"))
}
