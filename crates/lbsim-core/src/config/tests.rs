//! Each program's configuration held to the field table and to what the real programs take.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::request::*;
use super::*;
use crate::balancer::AlgorithmId;
use crate::scenario::{Expression, Field, FieldKind, FIELDS, IN_CONFIG};

/// A scenario where every setting of the fleet acts: a server fails,
/// retries, active checks, outlier detection and slow start are on,
/// so a field's directive shows when it is written at all.
fn acting() -> Scenario {
    let mut s = Scenario::default();
    for (key, value) in [
        ("events", "10s:s1:fail"),
        ("retries", "1"),
        ("check-ms", "1000"),
        ("outlier-5xx", "3"),
        ("slow-start-ms", "5000"),
    ] {
        s.set(key, value).unwrap();
    }
    s
}

/// Values of `field` away from the acting scenario's, each valid there.
fn other_values(field: &Field, base: &Scenario) -> Vec<Scenario> {
    let texts: Vec<String> = match field.kind {
        FieldKind::Integer | FieldKind::Real => {
            let mid = if field.kind == FieldKind::Integer {
                libm::round((field.min + field.max) / 2.0)
            } else {
                (field.min + field.max) / 2.0
            };
            [field.min, mid, field.max, field.min + field.step].iter().map(|v| v.to_string()).collect()
        }
        FieldKind::Choice => field.choices().iter().map(|c| c.id.to_string()).collect(),
        FieldKind::NumberList if field.key == "weights" => vec!["2,1,1,300".into(), "3,1,1,1".into()],
        FieldKind::NumberList => vec!["0.5,1,1,2".into()],
        FieldKind::NameList if field.key == "names" => {
            // The acting scenario's events name s1.
            vec!["s1,b,c,d".into(), "s1,10.0.0.2:80,10.0.0.3:80,10.0.0.4:80".into()]
        }
        FieldKind::NameList => vec!["round-robin".into()],
        FieldKind::Events => vec!["5s:s2:crash".into()],
        FieldKind::Text => vec!["access.log".into()],
    };
    texts
        .iter()
        .filter_map(|text| {
            let mut s = base.clone();
            (s.set(field.key, text).is_ok() && s.validate().is_ok() && s != *base).then_some(s)
        })
        .collect()
}

fn config(scenario: &Scenario, program: Program, rule: AlgorithmId) -> String {
    let request = Request { program, rule, full: true, key: Key::Arg("user".into()), port: 8080 };
    write(scenario, &request)
}

/// The lines that configure, without the comments.
fn directives(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.split(" #").next().unwrap_or(l))
        .collect()
}

