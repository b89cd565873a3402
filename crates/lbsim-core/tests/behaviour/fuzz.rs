//! The fuzz harness: hostile input generators, valid ones made from the
//! scenario table's rows, and a runner that counts the cases it tried and
//! accepted. `PROPTEST_CASES` sets the cases per property (a short run in
//! `cargo test`, a long one in `cargo xtask fuzz`). The CLI's tests
//! include this file too, so both crates fuzz with the same generators.
//!
//! Every property mixes valid input (which must be accepted and read back)
//! with hostile input (which must be refused by name or read back), and
//! the runner requires at least half of the cases accepted, so a generator
//! that drifts into producing only refusals fails instead of testing
//! nothing. Valid input covers every field of `FIELDS`, events and the
//! fleet's settings included, and `Covered` requires each field in some
//! accepted case, so a field added to the table is fuzzed without a line
//! here.

// Each test binary uses the part it needs.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use lbsim_core::scenario::{Field, FieldKind, FIELDS, MAX_CLASSIC_COPIES};
use lbsim_core::{AlgorithmId, Scenario};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Cases per property: `PROPTEST_CASES`, or `default` when unset.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(default)
}

/// Runs that try at least this many cases must accept at least half of
/// them; shorter ones (the binary's 24 cases a property) a quarter, which
/// a generator accepting 70% misses with a chance below one in 10^5.
pub const FULL_SHARE_FROM: u64 = 100;

/// Runs `test` on `cases` values of `strategy` and prints how many it
/// tried (shrinking included) and how many the code accepted (`test`
/// returns whether it did), then fails with the smallest failing case, or
/// when fewer than half the cases were accepted (a quarter under
/// [`FULL_SHARE_FROM`] cases). Returns the cases tried.
pub fn fuzz<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) -> u64 {
    let (tried, accepted) = (AtomicU64::new(0), AtomicU64::new(0));
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let result = TestRunner::new(config).run(&strategy, |value| {
        tried.fetch_add(1, Ordering::Relaxed);
        let took = test(value)?;
        accepted.fetch_add(u64::from(took), Ordering::Relaxed);
        Ok(())
    });
    let (tried, accepted) = (tried.load(Ordering::Relaxed), accepted.load(Ordering::Relaxed));
    eprintln!("fuzz {name}: {tried} cases tried, {accepted} accepted");
    if let Err(e) = result {
        panic!("fuzz {name}: {e}");
    }
    let share = if tried >= FULL_SHARE_FROM { 2 } else { 4 };
    assert!(
        accepted * share >= tried,
        "fuzz {name}: only {accepted} of {tried} cases accepted (at least 1/{share} required): the \
         generators test little but refusals"
    );
    tried
}

/// The table's keys seen in accepted cases.
#[derive(Default)]
pub struct Covered(Mutex<BTreeSet<String>>);

impl Covered {
    /// Notes the keys of an accepted case.
    pub fn saw<'a>(&self, keys: impl IntoIterator<Item = &'a str>) {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.extend(keys.into_iter().map(String::from));
    }

    /// Fails unless every field of the table was in an accepted case (in
    /// runs of at least [`FULL_SHARE_FROM`] cases).
    pub fn every_field(&self, name: &str, tried: u64) {
        if tried < FULL_SHARE_FROM {
            return;
        }
        let seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let missing: Vec<&str> = FIELDS.iter().map(|f| f.key).filter(|k| !seen.contains(*k)).collect();
        assert!(missing.is_empty(), "fuzz {name}: no accepted case set {missing:?}");
    }
}

/// Numbers as text that ranges, parsers and printers get wrong.
pub fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "NaN",
            "nan",
            "inf",
            "-inf",
            "infinity",
            "1e308",
            "1e309",
            "-1e309",
            "1e-308",
            "4.9e-324",
            "-0",
            "+0",
            "0x10",
            "1_000",
            "18446744073709551615",
            "18446744073709551616",
            "9007199254740991",
            "9007199254740992",
            "4294967296",
            "-1",
            " 4 ",
            "+4",
            "4.0",
            "4.",
            ".5",
            "1e3",
            "0.000000000000000000001",
            "00004",
            "",
            " ",
            "٣",
        ])
        .prop_map(String::from),
        any::<f64>().prop_map(|x| x.to_string()),
        any::<i64>().prop_map(|x| x.to_string()),
        (0u64..2000).prop_map(|x| x.to_string()),
        (0.0f64..2.0).prop_map(|x| x.to_string()),
    ]
}

