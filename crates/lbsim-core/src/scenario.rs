//! The scenario: everything a run depends on, one serde type, one table of
//! ranges that every front end (CLI flags, URL fragment, page controls) uses.
//!
//! Field names are the URL keys and the CLI flag names (`slow-share`,
//! `--slow-share`), so a scenario reads the same everywhere.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::balancer::placement::Placement;
use crate::balancer::AlgorithmId;
use crate::fleet::events::{self, Events};
use crate::hash::HashFn;

/// What an active health check probes (HAProxy `check`, `option httpchk`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// A TCP connect: fails only on a crashed server.
    #[default]
    Tcp,
    /// An HTTP request that does real work: also fails on a failing one.
    Http,
}

impl CheckKind {
    /// Both kinds, in the order the page lists them.
    pub const ALL: [CheckKind; 2] = [CheckKind::Tcp, CheckKind::Http];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            CheckKind::Tcp => "tcp",
            CheckKind::Http => "http",
        }
    }
}

impl FromStr for CheckKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        CheckKind::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
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

/// Where the balancer works (SPEC section 13): per request (layer 7) or
/// per connection (layer 4, long-lived multiplexed connections). JSON
/// writes it as the number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Layer {
    /// Layer 4: each user's connection is placed once and carries its
    /// requests until it is re-opened.
    L4,
    /// Layer 7: every request is placed on its own.
    #[default]
    L7,
}

impl Layer {
    /// Both layers, the default first (the order the page lists them).
    pub const ALL: [Layer; 2] = [Layer::L7, Layer::L4];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            Layer::L4 => "4",
            Layer::L7 => "7",
        }
    }
}

impl From<Layer> for u8 {
    fn from(layer: Layer) -> u8 {
        match layer {
            Layer::L4 => 4,
            Layer::L7 => 7,
        }
    }
}

impl TryFrom<u8> for Layer {
    type Error = &'static str;
    fn try_from(n: u8) -> Result<Layer, &'static str> {
        match n {
            4 => Ok(Layer::L4),
            7 => Ok(Layer::L7),
            _ => Err("layer is 4 or 7"),
        }
    }
}

impl FromStr for Layer {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Layer::ALL.into_iter().find(|l| l.id() == s).ok_or(())
    }
}

fn is_l7(v: &Layer) -> bool {
    *v == Layer::L7
}
fn is_fifth(v: &f64) -> bool {
    *v == 0.2
}

/// The distribution of service demand (work, in ms at speed 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkKind {
    /// Quick (`fast-ms`) or slow (`slow-ms`) with probability `slow-share`.
    Bimodal,
    /// Every request needs `mean-ms`.
    Constant,
    /// Exponential with mean `mean-ms`.
    Exponential,
    /// Log-normal with mean `mean-ms` and shape `sigma`.
    Lognormal,
}

impl WorkKind {
    /// All kinds, in the order the page lists them.
    pub const ALL: [WorkKind; 4] =
        [WorkKind::Bimodal, WorkKind::Constant, WorkKind::Exponential, WorkKind::Lognormal];

    /// The kebab-case id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            WorkKind::Bimodal => "bimodal",
            WorkKind::Constant => "constant",
            WorkKind::Exponential => "exponential",
            WorkKind::Lognormal => "lognormal",
        }
    }
}

impl FromStr for WorkKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        WorkKind::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
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
    /// What the field means, with its unit.
    pub meaning: &'static str,
}

const fn field(
    key: &'static str,
    kind: FieldKind,
    min: f64,
    max: f64,
    step: f64,
    meaning: &'static str,
) -> Field {
    Field { key, kind, min, max, step, meaning }
}

/// Most hash-ring points a run may build (vnodes x total weight, per ring):
/// 4M points are 64 MiB; more would exhaust memory rather than answer.
pub const MAX_RING_POINTS: u64 = 1 << 22;

