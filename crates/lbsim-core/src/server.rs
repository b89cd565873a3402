//! The server model both engines run on: servers with slots, a speed and
//! one FIFO queue each, and one rule's run over them (its balancer copies,
//! its random stream, the latencies and waits it has seen). The static
//! engine ([`crate::engine`]) and the fleet's event loop ([`crate::fleet`])
//! both move requests through it; neither knows the other's loop.

use alloc::boxed::Box;
use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

use crate::balancer::{self, AlgorithmId, Balancer, Counts, Pool, Rng};
use crate::bus::{Bus, Servers};
use crate::num::{bits, later, whole};
use crate::report::QUEUE_BUCKETS;
use crate::scenario::Scenario;
use crate::workload::algorithm_rng;

/// The time buckets of a run's series over time: a round width (1, 2, 2.5
/// or 5 x 10^k ms, so an axis can say "per 500 ms" instead of "per 280.424
/// ms"), the smallest that covers the arrivals in at most
/// [`QUEUE_BUCKETS`] buckets, and as many buckets as that takes (the last
/// one takes what comes after the last arrival).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Buckets {
    /// The width of one bucket, in ms.
    pub(crate) width_ms: f64,
    /// How many buckets the series have.
    pub(crate) count: usize,
}

impl Buckets {
    /// The buckets of a run whose last request arrives at `horizon_ms`.
    pub(crate) fn over(horizon_ms: f64) -> Buckets {
        if horizon_ms.is_nan() || horizon_ms <= 0.0 {
            return Buckets { width_ms: 1.0, count: QUEUE_BUCKETS };
        }
        let least = horizon_ms / QUEUE_BUCKETS as f64;
        let k = libm::floor(libm::log10(least));
        // 10^k exactly for negative k too (2.5 / 1000, not 2.5 * 0.001).
        let decade = |m: f64| if k >= 0.0 { m * libm::pow(10.0, k) } else { m / libm::pow(10.0, -k) };
        let width_ms =
            [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().map(decade).find(|&w| w >= least).unwrap_or(decade(10.0));
        let count = whole(libm::ceil(horizon_ms / width_ms)).clamp(1, QUEUE_BUCKETS);
        Buckets { width_ms, count }
    }

    /// The bucket of time `t`.
    #[inline]
    pub(crate) fn of(self, t: f64) -> usize {
        whole(t / self.width_ms).min(self.count - 1)
    }
}

/// One server's queue: start times of waiting requests (non-decreasing under
/// FIFO), with the exact time integral of its length and a bucketed series
/// of its maximum.
pub(crate) struct Queue {
    waiting: VecDeque<f64>,
    last_ms: f64,
    pub(crate) integral: f64,
    pub(crate) peak: u32,
    pub(crate) series: Vec<u32>,
    buckets: Buckets,
}

impl Queue {
    pub(crate) fn new(buckets: Buckets) -> Queue {
        Queue {
            waiting: VecDeque::new(),
            last_ms: 0.0,
            integral: 0.0,
            peak: 0,
            series: alloc::vec![0; buckets.count],
            buckets,
        }
    }

    fn bucket(&self, t: f64) -> usize {
        self.buckets.of(t)
    }

    /// The current length held from `last_ms` until `to`.
    fn hold_until(&mut self, to: f64) {
        let len = self.waiting.len() as u32;
        if len > 0 {
            self.integral += f64::from(len) * (to - self.last_ms);
            for b in self.bucket(self.last_ms)..=self.bucket(to) {
                self.series[b] = self.series[b].max(len);
            }
        }
        self.last_ms = to;
    }

    /// Requests whose start time has come leave the queue. Inlined for the
    /// common case, an empty queue (every request of a server with a free
    /// slot), where only the clock moves: the call and the length checks
    /// were 36 instructions a request.
    #[inline]
    pub(crate) fn advance_to(&mut self, now: f64) {
        if self.waiting.is_empty() {
            self.last_ms = now;
        } else {
            self.advance_waiting(now);
        }
    }

    #[inline(never)]
    fn advance_waiting(&mut self, now: f64) {
        while let Some(&start) = self.waiting.front() {
            if start > now {
                break;
            }
            self.hold_until(start);
            self.waiting.pop_front();
        }
        self.hold_until(now);
    }

    pub(crate) fn enqueue(&mut self, start: f64) {
        self.waiting.push_back(start);
        let len = self.waiting.len() as u32;
        self.peak = self.peak.max(len);
        let b = self.bucket(self.last_ms);
        self.series[b] = self.series[b].max(len);
    }

