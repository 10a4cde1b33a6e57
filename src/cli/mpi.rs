//! The processes of an `mpirun` as a [`Transport`] for `qpor check --distributed`, over
//! MPI (the `mpi` crate on the system's MPI library).

use mpi::environment::Universe;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use qpor::engines::qpor::Transport;

/// Bytes of the buffer rank 0 sends from. Rank 0 must never wait on a send (the others
/// send to it while it sends to them), so it sends buffered; the buffer holds every
/// message not yet received. It is reserved, not touched, until used.
const SEND_BUFFER_BYTES: usize = 1 << 30;

/// MPI's world communicator; MPI ends when it is dropped.
pub struct MpiTransport {
    // Declared first so that it is dropped before the universe finalises MPI.
    world: SimpleCommunicator,
    _universe: Universe,
}

impl MpiTransport {
    /// Starts MPI.
    pub fn start() -> Result<MpiTransport, String> {
        let mut universe = mpi::initialize().ok_or("--distributed: MPI cannot be started twice")?;
        let world = universe.world();
        if world.rank() == 0 {
            universe.set_buffer_size(SEND_BUFFER_BYTES);
        }
        Ok(MpiTransport {
            world,
            _universe: universe,
        })
    }

    /// Whether this is rank 0, which prints the report.
    pub fn is_root(&self) -> bool {
        self.world.rank() == 0
    }

    /// Rank 0's `status`, on every rank.
    pub fn agree_on_status(&self, status: u8) -> u8 {
        let mut s = status;
        self.world.process_at_rank(0).broadcast_into(&mut s);
        s
    }
}

impl Transport for MpiTransport {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn send(&self, to: usize, bytes: &[u8]) {
        let to = self.world.process_at_rank(to as i32);
        if self.is_root() {
            to.buffered_send(bytes);
        } else {
            to.send(bytes);
        }
    }

    fn try_receive(&self) -> Option<Vec<u8>> {
        let probed = self.world.any_process().immediate_matched_probe()?;
        Some(probed.matched_receive_vec().0)
    }

    fn receive(&self) -> Vec<u8> {
        self.world.any_process().receive_vec().0
    }
}
