//! The one table of scenario fields: each row is a field's key (URL key,
//! CLI flag without `--`, JSON name), its kind, its range and its meaning;
//! the accessors that read and write it in a [`Scenario`] come with the
//! row, so a new field is one row. Every front end (CLI flags, URL codec,
//! page controls) builds from [`FIELDS`].

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::{Deserialize, Serialize};

use super::error::{ScenarioError, UNKNOWN_KEY};
use super::kinds::{CheckKind, Layer, WorkKind};
use crate::balancer::builder::Builder;
use crate::balancer::AlgorithmId;
use crate::events::{self, Events};
use crate::hash::HashFn;

/// What kind of value a field holds, for parsing and for building inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number.
    Integer,
    /// A real number.
    Real,
    /// One of a fixed set of ids.
    Choice,
    /// A comma-separated list of numbers, one per server.
    NumberList,
    /// A comma-separated list of ids or names.
    NameList,
    /// Fleet events, `TIME:SERVER:KIND,...`.
    Events,
}

/// Where a field belongs: the page groups its controls so, and the fleet
/// over time (SPEC section 12) is the `Events` and `Health` groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The servers: how many, their slots, speeds, weights and names.
    Servers,
    /// The arrivals and their users.
    Traffic,
    /// The work distribution.
    Work,
    /// Which rules run (the page shows them as the rules' checkboxes).
    Rules,
    /// The hashing rules' settings.
    Hashing,
    /// Fleet events over time.
    Events,
    /// Health checks, retries, warm-up and slow start.
    Health,
    /// Caches and connections (SPEC section 13).
    Locality,
}

impl Group {
    /// The id the page's group of controls carries (`data-group`).
    pub fn id(self) -> &'static str {
        match self {
            Group::Servers => "fleet",
            Group::Traffic => "traffic",
            Group::Work => "work",
            Group::Rules => "algorithms",
            Group::Hashing => "hashing",
            Group::Events => "events",
            Group::Health => "health",
            Group::Locality => "locality",
        }
    }

    /// Whether its fields are the fleet over time's (SPEC section 12).
    pub fn over_time(self) -> bool {
        matches!(self, Group::Events | Group::Health)
    }
}

/// One row of the table of ranges.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// URL key, CLI flag (without `--`) and JSON name.
    pub key: &'static str,
    /// Kind of value.
    pub kind: FieldKind,
    /// Smallest allowed value (of each element, for lists).
    pub min: f64,
    /// Largest allowed value (of each element, for lists).
    pub max: f64,
    /// Step for sliders.
    pub step: f64,
    /// Where the field belongs: the page's group of controls, and
    /// whether it is a setting of the fleet over time.
    pub group: Group,
    /// Its short name on the page.
    pub label: &'static str,
    /// What the field means, with its unit.
    pub meaning: &'static str,
    /// Sets the field from its text form, checked against this row.
    write: fn(&mut Scenario, &Field, &str) -> Result<(), ScenarioError>,
    /// The field's text form, as `write` reads it; `None` when unset.
    read: fn(&Scenario) -> Option<String>,
}

/// Most hash-ring points a run may build (vnodes x total weight, per ring):
/// 4M points are 64 MiB; more would exhaust memory rather than answer.
pub const MAX_RING_POINTS: u64 = 1 << 22;

/// Largest seed: seeds travel through JavaScript numbers on the page.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// Declares the [`Scenario`] type, its `Default` and [`FIELDS`] from one
/// row per field: `name: type = default => (key, kind, min, max, step,
/// group, label, meaning)`, its doc comment and serde attributes above it.
/// The accessors come from the field's type ([`FieldValue`]), so a field
/// is its row and nothing is listed twice.
macro_rules! scenario {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        $(
            $(#[$attr:meta])*
            $field:ident: $ty:ty = $default:expr
                => ($key:literal, $kind:ident, $min:expr, $max:expr, $step:expr, $group:ident, $label:literal,
                    $meaning:expr),
        )*
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[$attr])* pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        /// The one table of scenario fields and their ranges. The CLI builds its
        /// flags from it, the URL codec its keys, the page its inputs.
        pub const FIELDS: &[Field] = &[$(Field {
            key: $key,
            kind: FieldKind::$kind,
            min: $min,
            max: $max,
            step: $step,
            group: Group::$group,
            label: $label,
            meaning: $meaning,
            write: |scenario, field, text| {
                scenario.$field = FieldValue::parse(field, text)?;
                Ok(())
            },
            read: |scenario| scenario.$field.text(),
        }),*];
    };
}

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