/// Text with control characters, quotes, separators and any unicode.
pub fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\u{202e}\\u{feff}'\"\\\\]{0,6}",
        "[a-z0-9_-]{0,40}",
        "[-a-z,=&#%{}]{0,12}",
        prop::sample::select(vec!["%0a%1b[31mX", "%zz", "%", "%E2%80%AE", "%00", "a,,b", ",", "{i}"])
            .prop_map(String::from),
    ]
}

/// A comma-separated list, sometimes very long.
pub fn hostile_list() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(hostile_number(), 0..8).prop_map(|v| v.join(",")),
        prop::collection::vec("[a-z0-9_-]{1,6}", 0..8).prop_map(|v| v.join(",")),
        (0usize..3000, 0u32..3).prop_map(|(n, w)| vec![(w + 1).to_string(); n].join(",")),
        (0usize..1100).prop_map(|n| (0..n).map(|i| format!("n{i}")).collect::<Vec<_>>().join(",")),
    ]
}

/// Any value a field might be given.
pub fn hostile_value() -> impl Strategy<Value = String> {
    prop_oneof![hostile_number(), hostile_text(), hostile_list()]
}

/// A key of the table, the version key, or anything.
pub fn hostile_key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(FIELDS.iter().map(|f| f.key).collect::<Vec<_>>()).prop_map(String::from),
        1 => Just("v".to_string()),
        1 => hostile_text(),
    ]
}

/// A share link: a prefix, then `key=value` pairs (keys may repeat).
pub fn hostile_link() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec!["", "#", "v=1&", "#v=1&", "http://x/lbsim/#v=1&", "v=2&"]);
    let pair = prop_oneof![
        4 => (hostile_key(), hostile_value()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => hostile_key(),
    ];
    (prefix, prop::collection::vec(pair, 0..10)).prop_map(|(p, pairs)| format!("{p}{}", pairs.join("&")))
}

/// A JSON value a scenario field might hold.
pub fn hostile_json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u64..3000).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (0.0f64..2.0).prop_map(Value::from),
        hostile_text().prop_map(Value::String),
        prop::sample::select(vec!["bimodal", "lognormal", "xxh64", "crc32", "maglev", "round-robin"])
            .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(2, 64, 16, |inner| {
        prop::collection::vec(inner, 0..16).prop_map(serde_json::Value::Array)
    })
}

/// A JSON object with table keys (and others, and repeats) and hostile
/// values, written out by hand so that a key can come twice.
pub fn hostile_json() -> impl Strategy<Value = String> {
    prop::collection::vec((hostile_key(), hostile_json_value()), 0..8).prop_map(|fields| {
        let members: Vec<String> =
            fields.iter().map(|(k, v)| format!("{}: {v}", serde_json::Value::from(k.as_str()))).collect();
        format!("{{{}}}", members.join(", "))
    })
}

/// Whether an error message is one printable line.
pub fn printable(message: &str) -> bool {
    !message.chars().any(|c| c.is_control() || c == '\u{202e}')
}

/// Most servers of a generated valid scenario.
const VALID_SERVERS: usize = 6;

/// The ids a field takes as its whole value, or (for a list) any subset
/// of: a choice's, from its row, and the rules' for `algorithms`; none for
/// other lists (names come with the pool).
fn ids(field: &Field) -> Vec<String> {
    match field.kind {
        FieldKind::Choice => field.choices().iter().map(|c| c.id.to_string()).collect(),
        FieldKind::NameList if field.key == "algorithms" => {
            AlgorithmId::ALL.iter().map(|a| a.id().to_string()).collect()
        }
        _ => Vec::new(),
    }
}

