//! The one table of scenario fields: each row is a field's key (URL key,
//! CLI flag without `--`, JSON name), its kind, its range and its meaning;
//! the accessors that read and write it in a [`Scenario`] come with the
//! row, so a new field is one row. Every front end (CLI flags, URL codec,
//! page controls) builds from [`FIELDS`].

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use super::error::{ScenarioError, UNKNOWN_KEY};
use super::kinds::{CheckKind, Layer, WorkKind};
use super::model::Scenario;
use crate::balancer::placement::Placement;
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

/// Builds [`FIELDS`] from rows of `(scenario field, key, kind, min, max,
/// step, meaning)`: the accessors come from the field's type
/// ([`FieldValue`]), so no list of keys is kept beside the table.
macro_rules! fields {
    ($(($field:ident, $key:literal, $kind:ident, $min:expr, $max:expr, $step:expr, $meaning:expr)),* $(,)?) => {
        /// The one table of scenario fields and their ranges. The CLI builds its
        /// flags from it, the URL codec its keys, the page its inputs.
        pub const FIELDS: &[Field] = &[$(Field {
            key: $key,
            kind: FieldKind::$kind,
            min: $min,
            max: $max,
            step: $step,
            meaning: $meaning,
            write: |scenario, field, text| {
                scenario.$field = FieldValue::parse(field, text)?;
                Ok(())
            },
            read: |scenario| scenario.$field.text(),
        }),*];
    };
}

