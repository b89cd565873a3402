//! What a run or a remapping experiment will cost, estimated before it
//! starts from the scenario alone, so a front end can show progress, warn
//! or ask before something long.
//!
//! The estimate counts the operations that dominate (requests drawn,
//! requests through each rule, keys hashed, table entries filled, report
//! cells) and prices each at what it measured on one core of the
//! reference machine (docs/cli.md's "Limits" lists the runs that fix the
//! prices, and how far the estimate was from them). It is meant to be
//! right within a factor of two or so, which is what "a moment" against
//! "a minute" needs.
//!
//! How a front end uses it: call [`run`] or [`remap`] on the checked input,
//! then [`Work::seconds`] for one core of the reference machine. Divide by
//! the cores the front end runs on (the CLI spreads rules, sweep values and
//! remap keys over all of them; the page over its workers) and multiply by
//! its own slowdown against native code (the page's wasm runs the core
//! about 1.5 times slower, see docs/performance.md). The CLI shows a progress bar on
//! a terminal when [`Work::is_long`]; the page should show the estimate
//! and ask before starting anything it expects to take more than a few
//! seconds.

use core::ops::Add;

use crate::balancer::maglev::TABLE_SIZE;
use crate::balancer::Setup;
use crate::remap::{Change, Remap, Scheme};
use crate::scenario::Scenario;

/// Nanoseconds per operation on one core of the reference machine: the
/// shared two-core machine of docs/performance.md's figures, with the other core
/// busy, single-threaded (`RAYON_NUM_THREADS=1`), CPU time of the commands
/// docs/cli.md's "Limits" lists.
mod price {
    /// Drawing one request (arrival, work, user).
    pub const DRAW: f64 = 40.0;
    /// One request through one rule and the engine, with its share of the
    /// report: the mean over the eleven rules it was measured on (a new
    /// rule is priced at it until its own figure is measured).
    pub const PICK: f64 = 175.0;
    /// One remapping key: written, hashed, looked up twice and counted.
    pub const KEY: f64 = 74.0;
    /// One rendezvous score: `hash("{key}#{name}")`.
    pub const SCORE: f64 = 27.0;
    /// One ring point built: its hash, then its share of sorting the ring.
    pub const RING_POINT: f64 = 127.0;
    /// One lookup in a large ring (mostly cache misses).
    pub const RING_LOOKUP: f64 = 130.0;
    /// One probe of Maglev's table population.
    pub const MAGLEV_PROBE: f64 = 7.0;
    /// One health probe taken by the fleet's loop.
    pub const PROBE: f64 = 25.0;
    /// One cell of the report's per-server series, or of the user table.
    pub const CELL: f64 = 10.0;
}

/// Time buckets of a report's queue series, per server and rule.
const QUEUE_BUCKETS: u64 = 200;

/// One core's seconds above which work is long: worth a progress bar, or
/// a question before it starts.
pub const LONG_SECONDS: f64 = 2.0;

/// The operations a run or an experiment will do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Requests drawn.
    pub draws: u64,
    /// Requests through a rule: requests x rules.
    pub picks: u64,
    /// Remapping keys counted (each scheme's pass over the keys).
    pub keys: u64,
    /// Rendezvous scores: `{key}#{name}` hashed, per key (or user) and node.
    pub scores: u64,
    /// Hash-ring points built (every ring of the run).
    pub ring_points: u64,
    /// Lookups in a hash ring by remapping keys.
    pub ring_lookups: u64,
    /// Probes of Maglev's table population (every table of the run).
    pub maglev_probes: u64,
    /// Health probes the fleet's loop takes one at a time (every rule).
    pub probes: u64,
    /// Report cells (queue series per server and rule) and user-table entries.
    pub cells: u64,
}

impl Add for Work {
    type Output = Work;
    fn add(self, o: Work) -> Work {
        Work {
            draws: self.draws + o.draws,
            picks: self.picks + o.picks,
            keys: self.keys + o.keys,
            scores: self.scores + o.scores,
            ring_points: self.ring_points + o.ring_points,
            ring_lookups: self.ring_lookups + o.ring_lookups,
            maglev_probes: self.maglev_probes + o.maglev_probes,
            probes: self.probes + o.probes,
            cells: self.cells + o.cells,
        }
    }
}

