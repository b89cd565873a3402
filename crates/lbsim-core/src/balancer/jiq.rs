//! Join-Idle-Queue (Lu, Xie, Kliot, Geller, Larus and Greenberg,
//! "Join-Idle-Queue: A novel load balancing algorithm for dynamically
//! scalable web services", Performance Evaluation 68(11), 2011): many
//! dispatchers, each with an idle queue; a server that goes idle joins one
//! dispatcher's queue, at random (JIQ-Random) or the shortest of `d`
//! sampled (JIQ-SQ(d), the `jiq-sampled` field); an arrival goes to the
//! first server in its copy's idle queue, else to a server drawn at random
//! (by weight).
//!
//! With slots (docs/model.md#what-a-rule-may-know): a server is idle when it
//! has a free slot; it joins a queue when it gains one and is in none, and
//! leaves when a copy assigns it a request; with one slot this is the
//! paper's rule. The queue is first in, first out; a server this copy may
//! not send to (unavailable, or tried by this request) is dropped when
//! popped. An entry for a server another copy has since sent to stays
//! until popped and is taken as it is, as in the paper's model. No ties:
//! the queue's order or the draw decides.

use alloc::collections::VecDeque;

use super::message::{Joining, Message, Subscription};
use super::rule::{effective_weights, Balancer, Eligible, Pick, Pool, WeightedDraw};
use crate::rng::Rng;

/// One dispatcher's idle queue and its random fallback.
pub struct Jiq {
    idle: VecDeque<u32>,
    draw: WeightedDraw,
    sampled: u32,
}

impl Jiq {
    /// A dispatcher over `pool` with an empty idle queue (the servers
    /// announce themselves at the start).
    pub fn new(pool: &Pool) -> Jiq {
        Jiq { idle: VecDeque::new(), draw: WeightedDraw::new(pool), sampled: pool.jiq_sampled.max(1) }
    }
}

impl Balancer for Jiq {
    fn pick(&mut self, _request: &Pick, rng: &mut Rng) -> usize {
        match self.idle.pop_front() {
            Some(s) => s as usize,
            None => self.draw.one(rng),
        }
    }

    fn observes_completions(&self) -> bool {
        false
    }

    fn subscribes(&self) -> Subscription {
        Subscription { idle: Some(Joining { sampled: self.sampled }), ..Subscription::NOTHING }
    }

    fn receive(&mut self, _now_ms: f64, message: &Message) {
        if let Message::Idle { server } = *message {
            self.idle.push_back(server as u32);
        }
    }

    fn idle_queue(&self) -> usize {
        self.idle.len()
    }

    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        if eligible.all() {
            return Some(self.pick(request, rng));
        }
        while let Some(s) = self.idle.pop_front() {
            if eligible.allows(s as usize) {
                return Some(s as usize);
            }
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

    /// The paper's dispatcher: "upon a job arrival, the dispatcher consults
    /// its I-queue. If the I-queue is non-empty, the dispatcher removes the
    /// first idle processor from the I-queue and directs the job to this
    /// idle processor. If the I-queue is empty, the dispatcher directs the
    /// job to a randomly chosen processor." (Lu et al. 2011, section 3)
    #[test]
    fn an_arrival_takes_the_first_idle_server_else_a_random_one() {
        let mut jiq = Jiq::new(&checks::pool(&[1, 1, 1, 1]));
        let mut rng = Rng::seed_from_u64(1);
        let request = Pick { now_ms: 0.0, user: 1 };
        jiq.receive(0.0, &Message::Idle { server: 2 });
        jiq.receive(0.0, &Message::Idle { server: 0 });
        assert_eq!(jiq.idle_queue(), 2);
        assert_eq!(jiq.pick(&request, &mut rng), 2);
        assert_eq!(jiq.pick(&request, &mut rng), 0);
        assert_eq!(jiq.idle_queue(), 0);
        let mut counts = [0u32; 4];
        for _ in 0..4_000 {
            counts[jiq.pick(&request, &mut rng)] += 1;
        }
        assert!(
            counts.iter().all(|&c| c.abs_diff(1_000) < 120),
            "an empty queue draws at random: {counts:?}"
        );
    }

    /// A server this copy may not take is dropped when popped.
    #[test]
    fn a_refused_idle_server_is_dropped_when_popped() {
        let mut jiq = Jiq::new(&checks::pool(&[1, 1, 1]));
        let mut rng = Rng::seed_from_u64(1);
        for s in [1, 2] {
            jiq.receive(0.0, &Message::Idle { server: s });
        }
        let available = [true, false, true];
        let eligible = Eligible { available: &available, tried: &[], every_available: false };
        assert_eq!(jiq.pick_eligible(&Pick { now_ms: 0.0, user: 1 }, &mut rng, &eligible), Some(2));
        assert_eq!(jiq.idle_queue(), 0, "s2 was dropped on the way to s3");
    }

    #[test]
    fn subscribes_to_idle_announcements_with_its_sampling() {
        let pool = Pool { jiq_sampled: 2, ..checks::pool(&[1, 1]) };
        assert_eq!(Jiq::new(&pool).subscribes().idle, Some(Joining { sampled: 2 }));
    }
}
