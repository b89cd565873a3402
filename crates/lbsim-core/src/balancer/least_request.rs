//! Envoy's least request load balancer.
//!
//! Equal weights: sample two hosts at random *with* replacement and switch
//! from the first to the second only if it has strictly fewer active
//! requests (Envoy's `choice_count` 2).
//!
//! Unequal weights: Envoy's earliest-deadline-first weighted round robin,
//! where a host's weight is recomputed each time it is picked as
//! `weight / (active + 1)^bias`, `bias` the `active-request-bias` field
//! (Envoy's `active_request_bias`, 1.0 by default; 0 is weighted round
//! robin, as Envoy returns the host's own weight). Each host
//! sits in the schedule with deadline `now + 1 / weight`; a pick pops the
//! earliest deadline (insertion order breaks ties) and re-adds the host.
//!
//! In a fleet run both sample from the allowed hosts only, as Envoy picks
//! from the healthy host set (still with replacement: with one allowed
//! host, that one). The schedule holds the available hosts: a host that
//! becomes available joins at `now + 1 / weight`, one that goes is taken
//! out (Envoy rebuilds it on a host-set change); a tried host is passed
//! over where it stands. Slow start's effective weights (Envoy multiplies
//! a host's weight by its slow-start factor) switch between the two modes
//! as they become unequal or equal, and rebuild the schedule when they
//! change; active counts are kept.
//!
//! The same base (`EdfLoadBalancerBase`) is Envoy's round robin, which
//! `round-robin` is with `builder=envoy` ([`LeastRequest::round_robin`]):
//! the weight is the host's own, and equal weights take the hosts in turn,
//! `hosts[index++ % hosts]` over the hosts a pick may take. Envoy starts
//! the turn, and the schedule, at a random offset drawn once (`seed_`);
//! here the offset is 0, as in Envoy's own unit tests.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::{Ordering, Reverse};

use super::rule::{effective_weights, uniform_among, Balancer, Counts, Eligible, Pick, Pool, Unfinished};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    deadline: f64,
    order: u64,
    host: usize,
}

impl Eq for Entry {}

