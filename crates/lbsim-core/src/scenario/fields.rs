//! The one table of scenario fields: each row is a field's Rust name,
//! type and default, then its key (URL key, CLI flag without `--`, JSON
//! name), kind, range, group, label and meaning, when it applies, and how
//! each real balancer's configuration expresses it. The type gives the
//! field's choices and its reading and writing (`value.rs`), so a new field
//! is one row here plus the code that reads it. Every front end (CLI
//! flags, URL codec, page controls) builds from [`FIELDS`].

use alloc::string::String;
use alloc::vec::Vec;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use self::Expression::{Missing, MissingWhen, Outside, Written};
use super::error::ScenarioError;
use super::kinds::{CheckKind, Layer, LogKind, WorkFrom, WorkKind};
use super::notes as note;
use super::spec::{FieldKind, Group, Spec, MAX_SEED};
use super::table::{applies_or_always, in_grpc, is_skip_default, scenario};
use super::value::FieldValue;
use crate::balancer::builder::Builder;
use crate::balancer::row::{Envoy, Grpc, Haproxy, Nginx};
use crate::balancer::{AlgorithmId, Setup};
use crate::events::{self, Events};
use crate::hash::HashFn;

/// How a real balancer's configuration (`lbsim config`) expresses a field.
#[derive(Clone, Copy, Debug)]
pub enum Expression {
    /// Not the balancer's to configure: the traffic, the work, the
    /// servers' own behaviour, or how lbsim runs and predicts.
    Outside,
    /// Written as the program's own directive.
    Written,
    /// The program has no such setting: the config says so in this
    /// comment when the field is away from its default.
    Missing(&'static str),
    /// As `Missing`, when the scenario asks for it: the comment is written
    /// when the function says so (a setting whose default is already on).
    MissingWhen(&'static str, fn(&Scenario, AlgorithmId) -> bool),
}

/// A field's [`Expression`] in each balancer `lbsim config` writes for.
#[derive(Clone, Copy, Debug)]
pub struct InConfig {
    /// NGINX's `upstream` block.
    pub nginx: Expression,
    /// HAProxy's `backend`.
    pub haproxy: Expression,
    /// Envoy's cluster.
    pub envoy: Expression,
    /// gRPC's service config (its `loadBalancingConfig`).
    pub grpc: Expression,
}

/// One row of the table: what the field is ([`Spec`], which the row
/// dereferences to), and what it says of a scenario.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The field's key, kind, range, meaning and choices.
    pub spec: Spec,
    /// Whether JSON leaves the field out at its default (every field
    /// added after the base model, so the reports of scenarios that do
    /// not use it stay byte-identical).
    pub skips_default: bool,
    /// Whether the field affects a scenario's numbers.
    applies: fn(&Scenario) -> bool,
    /// Sets the field from its text form, checked against the row.
    write: fn(&mut Scenario, &Spec, &str) -> Result<(), ScenarioError>,
    /// The field's text form, as `write` reads it; `None` when unset.
    read: fn(&Scenario) -> Option<String>,
}

impl core::ops::Deref for Field {
    type Target = Spec;
    fn deref(&self) -> &Spec {
        &self.spec
    }
}

impl Field {
    /// Whether the field affects `scenario`'s numbers (front ends disable
    /// the controls of fields that do not apply).
    pub fn applies(&self, scenario: &Scenario) -> bool {
        (self.applies)(scenario)
    }

    /// Sets this field of `scenario` from its text form.
    pub fn write(&self, scenario: &mut Scenario, text: &str) -> Result<(), ScenarioError> {
        (self.write)(scenario, &self.spec, text)
    }

    /// This field's text form in `scenario`; `None` when it is unset.
    pub fn read(&self, scenario: &Scenario) -> Option<String> {
        (self.read)(scenario)
    }