impl Work {
    /// Seconds on one core of the reference machine, natively.
    pub fn seconds(&self) -> f64 {
        let priced = [
            (self.draws, price::DRAW),
            (self.picks, price::PICK),
            (self.keys, price::KEY),
            (self.scores, price::SCORE),
            (self.ring_points, price::RING_POINT),
            (self.ring_lookups, price::RING_LOOKUP),
            (self.maglev_probes, price::MAGLEV_PROBE),
            (self.probes, price::PROBE),
            (self.cells, price::CELL),
        ];
        priced.iter().map(|&(count, ns)| count as f64 * ns).sum::<f64>() / 1e9
    }

    /// Whether the work takes more than [`LONG_SECONDS`] on one core.
    pub fn is_long(&self) -> bool {
        self.seconds() > LONG_SECONDS
    }
}

/// Probes Maglev's population makes for a table of `m` entries: filling
/// entry k of M takes M / (M - k) probes on average, about M ln M in all
/// (the number of backends barely matters).
fn maglev_probes(m: u64) -> u64 {
    let m = m as f64;
    (m * libm::log(m)) as u64
}

/// Expected distinct users among `requests` draws from Zipf(`s`) over
/// `users`: the sum over users of `1 - exp(-requests x p_k)`, with the
/// users taken in about 200 geometric bands of near-equal `p_k`, so the
/// estimate costs the same for a million users as for ten.
pub fn distinct_users(users: u32, s: f64, requests: u64) -> f64 {
    let bands = |f: &dyn Fn(f64) -> f64| {
        let (mut total, mut lo) = (0.0, 1.0f64);
        while lo <= f64::from(users) {
            let hi = libm::floor(lo * 1.05).max(lo + 1.0).min(f64::from(users) + 1.0);
            total += (hi - lo) * f(libm::sqrt(lo * (hi - 1.0).max(lo)));
            lo = hi;
        }
        total
    };
    let harmonic = bands(&|k| libm::pow(k, -s));
    bands(&|k| 1.0 - libm::exp(-(requests as f64) * libm::pow(k, -s) / harmonic))
}

/// The work of running `scenario` (all its rules, every balancer copy).
pub fn run(scenario: &Scenario) -> Work {
    let n = u64::from(scenario.servers);
    let rules = scenario.algorithms.len() as u64;
    let weight: u64 = (0..scenario.servers as usize).map(|i| u64::from(scenario.weight(i))).sum();
    let ring = u64::from(scenario.vnodes) * weight;
    let mut work = Work {
        draws: scenario.requests,
        picks: scenario.requests * rules,
        cells: n * QUEUE_BUCKETS * rules + u64::from(scenario.users),
        ..Work::default()
    };
    let fleet = scenario.uses_event_loop();
    if fleet {
        // The fleet's loop costs up to half as much again per request.
        work.picks += work.picks / 2;
        work.probes = probes(scenario) as u64 * rules;
    }
    for &rule in &scenario.algorithms {
        match rule.setup() {
            Setup::Nothing => {}
            Setup::Ring => work.ring_points += ring,
            Setup::RingPerCopy => work.ring_points += ring * u64::from(scenario.balancers),
            // A fleet run gives every copy its own table (availability is
            // per copy).
            Setup::MaglevTable => {
                let copies = if fleet { u64::from(scenario.balancers) } else { 1 };
                work.maglev_probes += maglev_probes(u64::from(scenario.maglev_size)) * copies;
            }
            // Each user's winner is found once, when the user first comes.
            Setup::ScoresPerUser => {
                let users = distinct_users(scenario.users, scenario.zipf, scenario.requests);
                work.scores += users as u64 * n;
            }
        }
    }
    work
}

