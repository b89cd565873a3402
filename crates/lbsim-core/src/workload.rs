//! The request stream every algorithm sees: arrival times, work and users,
//! each from its own ChaCha stream derived from the seed (common random
//! numbers). Changing the work distribution does not move the users;
//! changing anything but the rate does not move the arrival draws (with a
//! target load, the same draws are scaled by the derived rate).

use alloc::vec::Vec;

use rand::distr::{Distribution, Uniform};
use rand::{Rng as _, SeedableRng};

use crate::balancer::Rng;
use crate::scenario::{Scenario, WorkKind};
use crate::ziggurat::{Exponential, Normal};

/// Stream ids; each algorithm's own stream is derived from its id.
mod stream {
    pub const ARRIVALS: u64 = 1;
    pub const WORK: u64 = 2;
    pub const USERS: u64 = 3;
    pub const COPIES: u64 = 4;
}

/// The independent stream `id` of `seed`.
pub fn rng(seed: u64, id: u64) -> Rng {
    let mut rng = Rng::seed_from_u64(seed);
    rng.set_stream(id);
    rng
}

/// The stream of an algorithm's own choices, keyed by its id so that adding
/// or reordering algorithms never changes another's draws.
pub fn algorithm_rng(seed: u64, algorithm: &str) -> Rng {
    rng(seed, 1_000 + u64::from(crate::hash::fnv1a32(algorithm.as_bytes())))
}

/// One request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// Arrival time in ms.
    pub arrival_ms: f64,
    /// Work in ms at speed 1.
    pub work_ms: f64,
    /// User id, 1-based (rank 1 is the heaviest).
    pub user: u32,
    /// Whether the request is of the slow class (bimodal work).
    pub slow: bool,
    /// The balancer copy it reaches.
    pub copy: u16,
}

/// The whole request stream of a scenario.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Requests in arrival order.
    pub requests: Vec<Request>,
    /// Whether requests carry quick/slow classes.
    pub classed: bool,
}

/// The Zipf weights `1 / k^s` for ranks 1..=users.
pub fn zipf_weights(users: u32, s: f64) -> Vec<f64> {
    (1..=users).map(|k| 1.0 / libm::pow(f64::from(k), s)).collect()
}

/// Zipf by inverse CDF over the exact weights, drawn exactly as rand's
/// `WeightedIndex` draws it (the same uniform draw over the same running
/// sums, so the same users), but found through a guide table instead of a
/// binary search: `guide[g]` counts the running sums in buckets below `g`,
/// all at most any draw in bucket `g`, so a short scan from there ends where
/// the binary search would. Most buckets hold one or two sums: O(1) with
/// one predictable branch, where the search took a dozen unpredictable ones.
struct Popularity {
    /// The running sums before each weight but the first (`WeightedIndex`'s
    /// `cumulative_weights`).
    sums: Vec<f64>,
    draw: Uniform<f64>,
    guide: Vec<u32>,
    scale: f64,
}

impl Popularity {
    fn new(weights: &[f64]) -> Popularity {
        let mut sums = Vec::with_capacity(weights.len().saturating_sub(1));
        let mut total = weights.first().copied().unwrap_or(1.0);
        for &w in weights.iter().skip(1) {
            sums.push(total);
            total += w;
        }
        let buckets = weights.len().max(1);
        let scale = buckets as f64 / total;
        let mut guide = alloc::vec![0u32; buckets];
        let mut below = 0;
        for (g, entry) in guide.iter_mut().enumerate() {
            while below < sums.len() && Self::bucket_of(sums[below], scale, buckets) < g {
                below += 1;
            }
            *entry = below as u32;
        }
        let draw = Uniform::new(0.0, total).unwrap_or_else(|_| Uniform::new(0.0, 1.0).expect("a range"));
        Popularity { sums, draw, guide, scale }
    }

    /// The bucket of a value: monotone in it (a larger value never lands in
    /// a lower bucket), which is all the guide needs.
    #[inline]
    fn bucket_of(v: f64, scale: f64, buckets: usize) -> usize {
        crate::num::whole(v * scale).min(buckets - 1)
    }

    /// A user index, 0-based.
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        let x = self.draw.sample(rng);
        let mut i = self.guide[Self::bucket_of(x, self.scale, self.guide.len())] as usize;
        while i < self.sums.len() && self.sums[i] <= x {
            i += 1;
        }
        i
    }
}

