//! Peak EWMA, as Finagle's `PeakEwma` balancer (and Linkerd's): two choices
//! on cost = peak-sensitive EWMA of observed latency x (active + 1).
//!
//! A latency above the current estimate replaces it at once (the peak);
//! below it, the estimate decays toward it with weight `exp(-dt / tau)`,
//! tau = 10 s (Finagle's default decay time). Reading the cost decays it
//! toward 0 the same way, so an idle server looks better over time. A
//! server never observed but with requests pending costs a large penalty
//! (Finagle's `Long.MaxValue >> 16`) so an unknown server is not flooded.
//! Two distinct servers are sampled uniformly (weights are not used, as in
//! Finagle); a tie goes to the first.

use alloc::vec::Vec;

use rand::Rng as _;

use super::{Balancer, Pick, Pool, Rng, Unfinished};

/// Finagle's default decay time, in ms.
pub const DECAY_MS: f64 = 10_000.0;
/// Cost of a server with pending requests and no observation yet.
pub const PENALTY: f64 = (i64::MAX >> 16) as f64;

#[derive(Clone, Copy, Debug, Default)]
struct Estimate {
    cost: f64,
    stamp_ms: f64,
}

impl Estimate {
    fn observe(&mut self, now_ms: f64, latency_ms: f64) {
        let elapsed = (now_ms - self.stamp_ms).max(0.0);
        let w = libm::exp(-elapsed / DECAY_MS);
        self.cost = if latency_ms > self.cost { latency_ms } else { self.cost * w + latency_ms * (1.0 - w) };
        self.stamp_ms = now_ms;
    }
}

/// Peak EWMA with two choices.
pub struct PeakEwma {
    estimates: Vec<Estimate>,
    active: Unfinished,
}

impl PeakEwma {
    /// Peak EWMA over `pool`.
    pub fn new(pool: &Pool) -> PeakEwma {
        PeakEwma {
            estimates: alloc::vec![Estimate::default(); pool.len()],
            active: Unfinished::new(pool.len()),
        }
    }

    fn load(&mut self, server: usize, now_ms: f64) -> f64 {
        let estimate = &mut self.estimates[server];
        estimate.observe(now_ms, 0.0);
        let active = self.active.get(server);
        if estimate.cost == 0.0 && active != 0 {
            PENALTY + f64::from(active)
        } else {
            estimate.cost * (f64::from(active) + 1.0)
        }
    }
}

impl Balancer for PeakEwma {
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize {
        let n = self.estimates.len();
        if n == 1 {
            return 0;
        }
        let a = rng.random_range(0..n as u64) as usize;
        let mut b = rng.random_range(0..n as u64 - 1) as usize;
        if b >= a {
            b += 1;
        }
        if self.load(a, request.now_ms) <= self.load(b, request.now_ms) {
            a
        } else {
            b
        }
    }

    fn dispatched(&mut self, server: usize) {
        self.active.add(server);
    }

    fn completed(&mut self, server: usize, now_ms: f64, latency_ms: f64) {
        self.active.remove(server);
        self.estimates[server].observe(now_ms, latency_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peaks_jump_and_decay_follows_the_time_constant() {
        let mut e = Estimate::default();
        e.observe(0.0, 100.0);
        assert_eq!(e.cost, 100.0);
        // One time constant later a 0 ms observation leaves 1/e of the peak.
        e.observe(DECAY_MS, 0.0);
        assert!((e.cost - 100.0 / core::f64::consts::E).abs() < 1e-9);
    }
}
