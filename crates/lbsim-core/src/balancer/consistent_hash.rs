//! Consistent hashing on a ring of virtual nodes, as ketama: point `i` of
//! server `name` sits at `hash("{name}#{i}")`, `vnodes` points per weight
//! unit (160 by default, as ketama); a key goes to the first point
//! clockwise from its hash, wrapping past the last. Equal points keep
//! server order, so the ring is the same on every machine. Other builders
//! place the points their way (`builder.rs`); HAProxy's sends a key to the
//! nearer of the two points around it.
//!
//! In a fleet run the key walks clockwise from its point to the first point
//! of a server the pick may take. The ring keeps every server's points and
//! passes over those of non-members, which is the ring of the members
//! alone (their points are the same), so a membership change needs no
//! rebuild. Slow start does not apply (as NGINX's `hash consistent`).

use alloc::vec::Vec;

use super::builder::Builder;
use super::rule::{Balancer, Eligible, PerUser, Pick, Pool, UserKeys};
use crate::hash::HashFn;
use crate::rng::Rng;

/// A hash ring: sorted (point, server) pairs, with an index on the top
/// bits of the hash so a lookup searches a few points, not the whole ring
/// (a 1,024-server ring has 163,840 points; binary search over it is a
/// chain of cache misses).
#[derive(Clone, Debug)]
pub struct Ring {
    points: Vec<(u64, u32)>,
    /// `index[k]`: the first point whose top bits are at least `k`.
    index: Vec<u32>,
    /// Shift from a hash to its index slot.
    shift: u32,
    /// Bits of the hash (32 or 64): distances on the ring wrap there.
    bits: u32,
    /// How the points were placed, and so how keys hash and find a point.
    placement: Builder,
    /// The hash function of the `lbsim` placement.
    hash: HashFn,
}

impl Ring {
    /// The ring of `pool`, placed as its `ring` says.
    pub fn new(pool: &Pool) -> Ring {
        Ring::placed(pool.builder, &pool.names, &pool.weights, pool.vnodes, pool.hash_or(HashFn::DEFAULT))
    }

    /// The ring of `names` with `vnodes` points per unit of `weights`.
    pub fn build<S: AsRef<str>>(names: &[S], weights: &[u32], vnodes: u32, hash: HashFn) -> Ring {
        Ring::placed(Builder::Lbsim, names, weights, vnodes, hash)
    }

    /// The ring of `names` and `weights` as `placement` puts it (`vnodes`
    /// and `hash` apply to the `lbsim` placement only).
    pub fn placed<S: AsRef<str>>(
        placement: Builder,
        names: &[S],
        weights: &[u32],
        vnodes: u32,
        hash: HashFn,
    ) -> Ring {
        let (points, bits) = placement.points(names, weights, vnodes, hash);
        Ring { placement, hash, ..Ring::indexed(points, bits) }
    }

    /// Whose construction the ring is.
    pub fn placement(&self) -> Builder {
        self.placement
    }

    /// The hash of a key on this ring.
    pub fn key_hash(&self, key: &[u8]) -> u64 {
        self.placement.key_hash(key, self.hash)
    }

    fn indexed(points: Vec<(u64, u32)>, hash_bits: u32) -> Ring {
        // About one slot per point, at most 2^16 slots.
        let slot_bits = (usize::BITS - points.len().leading_zeros()).clamp(4, 16);
        let shift = hash_bits - slot_bits;
        let slots = 1usize << slot_bits;
        let mut index = Vec::with_capacity(slots + 1);
        let mut j = 0;
        for k in 0..slots as u64 {
            while j < points.len() && points[j].0 >> shift < k {
                j += 1;
            }
            index.push(j as u32);
        }
        index.push(points.len() as u32);
        Ring { points, index, shift, bits: hash_bits, placement: Builder::Lbsim, hash: HashFn::DEFAULT }
    }

    /// Index of the first point at or clockwise after `h`.
    pub fn position(&self, h: u64) -> usize {
        let k = ((h >> self.shift) as usize).min(self.index.len() - 2);
        let (lo, hi) = (self.index[k] as usize, self.index[k + 1] as usize);
        let i = lo + self.points[lo..hi].partition_point(|&(p, _)| p < h);
        if i == self.points.len() {
            0
        } else {
            i
        }
    }

    /// The server owning hash `h`.
    pub fn owner(&self, h: u64) -> usize {
        self.points[self.home(h)].1 as usize
    }

    /// Index of the point a key with hash `h` goes to: the first at or
    /// after `h`, or the nearer of the two around it on HAProxy's ring.
    pub fn home(&self, h: u64) -> usize {
        if self.placement.nearest_point() {
            self.nearest(h)
        } else {
            self.position(h)
        }
    }