/// A number of a field's range as its text form takes it: either end,
/// near the bottom (where scenarios stay small), or anywhere.
fn number(min: f64, max: f64, step: f64) -> BoxedStrategy<String> {
    if min.fract() == 0.0 && step.fract() == 0.0 {
        let (lo, hi) = (min as u64, max as u64);
        prop_oneof![Just(lo), Just(hi), lo..=hi.min(lo + 20), lo..=hi].prop_map(|x| x.to_string()).boxed()
    } else {
        prop_oneof![Just(min), Just(max), min..=max.min(min + 10.0), min..=max]
            .prop_map(|x: f64| x.to_string())
            .boxed()
    }
}

/// Valid fleet events over `names`: each server at most one story (a
/// failure, crash or slowdown and maybe its recovery, a leave, or a
/// join of a server that starts outside; never the first, so the pool is
/// never empty at time 0).
fn events(names: Vec<String>) -> BoxedStrategy<String> {
    let n = names.len();
    prop::collection::vec((0..n, 0u32..6, 0u32..60_000, 1u32..30_000, 1u32..=10_000), 0..6)
        .prop_map(move |stories| {
            let mut told = vec![false; n];
            let mut items = Vec::new();
            for (s, story, at, then, factor) in stories {
                if told[s] {
                    continue;
                }
                told[s] = true;
                let (name, back) = (&names[s], at + then);
                match story {
                    0 => items.push(format!("{at}ms:{name}:fail")),
                    1 => items.extend([format!("{at}ms:{name}:crash"), format!("{back}ms:{name}:recover")]),
                    2 => items.extend([
                        format!("{at}ms:{name}:slow={}", f64::from(factor) / 100.0),
                        format!("{back}ms:{name}:recover"),
                    ]),
                    3 => items.extend([format!("{at}ms:{name}:fail"), format!("{back}ms:{name}:recover")]),
                    4 => items.push(format!("{at}ms:{name}:leave")),
                    _ if s > 0 => items.push(format!("{at}ms:{name}:join")),
                    _ => items.push(format!("{at}ms:{name}:crash")),
                }
            }
            items.join(",")
        })
        .boxed()
}

/// A valid text value of `field` for a pool of `names`, made from the row
/// alone: its range, the ids its help names, one value per server, events
/// naming the pool's servers.
pub fn valid_value(field: &'static Field, names: &[String]) -> BoxedStrategy<String> {
    let n = names.len();
    match field.kind {
        // The pool's size comes with the pool.
        _ if field.key == "servers" => Just(n.to_string()).boxed(),
        // Copies past 64 are for the current rules alone, and a generated
        // scenario mostly runs a classic one.
        _ if field.key == "balancers" => number(field.min, f64::from(MAX_CLASSIC_COPIES), field.step),
        FieldKind::Integer | FieldKind::Real => number(field.min, field.max, field.step),
        FieldKind::Choice => prop::sample::select(ids(field)).boxed(),
        FieldKind::NumberList => {
            // Mostly small values, so rings over the weights stay buildable.
            let (min, max, step) = (field.min, field.max, field.step);
            let one = prop_oneof![3 => number(min, max.min(min + 4.0), step), 1 => number(min, max, step)];
            prop::collection::vec(one, n).prop_map(|v| v.join(",")).boxed()
        }
        FieldKind::NameList => {
            let ids = ids(field);
            if ids.is_empty() {
                // Names, one per server: the pool's own.
                Just(names.join(",")).boxed()
            } else {
                let len = ids.len();
                prop::sample::subsequence(ids, 1..=len).prop_map(|v| v.join(",")).boxed()
            }
        }
        FieldKind::Events => events(names.to_vec()),
        // A log's name and format: the core carries them (the front ends
        // read the file, which the log tests do).
        FieldKind::Text if field.key == "log-format" => {
            Just("$msec $request_time $upstream_response_time $upstream_addr".to_string()).boxed()
        }
        FieldKind::Text => "[a-z][a-z0-9_.-]{0,30}".boxed(),
    }
}

