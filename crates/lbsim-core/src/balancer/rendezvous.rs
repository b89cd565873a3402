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
    best(key, names, hash).0
}

/// The winner for `key` among `names` and its score (the first listed of
/// equal scores wins).
pub fn best<S: AsRef<str>>(key: &[u8], names: &[S], hash: HashFn) -> (usize, u64) {
    // `{key}#` is written once; each name replaces the last one after it.
    let mut k = KeyBuf::text("");
    k.push_bytes(key);
    k.push_str("#");
    let stem = k.as_bytes().len();
    let mut best = (0, 0u64);
    for (i, name) in names.iter().enumerate() {
        k.truncate(stem);
        k.push_str(name.as_ref());
        let s = hash.hash(k.as_bytes());
        if i == 0 || s > best.1 {
            best = (i, s);
        }
    }
    best
}

/// The score of `key` for one server: `hash("{key}#{name}")`.
pub fn score(key: &[u8], name: &str, hash: HashFn) -> u64 {
    let mut k = KeyBuf::text("");
    k.push_bytes(key);
    k.push_str("#");
    k.push_str(name);
    hash.hash(k.as_bytes())
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

#[cfg(test)]
mod tests {
    use alloc::format;

    use super::*;

    /// A key too long for the stack buffer still meets every name: the
    /// winner is the argmax of the whole `{key}#{name}`, not a tie that
    /// falls to the first server.
    #[test]
    fn long_keys_are_hashed_with_the_whole_name() {
        let names = ["s1", "s2", "s3", "s4", "s5"];
        let mut first = 0;
        for i in 0..2000 {
            let key = format!("{}{i}", "k".repeat(200));
            let want = (0..names.len())
                .rev()
                .max_by_key(|&n| HashFn::Xxh64.hash(format!("{key}#{}", names[n]).as_bytes()))
                .unwrap_or_default();
            let got = winner(key.as_bytes(), &names, HashFn::Xxh64);
            assert_eq!(got, want, "key {i}");
            first += usize::from(got == 0);
        }
        assert!(first < 600, "s1 won {first} of 2000 keys");
    }
}