    /// The nearer (as [`Ring::nearest`]) of the points around `h` among
    /// those of servers `keep` takes: HAProxy's tree holds the usable
    /// servers' points only. `None` when `keep` takes none.
    pub fn nearest_among(&self, h: u64, keep: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.points.len();
        let start = self.position(h);
        let kept = |i: &usize| keep(self.points[*i].1 as usize);
        let next = (0..n).map(|k| (start + k) % n).find(kept)?;
        let prev = (1..=n).map(|k| (start + n - k) % n).find(kept)?;
        let mask = if self.bits >= 64 { u64::MAX } else { (1u64 << self.bits) - 1 };
        let dp = h.wrapping_sub(self.points[prev].0) & mask;
        let dn = self.points[next].0.wrapping_sub(h) & mask;
        Some(if dp <= dn { prev } else { next })
    }

    /// Servers of the points clockwise from the home of `h` among servers
    /// `keep` takes (HAProxy's) or of all (the others), once round: a
    /// fleet pick's walk past servers it may not take.
    pub fn walk_home_among(&self, h: u64, keep: impl Fn(usize) -> bool) -> impl Iterator<Item = usize> + '_ {
        let start = if self.placement.nearest_point() {
            self.nearest_among(h, keep).unwrap_or(0)
        } else {
            self.position(h)
        };
        self.walk_from(start)
    }

    /// Servers of the points clockwise from `h`, once round the ring.
    pub fn walk(&self, h: u64) -> impl Iterator<Item = usize> + '_ {
        self.walk_from(self.position(h))
    }

    /// Index of the point nearer to `h` of the two around it, as HAProxy's
    /// `chash_get_server_hash` takes it: `dp = h - prev`, `dn = next - h`
    /// (wrapping at the hash's width), the previous point when `dp <= dn`.
    pub fn nearest(&self, h: u64) -> usize {
        let next = self.position(h);
        let prev = if next == 0 { self.points.len() - 1 } else { next - 1 };
        let mask = if self.bits >= 64 { u64::MAX } else { (1u64 << self.bits) - 1 };
        let dp = h.wrapping_sub(self.points[prev].0) & mask;
        let dn = self.points[next].0.wrapping_sub(h) & mask;
        if dp <= dn {
            prev
        } else {
            next
        }
    }

    /// Servers of the points clockwise from the point nearest `h`
    /// ([`Ring::nearest`]), once round the ring: HAProxy's walk past
    /// servers over their allowance.
    pub fn walk_nearest(&self, h: u64) -> impl Iterator<Item = usize> + '_ {
        self.walk_from(self.nearest(h))
    }

    /// Servers of the points clockwise from point `start`, once round.
    pub fn walk_from(&self, start: usize) -> impl Iterator<Item = usize> + '_ {
        self.points[start..].iter().chain(&self.points[..start]).map(|&(_, s)| s as usize)
    }

    /// The ring's points (hash, server), in order.
    pub fn points(&self) -> &[(u64, u32)] {
        &self.points
    }
}

/// Consistent hashing on a ring.
pub struct ConsistentHash {
    ring: Ring,
    /// Each user's server (the ring never changes during a run).
    owners: PerUser<u32>,
    /// The key hashed for each user.
    keys: UserKeys,
}

impl ConsistentHash {
    /// The ring of `pool`.
    pub fn new(pool: &Pool) -> ConsistentHash {
        ConsistentHash { ring: Ring::new(pool), owners: PerUser::new(u32::MAX), keys: pool.keys.clone() }
    }
}

impl Balancer for ConsistentHash {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        if let Some(owner) = self.owners.get(request.user) {
            return owner as usize;
        }
        let owner = self.ring.owner(self.ring.key_hash(self.keys.key(request).as_bytes()));
        self.owners.keep(request.user, owner as u32) as usize
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn shared_by_copies(&self) -> bool {
        true
    }