/// Largest seed: seeds travel through JavaScript numbers on the page.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// The one table of scenario fields and their ranges. The CLI builds its
/// flags from it, the URL codec its keys, the page its inputs.
pub const FIELDS: &[Field] = &[
    field("servers", FieldKind::Integer, 1.0, 1024.0, 1.0, "number of servers"),
    field("slots", FieldKind::Integer, 1.0, 1024.0, 1.0, "concurrent slots per server"),
    field("requests", FieldKind::Integer, 1.0, 10_000_000.0, 1.0, "number of requests"),
    field("load", FieldKind::Real, 0.01, 2.0, 0.01, "target offered load (1 = all slots busy)"),
    field("rate", FieldKind::Real, 0.001, 10_000_000.0, 0.1, "arrival rate in requests/s (overrides load)"),
    field(
        "work",
        FieldKind::Choice,
        0.0,
        0.0,
        0.0,
        "work distribution: bimodal, constant, exponential, lognormal",
    ),
    field("slow-share", FieldKind::Real, 0.0, 1.0, 0.01, "share of requests that are slow (bimodal)"),
    field("fast-ms", FieldKind::Real, 0.001, 1_000_000.0, 1.0, "work of a quick request in ms (bimodal)"),
    field("slow-ms", FieldKind::Real, 0.001, 1_000_000.0, 1.0, "work of a slow request in ms (bimodal)"),
    field(
        "mean-ms",
        FieldKind::Real,
        0.001,
        1_000_000.0,
        1.0,
        "mean work in ms (constant, exponential, lognormal)",
    ),
    field("sigma", FieldKind::Real, 0.01, 4.0, 0.01, "shape of log-normal work"),
    field("users", FieldKind::Integer, 1.0, 1_000_000.0, 1.0, "number of distinct users"),
    field("zipf", FieldKind::Real, 0.0, 5.0, 0.01, "Zipf exponent of user popularity (0 = uniform)"),
    field("seed", FieldKind::Integer, 0.0, MAX_SEED as f64, 1.0, "seed of every random stream"),
    field("speeds", FieldKind::NumberList, 0.01, 100.0, 0.01, "speed factor per server, one per server"),
    field("weights", FieldKind::NumberList, 1.0, 1000.0, 1.0, "weight per server, one per server"),
    field(
        "names",
        FieldKind::NameList,
        1.0,
        32.0,
        0.0,
        "server names, one per server (letters, digits, - _ . and :, as host:port)",
    ),
    field(
        "balancers",
        FieldKind::Integer,
        1.0,
        64.0,
        1.0,
        "balancer copies, each seeing only its own requests",
    ),
    field("algorithms", FieldKind::NameList, 0.0, 0.0, 0.0, "algorithms to run"),
    field(
        "hash",
        FieldKind::Choice,
        0.0,
        0.0,
        0.0,
        "hash function: fnv1a32, xxh32, xxh64, crc32 (unset: fnv1a32 for user-hash, xxh64 otherwise)",
    ),
    field("vnodes", FieldKind::Integer, 1.0, 1000.0, 1.0, "ring points per weight unit"),
    field(
        "balance-factor",
        FieldKind::Integer,
        100.0,
        1000.0,
        1.0,
        "bounded-load factor in percent (HAProxy)",
    ),
    field(
        "ring",
        FieldKind::Choice,
        0.0,
        0.0,
        0.0,
        "ring placement: lbsim, nginx (hash consistent: CRC-32, 160 per weight) or ketama (MD5); nginx and ketama \
         override hash and vnodes",
    ),
    field("events", FieldKind::Events, 0.0, events::MAX_EVENTS as f64, 0.0, "fleet events over time"),
    field(
        "error-ms",
        FieldKind::Real,
        0.001,
        60_000.0,
        1.0,
        "time a failing server takes to answer 500, in ms",
    ),
    field(
        "connect-ms",
        FieldKind::Real,
        0.001,
        60_000.0,
        1.0,
        "time until a crashed server's connection error, in ms",
    ),
    field("retries", FieldKind::Integer, 0.0, 10.0, 1.0, "retries of a failed request on another server"),
    field("count-5xx", FieldKind::Integer, 0.0, 1.0, 1.0, "1: a 500 counts as failed (NGINX http_500)"),
    field(
        "max-fails",
        FieldKind::Integer,
        0.0,
        100.0,
        1.0,
        "failures that mark a server down (NGINX; 0 = off)",
    ),
    field("fail-timeout-ms", FieldKind::Integer, 1.0, 3_600_000.0, 100.0, "NGINX fail_timeout in ms"),
    field(
        "check-ms",
        FieldKind::Integer,
        0.0,
        600_000.0,
        100.0,
        "active check interval in ms (HAProxy; 0 = off)",
    ),
    field("fall", FieldKind::Integer, 1.0, 100.0, 1.0, "failed checks in a row that mark a server down"),
    field("rise", FieldKind::Integer, 1.0, 100.0, 1.0, "good checks in a row that mark it up"),
    field(
        "check",
        FieldKind::Choice,
        0.0,
        0.0,
        0.0,
        "active check: tcp (fails on a crash) or http (also on fail)",
    ),
    field(
        "outlier-5xx",
        FieldKind::Integer,
        0.0,
        100.0,
        1.0,
        "errors in a row that eject a server (Envoy; 0 = off)",
    ),
    field("ejection-ms", FieldKind::Integer, 1.0, 3_600_000.0, 100.0, "Envoy base ejection time in ms"),
    field(
        "max-ejection",
        FieldKind::Integer,
        0.0,
        100.0,
        1.0,
        "most of the pool ejected at once, in percent",
    ),
    field(
        "warmup-ms",
        FieldKind::Integer,
        0.0,
        3_600_000.0,
        100.0,
        "warm-up of a joining or recovered server, ms",
    ),
    field("cold-speed", FieldKind::Real, 0.01, 1.0, 0.01, "speed of a cold server, as a share of its speed"),
    field(
        "slow-start-ms",
        FieldKind::Integer,
        0.0,
        3_600_000.0,
        100.0,
        "slow-start window in ms (Envoy; 0 = off)",
    ),
    field("slow-start-aggression", FieldKind::Real, 0.1, 10.0, 0.1, "slow-start aggression (Envoy)"),
    field(
        "cache-keys",
        FieldKind::Integer,
        0.0,
        1_000_000.0,
        10.0,
        "users each server caches, LRU (0 = no caches)",
    ),
    field("hit-cost", FieldKind::Real, 0.0, 1.0, 0.05, "work of a cache hit, as a share of the request's"),
    field(
        "layer",
        FieldKind::Choice,
        0.0,
        0.0,
        0.0,
        "7: every request placed; 4: each user's long-lived connection placed once",
    ),
    field(
        "conn-life-ms",
        FieldKind::Integer,
        0.0,
        86_400_000.0,
        1000.0,
        "layer 4: a connection is re-opened after this long, ms (0 = never)",
    ),
];