    /// Every waiting request leaves at `now` (a crash drops them).
    pub(crate) fn drop_all(&mut self, now: f64) {
        self.advance_to(now);
        self.waiting.clear();
    }
}

pub(crate) struct Server {
    /// Free times of the slots, as sortable bits, earliest on top.
    pub(crate) slots: BinaryHeap<Reverse<u64>>,
    pub(crate) speed: f64,
    pub(crate) requests: u64,
    pub(crate) busy_ms: f64,
    pub(crate) queue: Queue,
}

impl Server {
    /// Requests sent here that have not finished at `now` (those finishing
    /// at `now` have): the slots busy past `now`, one running request each
    /// (a slot's requests run back to back from their arrivals, all at or
    /// before `now`), and the requests queued to start after it.
    pub(crate) fn unfinished_at(&self, now: f64) -> u32 {
        // Compared as times, not as their bits: wasm's SIMD has no
        // unsigned 64-bit compare, and a float compare vectorizes on both.
        let running = self.slots.iter().filter(|free| f64::from_bits(free.0) > now).count();
        let started = self.queue.waiting.iter().take_while(|&&start| start <= now).count();
        (running + self.queue.waiting.len() - started) as u32
    }

    /// When a request arriving at `now` starts: at its earliest free slot's
    /// free time, or at once.
    #[inline]
    pub(crate) fn start_at(&self, now: f64) -> f64 {
        self.slots.peek().map_or(now, |earliest| later(now, f64::from_bits(earliest.0)))
    }

    /// The earliest free slot takes a request that arrived at `now`, starts
    /// at `start` and runs for `service`: the heap's top is replaced in
    /// place (one sift-down instead of a pop and a push), and the request
    /// waits in the queue until it starts.
    #[inline]
    pub(crate) fn occupy(&mut self, now: f64, start: f64, service: f64) {
        if let Some(mut earliest) = self.slots.peek_mut() {
            earliest.0 = bits(start + service);
        }
        self.busy_ms += service;
        self.queue.advance_to(now);
        if start > now {
            self.queue.enqueue(start);
        }
    }
}

/// The servers' unfinished requests at an arrival, for rules that read
/// only those (`Balancer::counts_at_pick`).
pub(crate) struct ServersAt<'a> {
    pub(crate) servers: &'a [Server],
    pub(crate) now: f64,
}

impl Counts for ServersAt<'_> {
    fn unfinished(&self, server: usize) -> u32 {
        self.servers[server].unfinished_at(self.now)
    }
}

/// What the message bus reads of the servers (docs/model.md#what-a-rule-may-know).
impl Servers for Vec<Server> {
    fn in_flight_at(&self, server: usize, t: f64) -> u32 {
        self[server].unfinished_at(t)
    }

    fn free_at(&self, server: usize, t: f64) -> bool {
        self[server].start_at(t) <= t
    }

    fn spend(&mut self, server: usize, t: f64, ms: f64) {
        let server = &mut self[server];
        if let Some(mut earliest) = server.slots.peek_mut() {
            earliest.0 = bits(later(t, f64::from_bits(earliest.0)) + ms);
        }
        server.busy_ms += ms;
    }

    fn slots(&self) -> u32 {
        self.first().map_or(1, |s| s.slots.len() as u32)
    }
}

/// The bus of a run whose copies are `copies` (`None` when the rule
/// subscribes to nothing), drawing from a stream of its own.
pub(crate) fn bus_for(
    algorithm: AlgorithmId,
    scenario: &Scenario,
    copies: &[Box<dyn Balancer>],
    servers: usize,
    horizon_ms: f64,
) -> Option<Box<Bus>> {
    // Only the current rules subscribe: a build without them (the page's
    // first module) has no bus to carry, and this lets it leave the bus out.
    if !cfg!(feature = "current-rules") {
        return None;
    }
    let subscription = copies.first()?.subscribes();
    let stream = (1 << 33) + u64::from(crate::hash::fnv1a32(algorithm.id().as_bytes()));
    Bus::new(subscription, servers, horizon_ms, crate::workload::rng(scenario.seed, stream))
}

/// A completion to deliver to the copy that sent the request: the finish
/// time as sortable bits, the request index and the server, in one
/// integer, so the heap compares without branching (a `(u64, u32)` pair
/// compared field by field cost 15% more instructions in delivery, about
/// 30 a request). The index orders equal times (indices are unique, so the
/// server below it never decides an order) and finds the request; the
/// server rides along instead of in a per-request list.
pub(crate) type Completion = u128;

#[inline]
pub(crate) fn completion(done_bits: u64, index: usize, server: usize) -> Completion {
    (u128::from(done_bits) << 64) | ((index as u128) << 32) | server as u128
}