    fn shared_in_fleet(&self) -> bool {
        true
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        if !eligible.any() {
            return None;
        }
        let h = self.ring.key_hash(self.keys.key(request).as_bytes());
        self.ring.walk_home_among(h, |s| eligible.available[s]).find(|&s| eligible.allows(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;

    /// Envoy's `ring_hash_lb_test.cc`, `Basic`: six hosts 127.0.0.1:90 ..
    /// :95, `minimum_ring_size` 12. The ring and the picks for raw key
    /// hashes are the ones Envoy's test expects.
    #[test]
    fn envoys_ring_is_envoys_expected_ring() {
        let names: Vec<alloc::string::String> = (90..=95).map(|p| alloc::format!("127.0.0.1:{p}")).collect();
        let points = super::super::builder::envoy_ring(&names, &[1; 6], 12);
        let expected: [(u64, u32); 12] = [
            (833437586790550860, 4),
            (928266305478181108, 2),
            (1033482794131418490, 0),
            (3551244743356806947, 5),
            (3851675632748031481, 3),
            (5583722120771150861, 1),
            (6311230543546372928, 1),
            (7700377290971790572, 3),
            (13144177310400110813, 5),
            (13444792449719432967, 2),
            (15516499411664133160, 4),
            (16117243373044804889, 0),
        ];
        assert_eq!(points, expected);
        let ring = Ring::indexed(points, 64);
        // chooseHost(0), (u64::MAX), (3551244743356806947), (... + 1), and the
        // random draw 16117243373044804880.
        for (h, host) in [
            (0, 4),
            (u64::MAX, 4),
            (3551244743356806947, 5),
            (3551244743356806948, 3),
            (16117243373044804880, 0),
        ] {
            assert_eq!(ring.owner(h), host, "key hash {h}");
        }
        // `BasicWithHostname`: the hosts hashed by their names 90 .. 95.
        let names: Vec<alloc::string::String> = (90..=95).map(|p| alloc::format!("{p}")).collect();
        let ring = Ring::indexed(super::super::builder::envoy_ring(&names, &[1; 6], 12), 64);
        assert_eq!(ring.points.first(), Some(&(1975508444536362413, 5)));
        assert_eq!(ring.points.last(), Some(&(15364271037087512980, 4)));
        for (h, host) in [(0, 5), (u64::MAX, 5), (7225015537174310577, 2), (6803900775736438537, 3)] {
            assert_eq!(ring.owner(h), host, "key hash {h}");
        }
    }

    #[test]
    fn keys_go_clockwise_and_wrap() {
        let ring = Ring::indexed(alloc::vec![(10, 0), (20, 1), (30, 2)], 32);
        assert_eq!(ring.owner(5), 0);
        assert_eq!(ring.owner(10), 0);
        assert_eq!(ring.owner(11), 1);
        assert_eq!(ring.owner(30), 2);
        assert_eq!(ring.owner(31), 0, "past the last point wraps to the first");
        assert_eq!(ring.walk(25).collect::<Vec<_>>(), [2, 0, 1]);
    }

    #[test]
    fn indexed_lookup_equals_binary_search() {
        let names: Vec<alloc::string::String> = (1..=64).map(|i| alloc::format!("s{i}")).collect();
        for hash in HashFn::ALL {
            let ring = Ring::build(&names, &alloc::vec![1; 64], 160, hash);
            let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
            for _ in 0..20_000 {
                h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let key = if hash.bits() == 64 { h } else { h >> 32 };
                let mut i = ring.points.partition_point(|&(p, _)| p < key);
                if i == ring.points.len() {
                    i = 0;
                }
                assert_eq!(ring.position(key), i);
            }
        }
    }

    #[test]
    fn ring_has_vnodes_points_per_weight_unit() {
        let ring = Ring::build(&["a", "b"], &[1, 3], 160, HashFn::Xxh64);
        assert_eq!(ring.points.len(), 640);
        assert_eq!(ring.points.iter().filter(|p| p.1 == 1).count(), 480);
    }

    /// Walking past refused servers is the ring of the allowed servers
    /// alone, index-mapped, for every hash function (tied points included:
    /// both keep server order).
    #[test]
    fn refused_servers_leave_the_ring_of_the_allowed() {
        for hash in HashFn::ALL {
            let weights = [2, 1, 1, 3, 1, 1, 2];
            let pool = Pool { hash: Some(hash), vnodes: 40, ..checks::pool(&weights) };
            let mut ch = ConsistentHash::new(&pool);
            let available = [true, false, true, false, false, true, true];
            let tried = [5u32];
            let allowed: Vec<usize> = (0..7).filter(|&i| available[i] && i != 5).collect();
            let names: Vec<&str> = allowed.iter().map(|&i| pool.names[i].as_str()).collect();
            let sub_weights: Vec<u32> = allowed.iter().map(|&i| weights[i]).collect();
            let sub = Ring::build(&names, &sub_weights, 40, hash);
            let eligible = Eligible { available: &available, tried: &tried, every_available: false };
            let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(0);
            for user in 1..=3_000 {
                let request = Pick { now_ms: 0.0, user };
                let want = allowed[sub.owner(hash.hash(request.key().as_bytes()))];
                assert_eq!(
                    ch.pick_eligible(&request, &mut rng, &eligible),
                    Some(want),
                    "{hash:?} user {user}"
                );
            }
        }
    }
}
