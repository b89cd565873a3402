//! The scenario as data: the one serde type every front end fills, its
//! defaults (the article's lab), and what follows from its fields alone
//! (capacity, rate, names, the pool the balancers see).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::kinds::{CheckKind, Layer, WorkKind};
use crate::balancer::placement::Placement;
use crate::balancer::{AlgorithmId, Pool};
use crate::events::Events;
use crate::hash::HashFn;

// Fields of the fleet (SPEC section 12) are written to JSON only when they
// differ from their defaults, so a static scenario's JSON is what it was.
fn is_u32<const D: u32>(v: &u32) -> bool {
    *v == D
}
fn is_one(v: &f64) -> bool {
    *v == 1.0
}
fn is_quarter(v: &f64) -> bool {
    *v == 0.25
}
fn is_false(v: &bool) -> bool {
    !*v
}
fn is_tcp(v: &CheckKind) -> bool {
    *v == CheckKind::Tcp
}

fn is_l7(v: &Layer) -> bool {
    *v == Layer::L7
}
fn is_fifth(v: &f64) -> bool {
    *v == 0.2
}

/// A complete, self-contained description of one experiment.
///
/// `Default` is the article's lab: 4 servers x 8 slots, 20,000 Poisson
/// arrivals at 65% load, 10% slow requests (400 ms), the rest 20 ms, 2,000
/// users with Zipf s = 1, seed 16.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
pub struct Scenario {
    /// Number of servers.
    pub servers: u32,
    /// Concurrent slots per server.
    pub slots: u32,
    /// Number of requests (Poisson arrivals).
    pub requests: u64,
    /// Target offered load; used when `rate` is not given.
    pub load: f64,
    /// Arrival rate in requests per second; overrides `load` when set.
    pub rate: Option<f64>,
    /// Work distribution.
    pub work: WorkKind,
    /// Share of slow requests (bimodal work).
    pub slow_share: f64,
    /// Work of a quick request in ms (bimodal).
    pub fast_ms: f64,
    /// Work of a slow request in ms (bimodal).
    pub slow_ms: f64,
    /// Mean work in ms (constant, exponential, lognormal).
    pub mean_ms: f64,
    /// Shape of the log-normal work.
    pub sigma: f64,
    /// Number of distinct users.
    pub users: u32,
    /// Zipf exponent of user popularity (0 = uniform).
    pub zipf: f64,
    /// Seed of every random stream.
    pub seed: u64,
    /// Speed factor per server; empty means all 1.
    pub speeds: Vec<f64>,
    /// Weight per server; empty means all 1.
    pub weights: Vec<u32>,
    /// Server names; empty means `s1`..`sN`.
    pub names: Vec<String>,
    /// Independent balancer copies, each with a partial view.
    pub balancers: u32,
    /// Algorithms to run, in canonical order.
    pub algorithms: Vec<AlgorithmId>,
    /// Hash function of the hashing rules; unset, each rule uses its own
    /// default (FNV-1a 32 for `user-hash`, as the article; xxh64 for the
    /// rings and tables, where FNV-1a's weak mixing of similar short keys
    /// such as `s1#0`, `s1#1` would crowd the points).
    pub hash: Option<HashFn>,
    /// Ring points per weight unit (consistent-hash, bounded-load).
    pub vnodes: u32,
    /// HAProxy `hash-balance-factor` in percent (bounded-load).
    pub balance_factor: u32,
    /// How the rings are placed (consistent-hash, bounded-load): `lbsim`,
    /// or a real deployment's construction (`nginx`, `ketama`), which
    /// brings its own hash and points per weight.
    #[serde(skip_serializing_if = "Placement::is_default")]
    pub ring: Placement,
    /// Fleet events (SPEC section 12); none: a fixed, healthy pool.
    #[serde(skip_serializing_if = "Events::is_empty")]
    pub events: Events,
    /// Time a failing server takes to answer with a 500, in ms.
    #[serde(skip_serializing_if = "is_one")]
    pub error_ms: f64,
    /// Time until a connection error from a crashed server, in ms.
    #[serde(skip_serializing_if = "is_one")]
    pub connect_ms: f64,
    /// Retries of a failed request on another server (NGINX
    /// `proxy_next_upstream_tries` minus one).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub retries: u32,
    /// Whether a 500 counts as failed for retries and passive checks
    /// (NGINX `proxy_next_upstream http_500`).
    #[serde(skip_serializing_if = "is_false")]
    pub count_5xx: bool,
    /// NGINX `max_fails` (0 = passive checks off).
    #[serde(skip_serializing_if = "is_u32::<1>")]
    pub max_fails: u32,
    /// NGINX `fail_timeout` in ms.
    #[serde(skip_serializing_if = "is_u32::<10000>")]
    pub fail_timeout_ms: u32,
    /// HAProxy `inter`: active check interval in ms (0 = off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub check_ms: u32,
    /// HAProxy `fall`: failed probes in a row that mark a server down.
    #[serde(skip_serializing_if = "is_u32::<3>")]
    pub fall: u32,
    /// HAProxy `rise`: good probes in a row that mark it up.
    #[serde(skip_serializing_if = "is_u32::<2>")]
    pub rise: u32,
    /// What an active check probes.
    #[serde(skip_serializing_if = "is_tcp")]
    pub check: CheckKind,
    /// Envoy `consecutive_5xx` (0 = outlier detection off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub outlier_5xx: u32,
    /// Envoy `base_ejection_time` in ms.
    #[serde(skip_serializing_if = "is_u32::<30000>")]
    pub ejection_ms: u32,
    /// Envoy `max_ejection_percent`.
    #[serde(skip_serializing_if = "is_u32::<10>")]
    pub max_ejection: u32,
    /// Warm-up of a joining or recovered server in ms (0 = off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub warmup_ms: u32,
    /// Speed of a cold server, as a share of its speed.
    #[serde(skip_serializing_if = "is_quarter")]
    pub cold_speed: f64,
    /// Envoy `slow_start_window` in ms (0 = off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub slow_start_ms: u32,
    /// Envoy slow start `aggression`.
    #[serde(skip_serializing_if = "is_one")]
    pub slow_start_aggression: f64,
    /// Users each server caches, least recently used out first (0 = no
    /// caches; SPEC section 13).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub cache_keys: u32,
    /// Work of a cache hit, as a share of the request's work.
    #[serde(skip_serializing_if = "is_fifth")]
    pub hit_cost: f64,
    /// Per request (7) or per long-lived connection (4).
    #[serde(skip_serializing_if = "is_l7")]
    pub layer: Layer,
    /// Layer 4: a connection is re-opened after this long, in ms (0 = never).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    pub conn_life_ms: u32,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            servers: 4,
            slots: 8,
            requests: 20_000,
            load: 0.65,
            rate: None,
            work: WorkKind::Bimodal,
            slow_share: 0.1,
            fast_ms: 20.0,
            slow_ms: 400.0,
            mean_ms: 58.0,
            sigma: 1.0,
            users: 2_000,
            zipf: 1.0,
            seed: 16,
            speeds: Vec::new(),
            weights: Vec::new(),
            names: Vec::new(),
            balancers: 1,
            algorithms: AlgorithmId::ALL.to_vec(),
            hash: None,
            vnodes: 160,
            balance_factor: 125,
            ring: Placement::Lbsim,
            events: Events::default(),
            error_ms: 1.0,
            connect_ms: 1.0,
            retries: 0,
            count_5xx: false,
            max_fails: 1,
            fail_timeout_ms: 10_000,
            check_ms: 0,
            fall: 3,
            rise: 2,
            check: CheckKind::Tcp,
            outlier_5xx: 0,
            ejection_ms: 30_000,
            max_ejection: 10,
            warmup_ms: 0,
            cold_speed: 0.25,
            slow_start_ms: 0,
            slow_start_aggression: 1.0,
            cache_keys: 0,
            hit_cost: 0.2,
            layer: Layer::L7,
            conn_life_ms: 0,
        }
    }
}