/// One algorithm's run over the workload, resumable.
pub(crate) struct AlgorithmRun {
    pub(crate) algorithm: AlgorithmId,
    pub(crate) copies: Vec<Box<dyn Balancer>>,
    pub(crate) observes: bool,
    /// The rule reads only servers' unfinished counts at its picks and
    /// has one copy: the static loop answers them from the servers
    /// ([`Server::unfinished_at`]) and delivers no completions.
    pub(crate) counts_from_servers: bool,
    pub(crate) rng: Rng,
    pub(crate) servers: Vec<Server>,
    pub(crate) completions: BinaryHeap<Reverse<Completion>>,
    pub(crate) next: usize,
    /// Latencies by class (index 1 = slow).
    pub(crate) latencies: [Vec<f64>; 2],
    /// Positive waits as sortable bits; most requests never wait, and only
    /// the p99 is reported, so zeros are only counted.
    pub(crate) waits: Vec<u64>,
    pub(crate) wait_sum: f64,
    pub(crate) makespan_ms: f64,
    pub(crate) buckets: Buckets,
    pub(crate) log: Option<Vec<Dispatch>>,
    /// Messages from the servers, for a rule that subscribes to any.
    pub(crate) bus: Option<Box<Bus>>,
}

/// What happened to one request under one algorithm (for checking the
/// engine's invariants and for per-request exports).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dispatch {
    /// Index of the request in arrival order.
    pub request: usize,
    /// Server it went to.
    pub server: usize,
    /// When it took a slot, in ms.
    pub start_ms: f64,
    /// When it finished, in ms.
    pub done_ms: f64,
    /// When the balancer copy that sent it was told it finished (every
    /// completion is delivered, the last ones after the last arrival).
    pub delivered_ms: Option<f64>,
}

impl AlgorithmRun {
    pub(crate) fn new(
        algorithm: AlgorithmId,
        scenario: &Scenario,
        pool: &Pool,
        horizon_ms: f64,
    ) -> AlgorithmRun {
        let first = balancer::build(algorithm, pool);
        let observes = first.observes_completions();
        let counts_at_pick = first.counts_at_pick();
        let mut copies: Vec<Box<dyn Balancer>> = if first.shared_by_copies() {
            alloc::vec![first]
        } else {
            core::iter::once(first)
                .chain((1..scenario.balancers).map(|_| balancer::build(algorithm, pool)))
                .collect()
        };
        balancer::place_copies(&mut copies);
        let counts_from_servers = counts_at_pick && copies.len() == 1;
        let buckets = Buckets::over(horizon_ms);
        let servers = (0..pool.len())
            .map(|i| Server {
                slots: (0..scenario.slots).map(|_| Reverse(0)).collect(),
                speed: scenario.speed(i),
                requests: 0,
                busy_ms: 0.0,
                queue: Queue::new(buckets),
            })
            .collect();
        let n = scenario.requests as usize;
        let bus = bus_for(algorithm, scenario, &copies, pool.len(), horizon_ms);
        AlgorithmRun {
            algorithm,
            copies,
            observes,
            counts_from_servers,
            rng: algorithm_rng(scenario.seed, algorithm.id()),
            servers,
            completions: BinaryHeap::new(),
            next: 0,
            latencies: [Vec::with_capacity(n), Vec::new()],
            waits: Vec::new(),
            wait_sum: 0.0,
            makespan_ms: 0.0,
            buckets,
            log: None,
            bus,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_round_and_cover_the_run_in_at_most_the_series_length() {
        // (last arrival, width, count): 56,084.8 ms over 200 buckets would
        // be 280.424 ms wide; the round width above it is 500 ms.
        for (horizon, width, count) in [
            (56_084.8, 500.0, 113),
            (20_000.0, 100.0, 200),
            (20_001.0, 200.0, 101),
            (90_000.0, 500.0, 180),
            (335_219.0, 2_000.0, 168),
            (0.5, 0.0025, 200),
            (0.0, 1.0, QUEUE_BUCKETS),
        ] {
            let b = Buckets::over(horizon);
            assert_eq!((b.width_ms, b.count), (width, count), "{horizon}");
            if horizon > 0.0 {
                assert_eq!(b.of(horizon * 2.0), count - 1, "after the last arrival: the last bucket");
            }
        }
    }

    /// A request finishing at the instant of an arrival has finished for
    /// it (a completion at that instant is delivered before the arrival).
    /// Two slots: r1 runs 0 to 5, r2 runs 0 to 9, r3 arrives at 4 and
    /// waits for r1's slot, running 5 to 11.
    #[test]
    fn unfinished_at_an_instant_leaves_out_what_finishes_then() {
        let mut server = Server {
            slots: [11.0, 9.0].iter().map(|&t| Reverse(bits(t))).collect(),
            speed: 1.0,
            requests: 3,
            busy_ms: 0.0,
            queue: Queue::new(Buckets { width_ms: 1.0, count: QUEUE_BUCKETS }),
        };
        server.queue.waiting.push_back(5.0);
        assert_eq!(server.unfinished_at(4.0), 3, "r1 and r2 run, r3 waits");
        assert_eq!(server.unfinished_at(5.0), 2, "r1 is done at 5 and r3 starts");
        assert_eq!(server.unfinished_at(9.0), 1, "r2 is done at 9");
        assert_eq!(server.unfinished_at(11.0), 0);
    }
}
