//! Consistent hashing with bounded loads, as HAProxy's
//! `hash-balance-factor` (`chash_server_is_eligible` in `lb_chash.c`).
//!
//! The allowance in flight is `tot = ((served + 1) * factor + 99) / 100`
//! (served = unfinished requests this copy has in flight, the `+ 1` being
//! the one about to go), split by weight: each server gets
//! `weight * (tot / total_weight)` plus its cumulative-weight share of the
//! remainder, and at least 1. The key's home is the nearer of the two ring
//! points around its hash (`chash_get_server_hash`: the previous point
//! when `hash - prev <= next - hash`), not the first clockwise as plain
//! consistent hashing takes it; walking clockwise from there, the first
//! server below its allowance wins. Since the allowances add up to more
//! than what is in flight, one always is.
//!
//! In a fleet run the walk from the home point passes over servers the
//! pick may not take, and the allowances are split over the available
//! members' weights only (HAProxy's `tot_used` and `cumulative_weight`
//! count usable servers), recomputed on a reshape; per-server counts and
//! the served total are kept. Tried servers still hold allowances, so all
//! allowed servers may be full: then the first allowed on the walk takes
//! the request (HAProxy's walk gives up after one turn too). Slow start
//! does not apply.

use alloc::vec::Vec;

use super::consistent_hash::Ring;
use super::rule::{Balancer, Eligible, PerUser, Pick, Pool, Unfinished};
use crate::rng::Rng;

/// HAProxy's allowance for a server with weight `weight`, whose
/// predecessors' weights sum to `cumulative`, when `served` requests are in
/// flight across servers of total weight `total_weight`.
pub fn allowance(served: u64, factor: u64, weight: u64, cumulative: u64, total_weight: u64) -> u64 {
    // HAProxy writes `(... + 99) / 100`: a ceiling division.
    let tot_slots = ((served + 1) * factor).div_ceil(100);
    let slots_per_weight = tot_slots / total_weight;
    let remainder = tot_slots % total_weight;
    let slots = weight * slots_per_weight + ((cumulative + weight) * remainder) / total_weight
        - (cumulative * remainder) / total_weight;
    slots.max(1)
}

/// The parts of [`allowance`] that are the same for every server while
/// `served` holds: a pick's walk reads them once, not once a server.
#[derive(Clone, Copy, Debug)]
struct Quota {
    slots_per_weight: u64,
    remainder: u64,
    total_weight: u64,
}

impl Quota {
    fn new(served: u64, factor: u64, total_weight: u64) -> Quota {
        let tot_slots = ((served + 1) * factor).div_ceil(100);
        Quota {
            slots_per_weight: tot_slots / total_weight,
            remainder: tot_slots % total_weight,
            total_weight,
        }
    }

    /// Whether `unfinished < allowance(..)`, deciding without a division
    /// when it can: the allowance is `weight x slots_per_weight` plus a
    /// share of the remainder between 0 and `weight`, so only a count in
    /// that band needs the exact share (on a 1,024-server ring the walk
    /// asks dozens of servers a pick, and three divisions each were most of
    /// the rule's time).
    #[inline]
    fn admits(&self, unfinished: u64, weight: u64, cumulative: u64) -> bool {
        let base = weight * self.slots_per_weight;
        if unfinished < base {
            return true;
        }
        // At least 1, as the allowance is (a weight of 0, a server this copy
        // cannot use, still has one).
        if unfinished >= (base + weight).max(1) {
            return false;
        }
        let share = ((cumulative + weight) * self.remainder) / self.total_weight
            - (cumulative * self.remainder) / self.total_weight;
        unfinished < (base + share).max(1)
    }
}

/// Consistent hashing with bounded loads.
pub struct BoundedLoad {
    ring: Ring,
    factor: u64,
    weights: Vec<u64>,
    cumulative: Vec<u64>,
    total_weight: u64,
    unfinished: Unfinished,
    served: u64,
    /// Each user's key hashed on the ring (which never changes in a run).
    key_hashes: PerUser<u64>,
}

impl BoundedLoad {
    /// Bounded loads over `pool`.
    pub fn new(pool: &Pool) -> BoundedLoad {
        let weights: Vec<u64> = pool.weights.iter().map(|&w| u64::from(w)).collect();
        BoundedLoad {
            ring: Ring::new(pool),
            factor: u64::from(pool.balance_factor),
            total_weight: weights.iter().sum(),
            cumulative: weights_before(weights.iter().copied()),
            weights,
            unfinished: Unfinished::new(pool.len()),
            served: 0,
            key_hashes: PerUser::new(u64::MAX),
        }
    }