/// `key=value` pairs a scenario takes together: `servers` (1 to 6) and
/// any subset of the table's other fields, each with a [`valid_value`],
/// the servers named `s1`.. or, when the subset holds `names`, by the
/// names it gives (`names1`.., or addresses `10.0.0.1:8081`..).
pub fn valid_pairs() -> impl Strategy<Value = Vec<(String, String)>> {
    let shape = (1..=VALID_SERVERS, prop::collection::vec(any::<bool>(), FIELDS.len()), any::<bool>());
    shape.prop_flat_map(|(n, chosen, addresses)| {
        let named = FIELDS.iter().zip(&chosen).any(|(f, &c)| c && f.key == "names");
        // Names as a config file writes them (`10.0.0.1:8081`) or plain.
        let name = |i: usize| match (named, addresses) {
            (true, true) => format!("10.0.0.{i}:808{i}"),
            (true, false) => format!("names{i}"),
            _ => format!("s{i}"),
        };
        let names: Vec<String> = (1..=n).map(name).collect();
        // The pool's size always: lists and events are per server.
        let values: Vec<BoxedStrategy<(String, String)>> = FIELDS
            .iter()
            .zip(&chosen)
            .filter(|(f, &c)| c || f.key == "servers")
            .map(|(f, _)| {
                let names = names.clone();
                let value =
                    if f.key == "names" { Just(names.join(",")).boxed() } else { valid_value(f, &names) };
                value.prop_map(move |v| (f.key.to_string(), v)).boxed()
            })
            .collect();
        values
    })
}

/// A valid share link of [`valid_pairs`].
pub fn valid_link() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec!["", "#", "v=1&", "#v=1&", "http://x/lbsim/#v=1&"]);
    (prefix, valid_pairs()).prop_map(|(p, pairs)| {
        let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{p}{}", pairs.join("&"))
    })
}

/// Links: mostly valid, some hostile, some valid with a hostile pair.
pub fn mixed_link() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => valid_link(),
        1 => hostile_link(),
        1 => (valid_link(), hostile_key(), hostile_value()).prop_map(|(l, k, v)| format!("{l}&{k}={v}")),
    ]
}

/// The scenario [`valid_pairs`] describe, as the CLI lays them over the
/// defaults (`None` if a pair is refused).
pub fn scenario_of(pairs: &[(String, String)]) -> Option<Scenario> {
    let mut s = Scenario::default();
    for (k, v) in pairs {
        s.set(k, v).ok()?;
    }
    Some(s)
}

/// A valid JSON scenario file: the pairs' scenario as JSON.
pub fn valid_json() -> impl Strategy<Value = String> {
    valid_pairs().prop_map(|pairs| match scenario_of(&pairs) {
        Some(s) => serde_json::to_string(&s).unwrap_or_default(),
        None => String::new(),
    })
}

/// JSON files: mostly valid, some hostile, some valid with a hostile member.
pub fn mixed_json() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => valid_json(),
        1 => hostile_json(),
        1 => (valid_json(), hostile_key(), hostile_json_value()).prop_map(|(j, k, v)| {
            match j.strip_suffix('}') {
                Some(head) if head.len() > 1 => format!("{head}, {}: {v}}}", serde_json::Value::from(k.as_str())),
                _ => j,
            }
        }),
    ]
}

/// A value for `field` in a default scenario (4 servers, `s1`..): mostly
/// valid (`true`: in the row's range, so it must be taken), some hostile;
/// and now and then another key altogether.
pub fn mixed_field(field: &'static Field) -> impl Strategy<Value = (String, String, bool)> {
    let names: Vec<String> = (1..=4).map(|i| format!("s{i}")).collect();
    let key = field.key.to_string();
    let hostile = || prop_oneof![hostile_text(), hostile_list(), hostile_number()];
    prop_oneof![
        8 => valid_value(field, &names).prop_map(move |v| (key.clone(), v, true)),
        1 => hostile().prop_map(move |v| (field.key.to_string(), v, false)),
        1 => (hostile_key(), hostile()).prop_map(|(k, v)| (k, v, false)),
    ]
}
