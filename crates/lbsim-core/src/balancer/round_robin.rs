//! Smooth weighted round robin, as NGINX's `ngx_http_upstream_get_peer`:
//! each pick adds every server's weight to its current weight, takes the
//! highest current weight (the first server wins ties) and subtracts the
//! total weight from it. With equal weights this is plain rotation, which
//! is taken in O(1).
//!
//! In a fleet run the walk skips the peers a pick may not take, as NGINX
//! skips tried, down and failed peers: they gain no current weight and the
//! total given back is the allowed peers' total. A membership change is a
//! config reload: the current weights start again from zero.
//!
//! As built by NGINX (`builder=nginx`) the walk is NGINX's whole, failures
//! included: every pick walks the peers (no rotation shortcut for equal
//! weights, whose walk differs from a rotation once a peer is skipped), and
//! each peer adds its effective weight, which a failed attempt lowers by
//! `weight / max_fails` and each walk that considers it raises by one, back
//! to its weight (`ngx_http_upstream_get_peer`,
//! `ngx_http_upstream_free_round_robin_peer`).
//!
//! As built by Envoy (`builder=envoy`), the picks are Envoy's round robin,
//! the earliest-deadline-first schedule that its least request also runs
//! on (`least_request.rs`).
//!
//! As built by HAProxy (`builder=haproxy`), the picks are `balance
//! roundrobin`'s (`fwrr.rs`); a pick that may not take the server the
//! tree gives takes the next it gives, and a membership change or a new
//! weight rebuilds the tree.

use alloc::vec::Vec;

use super::builder::Builder;
use super::fwrr::Fwrr;
use super::least_request::LeastRequest;
use super::rule::{effective_weights, Balancer, Eligible, Pick, Pool};
use crate::rng::Rng;

/// Smooth weighted round robin.
pub struct RoundRobin {
    weights: Vec<i64>,
    current: Vec<i64>,
    total: i64,
    next: usize,
    equal: bool,
    /// Membership as the last reshape gave it.
    members: Vec<bool>,
    /// HAProxy's tree, when the pool is built as HAProxy builds it.
    haproxy: Option<Fwrr>,
    /// What a unit of `weights` is: 1 for the pool's, 256 once slow start
    /// gives its own (in 256ths).
    unit: u64,
    /// NGINX's effective weights and `max_fails`, when the pool is built
    /// as NGINX builds it.
    nginx: Option<(Vec<i64>, i64)>,
    /// Envoy's round robin, when the pool is built as Envoy builds it.
    envoy: Option<LeastRequest>,
}

impl RoundRobin {
    /// A fresh rotation over `pool`.
    pub fn new(pool: &Pool) -> RoundRobin {
        let weights: Vec<i64> = pool.weights.iter().map(|&w| i64::from(w)).collect();
        RoundRobin {
            total: weights.iter().sum(),
            current: alloc::vec![0; weights.len()],
            members: alloc::vec![true; weights.len()],
            weights,
            next: 0,
            equal: pool.equal_weights() && pool.builder != Builder::Nginx,
            haproxy: (pool.builder == Builder::Haproxy).then(|| Fwrr::new(Fwrr::eweights(&pool.weights, 1))),
            unit: 1,
            nginx: (pool.builder == Builder::Nginx)
                .then(|| (pool.weights.iter().map(|&w| i64::from(w)).collect(), i64::from(pool.max_fails))),
            envoy: (pool.builder == Builder::Envoy).then(|| LeastRequest::round_robin(pool)),
        }
    }

    /// NGINX's walk with effective weights over the peers `eligible`
    /// allows (every peer when `None`).
    fn nginx_among(&mut self, eligible: Option<&Eligible>) -> Option<usize> {
        let (effective, _) = self.nginx.as_mut()?;
        // NGINX's one is a unit of weight: slow start's weights are 256ths.
        let step = self.unit as i64;
        let mut best: Option<usize> = None;
        let mut total = 0;
        for (i, effective) in effective.iter_mut().enumerate() {
            if eligible.is_some_and(|e| !e.allows(i)) {
                continue;
            }
            self.current[i] += *effective;
            total += *effective;
            if *effective < self.weights[i] {
                *effective = (*effective + step).min(self.weights[i]);
            }
            if best.is_none_or(|b| self.current[i] > self.current[b]) {
                best = Some(i);
            }
        }
        let best = best?;
        self.current[best] -= total;
        Some(best)
    }