scenario! {
    /// A complete, self-contained description of one experiment.
    ///
    /// `Default` is the article's lab: 4 servers x 8 slots, 20,000 Poisson
    /// arrivals at 65% load, 10% slow requests (400 ms), the rest 20 ms, 2,000
    /// users with Zipf s = 1, seed 16.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
    pub struct Scenario;

    /// Number of servers.
    servers: u32 = 4
        => ("servers", Integer, 1.0, 1024.0, 1.0, Servers, "servers",
            "number of servers"),
    /// Concurrent slots per server.
    slots: u32 = 8
        => ("slots", Integer, 1.0, 1024.0, 1.0, Servers, "slots per server",
            "concurrent slots per server"),
    /// Number of requests (Poisson arrivals).
    requests: u64 = 20_000
        => ("requests", Integer, 1.0, 10_000_000.0, 1.0, Traffic, "requests",
            "number of requests"),
    /// Target offered load; used when `rate` is not given.
    load: f64 = 0.65
        => ("load", Real, 0.01, 2.0, 0.01, Traffic, "target load",
            "target offered load (1 = all slots busy)"),
    /// Arrival rate in requests per second; overrides `load` when set.
    rate: Option<f64> = None
        => ("rate", Real, 0.001, 10_000_000.0, 0.1, Traffic, "rate (requests/s)",
            "arrival rate in requests/s (overrides load)"),
    /// Work distribution.
    work: WorkKind = WorkKind::Bimodal
        => ("work", Choice, 0.0, 0.0, 0.0, Work, "work distribution",
            "work distribution: bimodal, constant, exponential, lognormal"),
    /// Share of slow requests (bimodal work).
    slow_share: f64 = 0.1
        => ("slow-share", Real, 0.0, 1.0, 0.01, Work, "slow share",
            "share of requests that are slow (bimodal)"),
    /// Work of a quick request in ms (bimodal).
    fast_ms: f64 = 20.0
        => ("fast-ms", Real, 0.001, 1_000_000.0, 1.0, Work, "quick work (ms)",
            "work of a quick request in ms (bimodal)"),
    /// Work of a slow request in ms (bimodal).
    slow_ms: f64 = 400.0
        => ("slow-ms", Real, 0.001, 1_000_000.0, 1.0, Work, "slow work (ms)",
            "work of a slow request in ms (bimodal)"),
    /// Mean work in ms (constant, exponential, lognormal).
    mean_ms: f64 = 58.0
        => ("mean-ms", Real, 0.001, 1_000_000.0, 1.0, Work, "mean work (ms)",
            "mean work in ms (constant, exponential, lognormal)"),
    /// Shape of the log-normal work.
    sigma: f64 = 1.0
        => ("sigma", Real, 0.01, 4.0, 0.01, Work, "log-normal sigma",
            "shape of log-normal work"),
    /// Number of distinct users.
    users: u32 = 2_000
        => ("users", Integer, 1.0, 1_000_000.0, 1.0, Traffic, "users",
            "number of distinct users"),
    /// Zipf exponent of user popularity (0 = uniform).
    zipf: f64 = 1.0
        => ("zipf", Real, 0.0, 5.0, 0.01, Traffic, "Zipf s",
            "Zipf exponent of user popularity (0 = uniform)"),
    /// Seed of every random stream.
    seed: u64 = 16
        => ("seed", Integer, 0.0, MAX_SEED as f64, 1.0, Traffic, "seed",
            "seed of every random stream"),
    /// Speed factor per server; empty means all 1.
    speeds: Vec<f64> = Vec::new()
        => ("speeds", NumberList, 0.01, 100.0, 0.01, Servers, "speed per server",
            "speed factor per server, one per server"),
    /// Weight per server; empty means all 1.
    weights: Vec<u32> = Vec::new()
        => ("weights", NumberList, 1.0, 1000.0, 1.0, Servers, "weight per server",
            "weight per server, one per server"),
    /// Server names; empty means `s1`..`sN`.
    names: Vec<String> = Vec::new()
        => ("names", NameList, 1.0, 32.0, 0.0, Servers, "server names",
            "server names, one per server (letters, digits, - _ . and :, as host:port)"),
    /// Independent balancer copies, each with a partial view.
    balancers: u32 = 1
        => ("balancers", Integer, 1.0, 64.0, 1.0, Servers, "balancer copies",
            "balancer copies, each seeing only its own requests"),
    /// Algorithms to run, in canonical order.
    algorithms: Vec<AlgorithmId> = AlgorithmId::ALL.to_vec()
        => ("algorithms", NameList, 0.0, 0.0, 0.0, Rules, "algorithms",
            "algorithms to run"),
    /// Hash function of the hashing rules; unset, each rule uses its own
    /// default (FNV-1a 32 for `user-hash`, as the article; xxh64 for the
    /// rings and tables, where FNV-1a's weak mixing of similar short keys
    /// such as `s1#0`, `s1#1` would crowd the points).
    hash: Option<HashFn> = None
        => ("hash", Choice, 0.0, 0.0, 0.0, Hashing, "hash function",
            "hash function: fnv1a32, xxh32, xxh64, crc32, or HAProxy's sdbm, djb2, wt6 (unset: fnv1a32 for \
             user-hash, xxh64 otherwise)"),
    /// Ring points per weight unit (consistent-hash, bounded-load).
    vnodes: u32 = 160
        => ("vnodes", Integer, 1.0, 1000.0, 1.0, Hashing, "ring points per weight",
            "ring points per weight unit"),
    /// HAProxy `hash-balance-factor` in percent (bounded-load).
    balance_factor: u32 = 125
        => ("balance-factor", Integer, 100.0, 1000.0, 1.0, Hashing, "bounded-load factor (%)",
            "bounded-load factor in percent (HAProxy)"),
    /// Whose construction the rules follow: `lbsim` (the default), or a
    /// real balancer's (`nginx`, `haproxy`, `envoy`) or client's
    /// (`ketama`), for the rules that balancer has; the others keep
    /// lbsim's ([`Builder::follows`]). Read from `ring=` too, its old key.
    #[serde(skip_serializing_if = "Builder::is_default", alias = "ring")]
    builder: Builder = Builder::Lbsim
        => ("builder", Choice, 0.0, 0.0, 0.0, Hashing, "as built by",
            "whose construction the rules follow: lbsim, nginx (1.22), haproxy (2.6), envoy or ketama (MD5 \
             ring); rules that builder lacks keep lbsim's; nginx, haproxy and ketama rings bring their own \
             points (vnodes does not apply)"),
    /// Entries of the Maglev table: a prime, as the population needs
    /// (Envoy's `table_size`, its default 65,537).
    #[serde(skip_serializing_if = "is_u32::<65_537>")]
    maglev_size: u32 = 65_537
        => ("maglev-size", Integer, 7.0, 5_000_011.0, 1.0, Hashing, "Maglev table size (a prime)",
            "entries of the Maglev table, a prime (Envoy's table_size)"),
    /// Fleet events (SPEC section 12); none: a fixed, healthy pool.
    #[serde(skip_serializing_if = "Events::is_empty")]
    events: Events = Events::default()
        => ("events", Events, 0.0, events::MAX_EVENTS as f64, 0.0, Events, "events",
            "fleet events over time"),
    /// Time a failing server takes to answer with a 500, in ms.
    #[serde(skip_serializing_if = "is_one")]
    error_ms: f64 = 1.0
        => ("error-ms", Real, 0.001, 60_000.0, 1.0, Health, "500 answered after (ms)",
            "time a failing server takes to answer 500, in ms"),
    /// Time until a connection error from a crashed server, in ms.
    #[serde(skip_serializing_if = "is_one")]
    connect_ms: f64 = 1.0
        => ("connect-ms", Real, 0.001, 60_000.0, 1.0, Health, "connection error after (ms)",
            "time until a crashed server's connection error, in ms"),
    /// Retries of a failed request on another server (NGINX
    /// `proxy_next_upstream_tries` minus one).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    retries: u32 = 0
        => ("retries", Integer, 0.0, 10.0, 1.0, Health, "retries",
            "retries of a failed request on another server"),
    /// Whether a 500 counts as failed for retries and passive checks
    /// (NGINX `proxy_next_upstream http_500`).
    #[serde(skip_serializing_if = "is_false")]
    count_5xx: bool = false
        => ("count-5xx", Choice, 0.0, 0.0, 0.0, Health, "count 5xx as failed",
            "true or false: a 500 counts as failed (NGINX http_500); 1 and 0 read too"),
    /// NGINX `max_fails` (0 = passive checks off).
    #[serde(skip_serializing_if = "is_u32::<1>")]
    max_fails: u32 = 1
        => ("max-fails", Integer, 0.0, 100.0, 1.0, Health, "max fails (NGINX; 0 = off)",
            "failures that mark a server down (NGINX; 0 = off)"),
    /// NGINX `fail_timeout` in ms.
    #[serde(skip_serializing_if = "is_u32::<10000>")]
    fail_timeout_ms: u32 = 10_000
        => ("fail-timeout-ms", Integer, 1.0, 3_600_000.0, 100.0, Health, "fail timeout (ms)",
            "NGINX fail_timeout in ms"),
    /// HAProxy `inter`: active check interval in ms (0 = off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    check_ms: u32 = 0
        => ("check-ms", Integer, 0.0, 600_000.0, 100.0, Health, "check interval (ms, HAProxy; 0 = off)",
            "active check interval in ms (HAProxy; 0 = off)"),
    /// HAProxy `fall`: failed probes in a row that mark a server down.
    #[serde(skip_serializing_if = "is_u32::<3>")]
    fall: u32 = 3
        => ("fall", Integer, 1.0, 100.0, 1.0, Health, "fall (failed checks)",
            "failed checks in a row that mark a server down"),
    /// HAProxy `rise`: good probes in a row that mark it up.
    #[serde(skip_serializing_if = "is_u32::<2>")]
    rise: u32 = 2
        => ("rise", Integer, 1.0, 100.0, 1.0, Health, "rise (good checks)",
            "good checks in a row that mark it up"),
    /// What an active check probes.
    #[serde(skip_serializing_if = "is_tcp")]
    check: CheckKind = CheckKind::Tcp
        => ("check", Choice, 0.0, 0.0, 0.0, Health, "check type",
            "active check: tcp (fails on a crash) or http (also on fail)"),
    /// Envoy `consecutive_5xx` (0 = outlier detection off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    outlier_5xx: u32 = 0
        => ("outlier-5xx", Integer, 0.0, 100.0, 1.0, Health, "errors in a row to eject (Envoy; 0 = off)",
            "errors in a row that eject a server (Envoy; 0 = off)"),
    /// Envoy `base_ejection_time` in ms.
    #[serde(skip_serializing_if = "is_u32::<30000>")]
    ejection_ms: u32 = 30_000
        => ("ejection-ms", Integer, 1.0, 3_600_000.0, 100.0, Health, "ejection time (ms)",
            "Envoy base ejection time in ms"),
    /// Envoy `max_ejection_percent`.
    #[serde(skip_serializing_if = "is_u32::<10>")]
    max_ejection: u32 = 10
        => ("max-ejection", Integer, 0.0, 100.0, 1.0, Health, "max ejected (% of pool)",
            "most of the pool ejected at once, in percent"),
    /// Warm-up of a joining or recovered server in ms (0 = off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    warmup_ms: u32 = 0
        => ("warmup-ms", Integer, 0.0, 3_600_000.0, 100.0, Health, "warm-up (ms; 0 = off)",
            "warm-up of a joining or recovered server, ms"),
    /// Speed of a cold server, as a share of its speed.
    #[serde(skip_serializing_if = "is_quarter")]
    cold_speed: f64 = 0.25
        => ("cold-speed", Real, 0.01, 1.0, 0.01, Health, "cold speed (share)",
            "speed of a cold server, as a share of its speed"),
    /// Envoy `slow_start_window` in ms (0 = off).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    slow_start_ms: u32 = 0
        => ("slow-start-ms", Integer, 0.0, 3_600_000.0, 100.0, Health, "slow start (ms, Envoy; 0 = off)",
            "slow-start window in ms (Envoy; 0 = off)"),
    /// Envoy slow start `aggression`.
    #[serde(skip_serializing_if = "is_one")]
    slow_start_aggression: f64 = 1.0
        => ("slow-start-aggression", Real, 0.1, 10.0, 0.1, Health, "slow-start aggression",
            "slow-start aggression (Envoy)"),
    /// Users each server caches, least recently used out first (0 = no
    /// caches; SPEC section 13).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    cache_keys: u32 = 0
        => ("cache-keys", Integer, 0.0, 1_000_000.0, 10.0, Locality, "cached users per server (0 = off)",
            "users each server caches, LRU (0 = no caches)"),
    /// Work of a cache hit, as a share of the request's work.
    #[serde(skip_serializing_if = "is_fifth")]
    hit_cost: f64 = 0.2
        => ("hit-cost", Real, 0.0, 1.0, 0.05, Locality, "work of a cache hit (share)",
            "work of a cache hit, as a share of the request's"),
    /// Per request (7) or per long-lived connection (4).
    #[serde(skip_serializing_if = "is_l7")]
    layer: Layer = Layer::L7
        => ("layer", Choice, 0.0, 0.0, 0.0, Locality, "balancer layer",
            "7: every request placed; 4: each user's long-lived connection placed once"),
    /// Layer 4: a connection is re-opened after this long, in ms (0 = never).
    #[serde(skip_serializing_if = "is_u32::<0>")]
    conn_life_ms: u32 = 0
        => ("conn-life-ms", Integer, 0.0, 86_400_000.0, 1000.0, Locality,
            "connection lifetime (ms; 0 = never re-opened)",
            "layer 4: a connection is re-opened after this long, ms (0 = never)"),
}