/// The fields of locality and connections (SPEC section 13).
pub const LOCALITY_KEYS: &[&str] = &["cache-keys", "hit-cost", "layer", "conn-life-ms"];

/// The fields of the fleet over time (SPEC section 12), `events` first.
pub const FLEET_KEYS: &[&str] = &[
    "events",
    "error-ms",
    "connect-ms",
    "retries",
    "count-5xx",
    "max-fails",
    "fail-timeout-ms",
    "check-ms",
    "fall",
    "rise",
    "check",
    "outlier-5xx",
    "ejection-ms",
    "max-ejection",
    "warmup-ms",
    "cold-speed",
    "slow-start-ms",
    "slow-start-aggression",
];

/// Looks a field up by its key.
pub fn field_spec(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// A field of the table by key; only ever called with keys of the table.
fn table(key: &str) -> &'static Field {
    field_spec(key).expect("key is in FIELDS")
}

/// Bad input: names the field, the value and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The field (URL key / CLI flag name).
    pub field: String,
    /// The offending value, as given.
    pub value: String,
    /// What is allowed, for example `1 to 1024 (number of servers)`.
    pub allowed: String,
}

/// How [`ScenarioError::unknown_key`] marks its `allowed` text.
const UNKNOWN_KEY: &str = "a known key: ";

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

    /// Whether the key itself is unknown (rather than its value bad).
    pub fn is_unknown_key(&self) -> bool {
        self.allowed.starts_with(UNKNOWN_KEY)
    }
}

/// Shows echoed input escaped as Rust's `escape_debug` does (`\n`,
/// `\u{1b}`, `\'`), so a value can neither break the message's one line
/// nor reach a terminal as a control sequence. The field and the value are
/// input; the allowed text is ours but may quote input (a JSON parser's
/// message), so only what is unprintable in it is escaped.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(known) = self.allowed.strip_prefix(UNKNOWN_KEY) {
            return write!(f, "unknown key '{}'; known keys: {known}", self.field.escape_debug());
        }
        write!(
            f,
            "{}: '{}' is not allowed; allowed: {}",
            self.field.escape_debug(),
            self.value.escape_debug(),
            Unprintable(&self.allowed)
        )
    }
}

/// Text with its unprintable characters (controls, bidirectional
/// overrides and the like) escaped as `escape_debug` does, and every
/// printable one, quotes and backslashes included, as it is.
#[derive(Clone, Copy, Debug)]
pub struct Unprintable<'a>(pub &'a str);