impl Workload {
    /// Draws the request stream of a (validated) scenario.
    pub fn generate(scenario: &Scenario) -> Workload {
        let n = scenario.requests as usize;
        let rate_per_ms = scenario.rate_per_s() / 1000.0;
        let mut arrivals = rng(scenario.seed, stream::ARRIVALS);
        let mut work = rng(scenario.seed, stream::WORK);
        let mut users = rng(scenario.seed, stream::USERS);
        let mut copies = rng(scenario.seed, stream::COPIES);
        // Zipf by inverse CDF over the exact weights (rand's WeightedIndex):
        // only additions and comparisons when sampling, so every target
        // draws the same users, and shares are exactly k^-s / H(U, s).
        // (rand_distr's Zipf samples with num-traits' float functions, which
        // switch to the platform's libm as soon as any crate in the build
        // enables num-traits/std, as plotters and criterion do; native and
        // wasm could then draw different users.)
        let popularity = Popularity::new(&zipf_weights(scenario.users, scenario.zipf));
        let lognormal_mu = libm::log(scenario.mean_ms) - scenario.sigma * scenario.sigma / 2.0;
        // Gaps and work by the ziggurat method, in libm's bits on every
        // target (see `ziggurat` for why not rand_distr's).
        let exponential = Exponential::default();
        let normal = (scenario.work == WorkKind::Lognormal).then(Normal::default);
        let mut clock = 0.0;
        let requests = (0..n)
            .map(|_| {
                clock += exponential.sample(&mut arrivals) / rate_per_ms;
                let (work_ms, slow) = match scenario.work {
                    WorkKind::Bimodal => {
                        let slow = work.random::<f64>() < scenario.slow_share;
                        (if slow { scenario.slow_ms } else { scenario.fast_ms }, slow)
                    }
                    WorkKind::Constant => (scenario.mean_ms, false),
                    WorkKind::Exponential => (exponential.sample(&mut work) * scenario.mean_ms, false),
                    WorkKind::Lognormal => {
                        let z = normal.as_ref().map_or(0.0, |n| n.sample(&mut work));
                        (libm::exp(lognormal_mu + scenario.sigma * z), false)
                    }
                };
                let user = popularity.sample(&mut users) as u32 + 1;
                let copy = if scenario.balancers > 1 {
                    copies.random_range(0..scenario.balancers) as u16
                } else {
                    0
                };
                Request { arrival_ms: clock, work_ms, user, slow, copy }
            })
            .collect();
        Workload { requests, classed: scenario.work == WorkKind::Bimodal }
    }

    /// Given requests (a log's) as the workload of a (validated) scenario:
    /// arrivals divided by its `time-scale`, copies drawn from the seed's
    /// copies stream exactly as [`Workload::generate`] draws them, so a
    /// drawn workload written out and read back runs the same.
    pub fn given(scenario: &Scenario, given: &[Request], classed: bool) -> Workload {
        let mut copies = rng(scenario.seed, stream::COPIES);
        let requests = given
            .iter()
            .map(|r| Request {
                arrival_ms: r.arrival_ms / scenario.time_scale,
                copy: if scenario.balancers > 1 {
                    copies.random_range(0..scenario.balancers) as u16
                } else {
                    0
                },
                ..*r
            })
            .collect();
        Workload { requests, classed }
    }

    /// Time of the last arrival in ms.
    pub fn horizon_ms(&self) -> f64 {
        self.requests.last().map_or(0.0, |r| r.arrival_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_changes_leave_arrival_draws_and_users_alone() {
        let base = Scenario { requests: 500, rate: Some(300.0), ..Scenario::default() };
        let other = Scenario { slow_share: 0.4, slow_ms: 900.0, ..base.clone() };
        let (a, b) = (Workload::generate(&base), Workload::generate(&other));
        for (x, y) in a.requests.iter().zip(&b.requests) {
            assert_eq!((x.arrival_ms, x.user), (y.arrival_ms, y.user));
            // Common random numbers: a request slow at 10% stays slow at 40%.
            assert!(!x.slow || y.slow);
        }
    }

    #[test]
    fn the_guide_table_draws_the_users_rands_weighted_index_draws() {
        use rand::distr::weighted::WeightedIndex;
        for (users, s) in
            [(1, 1.0), (2, 0.0), (2_000, 1.0), (2_000, 0.0), (50, 5.0), (100_000, 0.7), (7, 1.3)]
        {
            let weights = zipf_weights(users, s);
            let reference = WeightedIndex::new(&weights).expect("positive weights");
            let ours = Popularity::new(&weights);
            let (mut a, mut b) = (rng(9, 3), rng(9, 3));
            for i in 0..20_000 {
                assert_eq!(ours.sample(&mut a), reference.sample(&mut b), "users {users}, s {s}, draw {i}");
            }
        }
    }

    #[test]
    fn mean_work_of_defaults_is_58_ms() {
        assert!((Scenario::default().mean_work_ms() - 58.0).abs() < 1e-12);
    }
}
