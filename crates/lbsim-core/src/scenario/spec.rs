//! The part of a field's row that knows nothing of the scenario: its key,
//! kind, range, group, label, meaning and choices, with the checks and
//! messages every front end shares. The rows, and what they say of the
//! scenario (when a field applies, how a balancer's config expresses it,
//! its reader and writer), are in `fields.rs`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::error::ScenarioError;
use crate::balancer::AlgorithmId;
use crate::events;

/// What kind of value a field holds, for parsing and for building inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A whole number.
    Integer,
    /// A real number.
    Real,
    /// One of a fixed set of ids ([`Spec::choices`]).
    Choice,
    /// A comma-separated list of numbers, one per server.
    NumberList,
    /// A comma-separated list of ids or names.
    NameList,
    /// Fleet events, `TIME:SERVER:KIND,...`.
    Events,
    /// Free text of at most `max` characters (a log's name or format).
    Text,
}

/// Where a field belongs: the page groups its controls so, and the fleet
/// over time (docs/model.md#the-fleet-over-time) is the `Events` and `Health` groups.
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
    /// Caches and connections.
    Locality,
    /// An access log as the workload (the page's "Your traffic" panel).
    Log,
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
            Group::Log => "log",
        }
    }

    /// Whether its fields are the fleet over time's.
    pub fn over_time(self) -> bool {
        matches!(self, Group::Events | Group::Health)
    }
}

/// One value a choice field takes: its id (as links, flags and JSON write
/// it) and how the page's select shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The text form; empty for "unset".
    pub id: &'static str,
    /// The select's words for it.
    pub label: &'static str,
}

/// What a field is, whatever the scenario: its key, kind, range and
/// meaning, and the values a choice takes.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
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
    /// The values a choice field takes, from its type.
    pub(super) choices: fn() -> Vec<Choice>,
}

/// Most hash-ring points a run may build (vnodes x total weight, per ring):
/// 4M points are 64 MiB; more would exhaust memory rather than answer.
pub const MAX_RING_POINTS: u64 = 1 << 22;

/// Most balancer copies a scenario running a classic rule may have. The
/// field goes to 1,024 for the rules that hear the servers (JIQ's regime is
/// many dispatchers), but a classic rule keeps a state per copy that can be
/// large (a Maglev table per copy in the fleet's loop, up to 20 MB each), so
/// with one of them the copies stay at what they were
/// (docs/performance.md#many-copies).
pub const MAX_CLASSIC_COPIES: u32 = 64;

/// Most out-of-band load reports a run may deliver: every server reports
/// to every copy once a report period, so a long run of 1,024 servers and
/// 1,024 copies at a 10 ms period would deliver more than anything can
/// compute (a 100,000,000 take about half a second in the CLI;
/// docs/model.md#the-rules-and-whom-they-follow).
pub const MAX_OUT_OF_BAND_REPORTS: f64 = 1e8;

/// Most idle wake-ups a Prequal run may have: a copy idle `idle-probe-ms`
/// probes, and again each as long, so a thousand copies of a slow trickle
/// of requests would wake more often than anything can compute (a
/// 1,000,000 take about 2.5 s in the CLI over 1,024 servers;
/// docs/model.md#the-rules-and-whom-they-follow).
pub const MAX_IDLE_WAKES: f64 = 1e6;

/// Largest seed: seeds travel through JavaScript numbers on the page.
pub const MAX_SEED: u64 = (1 << 53) - 1;

impl Spec {
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
            FieldKind::Choice => format!("{}: {}", self.meaning, self.ids().join(", ")),
            FieldKind::NameList => self.meaning.to_string(),
            FieldKind::Events => events::ALLOWED.to_string(),
            FieldKind::Text => {
                format!("text of at most {} characters, no control characters ({})", self.max, self.meaning)
            }
        }
    }

    /// The values a choice field takes, in the order the page lists them;
    /// empty for other kinds.
    pub fn choices(&self) -> Vec<Choice> {
        (self.choices)()
    }

    /// The ids of [`Spec::choices`] that name a value (not "unset").
    pub fn ids(&self) -> Vec<&'static str> {
        self.choices().iter().map(|c| c.id).filter(|id| !id.is_empty()).collect()
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

    pub(super) fn parse_real(&self, text: &str) -> Result<f64, ScenarioError> {
        let value: f64 = text.trim().parse().map_err(|_| self.error(text))?;
        self.check(value, text)
    }

    pub(super) fn parse_integer(&self, text: &str) -> Result<u64, ScenarioError> {
        let value: u64 = text.trim().parse().map_err(|_| self.error(text))?;
        self.check(value as f64, text)?;
        Ok(value)
    }

    pub(super) fn parse_list<T>(
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

/// Whether `name` may name a server ([`name_problem`] finds nothing).
pub fn valid_name(name: &str) -> bool {
    name_problem(name).is_none()
}

/// Why `name` may not name a server, if it may not. A name is 1 to 32
/// letters, digits, `-`, `_` and `.`; a name with a colon is an address
/// as a balancer reads it, `host:port` or `[IPv6]:port` (so
/// `10.0.0.1:8080`, as in a config file, for the rings that hash what
/// NGINX and ketama clients hash), with the port 1 to 65535 and nothing a
/// balancer would read otherwise (docs/cli.md#server-names-and-keys).
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 32 {
        return Some("a name is 1 to 32 characters");
    }
    let plain = |text: &str| {
        !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let Some((host, port)) = name.rsplit_once(':') else {
        return (!plain(name)).then_some("letters, digits, - _ and . only (and : [ ] in an address)");
    };
    let port_ok = !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
        && !port.starts_with('0')
        && port.parse::<u32>().is_ok_and(|p| p <= 65_535);
    if !port_ok {
        return Some("an address's port is 1 to 65535, in digits without a leading 0");
    }
    if let Some(inner) = host.strip_prefix('[') {
        let ipv6 = inner.strip_suffix(']').filter(|a| {
            a.contains(':') && a.bytes().all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.'))
        });
        return ipv6.is_none().then_some("an IPv6 address is hex digits and colons in brackets: [addr]:port");
    }
    if host.contains(':') {
        return Some("two colons: an IPv6 address is written in brackets, [addr]:port");
    }
    if host.eq_ignore_ascii_case("unix") {
        return Some("unix:PATH is a Unix socket to NGINX, not a host and port");
    }
    (!plain(host)).then_some("an address's host is letters, digits, - _ and .")
}