    /// HAProxy's next server that `eligible` allows: the tree's picks in
    /// turn, at most a window's worth.
    fn haproxy_among(fwrr: &mut Fwrr, weights: &[i64], eligible: &Eligible) -> Option<usize> {
        let window: i64 = weights.iter().sum::<i64>() + weights.len() as i64;
        (0..window).find_map(|_| fwrr.pick().filter(|&s| eligible.allows(s)))
    }

    /// Equal weights: the rotation moves on to the next allowed server.
    fn rotate_among(&mut self, eligible: &Eligible) -> Option<usize> {
        let n = self.weights.len();
        for _ in 0..n {
            let server = self.next;
            self.next = if server + 1 == n { 0 } else { server + 1 };
            if eligible.allows(server) {
                return Some(server);
            }
        }
        None
    }

    /// NGINX's walk over the allowed peers only.
    fn smooth_among(&mut self, eligible: &Eligible) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut total = 0;
        for i in 0..self.current.len() {
            if !eligible.allows(i) {
                continue;
            }
            self.current[i] += self.weights[i];
            total += self.weights[i];
            if best.is_none_or(|b| self.current[i] > self.current[b]) {
                best = Some(i);
            }
        }
        let best = best?;
        self.current[best] -= total;
        Some(best)
    }
}

