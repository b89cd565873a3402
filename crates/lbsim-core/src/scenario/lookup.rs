//! Finding a row of the field table: by key (or a key it had), the key
//! lists some front ends take whole, and the error a key that is no field
//! gets.

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use super::error::{ScenarioError, UNKNOWN_KEY};
use super::fields::{Field, FIELDS};

/// The fields that place a hashing rule's servers and keys: the hash
/// function, the ring points per weight unit and whose ring construction.
/// A remapping experiment (`lbsim_core::remap`) takes them as the scenario's
/// rules do, so one it shows is the ring a run builds.
pub const PLACEMENT_KEYS: &[&str] = &["hash", "vnodes", "builder"];

/// With [`PLACEMENT_KEYS`], every field a rule's picks on an idle pool
/// depend on (what `lbsim trace` shows): the servers, their weights and
/// names, bounded-load's factor, the Maglev table's size (the pool the
/// rules are built over), the seed of the rules' random streams, least
/// request's active-request bias (which held requests show), and the
/// balancer copies and aperture size (a trace is the first copy's picks,
/// over its slice of the ring under aperture), and what the servers'
/// load reports say and how a rule that learns weights reads them.
pub const POOL_KEYS: &[&str] = &[
    "servers",
    "weights",
    "names",
    "balance-factor",
    "maglev-size",
    "seed",
    "active-request-bias",
    "balancers",
    "aperture-size",
    // Learned weights: the servers' slots and load reports, and how the rule weighs them.
    "slots",
    "report-period",
    "blackout",
    "expiration",
    "weight-period",
    "error-penalty",
    "out-of-band",
];

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

/// The row of the table with this key; only ever called with keys of the
/// table.
pub(super) fn row(key: &str) -> &'static Field {
    field_spec(key).expect("key is in FIELDS")
}