fields![
    (servers, "servers", Integer, 1.0, 1024.0, 1.0, "number of servers"),
    (slots, "slots", Integer, 1.0, 1024.0, 1.0, "concurrent slots per server"),
    (requests, "requests", Integer, 1.0, 10_000_000.0, 1.0, "number of requests"),
    (load, "load", Real, 0.01, 2.0, 0.01, "target offered load (1 = all slots busy)"),
    (rate, "rate", Real, 0.001, 10_000_000.0, 0.1, "arrival rate in requests/s (overrides load)"),
    (work, "work", Choice, 0.0, 0.0, 0.0, "work distribution: bimodal, constant, exponential, lognormal"),
    (slow_share, "slow-share", Real, 0.0, 1.0, 0.01, "share of requests that are slow (bimodal)"),
    (fast_ms, "fast-ms", Real, 0.001, 1_000_000.0, 1.0, "work of a quick request in ms (bimodal)"),
    (slow_ms, "slow-ms", Real, 0.001, 1_000_000.0, 1.0, "work of a slow request in ms (bimodal)"),
    (mean_ms, "mean-ms", Real, 0.001, 1_000_000.0, 1.0, "mean work in ms (constant, exponential, lognormal)"),
    (sigma, "sigma", Real, 0.01, 4.0, 0.01, "shape of log-normal work"),
    (users, "users", Integer, 1.0, 1_000_000.0, 1.0, "number of distinct users"),
    (zipf, "zipf", Real, 0.0, 5.0, 0.01, "Zipf exponent of user popularity (0 = uniform)"),
    (seed, "seed", Integer, 0.0, MAX_SEED as f64, 1.0, "seed of every random stream"),
    (speeds, "speeds", NumberList, 0.01, 100.0, 0.01, "speed factor per server, one per server"),
    (weights, "weights", NumberList, 1.0, 1000.0, 1.0, "weight per server, one per server"),
    (names, "names", NameList, 1.0, 32.0, 0.0, "server names, one per server (letters, digits, - _ . and :, as host:port)"),
    (balancers, "balancers", Integer, 1.0, 64.0, 1.0, "balancer copies, each seeing only its own requests"),
    (algorithms, "algorithms", NameList, 0.0, 0.0, 0.0, "algorithms to run"),
    (hash, "hash", Choice, 0.0, 0.0, 0.0, "hash function: fnv1a32, xxh32, xxh64, crc32 (unset: fnv1a32 for user-hash, xxh64 otherwise)"),
    (vnodes, "vnodes", Integer, 1.0, 1000.0, 1.0, "ring points per weight unit"),
    (balance_factor, "balance-factor", Integer, 100.0, 1000.0, 1.0, "bounded-load factor in percent (HAProxy)"),
    (ring, "ring", Choice, 0.0, 0.0, 0.0, "ring placement: lbsim, nginx (hash consistent: CRC-32, 160 per weight) or ketama (MD5); nginx and ketama override hash and vnodes"),
    (events, "events", Events, 0.0, events::MAX_EVENTS as f64, 0.0, "fleet events over time"),
    (error_ms, "error-ms", Real, 0.001, 60_000.0, 1.0, "time a failing server takes to answer 500, in ms"),
    (connect_ms, "connect-ms", Real, 0.001, 60_000.0, 1.0, "time until a crashed server's connection error, in ms"),
    (retries, "retries", Integer, 0.0, 10.0, 1.0, "retries of a failed request on another server"),
    (count_5xx, "count-5xx", Integer, 0.0, 1.0, 1.0, "1: a 500 counts as failed (NGINX http_500)"),
    (max_fails, "max-fails", Integer, 0.0, 100.0, 1.0, "failures that mark a server down (NGINX; 0 = off)"),
    (fail_timeout_ms, "fail-timeout-ms", Integer, 1.0, 3_600_000.0, 100.0, "NGINX fail_timeout in ms"),
    (check_ms, "check-ms", Integer, 0.0, 600_000.0, 100.0, "active check interval in ms (HAProxy; 0 = off)"),
    (fall, "fall", Integer, 1.0, 100.0, 1.0, "failed checks in a row that mark a server down"),
    (rise, "rise", Integer, 1.0, 100.0, 1.0, "good checks in a row that mark it up"),
    (check, "check", Choice, 0.0, 0.0, 0.0, "active check: tcp (fails on a crash) or http (also on fail)"),
    (outlier_5xx, "outlier-5xx", Integer, 0.0, 100.0, 1.0, "errors in a row that eject a server (Envoy; 0 = off)"),
    (ejection_ms, "ejection-ms", Integer, 1.0, 3_600_000.0, 100.0, "Envoy base ejection time in ms"),
    (max_ejection, "max-ejection", Integer, 0.0, 100.0, 1.0, "most of the pool ejected at once, in percent"),
    (warmup_ms, "warmup-ms", Integer, 0.0, 3_600_000.0, 100.0, "warm-up of a joining or recovered server, ms"),
    (cold_speed, "cold-speed", Real, 0.01, 1.0, 0.01, "speed of a cold server, as a share of its speed"),
    (slow_start_ms, "slow-start-ms", Integer, 0.0, 3_600_000.0, 100.0, "slow-start window in ms (Envoy; 0 = off)"),
    (slow_start_aggression, "slow-start-aggression", Real, 0.1, 10.0, 0.1, "slow-start aggression (Envoy)"),
    (cache_keys, "cache-keys", Integer, 0.0, 1_000_000.0, 10.0, "users each server caches, LRU (0 = no caches)"),
    (hit_cost, "hit-cost", Real, 0.0, 1.0, 0.05, "work of a cache hit, as a share of the request's"),
    (layer, "layer", Choice, 0.0, 0.0, 0.0, "7: every request placed; 4: each user's long-lived connection placed once"),
    (conn_life_ms, "conn-life-ms", Integer, 0.0, 86_400_000.0, 1000.0, "layer 4: a connection is re-opened after this long, ms (0 = never)"),
];

/// The fields of locality and connections (SPEC section 13).
pub const LOCALITY_KEYS: &[&str] = &["cache-keys", "hit-cost", "layer", "conn-life-ms"];

/// The fields that place a hashing rule's servers and keys: the hash
/// function, the ring points per weight unit and whose ring construction.
/// A remapping experiment (SPEC section 5) takes them as the scenario's
/// rules do, so one it shows is the ring a run builds.
pub const PLACEMENT_KEYS: &[&str] = &["hash", "vnodes", "ring"];

/// With [`PLACEMENT_KEYS`], every field a rule's picks on an idle pool
/// depend on (what `lbsim trace` shows): the servers, their weights and
/// names, bounded-load's factor (the pool the rules are built over) and the
/// seed of the rules' random streams.
pub const POOL_KEYS: &[&str] = &["servers", "weights", "names", "balance-factor", "seed"];

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

/// Looks a field up by its key.
pub fn field_spec(key: &str) -> Option<&'static Field> {
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
impl FieldValue for bool {
    fn parse(field: &Field, text: &str) -> Result<bool, ScenarioError> {
        Ok(field.parse_integer(text)? == 1)
    }
    fn text(&self) -> Option<String> {
        Some(u32::from(*self).to_string())
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
choice!(WorkKind, HashFn, Placement, CheckKind, Layer);

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
