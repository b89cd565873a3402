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