impl fmt::Display for Unprintable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '\\' | '\'' | '"' => fmt::Write::write_char(f, c)?,
                _ => write!(f, "{}", c.escape_debug())?,
            }
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ScenarioError {}

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

    fn error(&self, value: &str) -> ScenarioError {
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

impl Scenario {
    /// Sets one field from its text form (URL value or CLI flag argument),
    /// checking it against the table of ranges.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), ScenarioError> {
        let Some(f) = field_spec(key) else {
            return Err(ScenarioError::unknown_key(key, text));
        };
        match key {
            "servers" => self.servers = f.parse_integer(text)? as u32,
            "slots" => self.slots = f.parse_integer(text)? as u32,
            "requests" => self.requests = f.parse_integer(text)?,
            "load" => self.load = f.parse_real(text)?,
            // An empty rate means "derive it from load".
            "rate" if text.trim().is_empty() => self.rate = None,
            "rate" => self.rate = Some(f.parse_real(text)?),
            "work" => self.work = text.trim().parse().map_err(|_| f.error(text))?,
            "slow-share" => self.slow_share = f.parse_real(text)?,
            "fast-ms" => self.fast_ms = f.parse_real(text)?,
            "slow-ms" => self.slow_ms = f.parse_real(text)?,
            "mean-ms" => self.mean_ms = f.parse_real(text)?,
            "sigma" => self.sigma = f.parse_real(text)?,
            "users" => self.users = f.parse_integer(text)? as u32,
            "zipf" => self.zipf = f.parse_real(text)?,
            "seed" => self.seed = f.parse_integer(text)?,
            "speeds" => self.speeds = f.parse_list(text, |p| f.parse_real(p))?,
            "weights" => self.weights = f.parse_list(text, |p| f.parse_integer(p).map(|w| w as u32))?,
            "names" => {
                self.names =
                    f.parse_list(text, |p| if valid_name(p) { Ok(p.to_string()) } else { Err(f.error(p)) })?
            }
            "balancers" => self.balancers = f.parse_integer(text)? as u32,
            "algorithms" => {
                let picked: Vec<AlgorithmId> =
                    f.parse_list(text, |p| p.trim().parse::<AlgorithmId>().map_err(|_| f.error(p)))?;
                if picked.is_empty() {
                    return Err(f.error(text));
                }
                self.algorithms = AlgorithmId::ALL.iter().copied().filter(|a| picked.contains(a)).collect();
            }
            "hash" if text.trim().is_empty() => self.hash = None,
            "hash" => self.hash = Some(text.trim().parse().map_err(|_| f.error(text))?),
            "vnodes" => self.vnodes = f.parse_integer(text)? as u32,
            "balance-factor" => self.balance_factor = f.parse_integer(text)? as u32,
            "ring" => self.ring = text.trim().parse().map_err(|_| f.error(text))?,
            "events" => {
                self.events = Events::parse(text).map_err(|item| ScenarioError {
                    field: f.key.to_string(),
                    value: item,
                    allowed: f.allowed(),
                })?
            }
            "error-ms" => self.error_ms = f.parse_real(text)?,
            "connect-ms" => self.connect_ms = f.parse_real(text)?,
            "retries" => self.retries = f.parse_integer(text)? as u32,
            "count-5xx" => self.count_5xx = f.parse_integer(text)? == 1,
            "max-fails" => self.max_fails = f.parse_integer(text)? as u32,
            "fail-timeout-ms" => self.fail_timeout_ms = f.parse_integer(text)? as u32,
            "check-ms" => self.check_ms = f.parse_integer(text)? as u32,
            "fall" => self.fall = f.parse_integer(text)? as u32,
            "rise" => self.rise = f.parse_integer(text)? as u32,
            "check" => self.check = text.trim().parse().map_err(|_| f.error(text))?,
            "outlier-5xx" => self.outlier_5xx = f.parse_integer(text)? as u32,
            "ejection-ms" => self.ejection_ms = f.parse_integer(text)? as u32,
            "max-ejection" => self.max_ejection = f.parse_integer(text)? as u32,
            "warmup-ms" => self.warmup_ms = f.parse_integer(text)? as u32,
            "cold-speed" => self.cold_speed = f.parse_real(text)?,
            "slow-start-ms" => self.slow_start_ms = f.parse_integer(text)? as u32,
            "slow-start-aggression" => self.slow_start_aggression = f.parse_real(text)?,
            "cache-keys" => self.cache_keys = f.parse_integer(text)? as u32,
            "hit-cost" => self.hit_cost = f.parse_real(text)?,
            "layer" => self.layer = text.trim().parse().map_err(|_| f.error(text))?,
            "conn-life-ms" => self.conn_life_ms = f.parse_integer(text)? as u32,
            _ => unreachable!("every field in FIELDS has a setter"),
        }
        Ok(())
    }

    /// The text form of one field, as `set` reads it; `None` for an unset
    /// optional field.
    pub fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "servers" => self.servers.to_string(),
            "slots" => self.slots.to_string(),
            "requests" => self.requests.to_string(),
            "load" => self.load.to_string(),
            "rate" => self.rate?.to_string(),
            "work" => self.work.id().to_string(),
            "slow-share" => self.slow_share.to_string(),
            "fast-ms" => self.fast_ms.to_string(),
            "slow-ms" => self.slow_ms.to_string(),
            "mean-ms" => self.mean_ms.to_string(),
            "sigma" => self.sigma.to_string(),
            "users" => self.users.to_string(),
            "zipf" => self.zipf.to_string(),
            "seed" => self.seed.to_string(),
            "speeds" => format_list(&self.speeds),
            "weights" => format_list(&self.weights),
            "names" => self.names.join(","),
            "balancers" => self.balancers.to_string(),
            "algorithms" => {
                let ids: Vec<&str> = self.algorithms.iter().map(|a| a.id()).collect();
                ids.join(",")
            }
            "hash" => self.hash?.id().to_string(),
            "vnodes" => self.vnodes.to_string(),
            "balance-factor" => self.balance_factor.to_string(),
            "ring" => self.ring.id().to_string(),
            "events" => self.events.to_string(),
            "error-ms" => self.error_ms.to_string(),
            "connect-ms" => self.connect_ms.to_string(),
            "retries" => self.retries.to_string(),
            "count-5xx" => u32::from(self.count_5xx).to_string(),
            "max-fails" => self.max_fails.to_string(),
            "fail-timeout-ms" => self.fail_timeout_ms.to_string(),
            "check-ms" => self.check_ms.to_string(),
            "fall" => self.fall.to_string(),
            "rise" => self.rise.to_string(),
            "check" => self.check.id().to_string(),
            "outlier-5xx" => self.outlier_5xx.to_string(),
            "ejection-ms" => self.ejection_ms.to_string(),
            "max-ejection" => self.max_ejection.to_string(),
            "warmup-ms" => self.warmup_ms.to_string(),
            "cold-speed" => self.cold_speed.to_string(),
            "slow-start-ms" => self.slow_start_ms.to_string(),
            "slow-start-aggression" => self.slow_start_aggression.to_string(),
            "cache-keys" => self.cache_keys.to_string(),
            "hit-cost" => self.hit_cost.to_string(),
            "layer" => self.layer.id().to_string(),
            "conn-life-ms" => self.conn_life_ms.to_string(),
            _ => return None,
        })
    }

    /// Checks every field alone against the table, as `set` would have,
    /// but not the fields against each other: a scenario read from JSON
    /// before other sources complete it (the CLI lays a file under flags).
    pub fn check_fields(&self) -> Result<(), ScenarioError> {
        // Names one by one: their text form joins them with commas, so a
        // name with a comma, or an empty one, would come back as others.
        if let Some(name) = self.names.iter().find(|n| !valid_name(n)) {
            return Err(table("names").error(name));
        }
        // Re-parsing each field's text form runs the very checks `set` runs,
        // so the table stays the only place ranges live.
        let mut probe = Scenario::default();
        for f in FIELDS {
            if let Some(text) = self.get(f.key) {
                probe.set(f.key, &text)?;
            }
        }
        Ok(())
    }

    /// Checks every field against the table and the fields against each
    /// other (one speed per server, and so on). Scenarios read from JSON
    /// come through here; `set` already checked single fields.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.check_fields()?;
        if self.algorithms.is_empty() {
            return Err(table("algorithms").error(""));
        }
        let n = self.servers as usize;
        let per_server = |key: &str, len: usize| -> Result<(), ScenarioError> {
            if len == 0 || len == n {
                return Ok(());
            }
            Err(ScenarioError {
                field: key.to_string(),
                value: self.get(key).unwrap_or_default(),
                allowed: format!("exactly one value per server ({n} servers), or none"),
            })
        };
        per_server("speeds", self.speeds.len())?;
        per_server("weights", self.weights.len())?;
        per_server("names", self.names.len())?;
        let all_names: Vec<String> = (0..n).map(|i| self.server_name(i)).collect();
        self.events.check_against(&all_names).map_err(|(item, why)| ScenarioError {
            field: "events".to_string(),
            value: item,
            allowed: why,
        })?;
        if all_names.iter().all(|name| self.events.starts_outside(name)) {
            return Err(ScenarioError {
                field: "events".to_string(),
                value: self.events.to_string(),
                allowed: "at least one server in the pool at time 0 (not every server may start with a join)"
                    .to_string(),
            });
        }
        // Pairwise: a few names in practice, 1,024 at most, and no sort
        // code in the page's bundle.
        let repeated = self.names.iter().enumerate().any(|(i, a)| self.names[..i].contains(a));
        if repeated {
            return Err(ScenarioError {
                field: "names".to_string(),
                value: self.names.join(","),
                allowed: "distinct names".to_string(),
            });
        }
        // One ring serves every copy for consistent-hash; bounded-load
        // keeps counts per copy, and a ring each.
        let weight = (0..n).map(|i| u64::from(self.weight(i))).sum::<u64>();
        // NGINX places 160 points per weight unit, ketama about 160 per server.
        let ring = match self.ring {
            Placement::Lbsim => u64::from(self.vnodes) * weight,
            Placement::Nginx => 160 * weight,
            Placement::Ketama => 160 * n as u64,
        };
        let has = |a: AlgorithmId| self.algorithms.contains(&a);
        let rings = if has(AlgorithmId::BoundedLoad) {
            u64::from(self.balancers)
        } else {
            u64::from(has(AlgorithmId::ConsistentHash))
        };
        if ring * rings > MAX_RING_POINTS {
            return Err(ScenarioError {
                field: "vnodes".to_string(),
                value: self.vnodes.to_string(),
                allowed: format!(
                    "vnodes x total weight x rings at most {MAX_RING_POINTS} ring points (here {}: {ring} \
                     per ring, {rings} rings); lower vnodes, the weights or, for bounded-load, the \
                     balancer copies",
                    ring * rings
                ),
            });
        }
        Ok(())
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

    /// Whether the scenario uses the fleet over time (SPEC section 12): any
    /// event, or a fleet setting away from its default. Only then does the
    /// run take the fleet's engine and report its keys.
    pub fn uses_fleet(&self) -> bool {
        let d = Scenario::default();
        FLEET_KEYS.iter().any(|key| self.get(key) != d.get(key))
    }

    /// Whether servers keep caches (SPEC section 13).
    pub fn uses_caches(&self) -> bool {
        self.cache_keys > 0
    }

    /// Whether the run takes the fleet's event loop: the fleet over time,
    /// caches or layer 4 connections (whose state changes request by
    /// request). A scenario with none of them runs the static engine.
    pub fn uses_event_loop(&self) -> bool {
        self.uses_fleet() || self.uses_caches() || self.layer == Layer::L4
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

    /// Whether the field `key` affects this scenario's numbers: the
    /// bimodal fields only for bimodal work, `mean-ms` for the others,
    /// `sigma` for log-normal work, `load` unless a rate is given. Front
    /// ends disable the controls of fields that do not apply.
    pub fn uses(&self, key: &str) -> bool {
        let bimodal = self.work == WorkKind::Bimodal;
        // Health and warm-up settings act only on a fleet that changes.
        if key != "events" && FLEET_KEYS.contains(&key) {
            // Retries and HTTP errors are layer 7's (SPEC 13.1).
            let layer7 = self.layer == Layer::L7 || !matches!(key, "retries" | "count-5xx");
            return !self.events.is_empty() && layer7;
        }
        match key {
            "hit-cost" => self.uses_caches(),
            "conn-life-ms" => self.layer == Layer::L4,
            "slow-share" | "fast-ms" | "slow-ms" => bimodal,
            "mean-ms" => !bimodal,
            "sigma" => self.work == WorkKind::Lognormal,
            "load" => self.rate.is_none(),
            // NGINX's and ketama's rings bring their own points per weight.
            "vnodes" => self.ring == Placement::Lbsim,
            _ => true,
        }
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
