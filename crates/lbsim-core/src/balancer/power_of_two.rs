//! Power of two choices, as NGINX `random two least_conn` and HAProxy
//! `random(2)`: draw two distinct servers (with probability proportional to
//! weight) and send to the one with fewer unfinished requests per weight.
//! As in NGINX, a tie goes to the second server drawn.
//!
//! In a fleet run both are drawn from the allowed servers (as NGINX's
//! `ngx_http_upstream_peek_random_peer` redraws a peer that is down or
//! tried), the second distinct from the first; with one allowed server,
//! that one. Slow start's effective weights set both the draw and the
//! comparison.

use alloc::vec::Vec;

use super::rule::{
    effective_weights, fewer_per_weight, Balancer, Counts, Eligible, Pick, Pool, Unfinished, WeightedDraw,
};
use crate::rng::Rng;

/// Power of two choices.
pub struct PowerOfTwo {
    draw: WeightedDraw,
    weights: Vec<u32>,
    unfinished: Unfinished,
}

impl PowerOfTwo {
    /// Two choices over `pool`.
    pub fn new(pool: &Pool) -> PowerOfTwo {
        PowerOfTwo {
            draw: WeightedDraw::new(pool),
            weights: pool.weights.clone(),
            unfinished: Unfinished::new(pool.len()),
        }
    }
}

/// The fewer unfinished per weight of two distinct servers drawn by weight
/// (`dyn`, not generic: the page carries one body for both callers).
fn two_choices(draw: &WeightedDraw, weights: &[u32], rng: &mut Rng, unfinished: &dyn Counts) -> usize {
    if weights.len() == 1 {
        return 0;
    }
    let (first, second) = draw.two_distinct(rng);
    let (a, b) = (unfinished.unfinished(first), unfinished.unfinished(second));
    if fewer_per_weight(a, weights[first], b, weights[second]) {
        first
    } else {
        second
    }
}

impl Balancer for PowerOfTwo {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        two_choices(&self.draw, &self.weights, rng, &self.unfinished)
    }

    fn counts_at_pick(&self) -> bool {
        true
    }

    fn pick_counting(&mut self, _request: &Pick, rng: &mut Rng, unfinished: &dyn Counts) -> usize {
        two_choices(&self.draw, &self.weights, rng, unfinished)
    }

    fn dispatched(&mut self, server: usize) {
        self.unfinished.add(server);
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        self.unfinished.remove(server);
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        let first = self.draw.one_among(rng, |s| eligible.allows(s))?;
        let Some(second) = self.draw.one_among(rng, |s| s != first && eligible.allows(s)) else {
            return Some(first);
        };
        let (a, b) = (self.unfinished.get(first), self.unfinished.get(second));
        Some(if fewer_per_weight(a, self.weights[first], b, self.weights[second]) { first } else { second })
    }

    fn reweight(&mut self, weights: &[u32]) {
        self.weights = effective_weights(weights);
        self.draw = WeightedDraw::of(&self.weights);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;
    use rand::SeedableRng;

    /// Two allowed servers, one busy: every pick compares the two and the
    /// idle one wins; with the idle one tried, the busy one is the only
    /// choice left.
    #[test]
    fn the_less_loaded_of_two_allowed_wins() {
        let mut p2c = PowerOfTwo::new(&checks::pool(&[1, 1, 1, 1]));
        p2c.dispatched(2);
        let mut rng = Rng::seed_from_u64(3);
        let request = Pick { now_ms: 0.0, user: 1 };
        let available = [false, true, true, false];
        let eligible = Eligible { available: &available, tried: &[], every_available: false };
        for _ in 0..100 {
            assert_eq!(p2c.pick_eligible(&request, &mut rng, &eligible), Some(1));
        }
        let eligible = Eligible { available: &available, tried: &[1], every_available: false };
        assert_eq!(p2c.pick_eligible(&request, &mut rng, &eligible), Some(2));
    }

    /// Slow start divides the count by the effective weight: 2 on a server
    /// at full weight (512) is less per weight than 1 on one at a tenth
    /// (25), so the full one wins though it holds more.
    #[test]
    fn reweight_keeps_counts_and_compares_per_effective_weight() {
        let mut p2c = PowerOfTwo::new(&checks::pool(&[2, 1]));
        p2c.dispatched(0);
        p2c.dispatched(0);
        p2c.dispatched(1);
        p2c.reweight(&[512, 25]);
        let mut rng = Rng::seed_from_u64(4);
        let request = Pick { now_ms: 0.0, user: 1 };
        for _ in 0..50 {
            assert_eq!(p2c.pick(&request, &mut rng), 0);
        }
        p2c.reweight(&[512, 256]);
        // 2 / 512 against 1 / 256: a tie, which goes to the second drawn.
        let picks: alloc::vec::Vec<usize> = (0..200).map(|_| p2c.pick(&request, &mut rng)).collect();
        assert!(picks.contains(&0) && picks.contains(&1));
    }
}
