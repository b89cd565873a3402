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
//!
//! In a fleet run the two are distinct allowed servers (one allowed: that
//! one). Slow start divides each cost by the server's effective weight
//! (docs/model.md#order-and-weights-in-the-loop); while the effective
//! weights are equal the division is left out, so it changes no
//! comparison. EWMAs and counts are kept.
//!
//! At layer 4 the count is of open connections and the EWMA learns from
//! the requests on the connections this copy placed
//! (docs/model.md#caches-and-connections).

use alloc::vec::Vec;

use super::rule::{effective_weights, uniform_among, Balancer, Eligible, Pick, Pool, Unfinished};
use crate::rng::Rng;

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
    /// Slow start's effective weights, while they differ.
    weights: Option<Vec<u32>>,
}

impl PeakEwma {
    /// Peak EWMA over `pool`.
    pub fn new(pool: &Pool) -> PeakEwma {
        PeakEwma {
            estimates: alloc::vec![Estimate::default(); pool.len()],
            active: Unfinished::new(pool.len()),
            weights: None,
        }
    }

    /// Whether `a` is the better choice (a tie goes to `a`): the lower
    /// cost, per effective weight under slow start.
    fn prefers(&mut self, a: usize, b: usize, now_ms: f64) -> bool {
        let (la, lb) = (self.load(a, now_ms), self.load(b, now_ms));
        match &self.weights {
            None => la <= lb,
            Some(w) => la / f64::from(w[a]) <= lb / f64::from(w[b]),
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
        let a = crate::rng::below(rng, n as u64) as usize;
        let mut b = crate::rng::below(rng, n as u64 - 1) as usize;
        if b >= a {
            b += 1;
        }
        if self.prefers(a, b, request.now_ms) {
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

    fn closed(&mut self, server: usize, _now_ms: f64) {
        self.active.remove(server);
    }

    fn observed(&mut self, server: usize, now_ms: f64, latency_ms: f64) {
        self.estimates[server].observe(now_ms, latency_ms);
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        let n = self.estimates.len();
        let a = uniform_among(n, rng, |s| eligible.allows(s))?;
        let Some(b) = uniform_among(n, rng, |s| s != a && eligible.allows(s)) else {
            return Some(a);
        };
        Some(if self.prefers(a, b, request.now_ms) { a } else { b })
    }

    fn reweight(&mut self, weights: &[u32]) {
        let weights = effective_weights(weights);
        self.weights = (!weights.windows(2).all(|w| w[0] == w[1])).then_some(weights);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;

    #[test]
    fn peaks_jump_and_decay_follows_the_time_constant() {
        let mut e = Estimate::default();
        e.observe(0.0, 100.0);
        assert_eq!(e.cost, 100.0);
        // One time constant later a 0 ms observation leaves 1/e of the peak.
        e.observe(DECAY_MS, 0.0);
        assert!((e.cost - 100.0 / core::f64::consts::E).abs() < 1e-9);
    }

    fn observed(latencies: &[f64]) -> PeakEwma {
        let mut pe = PeakEwma::new(&checks::pool(&alloc::vec![1; latencies.len()]));
        for (s, &l) in latencies.iter().enumerate() {
            pe.dispatched(s);
            pe.completed(s, 0.0, l);
        }
        pe
    }

    /// Two allowed servers: every pick compares them and the cheaper wins.
    #[test]
    fn the_cheaper_of_two_allowed_wins() {
        let mut pe = observed(&[1.0, 50.0, 10.0, 1.0]);
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(1);
        let request = Pick { now_ms: 0.0, user: 1 };
        let available = [false, true, true, true];
        let tried = [3u32];
        let eligible = Eligible { available: &available, tried: &tried, every_available: false };
        for _ in 0..100 {
            assert_eq!(pe.pick_eligible(&request, &mut rng, &eligible), Some(2));
        }
    }

    /// Slow start: the cost is divided by the effective weight, and the
    /// EWMAs survive it: s1 (10 ms) at a tenth of its weight costs more
    /// than s2 (50 ms) at full weight; ramped up, s1 is the cheaper again.
    #[test]
    fn reweight_divides_the_cost_and_keeps_the_estimates() {
        let mut pe = observed(&[10.0, 50.0]);
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(1);
        let request = Pick { now_ms: 0.0, user: 1 };
        pe.reweight(&[25, 256]);
        assert!((0..20).all(|_| pe.pick(&request, &mut rng) == 1));
        pe.reweight(&[256, 256]);
        assert!(pe.weights.is_none());
        assert!((0..20).all(|_| pe.pick(&request, &mut rng) == 0));
    }
}
