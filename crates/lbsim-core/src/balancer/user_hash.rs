//! User hash, as the article's lab: `hash("user-{id}") mod N` (FNV-1a 32
//! by default). With weights it spreads as NGINX's `hash` (without
//! `consistent`, `ngx_http_upstream_get_hash_peer`) does: `w = hash mod
//! total_weight`, then the servers in order, each taking `weight` values
//! of `w`; with every weight 1 that is exactly `hash mod N`. Every server
//! owns its weight's share of hash values whoever the users are, which is
//! why a heavy user makes a hot server.
//!
//! In a fleet run membership is a config reload: a server outside the pool
//! has weight 0 in the walk, so the modulus is the members' total. A
//! server the pick may not take is passed over by a rehash in the shape of
//! NGINX's `hash`, but not with its formula: `hash += h("{try}{key}")`,
//! the rule's own full hash, where NGINX 1.22
//! (`ngx_http_upstream_get_hash_peer`) adds `(crc32("{try}{key}") >> 16)
//! & 0x7fff`, so the candidates after the first are not NGINX's; then
//! `w = hash mod total`, walk; after 20 tries, as NGINX falls back, smooth
//! weighted round robin over the allowed servers. Each pick starts from
//! try 0, so a retry goes through the same sequence of candidates and
//! takes the first one not tried. Slow start does not apply (NGINX's hash
//! keeps its weights).
//!
//! With `builder=nginx` the hash is NGINX's own, Cache::Memcached's form:
//! `(crc32([TRY] KEY) >> 16) & 0x7fff` added to the previous hash (TRY
//! omitted the first time), and it gives up after 21 candidates, as
//! `ngx_http_upstream_get_hash_peer` does (`++tries > 20`).

use alloc::vec::Vec;

use super::builder::Builder;
use super::round_robin::RoundRobin;
use super::rule::{Balancer, Eligible, PerUser, Pick, Pool, UserKeys};
use crate::hash::{HashFn, KeyBuf};
use crate::rng::Rng;

/// NGINX's `hash` gives up rehashing after this many tries.
pub const REHASH_TRIES: u64 = 20;

/// Hash of the user key modulo the pool's total weight, walked by weight.
pub struct UserHash {
    hash: HashFn,
    /// NGINX's own hash and tries (`builder=nginx`).
    nginx: bool,
    /// Running sums of the weights; the last is the total.
    cumulative: Vec<u64>,
    weights: Vec<u32>,
    /// NGINX's fallback after the last rehash.
    round_robin: RoundRobin,
    /// Each user's server over the members, while they stay the same.
    owners: PerUser<u32>,
    /// The key hashed for each user.
    keys: UserKeys,
}

impl UserHash {
    /// User hash over `pool` with the pool's hash function.
    pub fn new(pool: &Pool) -> UserHash {
        UserHash {
            hash: pool.hash_or(HashFn::Fnv1a32),
            nginx: pool.builder == Builder::Nginx,
            cumulative: running_sums(pool.weights.iter().map(|&w| u64::from(w))),
            weights: pool.weights.clone(),
            round_robin: RoundRobin::new(pool),
            owners: PerUser::new(u32::MAX),
            keys: pool.keys.clone(),
        }
    }

    /// The hash of `bytes`: the rule's function, or NGINX's 15 bits of
    /// CRC-32.
    fn hash_of(&self, bytes: &[u8]) -> u64 {
        if self.nginx {
            u64::from((crate::hash::crc32(bytes) >> 16) & 0x7fff)
        } else {
            self.hash.hash(bytes)
        }
    }

    /// The server owning hash `h`: NGINX's walk, `w -= weight` until
    /// `w < weight`, as a search over the running sums.
    pub fn owner(&self, h: u64) -> usize {
        let total = self.cumulative.last().copied().unwrap_or(1).max(1);
        let w = h % total;
        self.cumulative.partition_point(|&c| c <= w)
    }
}

fn running_sums(weights: impl Iterator<Item = u64>) -> Vec<u64> {
    weights
        .scan(0u64, |sum, w| {
            *sum += w;
            Some(*sum)
        })
        .collect()
}

