//! Envoy's least request load balancer.
//!
//! Equal weights: sample two hosts at random *with* replacement and switch
//! from the first to the second only if it has strictly fewer active
//! requests (Envoy's `choice_count` 2).
//!
//! Unequal weights: Envoy's earliest-deadline-first weighted round robin,
//! where a host's weight is recomputed each time it is picked as
//! `weight / (active + 1)^bias` with `active_request_bias` 1.0. Each host
//! sits in the schedule with deadline `now + 1 / weight`; a pick pops the
//! earliest deadline (insertion order breaks ties) and re-adds the host.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::{Ordering, Reverse};

use rand::Rng as _;

use super::{Balancer, Pick, Pool, Rng, Unfinished};

/// Envoy's default `active_request_bias`.
pub const ACTIVE_REQUEST_BIAS: f64 = 1.0;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    deadline: f64,
    order: u64,
    host: usize,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.deadline.total_cmp(&other.deadline).then(self.order.cmp(&other.order))
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
}

impl LeastRequest {
    /// Least request over `pool`.
    pub fn new(pool: &Pool) -> LeastRequest {
        let schedule = (!pool.equal_weights()).then(|| {
            (0..pool.len())
                .map(|host| {
                    let deadline = 1.0 / effective_weight(pool.weights[host], 0);
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
        }
    }
}

/// `weight / (active + 1)^bias`.
fn effective_weight(weight: u32, active: u32) -> f64 {
    let divisor = f64::from(active) + 1.0;
    let divisor = if ACTIVE_REQUEST_BIAS == 1.0 { divisor } else { libm::pow(divisor, ACTIVE_REQUEST_BIAS) };
    f64::from(weight) / divisor
}

impl Balancer for LeastRequest {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        let Some(schedule) = self.schedule.as_mut() else {
            let n = self.weights.len();
            let candidate = rng.random_range(0..n as u64) as usize;
            let sampled = rng.random_range(0..n as u64) as usize;
            return if self.active.get(sampled) < self.active.get(candidate) { sampled } else { candidate };
        };
        let Some(Reverse(next)) = schedule.pop() else {
            return 0;
        };
        self.clock = next.deadline;
        self.order += 1;
        let weight = effective_weight(self.weights[next.host], self.active.get(next.host));
        schedule.push(Reverse(Entry {
            deadline: self.clock + 1.0 / weight,
            order: self.order,
            host: next.host,
        }));
        next.host
    }

    fn dispatched(&mut self, server: usize) {
        self.active.add(server);
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        self.active.remove(server);
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
}
