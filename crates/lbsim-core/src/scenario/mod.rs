//! The scenario: everything a run depends on, one serde type, one table of
//! ranges that every front end (CLI flags, URL fragment, page controls) uses.
//!
//! Field names are the URL keys and the CLI flag names (`slow-share`,
//! `--slow-share`), so a scenario reads the same everywhere. The type and
//! what follows from its fields alone are in `model.rs`, the table of
//! fields with their accessors in `fields.rs`, and here what needs both
//! (reading and writing by key, validation, which fields apply). The
//! balancers never see a scenario, only the
//! [`Pool`](crate::balancer::Pool) it describes.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::balancer::builder::{Builder, ENVOY_MIN_RING};
use crate::balancer::{AlgorithmId, Setup};

mod conditions;
mod error;
mod fields;
mod kinds;
mod lookup;
mod model;
mod notes;
mod spec;
mod table;
mod value;

pub use self::error::{thousands, Echo, Escaped, ScenarioError, MAX_ECHOED};
pub use self::fields::{Expression, Field, InConfig, Scenario, FIELDS, IN_CONFIG};
pub use self::kinds::{CheckKind, Layer, LogKind, WorkFrom, WorkKind};
use self::lookup::row;
pub use self::lookup::{field_spec, FAILURE_KEYS, OLD_KEYS, PLACEMENT_KEYS, POOL_KEYS};
pub use self::spec::{
    name_problem, valid_name, Choice, FieldKind, Group, Spec, MAX_CLASSIC_COPIES, MAX_IDLE_WAKES,
    MAX_OUT_OF_BAND_REPORTS, MAX_RING_POINTS, MAX_SEED,
};

