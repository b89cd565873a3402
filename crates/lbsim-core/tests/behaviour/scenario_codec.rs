//! The share-link codec and validation: encoding then decoding gives the
//! same scenario, whichever fields it sets; every out-of-range value is
//! refused with the field, the value and the range from the one table.

use lbsim_core::scenario::{FieldKind, FIELDS};
use lbsim_core::url::{decode, decode_strict, encode};
use lbsim_core::{AlgorithmId, Scenario};
use proptest::prelude::*;

use crate::fuzz::{self, fuzz, scenario_of, valid_pairs, Covered};

/// Encoding then decoding is the identity for scenarios that set any of
/// the table's fields (events, health, caches, layer, ring and hash
/// included), each to a value made from its row (`fuzz.rs`); at least
/// half the generated scenarios are valid, and every field is set away
/// from its default in some valid one.
#[test]
fn encode_then_decode_is_the_identity() {
    let covered = Covered::default();
    let tried = fuzz("codec round trip", fuzz::cases(256), valid_pairs(), |pairs| {
        let Some(scenario) = scenario_of(&pairs) else { return Ok(false) };
        if scenario.validate().is_err() {
            return Ok(false);
        }
        let link = format!("https://example.org/lbsim/#{}", encode(&scenario));
        let decoded = decode(&link);
        prop_assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
        prop_assert_eq!(&decoded.scenario, &scenario);
        // JSON too: the report's scenario and `--scenario FILE.json`.
        let json = serde_json::to_string(&scenario).expect("serializes");
        prop_assert_eq!(&serde_json::from_str::<Scenario>(&json).expect("parses"), &scenario);
        let default = Scenario::default();
        covered.saw(FIELDS.iter().filter(|f| f.read(&scenario) != f.read(&default)).map(|f| f.key));
        Ok(true)
    });
    covered.every_field("codec round trip", tried);
}

#[test]
fn every_numeric_field_refuses_values_outside_its_range() {
    for field in FIELDS.iter().filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Real)) {
        for bad in [field.min - 1.0, field.max * 2.0 + 1.0] {
            let text =
                if field.kind == FieldKind::Integer { format!("{}", bad as i64) } else { format!("{bad}") };
            let err = Scenario::default().set(field.key, &text).expect_err(field.key);
            assert_eq!(err.field, field.key);
            assert_eq!(err.value, text);
            let message = err.to_string();
            assert!(message.contains(field.key) && message.contains(&text), "{message}");
            assert!(message.contains(&format!("{} to {}", field.min, field.max)), "{message}");
        }
    }
}

#[test]
fn strict_decoding_names_the_first_problem() {
    let err = decode_strict("#v=1&slow-share=1.5").expect_err("out of range");
    assert_eq!((err.field.as_str(), err.value.as_str()), ("slow-share", "1.5"));
    assert!(err.to_string().contains("0 to 1"));
    assert!(decode_strict("v=2").is_err(), "unknown version");
    assert!(decode_strict("v=1&bogus=3").is_err(), "unknown key");
}

#[test]
fn rings_too_large_to_build_are_refused_by_name() {
    // 1024 servers of weight 1000 at 1000 points per weight unit would be
    // 10^9 ring points; the limit is 2^22.
    let mut scenario =
        Scenario { servers: 1024, vnodes: 1000, weights: vec![1000; 1024], ..Scenario::default() };
    let err = scenario.validate().expect_err("ring too large");
    assert_eq!((err.field.as_str(), err.value.as_str()), ("vnodes", "1000"));
    assert!(err.to_string().contains("4194304"), "{err}");
    // Without a ring rule the weights are fine.
    scenario.algorithms = vec![AlgorithmId::RoundRobin, AlgorithmId::LeastConnections];
    assert!(scenario.validate().is_ok());
}

/// More than 64 copies only when every rule is a current one: a classic
/// rule keeps a state per copy (docs/performance.md#many-copies).
#[test]
fn more_than_64_copies_are_for_the_current_rules_alone() {
    let jiq = Scenario { balancers: 1_024, algorithms: vec![AlgorithmId::Jiq], ..Scenario::default() };
    assert!(jiq.validate().is_ok(), "{:?}", jiq.validate());
    let mixed = Scenario { algorithms: vec![AlgorithmId::Jiq, AlgorithmId::Maglev], ..jiq.clone() };
    let err = mixed.validate().expect_err("a classic rule at 1,024 copies");
    assert_eq!((err.field.as_str(), err.value.as_str()), ("balancers", "1024"));
    assert!(err.allowed.contains("1 to 64 when a classic rule runs (here maglev)"), "{err}");
    assert!(err.allowed.contains("up to 1024 when every rule is one of the current rules (jiq"), "{err}");
    assert!(Scenario { balancers: 64, ..mixed.clone() }.validate().is_ok());
    let err = decode_strict("#v=1&balancers=65").expect_err("the classic eleven at 65 copies");
    assert_eq!((err.field.as_str(), err.value.as_str()), ("balancers", "65"));
    assert!(decode_strict("#v=1&balancers=1024&algorithms=jiq").is_ok());
}

