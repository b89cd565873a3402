//! Load-balancing rules, one module each, behind one [`Balancer`] trait.
//!
//! A balancer copy sees only what it sent itself: `dispatched` and
//! `completed` are called for its own requests only (partial views). Adding
//! an algorithm is one module plus one row in the `algorithms!` list, which
//! gives [`AlgorithmId::ALL`], the rule's id, description and colour, and
//! [`build`].

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::hash::{HashFn, KeyBuf};
use crate::scenario::Scenario;

pub mod bounded_load;
pub mod consistent_hash;
pub mod least_connections;
pub mod least_request;
pub mod maglev;
pub mod peak_ewma;
pub mod power_of_two;
pub mod random;
pub mod rendezvous;
pub mod round_robin;
pub mod user_hash;

/// The random generator every rule draws its own choices from.
pub type Rng = rand_chacha::ChaCha8Rng;

/// What a balancer knows about a request when it picks.
#[derive(Clone, Copy, Debug)]
pub struct Pick {
    /// Arrival time in ms.
    pub now_ms: f64,
    /// The user (1-based); the hashing key is `user-{id}`.
    pub user: u32,
}

impl Pick {
    /// The hashing key `user-{id}`.
    pub fn key(&self) -> KeyBuf {
        KeyBuf::new("user-", u64::from(self.user))
    }
}

/// A load-balancing rule.
pub trait Balancer {
    /// Chooses a server (an index into the pool) for a request.
    fn pick(&mut self, request: &Pick, rng: &mut Rng) -> usize;
    /// The request picked last went to `server`.
    fn dispatched(&mut self, _server: usize) {}
    /// A request this copy sent to `server` finished at `now_ms` after
    /// `latency_ms`.
    fn completed(&mut self, _server: usize, _now_ms: f64, _latency_ms: f64) {}
    /// Whether the rule reads completions; static rules skip that work.
    fn observes_completions(&self) -> bool {
        true
    }
    /// Whether the rule keeps no state of a copy's own (its choices depend
    /// on the key or the random stream only), so one instance serves every
    /// balancer copy and its tables are built once.
    fn shared_by_copies(&self) -> bool {
        false
    }

    // The fleet over time (SPEC section 12): a run with events or health
    // checks calls these instead of `pick` alone. Static runs never do.

    /// Chooses among the servers `eligible` allows, the rule's own next
    /// candidate when its first choice is not allowed (rules that compare
    /// or sample choose among the allowed only; a ring walks clockwise;
    /// rendezvous takes the next score; `user-hash` rehashes as NGINX's
    /// `hash`; Maglev probes the next entries); `None` when none is.
    fn pick_eligible(&mut self, request: &Pick, rng: &mut Rng, eligible: &Eligible) -> Option<usize> {
        // Placeholder until every rule has its own next candidate.
        let s = self.pick(request, rng);
        eligible.allows(s).then_some(s)
    }

    /// Membership or availability changed (a `join` or `leave` is a config
    /// reload; a health change is Envoy's host-set change): rebuild what
    /// depends on it. `members[i]`: server i is in the pool; `available[i]`:
    /// it is a member this copy may send to. Per-server state of the
    /// servers that stay (counts, EWMAs, served totals) is kept.
    fn reshape(&mut self, _members: &[bool], _available: &[bool]) {}

    /// Slow start changed the effective weights (the configured weight
    /// times 256 times the ramp, SPEC 12.1): rules that use weights or
    /// counts take them, keeping their counts; hashing rules ignore them.
    fn reweight(&mut self, _weights: &[u32]) {}
}

/// What a fleet-run pick may take: members available to this copy that
/// the request has not tried yet.
#[derive(Clone, Copy, Debug)]
pub struct Eligible<'a> {
    /// Per server: a member of the pool, available to this copy.
    pub available: &'a [bool],
    /// Servers this request already tried (a retry goes elsewhere).
    pub tried: &'a [u32],
    /// Whether every server of the scenario is in `available` (kept by the
    /// engine as availability changes, so asking costs nothing).
    pub every_available: bool,
}

