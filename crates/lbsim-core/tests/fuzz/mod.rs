//! The fuzz harness: hostile input generators and a runner that counts the
//! cases it tried. `PROPTEST_CASES` sets the cases per property (a short
//! run in `cargo test`, a long one in `cargo xtask fuzz`). The CLI's tests
//! include this file too, so both crates fuzz with the same generators.

// Each test binary uses the part it needs.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};

use lbsim_core::scenario::FIELDS;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Cases per property: `PROPTEST_CASES`, or `default` when unset.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(default)
}

/// Runs `test` on `cases` values of `strategy` and prints how many it
/// tried (shrinking included) and how many the code accepted (`test`
/// returns whether it did), then fails with the smallest failing case.
pub fn fuzz<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) {
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