/// The fields that place a hashing rule's servers and keys: the hash
/// function, the ring points per weight unit and whose ring construction.
/// A remapping experiment (SPEC section 5) takes them as the scenario's
/// rules do, so one it shows is the ring a run builds.
pub const PLACEMENT_KEYS: &[&str] = &["hash", "vnodes", "builder"];

/// With [`PLACEMENT_KEYS`], every field a rule's picks on an idle pool
/// depend on (what `lbsim trace` shows): the servers, their weights and
/// names, bounded-load's factor, the Maglev table's size (the pool the
/// rules are built over) and the seed of the rules' random streams.
pub const POOL_KEYS: &[&str] = &["servers", "weights", "names", "balance-factor", "maglev-size", "seed"];

/// The fields that decide where a request goes when attempts fail (what
/// `lbsim trace --steps` plays with the pool's): which servers refuse or
/// answer 500 and when, the retries, what counts as failed and NGINX's
/// passive checks.
pub const FAILURE_KEYS: &[&str] = &["events", "retries", "count-5xx", "max-fails", "fail-timeout-ms"];

impl ScenarioError {
    /// A key that is no field at all (a link's `colour=blue`): its message
    /// reads "unknown key 'colour'; known keys: ...", not as a bad value.
    pub fn unknown_key(key: &str, value: &str) -> ScenarioError {
        let known: Vec<&str> = FIELDS.iter().map(|f| f.key).collect();
        ScenarioError {
            field: key.to_string(),
            value: value.to_string(),
            allowed: format!("{UNKNOWN_KEY}{}", known.join(", ")),
        }
    }
}