impl Balancer for RoundRobin {
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize {
        if let Some(envoy) = &mut self.envoy {
            return envoy.pick(request, rng);
        }
        if let Some(fwrr) = &mut self.haproxy {
            return fwrr.pick().unwrap_or(0);
        }
        if self.nginx.is_some() {
            return self.nginx_among(None).unwrap_or(0);
        }
        if self.equal {
            let server = self.next;
            self.next += 1;
            if self.next == self.weights.len() {
                self.next = 0;
            }
            return server;
        }
        let mut best = 0;
        for i in 0..self.current.len() {
            self.current[i] += self.weights[i];
            if self.current[i] > self.current[best] {
                best = i;
            }
        }
        self.current[best] -= self.total;
        best
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn failed(&mut self, server: usize) {
        if let Some((effective, max_fails)) = &mut self.nginx {
            if *max_fails > 0 {
                effective[server] = (effective[server] - self.weights[server] / *max_fails).max(0);
            }
        }
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        if let Some(envoy) = &mut self.envoy {
            return envoy.pick_eligible(request, rng, eligible);
        }
        if let Some(fwrr) = &mut self.haproxy {
            return RoundRobin::haproxy_among(fwrr, &self.weights, eligible);
        }
        if self.nginx.is_some() {
            return self.nginx_among(Some(eligible));
        }
        if self.equal {
            self.rotate_among(eligible)
        } else {
            self.smooth_among(eligible)
        }
    }

    fn reshape(&mut self, members: &[bool], available: &[bool]) {
        if let Some(envoy) = &mut self.envoy {
            envoy.reshape(members, available);
        }
        // A health change keeps the current weights, as NGINX's peers keep
        // theirs; a reload builds the peers afresh.
        if members != self.members.as_slice() {
            self.members = members.to_vec();
            self.current.iter_mut().for_each(|c| *c = 0);
            if let Some((effective, _)) = &mut self.nginx {
                effective.clone_from(&self.weights);
            }
            self.next = 0;
            self.rebuild_haproxy();
        }
    }

    fn reweight(&mut self, weights: &[u32]) {
        if let Some(envoy) = &mut self.envoy {
            envoy.reweight(weights);
        }
        let weights: Vec<i64> = effective_weights(weights).into_iter().map(i64::from).collect();
        if weights == self.weights {
            return;
        }
        let equal = weights.windows(2).all(|w| w[0] == w[1]) && self.nginx.is_none();
        if self.equal && !equal {
            // The rotation kept no current weights: start them from zero.
            self.current.iter_mut().for_each(|c| *c = 0);
        }
        self.total = weights.iter().sum();
        if let Some((effective, _)) = &mut self.nginx {
            effective.clone_from(&weights);
        }
        self.weights = weights;
        self.equal = equal;
        self.unit = 256;
        self.rebuild_haproxy();
    }
}

impl RoundRobin {
    /// HAProxy's tree afresh over the members.
    fn rebuild_haproxy(&mut self) {
        let unit = self.unit;
        if let Some(fwrr) = &mut self.haproxy {
            let weights: Vec<u32> = self
                .weights
                .iter()
                .zip(&self.members)
                .map(|(&w, &member)| if member { u32::try_from(w).unwrap_or(u32::MAX) } else { 0 })
                .collect();
            *fwrr = Fwrr::new(Fwrr::eweights(&weights, unit));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn sequence(weights: &[u32], picks: usize) -> alloc::string::String {
        let mut pool = Pool::named(&["a", "b", "c"]);
        pool.weights = weights.to_vec();
        let mut rr = RoundRobin::new(&pool);
        let mut rng = Rng::seed_from_u64(0);
        let request = Pick { now_ms: 0.0, user: 1 };
        (0..picks)
            .map(|_| ["a", "b", "c"][rr.pick(&request, &mut rng)])
            .collect::<alloc::vec::Vec<_>>()
            .join(" ")
    }

    /// NGINX's `ngx_http_upstream_get_peer` re-derived: peers not allowed
    /// are skipped (`continue` before `current_weight += ...`), `total`
    /// sums the peers walked, `best` is the first of the highest.
    fn nginx(weights: &[i64], current: &mut [i64], allowed: &[bool]) -> usize {
        let (mut best, mut total) = (usize::MAX, 0);
        for i in 0..weights.len() {
            if !allowed[i] {
                continue;
            }
            current[i] += weights[i];
            total += weights[i];
            if best == usize::MAX || current[i] > current[best] {
                best = i;
            }
        }
        current[best] -= total;
        best
    }

    fn eligible_sequence(rr: &mut RoundRobin, available: &[bool], picks: usize) -> alloc::string::String {
        let mut rng = Rng::seed_from_u64(0);
        let request = Pick { now_ms: 0.0, user: 1 };
        let eligible = Eligible { available, tried: &[], every_available: available.iter().all(|&a| a) };
        (0..picks)
            .map(|_| ["a", "b", "c"][rr.pick_eligible(&request, &mut rng, &eligible).unwrap()])
            .collect::<alloc::vec::Vec<_>>()
            .join(" ")
    }

    #[test]
    fn nginx_smooth_weighted_sequences() {
        // The sequences documented in NGINX's ngx_http_upstream_round_robin.c.
        assert_eq!(sequence(&[5, 1, 1], 7), "a a b a c a a");
        assert_eq!(sequence(&[4, 2, 1], 7), "a b a c a b a");
    }

    #[test]
    fn equal_weights_rotate() {
        assert_eq!(sequence(&[1, 1, 1], 7), "a b c a b c a");
        assert_eq!(sequence(&[3, 3, 3], 4), "a b c a");
    }

    /// Weights 5, 1, 1 with b refused: NGINX walks a (5) and c (1) with
    /// total 6: a5 c1 -> a; a4 c2 -> a; a3 c3 -> a (the first of equals);
    /// a2 c4 -> c; a7 c-1 -> a; a6 c0 -> a; and again.
    #[test]
    fn a_refused_peer_leaves_nginx_sequence_over_the_rest() {
        let pool = Pool { weights: alloc::vec![5, 1, 1], ..Pool::named(&["a", "b", "c"]) };
        let without_b = [true, false, true];
        let mut rr = RoundRobin::new(&pool);
        assert_eq!(eligible_sequence(&mut rr, &without_b, 12), "a a a c a a a a a c a a");

        // Refused midway, after "a a b": NGINX's walk from the current
        // weights where they stand.
        let mut rr = RoundRobin::new(&pool);
        let mut current = [0i64; 3];
        let everyone = [true; 3];
        for _ in 0..3 {
            assert_eq!(
                eligible_sequence(&mut rr, &everyone, 1),
                ["a", "b", "c"][nginx(&[5, 1, 1], &mut current, &everyone)]
            );
        }
        for _ in 0..20 {
            assert_eq!(
                eligible_sequence(&mut rr, &without_b, 1),
                ["a", "b", "c"][nginx(&[5, 1, 1], &mut current, &without_b)]
            );
        }
    }

    #[test]
    fn equal_weights_rotate_past_refused_servers() {
        let mut rr = RoundRobin::new(&Pool::named(&["a", "b", "c"]));
        assert_eq!(eligible_sequence(&mut rr, &[true, false, true], 5), "a c a c a");
        assert_eq!(eligible_sequence(&mut rr, &[true, true, true], 3), "b c a");
    }

    /// A `leave` is a reload: what follows is a fresh rotation over the
    /// members, as a RoundRobin built over them alone.
    #[test]
    fn a_membership_change_restarts_over_the_members() {
        let pool = Pool { weights: alloc::vec![4, 2, 1], ..Pool::named(&["a", "b", "c"]) };
        let mut rr = RoundRobin::new(&pool);
        eligible_sequence(&mut rr, &[true; 3], 5);
        let members = [true, false, true];
        rr.reshape(&members, &members);
        let fresh = RoundRobin::new(&Pool { weights: alloc::vec![4, 1], ..Pool::named(&["a", "c"]) });
        let mut fresh = fresh;
        let mut rng = Rng::seed_from_u64(0);
        let request = Pick { now_ms: 0.0, user: 1 };
        let want: alloc::vec::Vec<&str> =
            (0..10).map(|_| ["a", "c"][fresh.pick(&request, &mut rng)]).collect();
        assert_eq!(eligible_sequence(&mut rr, &members, 10), want.join(" "));
    }

    /// Envoy's own `RoundRobinLoadBalancerTest`
    /// (test/common/upstream/load_balancer_impl_test.cc): `Weighted`
    /// (weights 1, 2), `WeightedSeed` (its seed 1 moves the schedule on by
    /// one pick) and `MaxUnhealthyPanic`'s turn over six equal hosts.
    #[test]
    fn envoy_round_robin_is_envoys_schedule() {
        let mut rng = Rng::seed_from_u64(0);
        let request = Pick { now_ms: 0.0, user: 1 };
        let mut pool = Pool { builder: Builder::Envoy, ..Pool::named(&["a", "b"]) };
        pool.weights = alloc::vec![1, 2];
        let mut rr = RoundRobin::new(&pool);
        let picks: Vec<usize> = (0..7).map(|_| rr.pick(&request, &mut rng)).collect();
        assert_eq!(picks[..6], [1, 0, 1, 1, 0, 1], "Weighted");
        assert_eq!(picks[1..7], [0, 1, 1, 0, 1, 1], "WeightedSeed");
        let names = ["h0", "h1", "h2", "h3", "h4", "h5"];
        let mut rr = RoundRobin::new(&Pool { builder: Builder::Envoy, ..Pool::named(&names) });
        let picks: Vec<usize> = (0..3).map(|_| rr.pick(&request, &mut rng)).collect();
        assert_eq!(picks, [0, 1, 2], "MaxUnhealthyPanic");
        // Where Envoy and NGINX part: 5, 1, 1 is a a a a b c a in Envoy's
        // schedule, a a b a c a a in NGINX's smooth round robin.
        let mut pool = Pool { builder: Builder::Envoy, ..Pool::named(&["a", "b", "c"]) };
        pool.weights = alloc::vec![5, 1, 1];
        let mut rr = RoundRobin::new(&pool);
        let picks: Vec<usize> = (0..7).map(|_| rr.pick(&request, &mut rng)).collect();
        assert_eq!(picks, [0, 0, 0, 0, 1, 2, 0]);
        assert_eq!(sequence(&[5, 1, 1], 7), "a a b a c a a");
    }

    /// Envoy's turn over equal weights counts only the hosts a pick may
    /// take, as it indexes its healthy host list.
    #[test]
    fn envoy_turn_counts_the_allowed_hosts() {
        let mut rng = Rng::seed_from_u64(0);
        let request = Pick { now_ms: 0.0, user: 1 };
        let mut rr = RoundRobin::new(&Pool { builder: Builder::Envoy, ..Pool::named(&["a", "b", "c"]) });
        let available = [true, false, true];
        let eligible = Eligible { available: &available, tried: &[], every_available: false };
        let picks: Vec<usize> =
            (0..4).map(|_| rr.pick_eligible(&request, &mut rng, &eligible).unwrap()).collect();
        assert_eq!(picks, [0, 2, 0, 2]);
        // A retry: the turn is at b, which the request tried, so c.
        let all = [true, true, true];
        let retry = Eligible { available: &all, tried: &[1], every_available: true };
        assert_eq!(rr.pick_eligible(&request, &mut rng, &retry), Some(2));
    }

    /// Slow start's weights switch the rotation to smooth WRR and back.
    #[test]
    fn reweight_switches_between_rotation_and_smooth_weights() {
        let mut rr = RoundRobin::new(&Pool::named(&["a", "b", "c"]));
        let everyone = [true; 3];
        assert_eq!(eligible_sequence(&mut rr, &everyone, 2), "a b");
        rr.reweight(&[5 * 256, 256, 256]);
        assert_eq!(eligible_sequence(&mut rr, &everyone, 7), "a a b a c a a");
        rr.reweight(&[256, 256, 256]);
        assert_eq!(eligible_sequence(&mut rr, &everyone, 3), "c a b");
    }
}