impl Eligible<'_> {
    /// Whether the pick may take `server`.
    pub fn allows(&self, server: usize) -> bool {
        self.available.get(server).copied().unwrap_or(false) && !self.tried.contains(&(server as u32))
    }

    /// Whether every server is allowed (the rule's static pick stands).
    pub fn all(&self) -> bool {
        self.every_available && self.tried.is_empty()
    }
}

/// The pool as the rules see it.
#[derive(Clone, Debug)]
pub struct Pool {
    /// Server names (`s1`.. unless given).
    pub names: Vec<String>,
    /// Server weights.
    pub weights: Vec<u32>,
    /// Hash function of the hashing rules; `None` for each rule's default.
    pub hash: Option<HashFn>,
    /// Ring points per weight unit.
    pub vnodes: u32,
    /// Bounded-load factor in percent.
    pub balance_factor: u32,
}

impl Pool {
    /// A pool of `names` with weight 1 each and the scenario defaults.
    pub fn named(names: &[&str]) -> Pool {
        Pool {
            names: names.iter().map(|n| String::from(*n)).collect(),
            weights: alloc::vec![1; names.len()],
            hash: None,
            vnodes: 160,
            balance_factor: 125,
        }
    }

    /// The pool a scenario describes.
    pub fn of(scenario: &Scenario) -> Pool {
        let n = scenario.servers as usize;
        Pool {
            names: (0..n).map(|i| scenario.server_name(i)).collect(),
            weights: (0..n).map(|i| scenario.weight(i)).collect(),
            hash: scenario.hash,
            vnodes: scenario.vnodes,
            balance_factor: scenario.balance_factor,
        }
    }

    /// Number of servers.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the pool has no server.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The hash function, or `default` when the scenario leaves it unset.
    pub fn hash_or(&self, default: HashFn) -> HashFn {
        self.hash.unwrap_or(default)
    }

    /// Whether all weights are equal, so rules can take their unweighted path.
    pub fn equal_weights(&self) -> bool {
        self.weights.windows(2).all(|w| w[0] == w[1])
    }
}

macro_rules! algorithms {
    ($($variant:ident => $id:literal, $rule:ty, $colour:literal, $doc:literal;)*) => {
        /// The stable id of an algorithm (CLI, URL, JSON).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum AlgorithmId {
            $(#[doc = $doc] $variant,)*
        }

        impl AlgorithmId {
            /// Every algorithm, in canonical (display) order.
            pub const ALL: &'static [AlgorithmId] = &[$(AlgorithmId::$variant,)*];

            /// The kebab-case id.
            pub fn id(self) -> &'static str {
                match self { $(AlgorithmId::$variant => $id,)* }
            }

            /// One line on what the rule does.
            pub fn description(self) -> &'static str {
                match self { $(AlgorithmId::$variant => $doc,)* }
            }

            /// The colour every front end draws the rule in, as `0xRRGGBB`:
            /// it lives in the rule's registry row so a new rule brings its
            /// own and the palette is always as long as the list.
            pub fn colour(self) -> u32 {
                match self { $(AlgorithmId::$variant => $colour,)* }
            }
        }

        /// A fresh balancer copy for `pool`.
        pub fn build(id: AlgorithmId, pool: &Pool) -> Box<dyn Balancer> {
            match id { $(AlgorithmId::$variant => Box::new(<$rule>::new(pool)),)* }
        }
    };
}