/// Keys a field had before it was renamed, still read: `(old, new)`.
pub const OLD_KEYS: &[(&str, &str)] = &[("ring", "builder")];

/// Looks a field up by its key (or a key it had, [`OLD_KEYS`]).
pub fn field_spec(key: &str) -> Option<&'static Field> {
    let key = OLD_KEYS.iter().find(|(old, _)| *old == key).map_or(key, |(_, new)| new);
    FIELDS.iter().find(|f| f.key == key)
}

/// A field of the table by key; only ever called with keys of the table.
pub(super) fn table(key: &str) -> &'static Field {
    field_spec(key).expect("key is in FIELDS")
}

impl Field {
    /// The allowed values in words, for error messages and help text.
    pub fn allowed(&self) -> String {
        match self.kind {
            FieldKind::Integer | FieldKind::Real => {
                format!("{} to {} ({})", self.min, self.max, self.meaning)
            }
            FieldKind::NumberList => {
                format!("comma-separated, each {} to {} ({})", self.min, self.max, self.meaning)
            }
            FieldKind::NameList if self.key == "algorithms" => {
                let ids: Vec<&str> = AlgorithmId::ALL.iter().map(|a| a.id()).collect();
                format!("comma-separated subset of {}", ids.join(","))
            }
            FieldKind::NameList | FieldKind::Choice => self.meaning.to_string(),
            FieldKind::Events => events::ALLOWED.to_string(),
        }
    }