/// Every field, in every program, does what its row says: a written
/// field changes a directive for some rule and value, a missing one
/// brings its comment, and one outside the balancer changes no
/// directive at all. So a field whose expression is wrong, or a new
/// field whose config was never decided, fails here.
#[test]
fn every_field_is_written_commented_or_outside_as_its_row_says() {
    let base = acting();
    for (field, in_config) in FIELDS.iter().zip(IN_CONFIG) {
        let variants = other_values(field, &base);
        assert!(!variants.is_empty(), "{}: no other valid value to try", field.key);
        for program in Program::ALL {
            let seen = |s: &Scenario, rule| config(s, program, rule);
            match expression(in_config, program) {
                Expression::Written => assert!(
                    AlgorithmId::ALL.iter().any(|&rule| variants
                        .iter()
                        .any(|v| directives(&seen(v, rule)) != directives(&seen(&base, rule)))),
                    "{} for {}: written, but no value changes a directive",
                    field.key,
                    program.id()
                ),
                Expression::Missing(note) | Expression::MissingWhen(note, _) => assert!(
                    AlgorithmId::ALL
                        .iter()
                        .any(|&rule| variants.iter().any(|v| seen(v, rule).contains(note))),
                    "{} for {}: missing, but its comment is never written",
                    field.key,
                    program.id()
                ),
                Expression::Outside => {
                    for &rule in AlgorithmId::ALL {
                        for v in &variants {
                            assert_eq!(
                                directives(&seen(v, rule)),
                                directives(&seen(&base, rule)),
                                "{} for {} with {}: outside the balancer, but a directive changed",
                                field.key,
                                program.id(),
                                rule.id()
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A note is written once however many fields name it.
#[test]
fn a_shared_note_is_written_once() {
    let mut s = acting();
    s.set("fall", "5").unwrap();
    s.set("rise", "4").unwrap();
    let text = config(&s, Program::Nginx, AlgorithmId::RoundRobin);
    let note = "active health checks (check-ms)";
    assert_eq!(text.matches(note).count(), 1, "{text}");
}

/// Least request's bias is Envoy's `least_request_lb_config.active_request_bias`
/// (a runtime double, as Envoy's own tests set it), in the same block as
/// slow start; NGINX says it has no such rule.
#[test]
fn the_active_request_bias_is_envoys_least_request_setting() {
    let mut s = acting();
    s.set("active-request-bias", "0.5").unwrap();
    let text = config(&s, Program::Envoy, AlgorithmId::LeastRequest);
    let block =
        "least_request_lb_config:\n  active_request_bias: { default_value: 0.5, runtime_key: lbsim }\n  \
                 slow_start_config:\n";
    assert!(text.contains(block), "{text}");
    assert_eq!(text.matches("least_request_lb_config:").count(), 1, "{text}");
    assert!(!config(&s, Program::Envoy, AlgorithmId::RoundRobin).contains("active_request_bias"));
    let nginx = config(&s, Program::Nginx, AlgorithmId::LeastRequest);
    assert!(nginx.contains(
        "active-request bias (active-request-bias): Envoy's least request; NGINX has no such rule"
    ));
}

/// Envoy's client-side weighted round robin is a `load_balancing_policy`
/// extension (no `lb_policy`), its settings the learned weights' fields as
/// Envoy's `ClientSideWeightedRoundRobin` message names them; NGINX and
/// HAProxy have no such rule and say so.
#[test]
fn envoys_client_side_weights_are_its_load_balancing_policy() {
    let mut s = Scenario::default();
    s.set("blackout", "5000").unwrap();
    s.set("out-of-band", "true").unwrap();
    s.set("report-period", "2500").unwrap();
    let text = config(&s, Program::Envoy, AlgorithmId::EnvoyCswrr);
    let policy = "load_balancing_policy:\n  policies:\n  - typed_extension_config:\n      \
                  name: envoy.load_balancing_policies.client_side_weighted_round_robin\n";
    assert!(text.contains(policy), "{text}");
    for setting in [
        "enable_oob_load_report: true\n",
        "oob_reporting_period: 2.5s\n",
        "blackout_period: 5s\n",
        "weight_expiration_period: 180s\n",
        "weight_update_period: 1s\n",
        "error_utilization_penalty: 1\n",
    ] {
        assert!(text.contains(&format!("        {setting}")), "{setting}: {text}");
    }
    assert!(!text.contains("lb_policy:"), "{text}");
    for program in [Program::Nginx, Program::Haproxy] {
        for rule in [AlgorithmId::EnvoyCswrr, AlgorithmId::GrpcWrr] {
            let text = config(&s, program, rule);
            assert!(text.contains(&format!("{}: not in", rule.id())), "{text}");
        }
    }
}

/// The JSON of `lbsim config --for grpc`: the lines after the `#` notes.
fn grpc_json(scenario: &Scenario, rule: AlgorithmId, key: Key) -> serde_json::Value {
    let request = Request { program: Program::Grpc, rule, full: true, key, port: 8080 };
    let text = write(scenario, &request);
    let json: String = text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: not JSON ({e}):\n{text}", rule.id()))
}

/// Whether `text` is a duration as protobuf's JSON mapping writes one,
/// which gRPC's parsers read: seconds, up to nine decimals, then `s`.
fn is_json_duration(text: &str) -> bool {
    let Some(number) = text.strip_suffix('s') else { return false };
    let (whole, part) = number.split_once('.').unwrap_or((number, "0"));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && (1..=9).contains(&part.len())
        && part.bytes().all(|b| b.is_ascii_digit())
}

/// Every policy and setting `lbsim config --for grpc` writes is one gRPC
/// reads, by the name and kind grpc-go's parsers give it
/// (`tests/oracles/grpc_service_config.txt`): gRPC ignores a name it does
/// not know, so a misspelt setting would pass its parser and be left at
/// its default; a duration must be a string like "10s".
#[test]
fn every_grpc_policy_and_setting_is_one_grpc_reads() {
    let oracle = include_str!("../../../../tests/oracles/grpc_service_config.txt");
    let policies: Vec<&str> = oracle.lines().filter_map(|l| l.strip_prefix("policy ")).collect();
    let kind_of = |policy: &str, name: &str| {
        oracle.lines().filter_map(|l| l.strip_prefix("setting ")).find_map(|l| {
            let parts: Vec<&str> = l.split(' ').collect();
            (parts[0] == policy && parts[1] == name).then(|| parts[2].to_string())
        })
    };
    let mut learned = Scenario::default();
    for (key, value) in [("blackout", "2500"), ("out-of-band", "true"), ("error-penalty", "0.5")] {
        learned.set(key, value).unwrap();
    }
    let mut wide = Scenario::default();
    wide.set("servers", "900").unwrap();
    wide.set("vnodes", "1000").unwrap();
    let mut seen = Vec::new();
    for scenario in [Scenario::default(), learned, wide] {
        for &rule in AlgorithmId::ALL {
            for key in [Key::Arg("user".into()), Key::Header("X-User".into())] {
                let json = grpc_json(&scenario, rule, key);
                let top = json.as_object().unwrap();
                assert_eq!(top.keys().collect::<Vec<_>>(), ["loadBalancingConfig"], "{json}");
                for entry in top["loadBalancingConfig"].as_array().unwrap() {
                    let entry = entry.as_object().unwrap();
                    assert_eq!(entry.len(), 1, "one policy an entry: {json}");
                    let (policy, settings) = entry.iter().next().unwrap();
                    assert!(policies.contains(&policy.as_str()), "{}: {policy} is no gRPC policy", rule.id());
                    for (name, value) in settings.as_object().unwrap() {
                        let kind = kind_of(policy, name)
                            .unwrap_or_else(|| panic!("{}: {policy} has no setting {name}", rule.id()));
                        let fits = match kind.as_str() {
                            "duration" => value.as_str().is_some_and(is_json_duration),
                            "count" => value.as_u64().is_some_and(|n| n <= 8 * 1024 * 1024),
                            "number" => value.is_number(),
                            "bool" => value.is_boolean(),
                            "text" => value.is_string(),
                            other => panic!("the oracle's kind {other}"),
                        };
                        assert!(fits, "{}: {policy}.{name} = {value} is no {kind}", rule.id());
                        seen.push(format!("{policy}.{name}"));
                    }
                }
            }
        }
    }
    // Each setting the oracle lists is written by some rule, so the list
    // and the writer cannot drift apart unseen.
    for line in oracle.lines().filter_map(|l| l.strip_prefix("setting ")) {
        let parts: Vec<&str> = line.split(' ').collect();
        let setting = format!("{}.{}", parts[0], parts[1]);
        assert!(seen.contains(&setting), "{setting}: never written");
    }
}

/// The policy each rule becomes in gRPC: weighted round robin with the
/// learned weights' settings as gRFC A58 names them, round robin, least
/// request with two choices (with round robin after it for gRPC C-core,
/// which has none), a ring of the size lbsim builds hashing the key's
/// header; every other rule says gRPC has no such rule.
#[test]
fn each_rule_is_the_grpc_policy_that_expresses_it() {
    let mut s = Scenario::default();
    s.set("report-period", "2500").unwrap();
    s.set("expiration", "90500").unwrap();
    let header = || Key::Header("X-User".into());
    let policy = |rule| grpc_json(&s, rule, header())["loadBalancingConfig"].clone();
    assert_eq!(
        policy(AlgorithmId::GrpcWrr),
        serde_json::json!([{ "weighted_round_robin": {
            "enableOobLoadReport": false,
            "oobReportingPeriod": "2.5s",
            "blackoutPeriod": "10s",
            "weightExpirationPeriod": "90.5s",
            "weightUpdatePeriod": "1s",
            "errorUtilizationPenalty": 1,
        }}])
    );
    assert_eq!(policy(AlgorithmId::RoundRobin), serde_json::json!([{ "round_robin": {} }]));
    for rule in [AlgorithmId::PowerOfTwo, AlgorithmId::LeastRequest] {
        assert_eq!(
            policy(rule),
            serde_json::json!([{ "least_request_experimental": { "choiceCount": 2 } }, { "round_robin": {} }])
        );
    }
    // 4 servers of weight 1 at 160 points each.
    assert_eq!(
        policy(AlgorithmId::ConsistentHash),
        serde_json::json!([{ "ring_hash_experimental": {
            "minRingSize": 640, "maxRingSize": 640, "requestHashHeader": "x-user"
        }}])
    );
    for &rule in AlgorithmId::ALL {
        let text = config(&s, Program::Grpc, rule);
        let said = text.contains(&format!("# {}: not in gRPC; round_robin is written instead", rule.id()));
        assert_eq!(said, rule.in_programs().grpc.is_none(), "{text}");
        if said {
            assert_eq!(policy(rule), serde_json::json!([{ "round_robin": {} }]));
        }
    }
    // gRPC's ring hash refuses a binary header.
    let request = Request {
        program: Program::Grpc,
        rule: AlgorithmId::ConsistentHash,
        full: true,
        key: Key::Header("id-bin".into()),
        port: 8080,
    };
    assert_eq!(check(&s, &request).map_err(|e| e.0), Err("key"));
}
