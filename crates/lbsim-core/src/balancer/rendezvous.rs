//! Rendezvous (highest random weight) hashing: the key goes to
//! `argmax_i hash("{key}#{name_i}")`; a tie goes to the server listed first.
//! Removing a server moves only its own keys. Weights are not used.
//!
//! A lookup hashes the key with every server, O(N); the pool does not
//! change during a run, so each user's winner is computed once and kept,
//! and a run costs O(users x N + requests).

use alloc::string::String;
use alloc::vec::Vec;

use super::{Balancer, Pick, Pool, Rng};
use crate::hash::{HashFn, KeyBuf};

/// The winning server for `key` among `names`.
pub fn winner<S: AsRef<str>>(key: &[u8], names: &[S], hash: HashFn) -> usize {
    let key = core::str::from_utf8(key).unwrap_or_default();
    let mut best = (0, 0u64);
    for (i, name) in names.iter().enumerate() {
        let mut k = KeyBuf::text(key);
        k.push_str("#");
        k.push_str(name.as_ref());
        let score = hash.hash(k.as_bytes());
        if i == 0 || score > best.1 {
            best = (i, score);
        }
    }
    best.0
}

/// Highest random weight.
pub struct Rendezvous {
    names: Vec<String>,
    hash: HashFn,
    /// Winner per user id (`u32::MAX` until first seen).
    winners: Vec<u32>,
}

impl Rendezvous {
    /// Rendezvous over `pool`.
    pub fn new(pool: &Pool) -> Rendezvous {
        Rendezvous { names: pool.names.clone(), hash: pool.hash_or(HashFn::DEFAULT), winners: Vec::new() }
    }
}

impl Balancer for Rendezvous {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        let user = request.user as usize;
        if user >= self.winners.len() {
            self.winners.resize(user + 1, u32::MAX);
        }
        if self.winners[user] == u32::MAX {
            self.winners[user] = winner(request.key().as_bytes(), &self.names, self.hash) as u32;
        }
        self.winners[user] as usize
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn shared_by_copies(&self) -> bool {
        true
    }
}
