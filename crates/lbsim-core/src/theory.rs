//! Queueing theory the simulator is checked against, and that the page
//! draws over the `theory` preset: M/M/c (Erlang C), the Erlang-N/M/1 queue
//! that round robin over N single-slot servers makes, and the mean-field
//! limit of two choices.
//!
//! Rates are per ms; `mu` is one slot's service rate.

use crate::scenario::{Scenario, WorkKind};

/// Erlang B blocking probability for `c` servers and offered traffic `a`,
/// by the stable recursion `B(k) = a B(k-1) / (k + a B(k-1))`.
pub fn erlang_b(c: u32, a: f64) -> f64 {
    (1..=c).fold(1.0, |b, k| a * b / (f64::from(k) + a * b))
}

/// Erlang C: probability that an arrival waits in M/M/c with offered traffic
/// `a = lambda / mu` (< c).
pub fn erlang_c(c: u32, a: f64) -> f64 {
    let b = erlang_b(c, a);
    let rho = a / f64::from(c);
    b / (1.0 - rho * (1.0 - b))
}

/// An M/M/c queue.
#[derive(Clone, Copy, Debug)]
pub struct MMc {
    /// Slots.
    pub c: u32,
    /// Arrival rate per ms.
    pub lambda: f64,
    /// Service rate of one slot per ms.
    pub mu: f64,
}

impl MMc {
    /// The M/M/c model of a scenario when theory has an answer for it: one
    /// server (so no rule chooses anything), exponential work and Poisson
    /// arrivals, below saturation. `None` otherwise.
    pub fn of_scenario(s: &Scenario) -> Option<MMc> {
        if s.servers != 1 || s.work != WorkKind::Exponential {
            return None;
        }
        let m = MMc { c: s.slots, lambda: s.rate_per_s() / 1000.0, mu: s.speed(0) / s.mean_ms };
        (m.lambda < f64::from(m.c) * m.mu).then_some(m)
    }

    /// Probability of waiting.
    pub fn wait_probability(&self) -> f64 {
        erlang_c(self.c, self.lambda / self.mu)
    }

    /// Rate of the exponential wait of those who wait: `c mu - lambda`.
    fn theta(&self) -> f64 {
        f64::from(self.c) * self.mu - self.lambda
    }

    /// Mean wait in ms.
    pub fn mean_wait(&self) -> f64 {
        self.wait_probability() / self.theta()
    }

    /// Mean sojourn (wait + service) in ms.
    pub fn mean_sojourn(&self) -> f64 {
        self.mean_wait() + 1.0 / self.mu
    }

    /// `P(sojourn > t)`: wait 0 with probability `1 - C`, else exponential
    /// with rate theta, plus an exponential service with rate mu.
    pub fn sojourn_tail(&self, t: f64) -> f64 {
        let (c, mu, theta) = (self.wait_probability(), self.mu, self.theta());
        let served = libm::exp(-mu * t);
        let waited = if (theta - mu).abs() < 1e-12 * mu {
            (1.0 + mu * t) * served
        } else {
            (theta * served - mu * libm::exp(-theta * t)) / (theta - mu)
        };
        (1.0 - c) * served + c * waited
    }

    /// The sojourn-time CDF at `t`.
    pub fn sojourn_cdf(&self, t: f64) -> f64 {
        1.0 - self.sojourn_tail(t)
    }

    /// The p-quantile of the sojourn time, by bisection on the tail.
    pub fn sojourn_quantile(&self, p: f64) -> f64 {
        let (mut lo, mut hi) = (0.0, 1.0 / self.mu);
        while self.sojourn_cdf(hi) < p {
            hi *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.sojourn_cdf(mid) < p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

/// Round robin over `n` single-slot servers with exponential service: each
/// server sees Erlang-n interarrivals, a GI/M/1 queue. Returns the mean
/// sojourn `1 / (mu (1 - sigma))` where sigma solves
/// `sigma = (lambda / (lambda + mu (1 - sigma)))^n` (lambda the total rate).
pub fn round_robin_mean_sojourn(n: u32, lambda: f64, mu: f64) -> f64 {
    let mut sigma: f64 = 0.5;
    // Fixed-point iteration converges for a stable queue (lambda < n mu).
    for _ in 0..10_000 {
        let next = libm::pow(lambda / (lambda + mu * (1.0 - sigma)), f64::from(n));
        if (next - sigma).abs() < 1e-15 {
            sigma = next;
            break;
        }
        sigma = next;
    }
    1.0 / (mu * (1.0 - sigma))
}

/// Mean sojourn, in units of the mean service time, of two choices over
/// many single-slot servers at per-server load `lambda` (Mitzenmacher's
/// mean-field limit): `sum_{i >= 1} lambda^(2^i - 2)`.
pub fn power_of_two_mean_sojourn(lambda: f64) -> f64 {
    let mut total = 0.0;
    let mut exponent = 0.0;
    let mut i = 1;
    loop {
        let term = libm::pow(lambda, exponent);
        total += term;
        if term < 1e-16 || i > 64 {
            return total;
        }
        i += 1;
        exponent = libm::pow(2.0, f64::from(i)) - 2.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erlang_c_textbook_values() {
        // Two servers, a = 1 erlang: C = 1/3 (closed form a^2/(2(2-a)) / (1 + a + a^2/(2(2-a)))).
        assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
        // One server: C = rho.
        assert!((erlang_c(1, 0.7) - 0.7).abs() < 1e-12);
    }

    #[test]
    fn one_server_round_robin_is_mm1() {
        // With n = 1 the Erlang-1 arrivals are Poisson: M/M/1, T = 1/(mu - lambda).
        let t = round_robin_mean_sojourn(1, 0.6, 1.0);
        assert!((t - 2.5).abs() < 1e-9);
    }

    #[test]
    fn mm1_sojourn_is_exponential() {
        // M/M/1: sojourn ~ Exp(mu - lambda).
        let q = MMc { c: 1, lambda: 0.5, mu: 1.0 };
        assert!((q.sojourn_tail(3.0) - libm::exp(-1.5)).abs() < 1e-12);
        assert!((q.sojourn_quantile(0.99) - libm::log(100.0) / 0.5).abs() < 1e-9);
    }

    #[test]
    fn power_of_two_limit_at_light_and_heavy_load() {
        assert!((power_of_two_mean_sojourn(0.0) - 1.0).abs() < 1e-12);
        // lambda = 0.9: 1 + 0.81 + 0.531441 + 0.228768 + 0.042391 + 0.001461 + ... = 2.61406
        let t = power_of_two_mean_sojourn(0.9);
        assert!((t - 2.61406).abs() < 1e-5, "{t}");
    }
}
