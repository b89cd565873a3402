//! User hash, as the article's lab: `hash("user-{id}") mod N` (FNV-1a 32
//! by default). With weights it spreads as NGINX's `hash` (without
//! `consistent`, `ngx_http_upstream_get_hash_peer`) does: `w = hash mod
//! total_weight`, then the servers in order, each taking `weight` values
//! of `w`; with every weight 1 that is exactly `hash mod N`. Every server
//! owns its weight's share of hash values whoever the users are, which is
//! why a heavy user makes a hot server.

use alloc::vec::Vec;

use super::{Balancer, Pick, Pool, Rng};
use crate::hash::HashFn;

/// Hash of the user key modulo the pool's total weight, walked by weight.
pub struct UserHash {
    hash: HashFn,
    /// Running sums of the weights; the last is the total.
    cumulative: Vec<u64>,
}

impl UserHash {
    /// User hash over `pool` with the pool's hash function.
    pub fn new(pool: &Pool) -> UserHash {
        let cumulative = pool
            .weights
            .iter()
            .scan(0u64, |sum, &w| {
                *sum += u64::from(w);
                Some(*sum)
            })
            .collect();
        UserHash { hash: pool.hash_or(HashFn::Fnv1a32), cumulative }
    }

    /// The server owning hash `h`: NGINX's walk, `w -= weight` until
    /// `w < weight`, as a search over the running sums.
    pub fn owner(&self, h: u64) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(1).max(1);
        let w = h % total;
        self.cumulative.partition_point(|&c| c <= w)
    }
}

impl Balancer for UserHash {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        self.owner(self.hash.hash(request.key().as_bytes()))
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
    use super::*;

    /// NGINX's loop re-derived: `w = hash % total; while w >= weight { w -=
    /// weight; next }`.
    fn nginx(h: u64, weights: &[u64]) -> usize {
        let mut w = h % weights.iter().sum::<u64>();
        let mut p = 0;
        while w >= weights[p] {
            w -= weights[p];
            p += 1;
        }
        p
    }

    #[test]
    fn weights_walk_as_nginx_hash_does_and_unit_weights_are_mod_n() {
        let weighted = Pool { weights: alloc::vec![5, 1, 2], ..Pool::named(&["a", "b", "c"]) };
        let uh = UserHash::new(&weighted);
        let unit = UserHash::new(&Pool::named(&["a", "b", "c", "d"]));
        for h in (0..10_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) {
            assert_eq!(uh.owner(h), nginx(h, &[5, 1, 2]));
            assert_eq!(unit.owner(h), (h % 4) as usize);
        }
    }
}