#[test]
fn json_scenarios_are_validated_against_the_same_table() {
    let scenario: Scenario = serde_json::from_str(r#"{"servers": 5000}"#).expect("parses");
    let err = scenario.validate().expect_err("too many servers");
    assert_eq!(err.field, "servers");
    assert!(serde_json::from_str::<Scenario>(r#"{"colour": 1}"#).is_err(), "unknown fields are refused");
}

/// A name list's text form joins names with commas, so each name is
/// checked on its own: `["a,b", "c"]` must not become three names.
#[test]
fn names_from_json_are_checked_one_by_one() {
    for names in [vec!["a,b".to_string(), "c".to_string()], vec![String::new()]] {
        let scenario = Scenario { servers: names.len() as u32, names: names.clone(), ..Scenario::default() };
        let e = scenario.check_fields().expect_err("a bad name");
        assert_eq!((e.field.as_str(), e.value.as_str()), ("names", names[0].as_str()));
        assert_eq!(scenario.validate().expect_err("a bad name").field, "names");
    }
}

mod events {
    use lbsim_core::events::{Event, EventKind, Events};
    use lbsim_core::url;
    use lbsim_core::Scenario;
    use proptest::prelude::*;

    fn kind() -> impl Strategy<Value = EventKind> {
        prop_oneof![
            (1u32..=10_000).prop_map(|f| EventKind::Slow(f64::from(f) / 100.0)),
            Just(EventKind::Fail),
            Just(EventKind::Crash),
            Just(EventKind::Recover),
            Just(EventKind::Join),
            Just(EventKind::Leave),
        ]
    }

    fn event() -> impl Strategy<Value = Event> {
        (0u64..=86_400_000, "[a-z][a-z0-9:_-]{0,12}", kind()).prop_map(|(at_ms, server, kind)| Event {
            at_ms,
            server,
            kind,
        })
    }

    proptest! {
        #[test]
        fn any_events_list_round_trips_through_its_text(mut list in proptest::collection::vec(event(), 0..64)) {
            list.sort_by_key(|e| e.at_ms);
            let events = Events(list);
            prop_assert_eq!(Events::parse(&events.to_string()), Ok(events.clone()));
            let json = serde_json::to_string(&events).expect("serializes");
            prop_assert_eq!(serde_json::from_str::<Events>(&json).expect("parses"), events);
        }
    }

    #[test]
    fn a_link_carries_events_in_canonical_form() {
        let mut s = Scenario::default();
        s.set("events", "40s:s3:recover,20000ms:s3:fail").expect("valid");
        let link = url::encode(&s);
        assert!(link.contains("events=20s:s3:fail,40s:s3:recover"), "{link}");
        assert_eq!(url::decode_strict(&link), Ok(s));
    }
}

#[test]
fn bad_events_name_the_field_the_item_and_what_is_allowed() {
    let cases = [
        ("20s:s9:fail", "20s:s9:fail", "a server of the pool"),
        ("20s:s1:explode", "20s:s1:explode", "KIND one of"),
        ("20x:s1:fail", "20x:s1:fail", "TIME in ms or s"),
        ("20s:s1:join,30s:s1:join", "30s:s1:join", "a join of a server outside the pool"),
        ("20s:s1:leave,30s:s1:leave", "30s:s1:leave", "a leave of a server in the pool"),
        ("20s:s1:recover", "20s:s1:recover", "a recover after"),
    ];
    for (events, item, allowed) in cases {
        let mut s = lbsim_core::Scenario::default();
        let err = s.set("events", events).and_then(|()| s.validate()).expect_err(events);
        assert_eq!((err.field.as_str(), err.value.as_str()), ("events", item), "{events}");
        assert!(err.allowed.contains(allowed), "{events}: {}", err.allowed);
    }
    let many: Vec<String> = (0..65).map(|i| format!("{i}s:s1:slow=0.5")).collect();
    let err = lbsim_core::Scenario::default().set("events", &many.join(",")).expect_err("65 events");
    assert!(err.value.contains("65 events") && err.allowed.contains("at most 64"));
}

/// A switch has one type everywhere: `true`/`false` in JSON, links and
/// flags alike; the links' and flags' older `1`/`0` still read.
#[test]
fn count_5xx_is_true_or_false_everywhere_and_old_links_still_read() {
    let on = Scenario { count_5xx: true, ..Scenario::default() };
    assert_eq!(encode(&on), "v=1&count-5xx=true");
    assert_eq!(serde_json::to_value(&on).expect("json")["count-5xx"], serde_json::Value::Bool(true));
    for (text, value) in [("true", true), ("1", true), ("false", false), ("0", false)] {
        assert_eq!(decode_strict(&format!("v=1&count-5xx={text}")).map(|s| s.count_5xx), Ok(value), "{text}");
    }
    let bad = decode_strict("v=1&count-5xx=2").expect_err("2 is no switch");
    assert_eq!((bad.field.as_str(), bad.value.as_str()), ("count-5xx", "2"));
    assert!(bad.allowed.ends_with(": false, true"), "{}", bad.allowed);
}