    /// Whether `scenario` has this field away from its default.
    pub fn is_set(&self, scenario: &Scenario) -> bool {
        self.read(scenario) != self.read(&Scenario::default())
    }
}

/// The rule as each program writes it hashes the key (a hash setting
/// means something for it).
fn nginx_hashes(rule: AlgorithmId) -> bool {
    matches!(rule.in_programs().nginx, Some(Nginx::Hash | Nginx::HashConsistent))
}
fn haproxy_rings(rule: AlgorithmId) -> bool {
    matches!(rule.in_programs().haproxy, Some(Haproxy::HashConsistent | Haproxy::HashConsistentBounded))
}
fn envoy_hashes(rule: AlgorithmId) -> bool {
    matches!(rule.in_programs().envoy, Some(Envoy::RingHash | Envoy::Maglev))
}
fn grpc_rings(rule: AlgorithmId) -> bool {
    rule.in_programs().grpc == Some(Grpc::RingHash)
}

scenario! {
    /// A complete, self-contained description of one experiment.
    ///
    /// `Default` is the article's lab: 4 servers x 8 slots, 20,000 Poisson
    /// arrivals at 65% load, 10% slow requests (400 ms), the rest 20 ms, 2,000
    /// users with Zipf s = 1, seed 16.
    #[derive(Clone, Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
    pub struct Scenario;

    /// Number of servers.
    servers: u32 = 4
        => ("servers", Integer, 1.0, 1024.0, 1.0, Servers, "servers",
            "number of servers")
        config(Written, Written, Written, grpc: Missing(note::GRPC_SERVERS)),
    /// Concurrent slots per server.
    slots: u32 = 8
        => ("slots", Integer, 1.0, 1024.0, 1.0, Servers, "slots per server",
            "concurrent slots per server")
        config(Outside, Outside, Outside),
    /// Number of requests (Poisson arrivals).
    requests: u64 = 20_000
        => ("requests", Integer, 1.0, 10_000_000.0, 1.0, Traffic, "requests",
            "number of requests")
        config(Outside, Outside, Outside),
    /// Target offered load; used when `rate` is not given.
    load: f64 = 0.65
        => ("load", Real, 0.01, 2.0, 0.01, Traffic, "target load",
            "target offered load (1 = all slots busy)")
        applies(|s| s.rate.is_none())
        config(Outside, Outside, Outside),
    /// Arrival rate in requests per second; overrides `load` when set.
    rate: Option<f64> = None
        => ("rate", Real, 0.001, 10_000_000.0, 0.1, Traffic, "rate (requests/s)",
            "arrival rate in requests/s (overrides load)")
        config(Outside, Outside, Outside),
    /// Work distribution.
    work: WorkKind = WorkKind::Bimodal
        => ("work", Choice, 0.0, 0.0, 0.0, Work, "work distribution",
            "work distribution")
        config(Outside, Outside, Outside),
    /// Share of slow requests (bimodal work).
    slow_share: f64 = 0.1
        => ("slow-share", Real, 0.0, 1.0, 0.01, Work, "slow share",
            "share of requests that are slow (bimodal)")
        applies(|s| s.work == WorkKind::Bimodal)
        config(Outside, Outside, Outside),
    /// Work of a quick request in ms (bimodal).
    fast_ms: f64 = 20.0
        => ("fast-ms", Real, 0.001, 1_000_000.0, 1.0, Work, "quick work (ms)",
            "work of a quick request in ms (bimodal)")
        applies(|s| s.work == WorkKind::Bimodal)
        config(Outside, Outside, Outside),
    /// Work of a slow request in ms (bimodal).
    slow_ms: f64 = 400.0
        => ("slow-ms", Real, 0.001, 1_000_000.0, 1.0, Work, "slow work (ms)",
            "work of a slow request in ms (bimodal)")
        applies(|s| s.work == WorkKind::Bimodal)
        config(Outside, Outside, Outside),
    /// Mean work in ms (constant, exponential, lognormal).
    mean_ms: f64 = 58.0
        => ("mean-ms", Real, 0.001, 1_000_000.0, 1.0, Work, "mean work (ms)",
            "mean work in ms (constant, exponential, lognormal)")
        applies(|s| s.work != WorkKind::Bimodal)
        config(Outside, Outside, Outside),
    /// Shape of the log-normal work.
    sigma: f64 = 1.0
        => ("sigma", Real, 0.01, 4.0, 0.01, Work, "log-normal sigma",
            "shape of log-normal work")
        applies(|s| s.work == WorkKind::Lognormal)
        config(Outside, Outside, Outside),
    /// Number of distinct users.
    users: u32 = 2_000
        => ("users", Integer, 1.0, 1_000_000.0, 1.0, Traffic, "users",
            "number of distinct users")
        config(Outside, Outside, Outside),
    /// Zipf exponent of user popularity (0 = uniform).
    zipf: f64 = 1.0
        => ("zipf", Real, 0.0, 5.0, 0.01, Traffic, "Zipf s",
            "Zipf exponent of user popularity (0 = uniform)")
        config(Outside, Outside, Outside),
    /// Seed of every random stream.
    seed: u64 = 16
        => ("seed", Integer, 0.0, MAX_SEED as f64, 1.0, Traffic, "seed",
            "seed of every random stream")
        config(Outside, Outside, Outside),
    /// Speed factor per server; empty means all 1.
    speeds: Vec<f64> = Vec::new()
        => ("speeds", NumberList, 0.01, 100.0, 0.01, Servers, "speed per server",
            "speed factor per server, one per server")
        config(Outside, Outside, Outside),
    /// Weight per server; empty means all 1.
    weights: Vec<u32> = Vec::new()
        => ("weights", NumberList, 1.0, 1000.0, 1.0, Servers, "weight per server",
            "weight per server, one per server")
        config(Written, Written, Written, grpc: Missing(note::GRPC_SERVERS)),
    /// Server names; empty means `s1`..`sN`.
    names: Vec<String> = Vec::new()
        => ("names", NameList, 1.0, 32.0, 0.0, Servers, "server names",
            "server names, one per server (letters, digits, - _ and .; an address as host:port or [IPv6]:port)")
        config(Written, Written, Written, grpc: Missing(note::GRPC_SERVERS)),
    /// Independent balancer copies, each with a partial view.
    balancers: u32 = 1
        => ("balancers", Integer, 1.0, 1_024.0, 1.0, Servers, "balancer copies",
            "balancer copies, each seeing only its own requests (at most 64 when a classic rule runs)")
        config(Missing(note::COPIES), Missing(note::COPIES), Missing(note::COPIES), grpc: Missing(note::COPIES)),
    /// Algorithms to run, in canonical order.
    algorithms: Vec<AlgorithmId> = AlgorithmId::classic()
        => ("algorithms", NameList, 0.0, 0.0, 0.0, Rules, "algorithms",
            "algorithms to run")
        config(Outside, Outside, Outside),
    /// Hash function of the hashing rules; unset, each rule uses its own
    /// default (FNV-1a 32 for `user-hash`, as the article; xxh64 for the
    /// rings and tables, where FNV-1a's weak mixing of similar short keys
    /// such as `s1#0`, `s1#1` would crowd the points).
    hash: Option<HashFn> = None
        => ("hash", Choice, 0.0, 0.0, 0.0, Hashing, "hash function",
            "hash function (unset: fnv1a32 for user-hash, xxh64 otherwise; sdbm, djb2 and wt6 are \
             HAProxy's)")
        config(
            MissingWhen(note::NGINX_HASH, |s, r| s.hash.is_some() && nginx_hashes(r)),
            MissingWhen(note::HAPROXY_HASH, |s, r| {
                s.hash.is_some_and(|h| !HashFn::HAPROXY.contains(&h)) && haproxy_rings(r)
            }),
            MissingWhen(note::ENVOY_HASH, |s, r| s.hash.is_some_and(|h| h != HashFn::Xxh64) && envoy_hashes(r)),
            grpc: MissingWhen(note::GRPC_HASH, |s, r| s.hash.is_some_and(|h| h != HashFn::Xxh64) && grpc_rings(r)),
        ),
    /// Ring points per weight unit (consistent-hash, bounded-load).
    vnodes: u32 = 160
        => ("vnodes", Integer, 1.0, 1000.0, 1.0, Hashing, "ring points per weight",
            "ring points per weight unit")
        applies(|s| !s.builder.owns_points())
        config(
            MissingWhen(note::NGINX_POINTS, |s, r| s.vnodes != 160 && nginx_hashes(r)),
            MissingWhen(note::HAPROXY_POINTS, |s, r| s.vnodes != 160 && haproxy_rings(r)),
            MissingWhen(note::ENVOY_POINTS, |s, r| s.vnodes != 160 && envoy_hashes(r)),
            grpc: Written,
        ),
    /// HAProxy `hash-balance-factor` in percent (bounded-load).
    balance_factor: u32 = 125
        => ("balance-factor", Integer, 100.0, 1000.0, 1.0, Hashing, "bounded-load factor (%)",
            "bounded-load factor in percent (HAProxy)")
        config(
            MissingWhen(note::NGINX_BOUNDED, |s, r| s.balance_factor != 125 && r.setup() == Setup::RingPerCopy),
            Written,
            MissingWhen(note::ENVOY_BOUNDED, |s, r| s.balance_factor != 125 && r.setup() == Setup::RingPerCopy),
            grpc: MissingWhen(note::GRPC_BOUNDED, |s, r| s.balance_factor != 125 && r.setup() == Setup::RingPerCopy),
        ),
    /// Whose construction the rules follow: `lbsim` (the default), or a
    /// real balancer's (`nginx`, `haproxy`, `envoy`) or client's
    /// (`ketama`), for the rules that balancer has; the others keep
    /// lbsim's ([`Builder::follows`]). Read from `ring=` too, its old key.
    #[serde(alias = "ring")]
    builder: Builder = Builder::Lbsim, skip_default
        => ("builder", Choice, 0.0, 0.0, 0.0, Hashing, "as built by",
            "whose construction the rules follow (nginx: NGINX 1.22, haproxy: HAProxy 2.6, ketama: an MD5 \
             ring; rules that builder lacks keep lbsim's; nginx, haproxy and ketama rings bring their own \
             points, so vnodes does not apply)")
        config(Outside, Outside, Outside),
    /// Entries of the Maglev table: a prime, as the population needs
    /// (Envoy's `table_size`, its default 65,537).
    maglev_size: u32 = 65_537, skip_default
        => ("maglev-size", Integer, 7.0, 5_000_011.0, 1.0, Hashing, "Maglev table size (a prime)",
            "entries of the Maglev table, a prime (Envoy's table_size)")
        applies(|s| s.algorithms.iter().any(|r| r.setup() == Setup::MaglevTable))
        config(
            MissingWhen(note::NGINX_MAGLEV, |s, r| s.maglev_size != 65_537 && r.setup() == Setup::MaglevTable),
            MissingWhen(note::HAPROXY_MAGLEV, |s, r| s.maglev_size != 65_537 && r.setup() == Setup::MaglevTable),
            Written,
            grpc: MissingWhen(note::GRPC_MAGLEV, |s, r| s.maglev_size != 65_537 && r.setup() == Setup::MaglevTable),
        ),
    /// Fleet events (docs/model.md#events); none: a fixed, healthy pool.
    events: Events = Events::default(), skip_default
        => ("events", Events, 0.0, events::MAX_EVENTS as f64, 0.0, Events, "events",
            "fleet events over time")
        config(Outside, Outside, Outside),
    /// Time a failing server takes to answer with a 500, in ms.
    error_ms: f64 = 1.0, skip_default
        => ("error-ms", Real, 0.001, 60_000.0, 1.0, Health, "500 answered after (ms)",
            "time a failing server takes to answer 500, in ms")
        applies(Scenario::fleet_changes)
        config(Outside, Outside, Outside),
    /// Time until a connection error from a crashed server, in ms.
    connect_ms: f64 = 1.0, skip_default
        => ("connect-ms", Real, 0.001, 60_000.0, 1.0, Health, "connection error after (ms)",
            "time until a crashed server's connection error, in ms")
        applies(Scenario::fleet_changes)
        config(Outside, Outside, Outside),
    /// Retries of a failed request on another server (NGINX
    /// `proxy_next_upstream_tries` minus one).
    retries: u32 = 0, skip_default
        => ("retries", Integer, 0.0, 10.0, 1.0, Health, "retries",
            "retries of a failed request on another server")
        applies(Scenario::fleet_changes_at_layer_7)
        config(Written, Written, Missing(note::ENVOY_RETRIES), grpc: Missing(note::GRPC_RETRIES)),
    /// Whether a 500 counts as failed for retries and passive checks
    /// (NGINX `proxy_next_upstream http_500`).
    count_5xx: bool = false, skip_default
        => ("count-5xx", Choice, 0.0, 0.0, 0.0, Health, "count 5xx as failed",
            "a 500 counts as failed (NGINX http_500; 1 and 0 read too)")
        applies(Scenario::fleet_changes_at_layer_7)
        config(Written, Written, Missing(note::ENVOY_5XX), grpc: Missing(note::GRPC_RETRIES)),
    /// NGINX `max_fails` (0 = passive checks off).
    max_fails: u32 = 1, skip_default
        => ("max-fails", Integer, 0.0, 100.0, 1.0, Health, "max fails (NGINX; 0 = off)",
            "failures that mark a server down (NGINX; 0 = off)")
        applies(Scenario::fleet_changes)
        config(
            Written,
            MissingWhen(note::HAPROXY_PASSIVE, Scenario::passive_checks),
            MissingWhen(note::ENVOY_PASSIVE, Scenario::passive_checks),
            grpc: MissingWhen(note::GRPC_PASSIVE, Scenario::passive_checks),
        ),
    /// NGINX `fail_timeout` in ms.
    fail_timeout_ms: u32 = 10_000, skip_default
        => ("fail-timeout-ms", Integer, 1.0, 3_600_000.0, 100.0, Health, "fail timeout (ms)",
            "NGINX fail_timeout in ms")
        applies(Scenario::fleet_changes)
        config(
            Written,
            MissingWhen(note::HAPROXY_PASSIVE, Scenario::passive_checks),
            MissingWhen(note::ENVOY_PASSIVE, Scenario::passive_checks),
            grpc: MissingWhen(note::GRPC_PASSIVE, Scenario::passive_checks),
        ),
    /// HAProxy `inter`: active check interval in ms (0 = off).
    check_ms: u32 = 0, skip_default
        => ("check-ms", Integer, 0.0, 600_000.0, 100.0, Health, "check interval (ms, HAProxy; 0 = off)",
            "active check interval in ms (HAProxy; 0 = off)")
        applies(Scenario::fleet_changes)
        config(Missing(note::NGINX_ACTIVE), Written, Written, grpc: Missing(note::GRPC_ACTIVE)),
    /// HAProxy `fall`: failed probes in a row that mark a server down.
    fall: u32 = 3, skip_default
        => ("fall", Integer, 1.0, 100.0, 1.0, Health, "fall (failed checks)",
            "failed checks in a row that mark a server down")
        applies(Scenario::fleet_changes)
        config(MissingWhen(note::NGINX_ACTIVE, Scenario::active_checks), Written, Written, grpc: MissingWhen(note::GRPC_ACTIVE, Scenario::active_checks)),
    /// HAProxy `rise`: good probes in a row that mark it up.
    rise: u32 = 2, skip_default
        => ("rise", Integer, 1.0, 100.0, 1.0, Health, "rise (good checks)",
            "good checks in a row that mark it up")
        applies(Scenario::fleet_changes)
        config(MissingWhen(note::NGINX_ACTIVE, Scenario::active_checks), Written, Written, grpc: MissingWhen(note::GRPC_ACTIVE, Scenario::active_checks)),
    /// What an active check probes.
    check: CheckKind = CheckKind::Tcp, skip_default
        => ("check", Choice, 0.0, 0.0, 0.0, Health, "check type",
            "active check (tcp fails on a crash, http also on fail)")
        applies(Scenario::fleet_changes)
        config(MissingWhen(note::NGINX_ACTIVE, Scenario::active_checks), Written, Written, grpc: MissingWhen(note::GRPC_ACTIVE, Scenario::active_checks)),
    /// Envoy `consecutive_5xx` (0 = outlier detection off).
    outlier_5xx: u32 = 0, skip_default
        => ("outlier-5xx", Integer, 0.0, 100.0, 1.0, Health, "errors in a row to eject (Envoy; 0 = off)",
            "errors in a row that eject a server (Envoy; 0 = off)")
        applies(Scenario::fleet_changes)
        config(Missing(note::NGINX_OUTLIER), Missing(note::HAPROXY_OUTLIER), Written, grpc: Missing(note::GRPC_OUTLIER)),
    /// Envoy `base_ejection_time` in ms.
    ejection_ms: u32 = 30_000, skip_default
        => ("ejection-ms", Integer, 1.0, 3_600_000.0, 100.0, Health, "ejection time (ms)",
            "Envoy base ejection time in ms")
        applies(Scenario::fleet_changes)
        config(
            MissingWhen(note::NGINX_OUTLIER, Scenario::outlier_detection),
            MissingWhen(note::HAPROXY_OUTLIER, Scenario::outlier_detection),
            Written,
            grpc: MissingWhen(note::GRPC_OUTLIER, Scenario::outlier_detection),
        ),
    /// Envoy `max_ejection_percent`.
    max_ejection: u32 = 10, skip_default
        => ("max-ejection", Integer, 0.0, 100.0, 1.0, Health, "max ejected (% of pool)",
            "most of the pool ejected at once, in percent")
        applies(Scenario::fleet_changes)
        config(
            MissingWhen(note::NGINX_OUTLIER, Scenario::outlier_detection),
            MissingWhen(note::HAPROXY_OUTLIER, Scenario::outlier_detection),
            Written,
            grpc: MissingWhen(note::GRPC_OUTLIER, Scenario::outlier_detection),
        ),
    /// Warm-up of a joining or recovered server in ms (0 = off).
    warmup_ms: u32 = 0, skip_default
        => ("warmup-ms", Integer, 0.0, 3_600_000.0, 100.0, Health, "warm-up (ms; 0 = off)",
            "warm-up of a joining or recovered server, ms")
        applies(Scenario::fleet_changes)
        config(Missing(note::WARM_UP), Missing(note::WARM_UP), Missing(note::WARM_UP), grpc: Missing(note::WARM_UP)),
    /// Speed of a cold server, as a share of its speed.
    cold_speed: f64 = 0.25, skip_default
        => ("cold-speed", Real, 0.01, 1.0, 0.01, Health, "cold speed (share)",
            "speed of a cold server, as a share of its speed")
        applies(Scenario::fleet_changes)
        config(Outside, Outside, Outside),
    /// Envoy `slow_start_window` in ms (0 = off).
    slow_start_ms: u32 = 0, skip_default
        => ("slow-start-ms", Integer, 0.0, 3_600_000.0, 100.0, Health, "slow start (ms, Envoy; 0 = off)",
            "slow-start window in ms (Envoy; 0 = off)")
        applies(Scenario::fleet_changes)
        config(Missing(note::NGINX_SLOW_START), Written, Written, grpc: Missing(note::GRPC_SLOW_START)),
    /// Envoy slow start `aggression`.
    slow_start_aggression: f64 = 1.0, skip_default
        => ("slow-start-aggression", Real, 0.1, 10.0, 0.1, Health, "slow-start aggression",
            "slow-start aggression (Envoy)")
        applies(Scenario::fleet_changes)
        config(
            MissingWhen(note::NGINX_SLOW_START, Scenario::slow_start),
            MissingWhen(note::HAPROXY_AGGRESSION, |s, r| s.slow_start(r) && s.slow_start_aggression != 1.0),
            Written,
            grpc: MissingWhen(note::GRPC_SLOW_START, Scenario::slow_start),
        ),
    /// Users each server caches, least recently used out first (0 = no
    /// caches; docs/model.md#caches-and-connections).
    cache_keys: u32 = 0, skip_default
        => ("cache-keys", Integer, 0.0, 1_000_000.0, 10.0, Locality, "cached users per server (0 = off)",
            "users each server caches, LRU (0 = no caches)")
        config(Outside, Outside, Outside),
    /// Work of a cache hit, as a share of the request's work.
    hit_cost: f64 = 0.2, skip_default
        => ("hit-cost", Real, 0.0, 1.0, 0.05, Locality, "work of a cache hit (share)",
            "work of a cache hit, as a share of the request's")
        applies(|s| s.uses_caches())
        config(Outside, Outside, Outside),
    /// Per request (7) or per long-lived connection (4).
    layer: Layer = Layer::L7, skip_default
        => ("layer", Choice, 0.0, 0.0, 0.0, Locality, "balancer layer",
            "balancer layer (7: every request placed; 4: each user's long-lived connection placed once)")
        config(Missing(note::NGINX_LAYER_4), Missing(note::HAPROXY_LAYER_4), Missing(note::ENVOY_LAYER_4), grpc: Missing(note::GRPC_LAYER_4)),
    /// Layer 4: a connection is re-opened after this long, in ms (0 = never).
    conn_life_ms: u32 = 0, skip_default
        => ("conn-life-ms", Integer, 0.0, 86_400_000.0, 1000.0, Locality,
            "connection lifetime (ms; 0 = never re-opened)",
            "layer 4: a connection is re-opened after this long, ms (0 = never)")
        applies(|s| s.layer == Layer::L4)
        config(
            Missing(note::CONNECTION_LIFE),
            Missing(note::CONNECTION_LIFE),
            Missing(note::CONNECTION_LIFE),
            grpc: Missing(note::CONNECTION_LIFE),
        ),
    // An access log as the workload (docs/model.md#your-own-traffic).
    /// The access log whose requests are the workload, by its file's name
    /// (`-`: standard input); unset, the workload is drawn. The front ends
    /// read the file; the core takes its requests (`Prepared::with_traffic`).
    log: Option<String> = None, skip_default
        => ("log", Text, 1.0, 255.0, 0.0, Log, "access log",
            "access log whose requests are the workload (a file; - for standard input)")
        config(Outside, Outside, Outside),
    /// Which program wrote the log; unset, detected from its lines.
    log_kind: Option<LogKind> = None, skip_default
        => ("log-kind", Choice, 0.0, 0.0, 0.0, Log, "log kind",
            "which program wrote the log (unset: detected)")
        applies(|s| s.log.is_some())
        config(Outside, Outside, Outside),
    /// NGINX's `log_format` string the log was written by; unset, lbsim's
    /// documented timing format.
    log_format: Option<String> = None, skip_default
        => ("log-format", Text, 1.0, 4096.0, 0.0, Log, "NGINX log_format",
            "the NGINX log_format string the log was written by (unset: lbsim's timing format)")
        applies(|s| s.log.is_some())
        config(Outside, Outside, Outside),
    /// How work is taken from a logged duration.
    work_from: WorkFrom = WorkFrom::Upstream, skip_default
        => ("work-from", Choice, 0.0, 0.0, 0.0, Log, "work taken from",
            "which logged duration is taken as work (upstream: the server's own time; total: the balancer's)")
        applies(|s| s.log.is_some())
        config(Outside, Outside, Outside),
    /// The log's traffic at this many times its rate: arrivals divided by it.
    time_scale: f64 = 1.0, skip_default
        => ("time-scale", Real, 0.01, 100.0, 0.01, Log, "time scale (x rate)",
            "the log's traffic at this many times its rate (arrivals divided by it)")
        applies(|s| s.log.is_some())
        config(Outside, Outside, Outside),
    // The parameters of the rules that hear the servers' messages
    // (docs/model.md#what-a-rule-may-know).
    /// JIQ: copies an idle server samples, joining the shortest idle queue
    /// of those (JIQ-SQ(d)); 1 is JIQ-Random.
    jiq_sampled: u32 = 1, skip_default
        => ("jiq-sampled", Integer, 1.0, 64.0, 1.0, Servers, "JIQ: copies an idle server samples",
            "copies an idle server samples for the shortest idle queue (JIQ-SQ(d); 1: JIQ-Random)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Jiq))
        config(Outside, Outside, Outside),
    // The rules production uses now: their parameters.
    /// Envoy least request's `active_request_bias`: with unequal weights a
    /// host's weight is divided by `(active + 1)` to this power (1, Envoy's
    /// default; 0 is weighted round robin). Envoy sets no upper bound; 10
    /// already makes one active request outweigh a thousandfold weight.
    active_request_bias: f64 = 1.0, skip_default
        => ("active-request-bias", Real, 0.0, 10.0, 0.1, Hashing, "active-request bias (least request)",
            "least-request with unequal weights: weight / (active + 1)^bias (Envoy; 0: weighted round robin)")
        applies(|s| {
            s.algorithms.contains(&AlgorithmId::LeastRequest)
                && (0..s.servers as usize).any(|i| s.weight(i) != s.weight(0))
        })
        config(
            MissingWhen(note::NGINX_BIAS, Scenario::biased_least_request),
            MissingWhen(note::HAPROXY_BIAS, Scenario::biased_least_request),
            Written,
            grpc: MissingWhen(note::GRPC_BIAS, Scenario::biased_least_request),
        ),
    // Learned weights: gRPC's weighted_round_robin (gRFC A58) and Envoy's
    // client-side weighted round robin, which share these settings.
    /// The period a server's load report covers, in ms: qps, errors a
    /// second and utilization over its last closed period (per call) or
    /// sent every period (out of band, gRFC A58's `oobReportingPeriod`).
    report_period: u32 = 1_000, skip_default
        => ("report-period", Integer, 10.0, 600_000.0, 100.0, Hashing, "load report period (ms)",
            "learned weights: the period a server's load report covers, ms (out of band: sent every period)")
        applies(Scenario::learns_weights)
        config(Outside, Outside, Written, grpc: Written),
    /// gRFC A58's `blackoutPeriod`: a weight is used only this long after
    /// the server's first report, in ms (0: at once).
    blackout: u32 = 10_000, skip_default
        => ("blackout", Integer, 0.0, 3_600_000.0, 1000.0, Hashing, "weight blackout (ms)",
            "learned weights: a weight is used only this long after the server's first report, ms (gRFC A58 blackoutPeriod)")
        applies(Scenario::learns_weights)
        config(Outside, Outside, Written, grpc: Written),
    /// gRFC A58's `weightExpirationPeriod`: a weight unrenewed this long
    /// is dropped, in ms.
    expiration: u32 = 180_000, skip_default
        => ("expiration", Integer, 100.0, 3_600_000.0, 1000.0, Hashing, "weight expiration (ms)",
            "learned weights: a weight no report renews for this long is dropped, ms (gRFC A58 weightExpirationPeriod)")
        applies(Scenario::learns_weights)
        config(Outside, Outside, Written, grpc: Written),
    /// gRFC A58's `weightUpdatePeriod`: how often the weights are
    /// recomputed, in ms (gRPC takes no less than 100 ms).
    weight_period: u32 = 1_000, skip_default
        => ("weight-period", Integer, 100.0, 600_000.0, 100.0, Hashing, "weight update period (ms)",
            "learned weights: how often the weights are recomputed, ms (gRFC A58 weightUpdatePeriod)")
        applies(Scenario::learns_weights)
        config(Outside, Outside, Written, grpc: Written),
    /// gRFC A58's `errorUtilizationPenalty`: a weight is
    /// `qps / (utilization + eps / qps x penalty)`.
    error_penalty: f64 = 1.0, skip_default
        => ("error-penalty", Real, 0.0, 100.0, 0.1, Hashing, "error utilization penalty",
            "learned weights: qps / (utilization + eps / qps x penalty) (gRFC A58 errorUtilizationPenalty)")
        applies(Scenario::learns_weights)
        config(Outside, Outside, Written, grpc: Written),
    /// gRFC A58's `enableOobLoadReport`: every server sends its report to
    /// every copy once a period, instead of with each response.
    out_of_band: bool = false, skip_default
        => ("out-of-band", Choice, 0.0, 0.0, 0.0, Hashing, "out-of-band load reports",
            "learned weights: every server reports to every copy once a period, not with each response (1 and 0 read too)")
        applies(Scenario::learns_weights)
        config(Outside, Outside, Written, grpc: Written),
    // Finagle's deterministic aperture.
    /// The servers each copy's slice is sized for, at most the pool
    /// (Finagle's `MinDeterministicAperture`, 12; Finagle takes no less than
    /// 2). The slice is widened to whole copy-widths, so a copy may hold more.
    aperture_size: u32 = crate::balancer::aperture::DEFAULT_APERTURE, skip_default
        => ("aperture-size", Integer, 2.0, 1024.0, 1.0, Servers, "aperture: servers a copy talks to",
            "aperture: the servers each balancer copy's slice of the ring is sized for, at most the servers (Finagle's minimum deterministic aperture)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Aperture) && s.balancers > 1)
        config(Outside, Outside, Outside),
    // Prequal's parameters (docs/model.md#prequal): the paper's defaults,
    // lbsim's where it states none.
    /// Prequal: probes sent a pick (r_probe; the paper's 3).
    probe_rate: f64 = 3.0, skip_default
        => ("probe-rate", Real, 0.0, 16.0, 0.1, Hashing, "Prequal: probes a pick",
            "Prequal: probes sent to servers drawn uniformly after each pick (r_probe)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: a probe's round trip, in ms (lbsim's choice: 1 ms, a
    /// round trip inside one data centre).
    probe_rtt_ms: f64 = 1.0, skip_default
        => ("probe-rtt-ms", Real, 0.0, 1000.0, 0.1, Hashing, "Prequal: probe round trip (ms)",
            "Prequal: a probe's round trip, ms (it reaches the server half-way)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: server busy time a probe costs, in ms (lbsim's choice:
    /// 0.05 ms, a twentieth of a 1 ms request).
    probe_cost_ms: f64 = 0.05, skip_default
        => ("probe-cost-ms", Real, 0.0, 100.0, 0.01, Hashing, "Prequal: server time a probe costs (ms)",
            "Prequal: server busy time answering a probe costs, ms (it takes no slot)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: a probe is hot when its RIF is at or above this quantile
    /// of the recent probes' RIFs (Q_RIF; the paper's 0.84).
    q_rif: f64 = 0.84, skip_default
        => ("q-rif", Real, 0.0, 1.0, 0.01, Hashing, "Prequal: hot RIF quantile",
            "Prequal: a probe is hot at or above this quantile of recent probes' requests in flight (Q_RIF)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: most probes a copy's pool holds (the paper's 16).
    pool_size: u32 = 16, skip_default
        => ("pool-size", Integer, 1.0, 256.0, 1.0, Hashing, "Prequal: probe pool size",
            "Prequal: most probes a copy's pool holds, one per server")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: a probe older than this is dropped, in ms (the paper's 1 s).
    max_age_ms: f64 = 1000.0, skip_default
        => ("max-age-ms", Real, 1.0, 60_000.0, 10.0, Hashing, "Prequal: probe max age (ms)",
            "Prequal: a probe older than this (since it reached the server) is dropped, ms")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: probes removed a pick, the worst first (r_remove; the paper's 1).
    remove_rate: f64 = 1.0, skip_default
        => ("remove-rate", Real, 0.0, 16.0, 0.1, Hashing, "Prequal: probes removed a pick",
            "Prequal: probes removed from the pool after each pick, the worst first (r_remove)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    /// Prequal: delta in the reuse budget `1 + delta / ((1 - m/n) r_probe -
    /// r_remove)` (the paper's 1).
    reuse_delta: f64 = 1.0, skip_default
        => ("reuse-delta", Real, 0.0, 16.0, 0.1, Hashing, "Prequal: reuse delta",
            "Prequal: delta in the reuse budget 1 + delta / ((1 - m/n) r_probe - r_remove)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
    // Prequal's probing of an idle copy (docs/model.md#prequal).
    /// Prequal: a copy that has neither picked nor probed for this long
    /// probes as a pick would, in ms; 0: never (lbsim's choice: 1 s, the
    /// max age, so an idle copy's pool is never all aged out).
    idle_probe_ms: f64 = 1000.0, skip_default
        => ("idle-probe-ms", Real, 0.0, 60_000.0, 10.0, Hashing, "Prequal: idle probing (ms)",
            "Prequal: a copy idle this long probes as after a pick, ms (0: never)")
        applies(|s| s.algorithms.contains(&AlgorithmId::Prequal))
        config(Outside, Outside, Outside),
}
