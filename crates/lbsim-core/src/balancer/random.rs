//! Weighted random: each request goes to a server drawn with probability
//! proportional to its weight, from the rule's own random stream.

use super::{Balancer, Pick, Pool, Rng, WeightedDraw};

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
}