/// The steps the fleet's event loop takes for one rule, as
/// [`crate::engine::Prepared::fleet_steps`] counts them: the requests'
/// arrivals and ends, and the health probes it takes one at a time.
pub fn steps(scenario: &Scenario) -> u64 {
    (things(scenario) + probes(scenario)) as u64
}

/// Arrivals and ends: an end is a step of its own for the rules that
/// read completions, and part of the arrival's for the others, so one and
/// a half a request, within a third of either.
fn things(scenario: &Scenario) -> f64 {
    1.5 * scenario.requests as f64
}

/// Health probes one rule's run takes one at a time. A probe is taken
/// whenever something (an arrival, an end) comes within a check interval
/// `c` of it; a longer quiet gap is passed over in one step. With `P`
/// probes in all over the run (a round over the N servers every interval)
/// and the `T` arrivals and ends leaving gaps about exponential of mean
/// `m`, a gap `X` costs `X N / c` probes when `X < c` and one step
/// otherwise: in all `P (1 - (1 + c/m) e^(-c/m)) + T e^(-c/m)`.
fn probes(scenario: &Scenario) -> f64 {
    let rate = scenario.rate_per_s();
    if scenario.check_ms == 0 || !rate.is_finite() || rate <= 0.0 {
        return 0.0;
    }
    let horizon_ms = scenario.requests as f64 / rate * 1000.0;
    let c = f64::from(scenario.check_ms);
    let every = horizon_ms / c * f64::from(scenario.servers);
    let things = things(scenario);
    let m = horizon_ms / things;
    if !m.is_finite() || m <= 0.0 {
        return 0.0;
    }
    let quiet = libm::exp(-c / m);
    every * (1.0 - (1.0 + c / m) * quiet) + things * quiet
}

/// What a run holds in memory, per request: what every rule shares (the
/// drawn workload, the users' counts, the finished results) and what one
/// rule in flight adds (its latencies and, through the fleet's loop, its
/// attempts and answers). Priced as address space, which is what a limit
/// on it (`ulimit -v`) counts: the static figures from the maximum
/// resident set (`/usr/bin/time -v`, 4,000,000 requests over 256 servers
/// and 1,000,000 users), the fleet's from its buffers as the allocator
/// maps them (`strace` of mmap and mremap, 1,000,000 and 2,000,000
/// requests): 48 bytes an attempt, 16 an answer, 8 a wait, and three lists
/// of 8 bytes a request that grow by doubling, so up to 16 each.
mod bytes {
    pub const SHARED_STATIC: u64 = 44;
    pub const SHARED_FLEET: u64 = 54;
    pub const RULE_STATIC: u64 = 6;
    pub const RULE_FLEET: u64 = 48 + 16 + 8 + 8 + 3 * 16;
    /// With retries the attempts outgrow the requests and their list
    /// doubles: another attempt's bytes a request.
    pub const RETRIED_ATTEMPTS: u64 = 48;
    pub const USER: u64 = 8;
    /// A cached key on one server (the LRU's entry and its index).
    pub const CACHED_KEY: u64 = 40;
    /// A user's open connection (layer 4).
    pub const CONNECTION: u64 = 16;
    /// The program itself and its threads' stacks.
    pub const BASE: u64 = 8 << 20;
}

/// A run's memory: what its rules share and what each rule in flight adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Bytes held whatever runs (the workload, the program).
    pub shared: u64,
    /// Bytes one rule in flight adds.
    pub per_rule: u64,
}

impl Memory {
    /// Bytes at the peak with `rules_at_once` rules in flight.
    pub fn peak(&self, rules_at_once: u64) -> u64 {
        self.shared.saturating_add(self.per_rule.saturating_mul(rules_at_once))
    }

    /// How many rules may run at once, at most `most`, within `budget`
    /// bytes; at least one (a run that needs more than the budget alone
    /// runs one rule at a time).
    pub fn rules_within(&self, budget: u64, most: u64) -> u64 {
        let room = budget.saturating_sub(self.shared) / self.per_rule.max(1);
        room.clamp(1, most.max(1))
    }
}

