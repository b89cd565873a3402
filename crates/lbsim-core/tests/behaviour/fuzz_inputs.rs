//! Hostile input against the link codec, the JSON scenario reader and the
//! remapping experiment's arguments: no panic, an error naming the field,
//! and round-trip identity for everything accepted. Each property mixes
//! valid input made from the table's rows with hostile input, accepts at
//! least half its cases and sees every field of the table accepted
//! (`fuzz.rs`). `PROPTEST_CASES` sets the cases per property; `cargo
//! xtask fuzz` runs many.

use lbsim_core::balancer::builder::Builder;
use lbsim_core::hash::HashFn;
use lbsim_core::remap::{Change, Plan, Remap, Scheme};
use lbsim_core::scenario::{field_spec, FIELDS};
use lbsim_core::url::{decode, decode_strict, encode};
use lbsim_core::{Scenario, ScenarioError};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::fuzz::{
    self, fuzz, hostile_list, hostile_text, mixed_field, mixed_json, mixed_link, printable, Covered,
};

/// The error is one printable line naming a field of the table, the link's
/// version key, or a key the input itself gave. (A refusal: `false`.)
fn names_a_field(e: &ScenarioError, given: &[String]) -> Result<bool, TestCaseError> {
    let message = e.to_string();
    prop_assert!(printable(&message), "unprintable: {message:?}");
    let known = field_spec(&e.field).is_some() || e.field == "v" || given.contains(&e.field);
    prop_assert!(known, "names no field of the input: {message}");
    Ok(false)
}

/// Every accepted scenario survives its link and its JSON unchanged. (An
/// acceptance: `true`.)
fn round_trips(scenario: &Scenario) -> Result<bool, TestCaseError> {
    prop_assert!(scenario.validate().is_ok(), "{:?}", scenario.validate());
    prop_assert_eq!(&decode_strict(&encode(scenario)), &Ok(scenario.clone()));
    let json = serde_json::to_string(scenario).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&serde_json::from_str::<Scenario>(&json).ok(), &Some(scenario.clone()));
    Ok(true)
}