    fn quota(&self) -> Quota {
        Quota::new(self.served, self.factor, self.total_weight)
    }

    /// Whether `server` is under its allowance.
    #[cfg(test)]
    fn eligible(&self, server: usize) -> bool {
        self.admits(&self.quota(), server)
    }

    fn admits(&self, quota: &Quota, server: usize) -> bool {
        quota.admits(u64::from(self.unfinished.get(server)), self.weights[server], self.cumulative[server])
    }
}

/// Each server's predecessors' weights summed.
fn weights_before(weights: impl Iterator<Item = u64>) -> Vec<u64> {
    weights
        .scan(0, |sum, w| {
            let before = *sum;
            *sum += w;
            Some(before)
        })
        .collect()
}

impl Balancer for BoundedLoad {
    fn pick(&mut self, request: &Pick, _rng: &mut Rng) -> usize {
        let h = match self.key_hashes.get(request.user) {
            Some(h) => h,
            None => self.key_hashes.keep(request.user, self.ring.key_hash(request.key().as_bytes())),
        };
        let quota = self.quota();
        self.ring.walk_nearest(h).find(|&s| self.admits(&quota, s)).unwrap_or(0)
    }

    fn dispatched(&mut self, server: usize) {
        self.unfinished.add(server);
        self.served += 1;
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        self.unfinished.remove(server);
        self.served = self.served.saturating_sub(1);
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        if !eligible.any() {
            return None;
        }
        let h = self.ring.key_hash(request.key().as_bytes());
        let quota = self.quota();
        let mut first_allowed = None;
        for s in self.ring.walk_nearest(h) {
            if !eligible.allows(s) {
                continue;
            }
            if self.admits(&quota, s) {
                return Some(s);
            }
            first_allowed.get_or_insert(s);
        }
        first_allowed
    }

