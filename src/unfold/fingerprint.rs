//! Hashes that name states and events the same way in every unfolding, replica and
//! table: a state's hash is the sum of its components' [`local_hash`]es (so a step updates
//! it by the components it touches), and an event's fingerprint hashes its action and its
//! predecessors' fingerprints ([`event_fingerprint`]), so that two unfoldings of one system
//! agree on it without sharing ids.

use crate::system::{ActionId, CompId, Local};

/// splitmix64's finaliser: a fixed, well-spread hash of a 64-bit key.
fn finalise(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The hash of component `c` holding `l`: a state's hash is the sum over its components.
pub(crate) fn local_hash(c: CompId, l: Local) -> u64 {
    finalise((((c.0 as u64) << 32) | l.0 as u64).wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// The fingerprint of an event of `action` with these predecessors' fingerprints, one per
/// component it touches in component order ([`bottom`] for ⊥).
pub(crate) fn event_fingerprint(action: ActionId, preds: impl Iterator<Item = u64>) -> u64 {
    let mut h = finalise(action.0 as u64 ^ 0x5851_f42d_4c95_7f2d);
    for p in preds {
        h = finalise(h.rotate_left(23) ^ p);
    }
    h
}

/// The fingerprint ⊥ stands for on component `c`.
pub(crate) fn bottom(c: CompId) -> u64 {
    finalise(0xd6e8_feb8_6659_fd93 ^ c.0 as u64)
}
