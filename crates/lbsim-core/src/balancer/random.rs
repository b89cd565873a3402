//! Weighted random: each request goes to a server drawn with probability
//! proportional to its weight, from the rule's own random stream. In a
//! fleet run the draw is over the allowed servers only (a few draws over
//! the pool until one is allowed, then one exact draw over the allowed).

use super::rule::{effective_weights, Balancer, Eligible, Pick, Pool, WeightedDraw};
use crate::rng::Rng;

/// Weighted random choice.
pub struct Random {
    draw: WeightedDraw,
}

impl Random {
    /// Random choice over `pool`.
    pub fn new(pool: &Pool) -> Random {
        Random { draw: WeightedDraw::new(pool) }
    }
}

impl Balancer for Random {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        self.draw.one(rng)
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn shared_by_copies(&self) -> bool {
        true
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        self.draw.one_among(rng, |s| eligible.allows(s))
    }

    fn reweight(&mut self, weights: &[u32]) {
        self.draw = WeightedDraw::of(&effective_weights(weights));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balancer::checks;
    use rand::SeedableRng;

    /// The draw among the allowed keeps their weights' proportions: weights
    /// 6, 1, 3, 2 with the 1 refused and most of the pool refused now and
    /// then (so the exact draw is used too).
    #[test]
    fn allowed_servers_share_by_weight() {
        let mut random = Random::new(&checks::pool(&[6, 1, 3, 2]));
        let mut rng = Rng::seed_from_u64(1);
        let request = Pick { now_ms: 0.0, user: 1 };
        let available = [true, false, true, true];
        let mut counts = [0u32; 4];
        for _ in 0..44_000 {
            let eligible = Eligible { available: &available, tried: &[], every_available: false };
            counts[random.pick_eligible(&request, &mut rng, &eligible).unwrap()] += 1;
        }
        assert_eq!(counts[1], 0);
        for (c, want) in [(counts[0], 24_000), (counts[2], 12_000), (counts[3], 8_000)] {
            assert!(c.abs_diff(want) < 600, "{counts:?}");
        }
        // Only s4 (weight 2) untried among a pool mostly refused: rejection
        // fails often and the exact draw finds it.
        let tried = [0u32, 2];
        let eligible = Eligible { available: &available, tried: &tried, every_available: false };
        for _ in 0..200 {
            assert_eq!(random.pick_eligible(&request, &mut rng, &eligible), Some(3));
        }
    }

    #[test]
    fn reweight_sets_the_shares() {
        let mut random = Random::new(&checks::pool(&[1, 1]));
        random.reweight(&[3 * 256, 256]);
        let mut rng = Rng::seed_from_u64(2);
        let request = Pick { now_ms: 0.0, user: 1 };
        let first = (0..40_000).filter(|_| random.pick(&request, &mut rng) == 0).count();
        assert!(first.abs_diff(30_000) < 600, "{first}");
    }
}