impl Entry {
    /// The deadline's bits above the insertion order, one integer to
    /// compare: deadlines are sums of `1 / weight` from 0, never negative,
    /// and the bits of non-negative floats order as the floats do.
    fn key(&self) -> u128 {
        (u128::from(self.deadline.to_bits()) << 64) | u128::from(self.order)
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Envoy least request.
pub struct LeastRequest {
    weights: Vec<u32>,
    active: Unfinished,
    schedule: Option<BinaryHeap<Reverse<Entry>>>,
    clock: f64,
    order: u64,
    /// The hosts the schedule holds (the available ones).
    scheduled: Vec<bool>,
    /// Entries passed over in a pick, kept to save an allocation.
    passed: Vec<Reverse<Entry>>,
    /// Envoy's round robin: the turn's next index, the weights without
    /// active requests.
    turn: Option<u64>,
    /// The power of `(active + 1)` a weight is divided by.
    bias: f64,
}

impl LeastRequest {
    /// Least request over `pool`.
    pub fn new(pool: &Pool) -> LeastRequest {
        let schedule = (!pool.equal_weights()).then(|| {
            (0..pool.len())
                .map(|host| {
                    let deadline = 1.0 / effective_weight(pool.weights[host], 0, pool.active_request_bias);
                    Reverse(Entry { deadline, order: host as u64, host })
                })
                .collect()
        });
        LeastRequest {
            weights: pool.weights.clone(),
            active: Unfinished::new(pool.len()),
            schedule,
            clock: 0.0,
            order: pool.len() as u64,
            scheduled: alloc::vec![true; pool.len()],
            passed: Vec::new(),
            turn: None,
            bias: pool.active_request_bias,
        }
    }

    /// Envoy's round robin over `pool`: the same schedule with the hosts'
    /// own weights, or the turn for equal weights.
    pub fn round_robin(pool: &Pool) -> LeastRequest {
        LeastRequest { turn: Some(0), ..LeastRequest::new(pool) }
    }

    /// The weight `host` has in the schedule: its own in round robin,
    /// less its active requests in least request.
    fn weight_of(&self, host: usize, active: u32) -> f64 {
        if self.turn.is_some() {
            f64::from(self.weights[host])
        } else {
            effective_weight(self.weights[host], active, self.bias)
        }
    }

    /// Round robin's turn: `hosts[index++ % hosts]` over the available
    /// hosts, as Envoy indexes its healthy list; a host the request tried
    /// is passed as Envoy's retry predicate passes it, by taking the next.
    fn next_in_turn(&mut self, eligible: Option<&Eligible>) -> Option<usize> {
        let turn = self.turn.as_mut()?;
        let n = self.weights.len();
        let Some(eligible) = eligible else {
            let host = (*turn % n as u64) as usize;
            *turn += 1;
            return Some(host);
        };
        let available: Vec<usize> = (0..n).filter(|&h| eligible.available.get(h) == Some(&true)).collect();
        for _ in 0..available.len() {
            let host = available[(*turn % available.len() as u64) as usize];
            *turn += 1;
            if eligible.allows(host) {
                return Some(host);
            }
        }
        None
    }

    /// Envoy's pick, reading active requests from `active` (`dyn`, not
    /// generic: the page carries one body for both callers).
    fn choose(&mut self, rng: &mut Rng, active: &dyn Counts) -> usize {
        if self.schedule.is_none() && self.turn.is_some() {
            return self.next_in_turn(None).unwrap_or(0);
        }
        let weight = self
            .schedule
            .as_ref()
            .and_then(|s| s.peek())
            .map(|Reverse(next)| self.weight_of(next.host, active.unfinished(next.host)));
        let Some(schedule) = self.schedule.as_mut() else {
            let n = self.weights.len();
            let candidate = crate::rng::below(rng, n as u64) as usize;
            let sampled = crate::rng::below(rng, n as u64) as usize;
            return if active.unfinished(sampled) < active.unfinished(candidate) {
                sampled
            } else {
                candidate
            };
        };
        // The earliest entry re-added in place: one sift instead of a pop
        // and a push, and the same picks, since no two entries tie.
        let Some(mut next) = schedule.peek_mut() else {
            return 0;
        };
        let host = next.0.host;
        self.clock = next.0.deadline;
        self.order += 1;
        let weight = weight.unwrap_or(1.0);
        next.0 = Entry { deadline: self.clock + 1.0 / weight, order: self.order, host };
        host
    }

    /// `host` enters the schedule at `clock + 1 / weight`.
    fn schedule_host(&mut self, host: usize) {
        let weight = self.weight_of(host, self.active.get(host));
        if let Some(schedule) = self.schedule.as_mut() {
            self.order += 1;
            schedule.push(Reverse(Entry { deadline: self.clock + 1.0 / weight, order: self.order, host }));
        }
    }

    /// A new schedule of the scheduled hosts, each at `clock + 1 / weight`
    /// in pool order (or none, for equal weights).
    fn rebuild(&mut self) {
        let equal = self.weights.windows(2).all(|w| w[0] == w[1]);
        self.schedule = (!equal).then(BinaryHeap::new);
        for host in 0..self.weights.len() {
            if self.scheduled[host] {
                self.schedule_host(host);
            }
        }
    }

    /// The earliest scheduled host the pick may take; the hosts passed
    /// over keep their places.
    fn earliest_among(&mut self, eligible: &Eligible) -> Option<usize> {
        let schedule = self.schedule.as_mut()?;
        self.passed.clear();
        let mut found = None;
        while let Some(Reverse(next)) = schedule.pop() {
            if eligible.allows(next.host) {
                found = Some(next);
                break;
            }
            self.passed.push(Reverse(next));
        }
        schedule.extend(self.passed.drain(..));
        let next = found?;
        self.clock = next.deadline;
        self.schedule_host(next.host);
        Some(next.host)
    }
}

/// `weight / (active + 1)^bias`, with Envoy's two shortcuts: bias 0 is
/// the weight itself and bias 1 a plain division (so the default's
/// numbers are the division's, bit for bit).
fn effective_weight(weight: u32, active: u32, bias: f64) -> f64 {
    if bias == 0.0 {
        return f64::from(weight);
    }
    let divisor = f64::from(active) + 1.0;
    let divisor = if bias == 1.0 { divisor } else { libm::pow(divisor, bias) };
    f64::from(weight) / divisor
}

impl Balancer for LeastRequest {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        // Out of `self` while `choose` reads it (no allocation: an empty Vec).
        let active = core::mem::replace(&mut self.active, Unfinished::new(0));
        let host = self.choose(rng, &active);
        self.active = active;
        host
    }

    fn counts_at_pick(&self) -> bool {
        true
    }

    fn pick_counting(&mut self, _request: &Pick, rng: &mut Rng, unfinished: &dyn Counts) -> usize {
        self.choose(rng, unfinished)
    }

    fn dispatched(&mut self, server: usize) {
        self.active.add(server);
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        self.active.remove(server);
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        if self.schedule.is_none() && self.turn.is_some() {
            return self.next_in_turn(Some(eligible));
        }
        if self.schedule.is_none() {
            let n = self.weights.len();
            let candidate = uniform_among(n, rng, |s| eligible.allows(s))?;
            let sampled = uniform_among(n, rng, |s| eligible.allows(s))?;
            return Some(if self.active.get(sampled) < self.active.get(candidate) {
                sampled
            } else {
                candidate
            });
        }
        if let Some(host) = self.earliest_among(eligible) {
            return Some(host);
        }
        // Allowed hosts the schedule lacks (availability the rule was not
        // told of) join it, so an allowed host is always found.
        let missing: Vec<usize> =
            (0..self.weights.len()).filter(|&h| !self.scheduled[h] && eligible.allows(h)).collect();
        for &host in &missing {
            self.scheduled[host] = true;
            self.schedule_host(host);
        }
        if missing.is_empty() {
            None
        } else {
            self.earliest_among(eligible)
        }
    }

    fn reshape(&mut self, _members: &[bool], available: &[bool]) {
        if let Some(schedule) = self.schedule.as_mut() {
            schedule.retain(|Reverse(e)| available[e.host]);
        }
        for (host, &now) in available.iter().enumerate() {
            if now && !self.scheduled[host] {
                self.scheduled[host] = true;
                self.schedule_host(host);
            }
            self.scheduled[host] = now;
        }
    }

    fn reweight(&mut self, weights: &[u32]) {
        let weights = effective_weights(weights);
        if weights != self.weights {
            self.weights = weights;
            self.rebuild();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn idle_weighted_schedule_follows_the_weights() {
        // With no active requests EDF is weighted round robin: over one
        // period of total weight each host appears weight times.
        let mut pool = Pool::named(&["a", "b", "c"]);
        pool.weights = alloc::vec![5, 1, 1];
        let mut lr = LeastRequest::new(&pool);
        let mut rng = Rng::seed_from_u64(1);
        let req = Pick { now_ms: 0.0, user: 1 };
        let mut counts = [0u32; 3];
        for _ in 0..700 {
            counts[lr.pick(&req, &mut rng)] += 1;
        }
        // Deadlines are sums of 1/5 in floating point; allow one pick of drift.
        assert!(counts[0].abs_diff(500) <= 1 && counts[1].abs_diff(100) <= 1, "{counts:?}");
    }

    /// Envoy's own `LeastRequestLoadBalancerTest.WeightImbalance`
    /// (test/common/upstream/load_balancer_impl_test.cc): weights 1 and 2
    /// idle, then one request active on the second, then one on the first
    /// and none on the second.
    #[test]
    fn envoys_weight_imbalance_vector() {
        let mut pool = Pool::named(&["h0", "h1"]);
        pool.weights = alloc::vec![1, 2];
        let mut lr = LeastRequest::new(&pool);
        let mut rng = Rng::seed_from_u64(0);
        let req = Pick { now_ms: 0.0, user: 1 };
        let mut picks =
            |lr: &mut LeastRequest, n: usize| (0..n).map(|_| lr.pick(&req, &mut rng)).collect::<Vec<_>>();
        assert_eq!(picks(&mut lr, 6), [1, 0, 1, 1, 0, 1]);
        lr.dispatched(1);
        assert_eq!(picks(&mut lr, 5), [1, 0, 1, 0, 1]);
        lr.dispatched(0);
        lr.completed(1, 0.0, 0.0);
        assert_eq!(picks(&mut lr, 10), [0, 1, 1, 1, 0, 1, 1, 1, 1, 0]);
    }

    /// Envoy's own `LeastRequestLoadBalancerTest.WeightImbalanceWithCustomActiveRequestBias`
    /// (bias 0): weights 1 and 2 with one request active on the second
    /// keep the idle 2:1 turn, "regardless of the active request count".
    #[test]
    fn envoys_bias_zero_vector() {
        let mut pool = Pool::named(&["h0", "h1"]);
        pool.weights = alloc::vec![1, 2];
        pool.active_request_bias = 0.0;
        let mut lr = LeastRequest::new(&pool);
        lr.dispatched(1);
        let mut rng = Rng::seed_from_u64(0);
        let req = Pick { now_ms: 0.0, user: 1 };
        let picks: Vec<usize> = (0..6).map(|_| lr.pick(&req, &mut rng)).collect();
        assert_eq!(picks, [1, 0, 1, 1, 0, 1]);
    }

    /// A bias of 2 divides by the square: weight 8 with one active
    /// request is 8 / 4 = 2, the same as idle weight 2, so they alternate
    /// (with bias 1 it would be 4 against 2).
    #[test]
    fn the_bias_is_a_power_of_active_plus_one() {
        assert_eq!(effective_weight(8, 1, 2.0), 2.0);
        assert_eq!(effective_weight(8, 1, 1.0), 4.0);
        assert_eq!(effective_weight(8, 3, 0.0), 8.0);
        assert_eq!(effective_weight(9, 8, 0.5), 3.0);
    }

    #[test]
    fn active_requests_divide_the_weight() {
        // a has weight 2 and one active request: 2 / (1 + 1) = 1, the same
        // as idle b, so they alternate.
        let mut pool = Pool::named(&["a", "b"]);
        pool.weights = alloc::vec![2, 1];
        let mut lr = LeastRequest::new(&pool);
        lr.dispatched(0);
        let mut rng = Rng::seed_from_u64(1);
        let req = Pick { now_ms: 0.0, user: 1 };
        let mut counts = [0u32; 2];
        for _ in 0..100 {
            counts[lr.pick(&req, &mut rng)] += 1;
        }
        assert!(counts[0].abs_diff(counts[1]) <= 2, "{counts:?}");
    }

    /// Equal weights: two samples among the allowed; the busy allowed host
    /// loses to the idle one whenever both are drawn, and never wins.
    #[test]
    fn equal_weights_sample_the_allowed_and_the_less_active_wins() {
        let mut lr = LeastRequest::new(&Pool::named(&["a", "b", "c", "d"]));
        lr.dispatched(1);
        let mut rng = Rng::seed_from_u64(2);
        let req = Pick { now_ms: 0.0, user: 1 };
        let available = [false, true, true, false];
        let eligible = Eligible { available: &available, tried: &[], every_available: false };
        let picks: Vec<usize> =
            (0..200).map(|_| lr.pick_eligible(&req, &mut rng, &eligible).unwrap()).collect();
        let busy = picks.iter().filter(|&&s| s == 1).count();
        // b wins only when both samples are b: a quarter of the picks.
        assert!((25..75).contains(&busy), "{busy} of 200");
        assert!(picks.iter().all(|&s| s == 1 || s == 2));
    }

    /// Weighted: a host taken out of the schedule and back is scheduled
    /// from the clock on (no burst of overdue picks), and the idle shares
    /// follow the weights of the hosts left.
    #[test]
    fn the_schedule_holds_the_available_hosts() {
        let mut pool = Pool::named(&["a", "b", "c"]);
        pool.weights = alloc::vec![2, 1, 1];
        let mut lr = LeastRequest::new(&pool);
        let mut rng = Rng::seed_from_u64(1);
        let req = Pick { now_ms: 0.0, user: 1 };
        let members = [true; 3];
        let without_c = [true, true, false];
        lr.reshape(&members, &without_c);
        let eligible = Eligible { available: &without_c, tried: &[], every_available: false };
        let mut counts = [0u32; 3];
        for _ in 0..300 {
            counts[lr.pick_eligible(&req, &mut rng, &eligible).unwrap()] += 1;
        }
        assert!(counts[0].abs_diff(200) <= 1 && counts[2] == 0, "{counts:?}");
        lr.reshape(&members, &members);
        let everyone = Eligible { available: &members, tried: &[], every_available: true };
        let next: Vec<usize> = (0..8).map(|_| lr.pick_eligible(&req, &mut rng, &everyone).unwrap()).collect();
        assert!(next.iter().filter(|&&s| s == 2).count() <= 3, "c back, no burst: {next:?}");
        // A tried host is passed over and keeps its place.
        let tried = [0u32];
        let retry = Eligible { available: &members, tried: &tried, every_available: true };
        assert_ne!(lr.pick_eligible(&req, &mut rng, &retry), Some(0));
    }

    /// Slow start: counts stay, weights switch the modes.
    #[test]
    fn reweight_keeps_active_counts_and_switches_modes() {
        let mut lr = LeastRequest::new(&Pool::named(&["a", "b"]));
        lr.dispatched(0);
        lr.reweight(&[256, 25]);
        assert!(lr.schedule.is_some());
        assert_eq!(lr.active.get(0), 1);
        lr.reweight(&[256, 256]);
        assert!(lr.schedule.is_none());
        let mut rng = Rng::seed_from_u64(3);
        let req = Pick { now_ms: 0.0, user: 1 };
        // a is busy: it wins only when both samples are a.
        let a = (0..400).filter(|_| lr.pick(&req, &mut rng) == 0).count();
        assert!((60..140).contains(&a), "{a} of 400");
    }
}