impl Scenario {
    /// The pool the balancers work over: the servers' names and weights
    /// and the hashing rules' settings.
    pub fn pool(&self) -> Pool {
        let n = self.servers as usize;
        Pool {
            names: (0..n).map(|i| self.server_name(i)).collect(),
            weights: (0..n).map(|i| self.weight(i)).collect(),
            hash: self.hash,
            vnodes: self.vnodes,
            balance_factor: self.balance_factor,
            ring: self.ring,
        }
    }

    /// `E[work]` in ms from the distribution's parameters.
    pub fn mean_work_ms(&self) -> f64 {
        match self.work {
            WorkKind::Bimodal => (1.0 - self.slow_share) * self.fast_ms + self.slow_share * self.slow_ms,
            WorkKind::Constant | WorkKind::Exponential | WorkKind::Lognormal => self.mean_ms,
        }
    }

    /// Speed of server `i` (1 unless given).
    pub fn speed(&self, i: usize) -> f64 {
        self.speeds.get(i).copied().unwrap_or(1.0)
    }

    /// Weight of server `i` (1 unless given).
    pub fn weight(&self, i: usize) -> u32 {
        self.weights.get(i).copied().unwrap_or(1)
    }

    /// Name of server `i` (`s1`.. unless given).
    pub fn server_name(&self, i: usize) -> String {
        self.names.get(i).cloned().unwrap_or_else(|| format!("s{}", i + 1))
    }

    /// Total capacity in work-ms per ms: `sum(slots * speed)` over the
    /// servers in the pool at time 0 (a server that joins later is not).
    pub fn capacity(&self) -> f64 {
        (0..self.servers as usize)
            .filter(|&i| self.events.is_empty() || !self.events.starts_outside(&self.server_name(i)))
            .map(|i| self.slots as f64 * self.speed(i))
            .sum()
    }

    /// Whether servers keep caches (SPEC section 13).
    pub fn uses_caches(&self) -> bool {
        self.cache_keys > 0
    }

    /// Arrival rate in requests per second: given, or
    /// `load * sum(slots * speed) / E[work]`.
    pub fn rate_per_s(&self) -> f64 {
        match self.rate {
            Some(rate) => rate,
            None => self.load * self.capacity() / self.mean_work_ms() * 1000.0,
        }
    }

    /// Offered load the arrival rate implies: `rate * E[work] / capacity`.
    pub fn offered_load(&self) -> f64 {
        self.rate_per_s() / 1000.0 * self.mean_work_ms() / self.capacity()
    }

    /// Keeps the per-server lists (speeds, weights, names) one per server
    /// after `servers` changed: longer lists are cut, shorter ones filled
    /// with the defaults (speed 1, weight 1, the next free `sN` name).
    /// Lists left empty stay empty (they mean "all defaults").
    pub fn fit_lists(&mut self) {
        let n = self.servers as usize;
        if !self.speeds.is_empty() {
            self.speeds.resize(n, 1.0);
        }
        if !self.weights.is_empty() {
            self.weights.resize(n, 1);
        }
        if !self.names.is_empty() {
            self.names.truncate(n);
            let mut i = self.names.len();
            while self.names.len() < n {
                i += 1;
                let name = format!("s{i}");
                if !self.names.contains(&name) {
                    self.names.push(name);
                }
            }
        }
    }
}
