//! How the ranks of a split exploration pass messages ([`Transport`]): the processes of an
//! MPI run (`--distributed`, the CLI's `MpiTransport`) or the threads of one process
//! ([`ChannelTransport`], which `--threads` uses: threads over channels are ranks too).

use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

/// How long [`Transport::receive_timeout`]'s default waits between two looks.
const RECEIVE_NAP: Duration = Duration::from_millis(1);

/// How the ranks of a split exploration pass messages. Rank 0 coordinates.
pub trait Transport {
    /// This process's rank, from 0.
    fn rank(&self) -> usize;
    /// How many processes run.
    fn size(&self) -> usize;
    /// Sends `bytes` to rank `to`. On rank 0 it must not wait for the receiver; elsewhere
    /// it may wait until rank 0 receives.
    fn send(&self, to: usize, bytes: &[u8]);
    /// A message sent to this rank, if one has arrived.
    fn try_receive(&self) -> Option<Vec<u8>>;
    /// The next message sent to this rank, waiting for it.
    fn receive(&self) -> Vec<u8>;
    /// The next message sent to this rank, waiting at most `timeout` for it: rank 0 uses
    /// it when idle, so that it still watches the budget and reports progress. The
    /// default looks with [`Transport::try_receive`] every millisecond.
    fn receive_timeout(&self, timeout: Duration) -> Option<Vec<u8>> {
        let until = Instant::now() + timeout;
        loop {
            if let Some(bytes) = self.try_receive() {
                return Some(bytes);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(RECEIVE_NAP);
        }
    }
}

/// A [`Transport`] between threads of one process: channels. The threaded exploration
/// (`--threads`) runs on it, and tests run the distributed protocol on it.
pub struct ChannelTransport {
    rank: usize,
    peers: Vec<Sender<Vec<u8>>>,
    inbox: Receiver<Vec<u8>>,
}

impl ChannelTransport {
    /// The transports of `n` ranks, rank 0 first.
    pub fn group(n: usize) -> Vec<ChannelTransport> {
        let (peers, inboxes): (Vec<_>, Vec<_>) = (0..n).map(|_| std::sync::mpsc::channel()).unzip();
        inboxes
            .into_iter()
            .enumerate()
            .map(|(rank, inbox)| ChannelTransport {
                rank,
                peers: peers.clone(),
                inbox,
            })
            .collect()
    }
}

impl Transport for ChannelTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.peers.len()
    }

    fn send(&self, to: usize, bytes: &[u8]) {
        // A rank that ended has nothing left to receive.
        let _ = self.peers[to].send(bytes.to_vec());
    }

    fn try_receive(&self) -> Option<Vec<u8>> {
        self.inbox.try_recv().ok()
    }

    fn receive(&self) -> Vec<u8> {
        // Every rank holds a sender to itself, so the channel never closes.
        self.inbox.recv().unwrap_or_default()
    }

    fn receive_timeout(&self, timeout: Duration) -> Option<Vec<u8>> {
        self.inbox.recv_timeout(timeout).ok()
    }
}