    fn reshape(&mut self, _members: &[bool], available: &[bool]) {
        let used = self.weights.iter().zip(available).map(|(&w, &a)| if a { w } else { 0 });
        self.cumulative = weights_before(used.clone());
        // With nothing available no allowance is asked for; 1 keeps the
        // division defined.
        self.total_weight = used.sum::<u64>().max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashFn;

    proptest::proptest! {
        /// The quota's shortcuts decide as HAProxy's allowance does.
        #[test]
        fn the_quota_admits_what_the_allowance_admits(
            served in 0u64..100_000,
            factor in 100u64..1_000,
            weights in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0u64), 1u64..300], 1..12),
            offsets in proptest::collection::vec(-3i64..303, 12),
        ) {
            // As `reshape` keeps it: at least 1.
            let total = weights.iter().sum::<u64>().max(1);
            let quota = Quota::new(served, factor, total);
            let mut cumulative = 0;
            for (&w, &offset) in weights.iter().zip(&offsets) {
                // Counts around the band where the exact share decides.
                let unfinished = (w * quota.slots_per_weight).saturating_add_signed(offset % (w as i64 + 3));
                let want = unfinished < allowance(served, factor, w, cumulative, total);
                proptest::prop_assert_eq!(quota.admits(unfinished, w, cumulative), want);
                cumulative += w;
            }
        }
    }

    fn allowances(served: u64, factor: u64) -> [u64; 3] {
        [0, 1, 2].map(|i| allowance(served, factor, 1, i, 3))
    }

    /// HAProxy's rule re-derived on the ring's own points: the previous
    /// point when `hash - prev <= next - hash`, wrapping past either end.
    #[test]
    fn the_home_point_is_the_nearer_neighbour_as_haproxy_takes_it() {
        let pool = Pool { hash: Some(HashFn::Xxh32), ..Pool::named(&["a", "b", "c", "d", "e", "f", "g"]) };
        let ring = Ring::new(&pool);
        let points = ring.points();
        for w in points.windows(2).take(200) {
            let (p, n) = (w[0].0, w[1].0);
            if n - p < 4 {
                continue;
            }
            let mid = p + (n - p) / 2; // dp <= dn: the previous point
            assert_eq!(points[ring.nearest(mid)].0, p);
            assert_eq!(points[ring.nearest(n - 1)].0, n, "just before a point, that point");
            assert_eq!(points[ring.nearest(p + 1)].0, p, "just after a point, that point");
        }
        // Past the last point and before the first, distances wrap at 2^32.
        let (first, last) = (points[0].0, points[points.len() - 1].0);
        assert_eq!(
            points[ring.nearest(u64::from(u32::MAX))].0,
            if (1u64 << 32) - 1 - last <= first + 1 { last } else { first }
        );
        // The measure: the nearer neighbour is another server than
        // the first clockwise for about 41% of keys on 7 x 160 points.
        let moved = (0..20_000u64)
            .filter(|i| {
                let h = HashFn::Xxh32.hash(crate::hash::KeyBuf::new("user-", *i).as_bytes());
                points[ring.nearest(h)].1 != points[ring.position(h)].1
            })
            .count();
        assert!((7_000..9_500).contains(&moved), "{moved} of 20,000 keys change home");
    }

    #[test]
    fn haproxy_allowance_vectors() {
        assert_eq!(allowances(9, 125), [4, 4, 5]);
        assert_eq!(allowances(0, 150), [1, 1, 1]);
    }

    #[test]
    fn a_full_server_passes_its_key_clockwise() {
        let pool = Pool::named(&["a", "b", "c"]);
        let mut bl = BoundedLoad::new(&pool);
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(0);
        let req = Pick { now_ms: 0.0, user: 7 };
        let home = bl.pick(&req, &mut rng);
        // Nothing in flight: tot = (0 + 1) * 125 + 99) / 100 = 2 slots over
        // 3 servers, at least 1 each, so the home server takes it.
        let h = bl.ring.key_hash(req.key().as_bytes());
        assert_eq!(home, bl.ring.points()[bl.ring.nearest(h)].1 as usize);
        bl.dispatched(home);
        // One in flight: tot = 3, one slot each; home is full.
        let next = bl.pick(&req, &mut rng);
        assert_ne!(next, home, "over its allowance, the key walks on");
        assert_eq!(next, bl.ring.walk_nearest(h).find(|&s| s != home).unwrap());
    }

    /// The allowances split over the available servers' weights: with s2
    /// down in a pool of 1, 1, 2 the allowance of s3 is HAProxy's with
    /// `tot_used` 3 and s3's cumulative weight 1, and counts survive.
    #[test]
    fn allowances_count_only_available_weights() {
        let pool = Pool { weights: alloc::vec![1, 1, 2], ..Pool::named(&["a", "b", "c"]) };
        let mut bl = BoundedLoad::new(&pool);
        for s in [0, 2, 2, 1] {
            bl.dispatched(s);
        }
        bl.reshape(&[true; 3], &[true, false, true]);
        assert_eq!(bl.total_weight, 3);
        assert_eq!((bl.cumulative[0], bl.cumulative[2]), (0, 1));
        assert_eq!((bl.unfinished.get(1), bl.served), (1, 4));
        let slots = allowance(4, 125, 2, 1, 3);
        assert_eq!(bl.eligible(2), 2 < slots);
        bl.reshape(&[true; 3], &[true; 3]);
        assert_eq!((bl.total_weight, bl.cumulative[2]), (4, 2));
    }

    /// The walk from the home point passes over refused servers and full
    /// ones: each pick is the first allowed server under its allowance on
    /// HAProxy's walk, re-derived here from the ring.
    #[test]
    fn the_walk_skips_refused_and_full_servers() {
        let pool = Pool { hash: Some(HashFn::Xxh32), ..Pool::named(&["a", "b", "c", "d", "e"]) };
        let mut bl = BoundedLoad::new(&pool);
        let available = [true, true, false, true, true];
        bl.reshape(&[true; 5], &available);
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(0);
        let mut in_flight = alloc::collections::VecDeque::new();
        for user in 1..=400 {
            let tried = [user % 5];
            let eligible = Eligible { available: &available, tried: &tried, every_available: false };
            let request = Pick { now_ms: 0.0, user };
            let h = bl.ring.key_hash(request.key().as_bytes());
            let want = bl.ring.walk_nearest(h).find(|&s| eligible.allows(s) && bl.eligible(s));
            let got = bl.pick_eligible(&request, &mut rng, &eligible);
            assert_eq!(got, want.or_else(|| bl.ring.walk_nearest(h).find(|&s| eligible.allows(s))));
            let s = got.unwrap();
            bl.dispatched(s);
            in_flight.push_back(s);
            if user % 3 == 0 {
                bl.completed(in_flight.pop_front().unwrap(), 0.0, 0.0);
            }
        }
    }
}