impl Balancer for UserHash {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        if let Some(owner) = self.owners.get(request.user) {
            return owner as usize;
        }
        let owner = self.owner(self.hash_of(self.keys.key(request).as_bytes()));
        self.owners.keep(request.user, owner as u32) as usize
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn shared_by_copies(&self) -> bool {
        true
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        if !eligible.any() {
            return None;
        }
        let key = self.keys.key(request);
        let mut h = self.hash_of(key.as_bytes());
        let tries = if self.nginx { REHASH_TRIES + 1 } else { REHASH_TRIES };
        for attempt in 1..=tries {
            let server = self.owner(h);
            if eligible.allows(server) {
                return Some(server);
            }
            let mut rehash = KeyBuf::new("", attempt);
            rehash.push_bytes(key.as_bytes());
            h = h.wrapping_add(self.hash_of(rehash.as_bytes()));
        }
        self.round_robin.pick_eligible(request, rng, eligible)
    }

    fn reshape(&mut self, members: &[bool], available: &[bool]) {
        let weights = self.weights.iter().zip(members).map(|(&w, &m)| if m { u64::from(w) } else { 0 });
        self.cumulative = running_sums(weights);
        self.owners.forget();
        self.round_robin.reshape(members, available);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;
    use rand::SeedableRng;

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

    /// A `leave` is a reload: over the members, user-hash is UserHash
    /// built over the member pool (mod N over the members), index-mapped.
    #[test]
    fn reshaped_membership_is_user_hash_over_the_members() {
        for weights in [[1, 1, 1, 1, 1, 1], [3, 1, 2, 5, 1, 4]] {
            let pool = checks::pool(&weights);
            let members = [true, false, true, true, false, true];
            let kept: Vec<usize> = (0..6).filter(|&i| members[i]).collect();
            let names: Vec<&str> = kept.iter().map(|&i| pool.names[i].as_str()).collect();
            let sub = Pool { weights: kept.iter().map(|&i| weights[i]).collect(), ..Pool::named(&names) };
            let mut over_members = UserHash::new(&sub);
            let mut reshaped = UserHash::new(&pool);
            reshaped.reshape(&members, &members);
            let mut rng = Rng::seed_from_u64(0);
            let eligible = Eligible { available: &members, tried: &[], every_available: false };
            for user in 1..=2_000 {
                let request = Pick { now_ms: 0.0, user };
                let want = kept[over_members.pick(&request, &mut rng)];
                assert_eq!(reshaped.pick_eligible(&request, &mut rng, &eligible), Some(want), "user {user}");
            }
        }
    }

    /// A refused home: the candidates are the rule's rehash sequence,
    /// `hash += h("{try}{key}")` with the full FNV-1a hash (not NGINX's
    /// 15-bit CRC-32 slice), re-derived here by hand.
    #[test]
    fn a_refused_server_rehashes_with_the_try_number() {
        let pool = checks::pool(&[1, 1, 1, 1, 1]);
        let mut uh = UserHash::new(&pool);
        let mut rng = Rng::seed_from_u64(0);
        let hash = HashFn::Fnv1a32;
        let mut moved = 0;
        for user in 1..=500u32 {
            let key = alloc::format!("user-{user}");
            let home = (hash.hash(key.as_bytes()) % 5) as usize;
            let tried = [home as u32];
            let available = [true; 5];
            let eligible = Eligible { available: &available, tried: &tried, every_available: true };
            let mut h = hash.hash(key.as_bytes());
            let mut want = None;
            for t in 1..=20 {
                h += hash.hash(alloc::format!("{t}{key}").as_bytes());
                if (h % 5) as usize != home {
                    want = Some((h % 5) as usize);
                    break;
                }
            }
            let got = uh.pick_eligible(&Pick { now_ms: 0.0, user }, &mut rng, &eligible);
            assert_eq!(got, want, "user {user}");
            moved += usize::from(got != Some(home));
        }
        assert_eq!(moved, 500);
    }

    /// With one allowed server that no rehash reaches within 20 tries the
    /// round robin fallback still finds it.
    #[test]
    fn after_twenty_tries_round_robin_finds_the_allowed_server() {
        let pool = checks::pool(&[1; 64]);
        let mut uh = UserHash::new(&pool);
        let mut rng = Rng::seed_from_u64(0);
        let mut available = [false; 64];
        available[17] = true;
        let eligible = Eligible { available: &available, tried: &[], every_available: false };
        for user in 1..=300 {
            assert_eq!(uh.pick_eligible(&Pick { now_ms: 0.0, user }, &mut rng, &eligible), Some(17));
        }
    }
}
