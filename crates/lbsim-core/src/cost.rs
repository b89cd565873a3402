//! What a run or a remapping experiment will cost, estimated before it
//! starts from the scenario alone, so a front end can show progress, warn
//! or ask before something long.
//!
//! The estimate counts the operations that dominate (requests drawn,
//! requests through each rule, keys hashed, table entries filled, report
//! cells) and prices each at what it measured on one core of the
//! reference machine (the README's "Limits" lists the runs that fix the
//! prices). It is meant to be right within a factor of two or so, which is
//! what "a moment" against "a minute" needs.
//!
//! How a front end uses it: call [`run`] or [`remap`] on the checked input,
//! then [`Work::seconds`] for one core of the reference machine. Divide by
//! the cores the front end runs on (the CLI spreads rules, sweep values and
//! remap keys over all of them; the page over its workers) and multiply by
//! its own slowdown against native code (the page's wasm runs the core
//! about 1.5 times slower, see the README). The CLI shows a progress bar on
//! a terminal when [`Work::is_long`]; the page should show the estimate
//! and ask before starting anything it expects to take more than a few
//! seconds.

use core::ops::Add;

use crate::balancer::maglev::TABLE_SIZE;
use crate::balancer::AlgorithmId;
use crate::remap::{Change, Remap, Scheme};
use crate::scenario::Scenario;

/// Nanoseconds per operation on one core of the reference machine.
mod price {
    /// Drawing one request (arrival, work, user).
    pub const DRAW: f64 = 40.0;
    /// One request through one rule and the engine, with its share of the
    /// report (the mean over the eleven rules).
    pub const PICK: f64 = 110.0;
    /// Writing and hashing one short key (`{name}#{i}`, `{key}#{name}`).
    pub const HASH: f64 = 15.0;
    /// One ring point: its hash, then its share of sorting the ring.
    pub const RING_POINT: f64 = 60.0;
    /// One probe of Maglev's table population.
    pub const MAGLEV_PROBE: f64 = 5.0;
    /// One cell of the report's per-server series, or of the user table.
    pub const CELL: f64 = 5.0;
}

/// Time buckets of a report's queue series, per server and rule.
const QUEUE_BUCKETS: u64 = 200;

/// Work the estimate above one core's [`LONG_SECONDS`] calls long.
pub const LONG_SECONDS: f64 = 2.0;

/// The operations a run or an experiment will do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Requests drawn.
    pub draws: u64,
    /// Requests through a rule: requests x rules.
    pub picks: u64,
    /// Short keys hashed: rendezvous `{key}#{name}` scores, remap keys.
    pub hashes: u64,
    /// Hash-ring points built (every ring of the run).
    pub ring_points: u64,
    /// Probes of Maglev's table population (every table of the run).
    pub maglev_probes: u64,
    /// Report cells (queue series per server and rule) and user-table entries.
    pub cells: u64,
}

impl Add for Work {
    type Output = Work;
    fn add(self, o: Work) -> Work {
        Work {
            draws: self.draws + o.draws,
            picks: self.picks + o.picks,
            hashes: self.hashes + o.hashes,
            ring_points: self.ring_points + o.ring_points,
            maglev_probes: self.maglev_probes + o.maglev_probes,
            cells: self.cells + o.cells,
        }
    }
}

impl Work {
    /// Seconds on one core of the reference machine, natively.
    pub fn seconds(&self) -> f64 {
        let ns = self.draws as f64 * price::DRAW
            + self.picks as f64 * price::PICK
            + self.hashes as f64 * price::HASH
            + self.ring_points as f64 * price::RING_POINT
            + self.maglev_probes as f64 * price::MAGLEV_PROBE
            + self.cells as f64 * price::CELL;
        ns / 1e9
    }

    /// Whether the work takes more than [`LONG_SECONDS`] on one core: worth
    /// a progress bar, or a question before it starts.
    pub fn is_long(&self) -> bool {
        self.seconds() > LONG_SECONDS
    }
}

/// Probes Maglev's population makes for a table of `TABLE_SIZE` entries:
/// filling entry k of M takes M / (M - k) probes on average, about M ln M
/// in all (the number of backends barely matters).
fn maglev_probes() -> u64 {
    let m = TABLE_SIZE as f64;
    (m * libm::log(m)) as u64
}

/// Points of one hash ring over `names` with `vnodes` per weight unit.
fn ring_points(vnodes: u32, total_weight: u64) -> u64 {
    u64::from(vnodes) * total_weight
}

/// The work of running `scenario` (all its rules, every balancer copy).
pub fn run(scenario: &Scenario) -> Work {
    let n = u64::from(scenario.servers);
    let rules = scenario.algorithms.len() as u64;
    let weight: u64 = (0..scenario.servers as usize).map(|i| u64::from(scenario.weight(i))).sum();
    let ring = ring_points(scenario.vnodes, weight);
    // A rule keeps each user's answer once it has one: at most one
    // rendezvous lookup per user the requests reach.
    let users = u64::from(scenario.users).min(scenario.requests);
    let mut work = Work {
        draws: scenario.requests,
        picks: scenario.requests * rules,
        cells: n * QUEUE_BUCKETS * rules + u64::from(scenario.users),
        ..Work::default()
    };
    for &rule in &scenario.algorithms {
        match rule {
            // One ring serves every copy; bounded-load keeps one per copy.
            AlgorithmId::ConsistentHash => work.ring_points += ring,
            AlgorithmId::BoundedLoad => work.ring_points += ring * u64::from(scenario.balancers),
            AlgorithmId::Maglev => {
                work.hashes += 2 * n;
                work.maglev_probes += maglev_probes();
            }
            AlgorithmId::Rendezvous => work.hashes += users * n,
            _ => {}
        }
    }
    work
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
    let tables = match remap.scheme {
        Scheme::Modulo | Scheme::Jump => Work::default(),
        Scheme::ConsistentHash => {
            Work { ring_points: ring_points(remap.vnodes, before + after), ..Work::default() }
        }
        Scheme::Maglev => {
            Work { hashes: 2 * (before + after), maglev_probes: 2 * maglev_probes(), ..Work::default() }
        }
        // Every node's score once per key; the change itself costs one
        // more score per key (a join) or a full lookup for the leaving
        // node's keys (a removal).
        Scheme::Rendezvous => {
            let change = match remap.change {
                Change::Add(_) => keys,
                Change::Remove(_) => keys / before.max(1) * after,
            };
            return Work { hashes: keys * before + change, ..Work::default() };
        }
    };
    tables + Work { hashes: keys, ..Work::default() }
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
        assert_eq!(remap(&small).hashes, 1000 * 4 + 1000);
        assert_eq!(remap(&large).hashes, 200_000 * 1024 + 200_000);
        assert!(remap(&large).is_long());
    }
}