impl Scenario {
    /// Sets one field from its text form (URL value or CLI flag argument),
    /// checking it against the table of ranges.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), ScenarioError> {
        match field_spec(key) {
            Some(field) => field.write(self, text),
            None => Err(ScenarioError::unknown_key(key, text)),
        }
    }

    /// The text form of one field, as `set` reads it; `None` for an unset
    /// optional field or an unknown key.
    pub fn get(&self, key: &str) -> Option<String> {
        field_spec(key)?.read(self)
    }

    /// Checks every field alone against the table, as `set` would have,
    /// but not the fields against each other: a scenario read from JSON
    /// before other sources complete it (the CLI lays a file under flags).
    pub fn check_fields(&self) -> Result<(), ScenarioError> {
        // Names one by one: their text form joins them with commas, so a
        // name with a comma, or an empty one, would come back as others.
        if let Some((name, why)) = self.names.iter().find_map(|n| Some((n, name_problem(n)?))) {
            let mut error = row("names").error(name);
            error.allowed = format!("{why}; {}", error.allowed);
            return Err(error);
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

    /// Validates the scenario and checks that this build runs each of its
    /// rules: a build without the `current-rules` feature (the page's first
    /// module) refuses a current rule by name. Validation alone accepts
    /// them, so the page reads a link naming one and runs it in the full
    /// simulator (docs/web.md#the-rules-production-uses-now).
    pub fn runnable(&self) -> Result<(), ScenarioError> {
        self.validate()?;
        match self.algorithms.iter().find(|a| !a.runs_here()) {
            Some(rule) => Err(ScenarioError {
                field: "algorithms".to_string(),
                value: rule.id().to_string(),
                allowed: format!(
                    "the rules of this build; {} runs in the full simulator, not in this build",
                    rule.id()
                ),
            }),
            None => Ok(()),
        }
    }

    /// Checks what depends on the run's requests, known once they are
    /// drawn or read: the messages a run's span would make too many to
    /// compute. Out-of-band load reports, one from every server to every
    /// copy a period up to the last arrival, are at most
    /// [`MAX_OUT_OF_BAND_REPORTS`]; Prequal's idle wake-ups, one each
    /// `idle-probe-ms` of a copy's gaps between its requests, at most
    /// [`MAX_IDLE_WAKES`].
    ///
    /// `arrivals` are the requests' arrival times and balancer copies, in
    /// time order. Only the current rules send such messages: a build
    /// without them (the page's first module) checks nothing here.
    #[cfg(feature = "current-rules")]
    pub fn check_span<A>(&self, arrivals: A) -> Result<(), ScenarioError>
    where
        A: Iterator<Item = (f64, u16)> + Clone,
    {
        let horizon_ms = arrivals.clone().last().map_or(0.0, |(at, _)| at);
        if self.learns_weights() && self.out_of_band {
            let listeners = f64::from(self.servers) * f64::from(self.balancers);
            let reports = libm::floor(horizon_ms / f64::from(self.report_period)) * listeners;
            if reports > MAX_OUT_OF_BAND_REPORTS {
                let least = libm::ceil(horizon_ms * listeners / MAX_OUT_OF_BAND_REPORTS);
                let what = format!(
                    "out of band, each of its {} servers reports to each of its {} copies once a period, \
                     {reports:.0} reports over its {:.1} s, and a run may deliver at most \
                     {MAX_OUT_OF_BAND_REPORTS:.0}",
                    self.servers,
                    self.balancers,
                    horizon_ms / 1000.0
                );
                let instead =
                    "fewer servers, copies or requests, or reports with each response (out-of-band false)";
                return Err(too_many(
                    "report-period",
                    &self.report_period.to_string(),
                    least,
                    instead,
                    &what,
                ));
            }
        }
        if self.algorithms.contains(&AlgorithmId::Prequal) && self.idle_probe_ms > 0.0 {
            let gaps = copy_gaps(arrivals, self.balancers);
            let wakes = |idle: f64| gaps.iter().map(|gap| libm::floor(gap / idle)).sum::<f64>();
            let woken = wakes(self.idle_probe_ms);
            if woken > MAX_IDLE_WAKES {
                let f = row("idle-probe-ms");
                // The least interval that fits, a whole number of the
                // field's steps: wake-ups only fall as it grows.
                let (mut low, mut high) =
                    (libm::floor(self.idle_probe_ms / f.step), libm::ceil(f.max / f.step));
                while high - low > 1.0 {
                    let mid = libm::floor((low + high) / 2.0);
                    if wakes(mid * f.step) <= MAX_IDLE_WAKES {
                        high = mid;
                    } else {
                        low = mid;
                    }
                }
                let least = if wakes(high * f.step) <= MAX_IDLE_WAKES { high * f.step } else { f.max + 1.0 };
                let what = format!(
                    "a copy idle this long probes, and again each as long, {woken:.0} wake-ups over the run's \
                     gaps, and a run may have at most {MAX_IDLE_WAKES:.0}"
                );
                let instead = "0 (no idle probing), fewer copies or requests, or a higher rate";
                return Err(too_many(
                    "idle-probe-ms",
                    &self.get("idle-probe-ms").unwrap_or_default(),
                    least,
                    instead,
                    &what,
                ));
            }
        }
        Ok(())
    }

    /// [`Scenario::check_span`] in a build without the current rules.
    #[cfg(not(feature = "current-rules"))]
    pub fn check_span<A>(&self, _arrivals: A) -> Result<(), ScenarioError>
    where
        A: Iterator<Item = (f64, u16)> + Clone,
    {
        Ok(())
    }

    /// Checks every field against the table and the fields against each
    /// other (one speed per server, and so on). Scenarios read from JSON
    /// come through here; `set` already checked single fields.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.check_fields()?;
        if self.algorithms.is_empty() {
            return Err(row("algorithms").error(""));
        }
        if let Some(classic) = self.algorithms.iter().find(|a| !a.is_current()) {
            if self.balancers > MAX_CLASSIC_COPIES {
                let f = row("balancers");
                return Err(ScenarioError {
                    allowed: format!(
                        "{} to {MAX_CLASSIC_COPIES} when a classic rule runs (here {}); up to {} when every rule is \
                         one of the current rules ({})",
                        f.min,
                        classic.id(),
                        f.max,
                        AlgorithmId::ALL.iter().filter(|a| a.is_current()).map(|a| a.id()).collect::<Vec<_>>().join(", ")
                    ),
                    ..f.error(&self.balancers.to_string())
                });
            }
        }
        if !crate::balancer::maglev::is_prime(u64::from(self.maglev_size)) {
            let f = row("maglev-size");
            return Err(ScenarioError {
                allowed: format!("a prime from {} to {} ({})", f.min, f.max, f.meaning),
                ..f.error(&self.maglev_size.to_string())
            });
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
        // NGINX places 160 points per weight unit, HAProxy 16, ketama about
        // 160 per server.
        let ring = match self.builder {
            Builder::Lbsim => u64::from(self.vnodes) * weight,
            // Envoy's: its minimum size, rounded up so the lightest server's
            // share is a whole number of points (at most total / lightest more).
            Builder::Envoy => {
                let lightest =
                    (0..n).map(|i| u64::from(self.weight(i))).filter(|&w| w > 0).min().unwrap_or(1);
                ENVOY_MIN_RING + weight.div_ceil(lightest)
            }
            Builder::Nginx => 160 * weight,
            Builder::Haproxy => 16 * (0..n).map(|i| u64::from(self.weight(i).min(256))).sum::<u64>(),
            Builder::Ketama => 160 * n as u64,
        };
        let builds = |setup: Setup| self.algorithms.iter().any(|r| r.setup() == setup);
        let rings = if builds(Setup::RingPerCopy) {
            u64::from(self.balancers)
        } else {
            u64::from(builds(Setup::Ring))
        };
        if ring * rings > MAX_RING_POINTS {
            let total = ring * rings;
            let copies = "or, for bounded-load, the balancer copies";
            // Only what the reader can change for this ring: NGINX's and
            // ketama's bring their own points, so vnodes is not it there.
            return Err(match self.builder {
                Builder::Lbsim => ScenarioError {
                    field: "vnodes".to_string(),
                    value: self.vnodes.to_string(),
                    allowed: format!(
                        "vnodes x total weight x rings at most {MAX_RING_POINTS} ring points (here {total}: \
                         {ring} per ring, {rings} rings); lower vnodes, the weights {copies}"
                    ),
                },
                Builder::Nginx | Builder::Haproxy => ScenarioError {
                    field: "weights".to_string(),
                    // The total, not a list of up to 1,024 weights.
                    value: format!("a total weight of {weight} over {n} servers"),
                    allowed: format!(
                        "{} x total weight x rings at most {MAX_RING_POINTS} ring points with builder={} \
                         (here {total}: {ring} per ring, {rings} rings); lower the servers, the weights {copies}",
                        if self.builder == Builder::Nginx { 160 } else { 16 },
                        self.builder.id()
                    ),
                },
                Builder::Envoy => ScenarioError {
                    field: "weights".to_string(),
                    value: self.weights.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
                    allowed: format!(
                        "Envoy's ring (1,024 points and up to total weight / lightest weight more) x rings at \
                         most {MAX_RING_POINTS} ring points (here {total}: {ring} per ring, {rings} rings); \
                         weights nearer each other, {copies}"
                    ),
                },
                Builder::Ketama => ScenarioError {
                    field: "servers".to_string(),
                    value: self.servers.to_string(),
                    allowed: format!(
                        "160 x servers x rings at most {MAX_RING_POINTS} ring points with builder=ketama \
                         (here {total}: {ring} per ring, {rings} rings); lower the servers {copies}"
                    ),
                },
            });
        }
        Ok(())
    }

    /// Whether the scenario uses the fleet over time (docs/model.md#the-fleet-over-time): any
    /// event, or a fleet setting away from its default. Only then does the
    /// run take the fleet's engine and report its keys.
    pub fn uses_fleet(&self) -> bool {
        let d = Scenario::default();
        FIELDS.iter().filter(|f| f.group.over_time()).any(|f| f.read(self) != f.read(&d))
    }

    /// Whether the run takes the fleet's event loop: the fleet over time,
    /// caches or layer 4 connections (whose state changes request by
    /// request). A scenario with none of them runs the static engine.
    pub fn uses_event_loop(&self) -> bool {
        self.uses_fleet() || self.uses_caches() || self.layer == Layer::L4
    }

    /// Whether the field `key` affects this scenario's numbers, as its
    /// row says ([`Field::applies`]): the bimodal fields only for bimodal
    /// work, `load` unless a rate is given, and so on. Front ends disable
    /// the controls of fields that do not apply. An unknown key applies.
    pub fn uses(&self, key: &str) -> bool {
        field_spec(key).is_none_or(|f| f.applies(self))
    }
}

/// The gaps between the arrivals of each copy's requests, in ms.
#[cfg(feature = "current-rules")]
fn copy_gaps(arrivals: impl Iterator<Item = (f64, u16)>, copies: u32) -> Vec<f64> {
    let mut last = alloc::vec![None::<f64>; copies as usize];
    let mut gaps = Vec::new();
    for (arrival_ms, copy) in arrivals {
        if let Some(at) = last.get_mut(usize::from(copy)) {
            if let Some(before) = at.replace(arrival_ms) {
                gaps.push(arrival_ms - before);
            }
        }
    }
    gaps
}

/// A field whose value makes a run's messages too many: the least value
/// that fits (above the field's range: none does), or what else would.
#[cfg(feature = "current-rules")]
fn too_many(key: &str, value: &str, least: f64, instead: &str, what: &str) -> ScenarioError {
    let f = row(key);
    let fits = if least <= f.max {
        format!("at least {least} ms for this run, or {instead}")
    } else {
        format!("for this run, none of its range: {instead}")
    };
    ScenarioError { allowed: format!("{fits}: {what}"), ..f.error(value) }
}
