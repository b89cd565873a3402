//! Power of two choices, as NGINX `random two least_conn` and HAProxy
//! `random(2)`: draw two distinct servers (with probability proportional to
//! weight) and send to the one with fewer unfinished requests per weight.
//! As in NGINX, a tie goes to the second server drawn.

use alloc::vec::Vec;

use super::{fewer_per_weight, Balancer, Pick, Pool, Rng, Unfinished, WeightedDraw};

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

impl Balancer for PowerOfTwo {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        if self.weights.len() == 1 {
            return 0;
        }
        let (first, second) = self.draw.two_distinct(rng);
        let (a, b) = (self.unfinished.get(first), self.unfinished.get(second));
        if fewer_per_weight(a, self.weights[first], b, self.weights[second]) {
            first
        } else {
            second
        }
    }

    fn dispatched(&mut self, server: usize) {
        self.unfinished.add(server);
    }

    fn completed(&mut self, server: usize, _now_ms: f64, _latency_ms: f64) {
        self.unfinished.remove(server);
    }
}