// The one list of rules: id, implementation, colour, description. Adding a
// rule is its module plus one row here. The colours are Okabe-Ito's
// colour-blind-safe set extended with Paul Tol's muted teal, purple, olive
// and sand, all of middle lightness so they read on light and dark themes.
algorithms! {
    RoundRobin => "round-robin", round_robin::RoundRobin, 0xE69F00,
        "smooth weighted round robin (NGINX)";
    Random => "random", random::Random, 0x999999,
        "weighted random";
    LeastConnections => "least-connections", least_connections::LeastConnections, 0x009E73,
        "fewest unfinished per weight, ties rotate (NGINX least_conn)";
    PowerOfTwo => "power-of-two", power_of_two::PowerOfTwo, 0x56B4E9,
        "two distinct random servers, the less loaded wins (NGINX random two)";
    LeastRequest => "least-request", least_request::LeastRequest, 0x0072B2,
        "Envoy least request (P2C, or weighted EDF with active-request bias)";
    PeakEwma => "peak-ewma", peak_ewma::PeakEwma, 0xCC79A7,
        "two choices on peak EWMA latency x (active + 1) (Finagle, Linkerd)";
    UserHash => "user-hash", user_hash::UserHash, 0xD55E00,
        "hash of the user key modulo N";
    ConsistentHash => "consistent-hash", consistent_hash::ConsistentHash, 0xDDCC77,
        "ring of virtual nodes (ketama)";
    BoundedLoad => "bounded-load", bounded_load::BoundedLoad, 0x44AA99,
        "consistent hashing with bounded loads (HAProxy hash-balance-factor)";
    Maglev => "maglev", maglev::Maglev, 0xAA4499,
        "Maglev lookup table of 65,537 entries";
    Rendezvous => "rendezvous", rendezvous::Rendezvous, 0x999933,
        "highest random weight";
}

impl FromStr for AlgorithmId {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        AlgorithmId::ALL.iter().copied().find(|a| a.id() == s).ok_or(())
    }
}

/// Unfinished (running + queued) requests per server, as one copy sees them.
#[derive(Clone, Debug)]
pub struct Unfinished {
    counts: Vec<u32>,
}

impl Unfinished {
    /// All zero for `n` servers.
    pub fn new(n: usize) -> Unfinished {
        Unfinished { counts: alloc::vec![0; n] }
    }

    /// Unfinished requests on `server`.
    pub fn get(&self, server: usize) -> u32 {
        self.counts[server]
    }

    /// One more on `server`.
    pub fn add(&mut self, server: usize) {
        self.counts[server] += 1;
    }

    /// One fewer on `server`.
    pub fn remove(&mut self, server: usize) {
        self.counts[server] = self.counts[server].saturating_sub(1);
    }
}

/// Whether `a / wa < b / wb`, by cross-multiplication as NGINX does, so no
/// division rounds.
pub fn fewer_per_weight(a: u32, wa: u32, b: u32, wb: u32) -> bool {
    u64::from(a) * u64::from(wb) < u64::from(b) * u64::from(wa)
}

/// Draws servers with probability proportional to weight, in O(log N)
/// (O(1) when the weights are equal, with the very same draws).
#[derive(Clone, Debug)]
pub struct WeightedDraw {
    cumulative: Vec<u64>,
    equal: bool,
}

impl WeightedDraw {
    /// Draws over `pool`'s weights.
    pub fn new(pool: &Pool) -> WeightedDraw {
        WeightedDraw { cumulative: cumulative_weights(&pool.weights), equal: pool.equal_weights() }
    }

    fn total(&self) -> u64 {
        self.cumulative[self.cumulative.len() - 1]
    }

    /// The server owning point `r` of the cumulative weights.
    fn owner(&self, r: u64) -> usize {
        if self.equal {
            // Equal weights w: point r belongs to server r / w.
            (r / self.cumulative[0]) as usize
        } else {
            self.cumulative.partition_point(|&c| c <= r)
        }
    }

    /// One server. Ranges are u64 on every target, so native and wasm draw
    /// the same numbers.
    pub fn one(&self, rng: &mut Rng) -> usize {
        use rand::Rng as _;
        self.owner(rng.random_range(0..self.total()))
    }

    /// Two distinct servers, the second drawn from the rest; the pool must
    /// have at least two.
    pub fn two_distinct(&self, rng: &mut Rng) -> (usize, usize) {
        use rand::Rng as _;
        let first = self.one(rng);
        let start = if first == 0 { 0 } else { self.cumulative[first - 1] };
        let width = self.cumulative[first] - start;
        let mut r = rng.random_range(0..self.total() - width);
        if r >= start {
            r += width;
        }
        (first, self.owner(r))
    }
}

/// Running sums of the weights.
fn cumulative_weights(weights: &[u32]) -> Vec<u64> {
    weights
        .iter()
        .scan(0u64, |sum, &w| {
            *sum += u64::from(w);
            Some(*sum)
        })
        .collect()
}