/// The keys a link gives, percent-decoded as a browser would (an oracle
/// written apart from the codec's own decoder).
fn link_keys(link: &str) -> Vec<String> {
    let fragment = link.split_once('#').map_or(link, |(_, f)| f);
    let decoded = |text: &str| {
        let (mut out, mut rest) = (Vec::new(), text.as_bytes());
        while let Some((&b, tail)) = rest.split_first() {
            let digit = |d: u8| (d as char).to_digit(16).map(|d| d as u8);
            match (b, tail) {
                (b'%', [h, l, ..]) if digit(*h).is_some() && digit(*l).is_some() => {
                    out.push(digit(*h).unwrap_or(0) * 16 + digit(*l).unwrap_or(0));
                    rest = &tail[2..];
                }
                _ => {
                    out.push(b);
                    rest = tail;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    fragment.split('&').map(|p| decoded(p.split_once('=').map_or(p, |(k, _)| k))).collect()
}

#[test]
fn hostile_links_never_panic_and_round_trip_when_accepted() {
    let covered = Covered::default();
    let tried = fuzz("links", fuzz::cases(256), mixed_link(), |link| {
        let given = link_keys(&link);
        let lenient = decode(&link);
        for problem in &lenient.problems {
            names_a_field(problem, &given)?;
        }
        // The page's fallback is a valid scenario, and its link is exact.
        round_trips(&lenient.scenario)?;
        match decode_strict(&link) {
            Ok(scenario) => {
                prop_assert!(lenient.problems.is_empty(), "{:?}", lenient.problems);
                prop_assert_eq!(&scenario, &lenient.scenario);
                covered.saw(given.iter().map(String::as_str));
                round_trips(&scenario)
            }
            Err(e) => {
                prop_assert!(!lenient.problems.is_empty(), "strict refused {e}, lenient saw nothing");
                names_a_field(&e, &given)
            }
        }
    });
    covered.every_field("links", tried);
}

#[test]
fn hostile_json_scenarios_never_panic_and_round_trip_when_accepted() {
    let covered = Covered::default();
    let tried = fuzz("json scenarios", fuzz::cases(256), mixed_json(), |text| {
        let Ok(from_file) = serde_json::from_str::<Scenario>(&text) else {
            return Ok(false);
        };
        let object: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let given: Vec<String> = object.keys().cloned().collect();
        if let Err(e) = from_file.check_fields() {
            return names_a_field(&e, &given);
        }
        // As the CLI lays a file over the defaults: field by field, through the checks.
        let mut scenario = Scenario::default();
        for key in given.iter().filter(|k| field_spec(k).is_some()) {
            let set = scenario.set(key, &from_file.get(key).unwrap_or_default());
            prop_assert!(set.is_ok(), "checked field {key} refused: {set:?}");
        }
        match scenario.validate() {
            Ok(()) => {
                covered.saw(given.iter().map(String::as_str));
                round_trips(&scenario)
            }
            Err(e) => names_a_field(&e, &given),
        }
    });
    covered.every_field("json scenarios", tried);
}

/// A remapping experiment a user could mean: distinct nodes, a new one
/// added or a present one removed, a pattern with `{i}`, vnodes in range.
fn valid_remap() -> impl Strategy<Value = Remap> {
    (
        prop::sample::select(Scheme::ALL.to_vec()),
        // Names as the grammar has them: plain, or host:port.
        prop::collection::btree_set("[a-z][a-z0-9.-]{0,6}(:[1-9][0-9]{0,3})?", 2..10),
        any::<bool>(),
        any::<prop::sample::Index>(),
        0u64..50,
        "[a-z:#-]{0,6}\\{i\\}[a-z]{0,4}",
        1u32..=1000,
        prop::sample::select(HashFn::ALL.to_vec()),
        prop::sample::select(Builder::ALL.to_vec()),
    )
        .prop_map(|(scheme, nodes, add, which, keys, key_format, vnodes, hash, ring)| {
            let nodes: Vec<String> = nodes.into_iter().collect();
            let change = if add {
                Change::Add("new-node".to_string())
            } else {
                Change::Remove(nodes[which.index(nodes.len())].clone())
            };
            Remap { scheme, nodes, change, keys, key_format, vnodes, hash, builder: ring }
        })
}

/// A remapping experiment from hostile arguments.
fn hostile_remap() -> impl Strategy<Value = Remap> {
    let names = prop_oneof![1 => hostile_text(), 3 => "[a-z0-9]{1,4}"];
    let nodes = prop_oneof![
        4 => prop::collection::vec("[a-z0-9_-]{1,6}", 0..12),
        1 => prop::collection::vec(names.clone(), 0..6),
        1 => hostile_list().prop_map(|l| l.split(',').map(String::from).collect()),
    ];
    let change = prop_oneof![names.clone().prop_map(Change::Add), names.prop_map(Change::Remove)];
    let keys = prop_oneof![3 => 0u64..50, 1 => Just(10_000_000), 1 => Just(10_000_001), 1 => any::<u64>()];
    let format = prop_oneof![
        3 => "[a-z:#-]{0,8}\\{i\\}[{}a-z]{0,8}",
        1 => hostile_text(),
        1 => "[a-z{}]{0,70}",
        1 => Just("{i}".repeat(21)),
    ];
    let vnodes = prop_oneof![3 => 0u32..300, 1 => Just(1000), 1 => Just(1001), 1 => any::<u32>()];
    (
        prop::sample::select(Scheme::ALL.to_vec()),
        nodes,
        change,
        keys,
        format,
        vnodes,
        prop::sample::select(HashFn::ALL.to_vec()),
        prop::sample::select(Builder::ALL.to_vec()),
    )
        .prop_map(|(scheme, nodes, change, keys, key_format, vnodes, hash, ring)| Remap {
            scheme,
            nodes,
            change,
            keys,
            key_format,
            vnodes,
            hash,
            builder: ring,
        })
}

#[test]
fn hostile_remap_arguments_never_panic_and_count_every_key() {
    let fields = ["nodes", "add", "remove", "keys", "key-format", "vnodes"].map(String::from);
    let remaps = prop_oneof![3 => valid_remap(), 1 => hostile_remap()];
    fuzz("remap arguments", fuzz::cases(256), remaps, |remap| match Plan::new(&remap) {
        Err(e) => names_a_field(&e, &fields),
        Ok(plan) => {
            // A few keys only: the plan is what the arguments decide.
            let tally = plan.tally(0..remap.keys.min(64));
            let report = plan.report(tally);
            let owned = |o: &lbsim_core::remap::Ownership| o.0.iter().map(|(_, k)| k).sum::<u64>();
            prop_assert_eq!(owned(&report.before), report.keys);
            prop_assert_eq!(owned(&report.after), report.keys);
            prop_assert!(report.moved <= report.keys);
            Ok(true)
        }
    });
}

/// A value in a field's documented range is taken; anything else is
/// refused by name or read back exactly.
#[test]
fn hostile_single_fields_are_refused_by_name_or_read_back_exactly() {
    // Field by field, so that each is tried as often and a new row of the
    // table is tried without a line here.
    // The property's cases shared among the fields, at least 100 each.
    let per_field = (fuzz::cases(256) / FIELDS.len() as u32).max(fuzz::FULL_SHARE_FROM as u32);
    let covered = Covered::default();
    let mut tried = 0;
    for field in FIELDS {
        let name = format!("fields/{}", field.key);
        tried += fuzz(&name, per_field, mixed_field(field), |(key, text, valid)| {
            let mut scenario = Scenario::default();
            match scenario.set(&key, &text) {
                Err(e) => {
                    prop_assert!(!valid, "{key}={text:?} is in the table's range but refused: {e}");
                    names_a_field(&e, &[key])
                }
                Ok(()) => {
                    // What `set` took, `get` gives back in a form `set` reads to the same value.
                    let again = scenario.get(&key).unwrap_or_default();
                    let mut copy = Scenario::default();
                    prop_assert!(copy.set(&key, &again).is_ok(), "{key}={again:?} read back refused");
                    prop_assert_eq!(copy, scenario);
                    covered.saw([key.as_str()]);
                    Ok(true)
                }
            }
        });
    }
    covered.every_field("fields", tried);
}