    /// Sets this field of `scenario` from its text form.
    pub fn write(&self, scenario: &mut Scenario, text: &str) -> Result<(), ScenarioError> {
        (self.write)(scenario, self, text)
    }

    /// This field's text form in `scenario`; `None` when it is unset.
    pub fn read(&self, scenario: &Scenario) -> Option<String> {
        (self.read)(scenario)
    }

    pub(super) fn error(&self, value: &str) -> ScenarioError {
        ScenarioError { field: self.key.to_string(), value: value.to_string(), allowed: self.allowed() }
    }

    fn check(&self, value: f64, text: &str) -> Result<f64, ScenarioError> {
        if value.is_finite() && value >= self.min && value <= self.max {
            Ok(value)
        } else {
            Err(self.error(text))
        }
    }

    fn parse_real(&self, text: &str) -> Result<f64, ScenarioError> {
        let value: f64 = text.trim().parse().map_err(|_| self.error(text))?;
        self.check(value, text)
    }

    fn parse_integer(&self, text: &str) -> Result<u64, ScenarioError> {
        let value: u64 = text.trim().parse().map_err(|_| self.error(text))?;
        self.check(value as f64, text)?;
        Ok(value)
    }

    fn parse_list<T>(
        &self,
        text: &str,
        parse: impl Fn(&str) -> Result<T, ScenarioError>,
    ) -> Result<Vec<T>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        text.split(',').map(|part| parse(part).map_err(|_| self.error(text))).collect()
    }
}

