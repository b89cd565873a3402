//! Smooth weighted round robin, as NGINX's `ngx_http_upstream_get_peer`:
//! each pick adds every server's weight to its current weight, takes the
//! highest current weight (the first server wins ties) and subtracts the
//! total weight from it. With equal weights this is plain rotation, which
//! is taken in O(1).

use alloc::vec::Vec;

use super::{Balancer, Pick, Pool, Rng};

/// Smooth weighted round robin.
pub struct RoundRobin {
    weights: Vec<i64>,
    current: Vec<i64>,
    total: i64,
    next: usize,
    equal: bool,
}

impl RoundRobin {
    /// A fresh rotation over `pool`.
    pub fn new(pool: &Pool) -> RoundRobin {
        let weights: Vec<i64> = pool.weights.iter().map(|&w| i64::from(w)).collect();
        RoundRobin {
            total: weights.iter().sum(),
            current: alloc::vec![0; weights.len()],
            weights,
            next: 0,
            equal: pool.equal_weights(),
        }
    }
}

impl Balancer for RoundRobin {
    fn pick(&mut self, _request: &Pick, _rng: &mut Rng) -> usize {
        if self.equal {
            let server = self.next;
            self.next += 1;
            if self.next == self.weights.len() {
                self.next = 0;
            }
            return server;
        }
        let mut best = 0;
        for i in 0..self.current.len() {
            self.current[i] += self.weights[i];
            if self.current[i] > self.current[best] {
                best = i;
            }
        }
        self.current[best] -= self.total;
        best
    }

    fn observes_completions(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn sequence(weights: &[u32], picks: usize) -> alloc::string::String {
        let mut pool = Pool::named(&["a", "b", "c"]);
        pool.weights = weights.to_vec();
        let mut rr = RoundRobin::new(&pool);
        let mut rng = Rng::seed_from_u64(0);
        let request = Pick { now_ms: 0.0, user: 1 };
        (0..picks)
            .map(|_| ["a", "b", "c"][rr.pick(&request, &mut rng)])
            .collect::<alloc::vec::Vec<_>>()
            .join(" ")
    }

    #[test]
    fn nginx_smooth_weighted_sequences() {
        // The sequences documented in NGINX's ngx_http_upstream_round_robin.c.
        assert_eq!(sequence(&[5, 1, 1], 7), "a a b a c a a");
        assert_eq!(sequence(&[4, 2, 1], 7), "a b a c a b a");
    }

    #[test]
    fn equal_weights_rotate() {
        assert_eq!(sequence(&[1, 1, 1], 7), "a b c a b c a");
        assert_eq!(sequence(&[3, 3, 3], 4), "a b c a");
    }
}
