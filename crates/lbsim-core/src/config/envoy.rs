//! The scenario as Envoy's configuration (see the module above).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use crate::balancer::builder::Builder;
use crate::balancer::row::Envoy;
use crate::scenario::{CheckKind, Scenario};

use super::request::*;

pub(super) fn envoy(scenario: &Scenario, request: &Request) -> String {
    let mut notes = unexpressed(scenario, Program::Envoy, request.rule);
    notes.insert(0, "not checked against Envoy itself: lbsim's tests run NGINX and HAProxy only".into());
    let policy = match request.rule.in_programs().envoy {
        Some(Envoy::RoundRobin) => "ROUND_ROBIN",
        Some(Envoy::LeastRequest) => "LEAST_REQUEST",
        Some(Envoy::Random) => "RANDOM",
        Some(Envoy::RingHash) => "RING_HASH",
        Some(Envoy::Maglev) => "MAGLEV",
        Some(Envoy::ClientSideWeightedRoundRobin) => CSWRR,
        None => {
            notes.push(format!("{}: not in Envoy; ROUND_ROBIN is written instead", request.rule.id()));
            "ROUND_ROBIN"
        }
    };
    let mut out = String::new();
    for note in &notes {
        let _ = writeln!(out, "# {note}");
    }
    if matches!(policy, "RING_HASH" | "MAGLEV") {
        let key = match &request.key {
            Key::Arg(name) => format!("query_parameter: {{ name: {} }}", quoted(name)),
            Key::Header(name) => format!("header: {{ header_name: {} }}", quoted(name)),
        };
        let _ = writeln!(out, "# the route hashes on the key: hash_policy: [ {{ {key} }} ]");
    }
    if matches!(policy, "RING_HASH" | "MAGLEV" | "ROUND_ROBIN") && scenario.builder != Builder::Envoy {
        let _ = writeln!(
            out,
            "# lbsim predicts Envoy's picks with builder=envoy (--builder envoy; round robin up to Envoy's random start)"
        );
    }
    // Each address as Envoy's socket_address takes it: an IPv6 address
    // without its brackets, every host quoted, the port a decimal number.
    let endpoints: Vec<(String, String, Option<String>)> = addresses(scenario, request.port)
        .into_iter()
        .map(|(address, renamed)| {
            // Every written address has a port (`addresses`).
            let (host, port) = address.rsplit_once(':').unwrap_or((&address, ""));
            let host = host.trim_start_matches('[').trim_end_matches(']');
            (host.to_string(), port.to_string(), renamed)
        })
        .collect();
    // STATIC takes IP addresses only; a host name needs Envoy to resolve it.
    let named_hosts = endpoints.iter().any(|(host, _, _)| host.parse::<core::net::IpAddr>().is_err());
    let kind = if named_hosts { "STRICT_DNS" } else { "STATIC" };
    let _ = writeln!(out, "name: lbsim\nconnect_timeout: 5s\ntype: {kind}");
    if policy == CSWRR {
        client_side_weights(&mut out, scenario);
    } else {
        let _ = writeln!(out, "lb_policy: {policy}");
    }
    if policy == "MAGLEV" && u64::from(scenario.maglev_size) != crate::balancer::maglev::TABLE_SIZE {
        let _ = writeln!(out, "maglev_lb_config:\n  table_size: {}", scenario.maglev_size);
    }
    if scenario.slow_start_ms > 0 && !matches!(policy, "ROUND_ROBIN" | "LEAST_REQUEST") {
        let _ =
            writeln!(out, "# slow start (slow-start-ms): Envoy's is for round robin and least request only");
    }
    // Least request's bias and either rule's slow start share one block.
    let biased = policy == "LEAST_REQUEST" && scenario.active_request_bias != 1.0;
    if biased || (scenario.slow_start_ms > 0 && matches!(policy, "ROUND_ROBIN" | "LEAST_REQUEST")) {
        let config =
            if policy == "ROUND_ROBIN" { "round_robin_lb_config" } else { "least_request_lb_config" };
        let _ = writeln!(out, "{config}:");
    }
    if biased {
        let _ = writeln!(
            out,
            "  active_request_bias: {{ default_value: {}, runtime_key: lbsim }}",
            scenario.active_request_bias
        );
    }
    if scenario.slow_start_ms > 0 && matches!(policy, "ROUND_ROBIN" | "LEAST_REQUEST") {
        let _ = writeln!(
            out,
            "  slow_start_config:\n    slow_start_window: {}\n    aggression: {{ default_value: {}, runtime_key: lbsim }}",
            duration(scenario.slow_start_ms),
            scenario.slow_start_aggression
        );
    }
    if scenario.outlier_5xx > 0 {
        let _ = writeln!(
            out,
            "outlier_detection:\n  consecutive_5xx: {}\n  base_ejection_time: {}\n  max_ejection_percent: {}",
            scenario.outlier_5xx,
            duration(scenario.ejection_ms),
            scenario.max_ejection
        );
    }
    if scenario.check_ms > 0 {
        let check = match scenario.check {
            CheckKind::Http => "http_health_check: { path: / }",
            CheckKind::Tcp => "tcp_health_check: {}",
        };
        let _ = writeln!(
            out,
            "health_checks:\n- timeout: 1s\n  interval: {}\n  unhealthy_threshold: {}\n  healthy_threshold: {}\n  {check}",
            duration(scenario.check_ms),
            scenario.fall,
            scenario.rise
        );
    }
    out += "load_assignment:\n  cluster_name: lbsim\n  endpoints:\n  - lb_endpoints:\n";
    for (i, (host, port, renamed)) in endpoints.iter().enumerate() {
        let comment = renamed.as_ref().map(|n| format!("  # {n}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "    - load_balancing_weight: {}{comment}\n      endpoint: {{ address: {{ socket_address: {{ address: {}, port_value: {port} }} }} }}",
            scenario.weight(i),
            quoted(host)
        );
    }
    if request.full {
        out.insert_str(
            0,
            "# lbsim config --for envoy --full: the cluster; Envoy's listener is left to the reader\n",
        );
    }
    out
}

/// The policy name standing for the client-side weighted round robin
/// extension, which Envoy takes as a `load_balancing_policy`, not an
/// `lb_policy`.
const CSWRR: &str = "CLIENT_SIDE_WEIGHTED_ROUND_ROBIN";

/// The cluster's `load_balancing_policy`: Envoy's client-side weighted
/// round robin extension with the learned weights' settings
/// (docs/model.md#what-a-rule-may-know). Envoy asks for the ORCA reports
/// itself; the servers must send them.
fn client_side_weights(out: &mut String, scenario: &Scenario) {
    let _ = writeln!(
        out,
        "load_balancing_policy:\n  policies:\n  - typed_extension_config:\n      \
         name: envoy.load_balancing_policies.client_side_weighted_round_robin\n      typed_config:\n        \
         \"@type\": type.googleapis.com/envoy.extensions.load_balancing_policies.client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin\n        \
         enable_oob_load_report: {}\n        oob_reporting_period: {}\n        blackout_period: {}\n        \
         weight_expiration_period: {}\n        weight_update_period: {}\n        error_utilization_penalty: {}",
        scenario.out_of_band,
        duration(scenario.report_period),
        duration(scenario.blackout),
        duration(scenario.expiration),
        duration(scenario.weight_period),
        scenario.error_penalty,
    );
}