fn format_list<T: fmt::Display>(items: &[T]) -> String {
    let parts: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    parts.join(",")
}

/// Whether `name` may name a server: 1 to 32 letters, digits, `-`, `_`,
/// `.` or `:` (so `10.0.0.1:8080`, as in a config file, for the rings that
/// hash what NGINX and ketama clients hash).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

/// A scenario field's type: how its text form (a URL value, a CLI flag's
/// argument) reads, checked against the field's row, and writes back.
trait FieldValue: Sized {
    fn parse(field: &Field, text: &str) -> Result<Self, ScenarioError>;
    fn text(&self) -> Option<String>;
}

impl FieldValue for u32 {
    fn parse(field: &Field, text: &str) -> Result<u32, ScenarioError> {
        // The table's ranges keep every u32 field far below u32::MAX.
        Ok(field.parse_integer(text)? as u32)
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl FieldValue for u64 {
    fn parse(field: &Field, text: &str) -> Result<u64, ScenarioError> {
        field.parse_integer(text)
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl FieldValue for f64 {
    fn parse(field: &Field, text: &str) -> Result<f64, ScenarioError> {
        field.parse_real(text)
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

/// A switch, written 0 or 1 as links and flags carry it.
/// A switch: `true` or `false`, as JSON writes it; `1` and `0`, the
/// links' and flags' older form, still read.
impl FieldValue for bool {
    fn parse(field: &Field, text: &str) -> Result<bool, ScenarioError> {
        match text.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(field.error(text)),
        }
    }
    fn text(&self) -> Option<String> {
        Some(if *self { "true" } else { "false" }.to_string())
    }
}

/// The rate: empty means "derive it from load".
impl FieldValue for Option<f64> {
    fn parse(field: &Field, text: &str) -> Result<Option<f64>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        field.parse_real(text).map(Some)
    }
    fn text(&self) -> Option<String> {
        self.map(|x| x.to_string())
    }
}

/// The hash: empty means each rule's own default.
impl FieldValue for Option<HashFn> {
    fn parse(field: &Field, text: &str) -> Result<Option<HashFn>, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        HashFn::parse(field, text).map(Some)
    }
    fn text(&self) -> Option<String> {
        self.map(|h| h.id().to_string())
    }
}

/// Fields that take one of a fixed set of ids.
macro_rules! choice {
    ($($choice:ty),*) => {$(
        impl FieldValue for $choice {
            fn parse(field: &Field, text: &str) -> Result<$choice, ScenarioError> {
                text.trim().parse().map_err(|_| field.error(text))
            }
            fn text(&self) -> Option<String> {
                Some(self.id().to_string())
            }
        }
    )*};
}
choice!(WorkKind, HashFn, Builder, CheckKind, Layer);

/// Speeds, one per server.
impl FieldValue for Vec<f64> {
    fn parse(field: &Field, text: &str) -> Result<Vec<f64>, ScenarioError> {
        field.parse_list(text, |part| field.parse_real(part))
    }
    fn text(&self) -> Option<String> {
        Some(format_list(self))
    }
}

/// Weights, one per server.
impl FieldValue for Vec<u32> {
    fn parse(field: &Field, text: &str) -> Result<Vec<u32>, ScenarioError> {
        field.parse_list(text, |part| u32::parse(field, part))
    }
    fn text(&self) -> Option<String> {
        Some(format_list(self))
    }
}

/// Server names, one per server.
impl FieldValue for Vec<String> {
    fn parse(field: &Field, text: &str) -> Result<Vec<String>, ScenarioError> {
        field.parse_list(
            text,
            |part| if valid_name(part) { Ok(part.to_string()) } else { Err(field.error(part)) },
        )
    }
    fn text(&self) -> Option<String> {
        Some(self.join(","))
    }
}

/// A subset of the rules, kept in canonical order; never empty.
impl FieldValue for Vec<AlgorithmId> {
    fn parse(field: &Field, text: &str) -> Result<Vec<AlgorithmId>, ScenarioError> {
        let picked: Vec<AlgorithmId> = field
            .parse_list(text, |part| part.trim().parse::<AlgorithmId>().map_err(|_| field.error(part)))?;
        if picked.is_empty() {
            return Err(field.error(text));
        }
        Ok(AlgorithmId::ALL.iter().copied().filter(|a| picked.contains(a)).collect())
    }
    fn text(&self) -> Option<String> {
        let ids: Vec<&str> = self.iter().map(|a| a.id()).collect();
        Some(ids.join(","))
    }
}

/// Fleet events: their own parser names the item at fault.
impl FieldValue for Events {
    fn parse(field: &Field, text: &str) -> Result<Events, ScenarioError> {
        Events::parse(text).map_err(|item| ScenarioError {
            field: field.key.to_string(),
            value: item,
            allowed: field.allowed(),
        })
    }
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}
