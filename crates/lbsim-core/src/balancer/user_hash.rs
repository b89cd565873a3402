//! User hash, as the article's lab: `hash("user-{id}") mod N` (FNV-1a 32
//! by default). Weights are not used: every server owns an equal share of
//! hash values, which is exactly why a heavy user makes a hot server.

use super::{Balancer, Pick, Pool, Rng};
use crate::hash::HashFn;

/// Hash of the user key modulo the pool size.
pub struct UserHash {
    hash: HashFn,
    servers: u64,
}

impl UserHash {
    /// User hash over `pool` with the pool's hash function.
    pub fn new(pool: &Pool) -> UserHash {
        UserHash { hash: pool.hash_or(HashFn::Fnv1a32), servers: pool.len() as u64 }
    }
}

impl Balancer for UserHash {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        (self.hash.hash(request.key().as_bytes()) % self.servers) as usize
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn shared_by_copies(&self) -> bool {
        true
    }
}
