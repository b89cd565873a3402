//! Weighted random: each request goes to a server drawn with probability
//! proportional to its weight, from the rule's own random stream.

use alloc::vec::Vec;

use rand::Rng as _;

use super::{cumulative_weights, weighted_index, Balancer, Pick, Pool, Rng};

/// Weighted random choice.
pub struct Random {
    cumulative: Vec<u64>,
}

impl Random {
    /// Random choice over `pool`.
    pub fn new(pool: &Pool) -> Random {
        Random { cumulative: cumulative_weights(&pool.weights) }
    }
}

impl Balancer for Random {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        let total = self.cumulative[self.cumulative.len() - 1];
        weighted_index(&self.cumulative, rng.random_range(0..total))
    }

    fn observes_completions(&self) -> bool {
        false
    }
}