/// The memory of running `scenario`, known before it starts.
pub fn memory(scenario: &Scenario) -> Memory {
    let requests = scenario.requests;
    let fleet = scenario.uses_event_loop();
    let (shared, rule) = if fleet {
        (bytes::SHARED_FLEET, bytes::RULE_FLEET)
    } else {
        (bytes::SHARED_STATIC, bytes::RULE_STATIC)
    };
    // A Maglev table is four bytes an entry, one per copy in a fleet run.
    let maglev = if scenario.algorithms.iter().any(|r| r.setup() == Setup::MaglevTable) {
        4 * u64::from(scenario.maglev_size) * if fleet { u64::from(scenario.balancers) } else { 1 }
    } else {
        0
    };
    let retried = if fleet && scenario.retries > 0 { bytes::RETRIED_ATTEMPTS } else { 0 };
    let cached = (u64::from(scenario.cache_keys) * u64::from(scenario.servers)).min(requests);
    let connections =
        if scenario.layer == crate::scenario::Layer::L4 { u64::from(scenario.users) } else { 0 };
    Memory {
        shared: bytes::BASE + shared * requests + bytes::USER * u64::from(scenario.users),
        per_rule: rule * requests
            + retried * requests
            + bytes::CACHED_KEY * cached
            + bytes::CONNECTION * connections
            + maglev,
    }
}

/// The work of one remapping experiment: every key before and after the
/// change, and both pools' tables.
pub fn remap(remap: &Remap) -> Work {
    let before = remap.nodes.len() as u64;
    let after = match remap.change {
        Change::Add(_) => before + 1,
        Change::Remove(_) => before.saturating_sub(1),
    };
    let keys = remap.keys;
    let scheme = match remap.scheme {
        Scheme::Modulo | Scheme::Jump => Work::default(),
        Scheme::ConsistentHash => Work {
            ring_points: u64::from(remap.vnodes) * (before + after),
            ring_lookups: 2 * keys,
            ..Work::default()
        },
        Scheme::Maglev => Work { maglev_probes: 2 * maglev_probes(TABLE_SIZE), ..Work::default() },
        // Every node's score once per key; the change costs one more score
        // per key (a join) or a full lookup for the leaving node's keys.
        Scheme::Rendezvous => {
            let change = match remap.change {
                Change::Add(_) => keys,
                Change::Remove(_) => keys / before.max(1) * after,
            };
            Work { scores: keys * before + change, ..Work::default() }
        }
    };
    scheme + Work { keys, ..Work::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_run_is_short_and_the_limits_are_long() {
        assert!(!run(&Scenario::default()).is_long());
        let big = Scenario { requests: 10_000_000, ..Scenario::default() };
        assert!(run(&big).is_long());
    }

    #[test]
    fn rendezvous_remap_grows_with_keys_times_nodes() {
        let nodes: alloc::vec::Vec<alloc::string::String> =
            (1..=1024).map(|i| alloc::format!("n{i}")).collect();
        let small = Remap { scheme: Scheme::Rendezvous, ..Remap::default() };
        let large = Remap { scheme: Scheme::Rendezvous, nodes, keys: 200_000, ..Remap::default() };
        assert_eq!(remap(&small).scores, 1000 * 4 + 1000);
        assert_eq!(remap(&large).scores, 200_000 * 1024 + 200_000);
        assert!(remap(&large).is_long());
    }

    /// Against the closed forms: uniform users give `U (1 - e^(-R/U))`;
    /// one request reaches one user; every user comes when requests abound.
    #[test]
    fn distinct_users_match_closed_forms() {
        let uniform = distinct_users(1_000_000, 0.0, 1_000_000);
        let exact = 1e6 * (1.0 - libm::exp(-1.0));
        assert!((uniform / exact - 1.0).abs() < 0.01, "{uniform} against {exact}");
        assert!((distinct_users(2000, 1.0, 1) - 1.0).abs() < 0.05);
        assert!((distinct_users(10, 1.0, 1_000_000) - 10.0).abs() < 0.01);
    }
}
