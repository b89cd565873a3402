//! The scenario as gRPC's service config (see the module above): the
//! `loadBalancingConfig` that picks the rule, with the settings gRPC's own
//! parsers read (grpc-go's `balancer/weightedroundrobin/config.go`,
//! `balancer/ringhash/config.go`, `balancer/leastrequest/leastrequest.go`;
//! gRFC A58, A42, A76 and A48). The servers are the name resolver's or
//! xDS's, not the service config's, so the JSON names none. JSON has no
//! comments: the notes are `#` lines above it (docs/cli.md#lbsim-config).

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use crate::balancer::row::Grpc;
use crate::scenario::Scenario;

use super::request::*;

/// gRPC's largest ring (`ringHashSizeUpperBound` in grpc-go, the same
/// bound in C-core's `ring_hash` config): a size above it is refused.
const RING_UPPER_BOUND: u64 = 8 * 1024 * 1024;

/// The ring size gRPC uses unless a channel raises its cap (grpc-go's
/// `GRPC_RING_HASH_CAP`, C-core's `grpc.lb.ring_hash.ring_size_cap`).
const RING_CAP: u64 = 4096;

pub(super) fn grpc(scenario: &Scenario, request: &Request) -> String {
    let mut notes = unexpressed(scenario, Program::Grpc, request.rule);
    let policies = match request.rule.in_programs().grpc {
        Some(Grpc::RoundRobin) => String::from("{ \"round_robin\": {} }"),
        Some(Grpc::LeastRequest) => {
            notes.push(
                "least_request_experimental is grpc-go's and grpc-java's; gRPC C-core (C++, Python, Ruby) takes \
                 the round_robin after it; gRPC draws its choiceCount servers with replacement"
                    .into(),
            );
            String::from(
                "{ \"least_request_experimental\": { \"choiceCount\": 2 } },\n    { \"round_robin\": {} }",
            )
        }
        Some(Grpc::RingHash) => ring_hash(scenario, request, &mut notes),
        Some(Grpc::WeightedRoundRobin) => format!(
            "{{ \"weighted_round_robin\": {{\n      \"enableOobLoadReport\": {},\n      \
             \"oobReportingPeriod\": \"{}\",\n      \"blackoutPeriod\": \"{}\",\n      \
             \"weightExpirationPeriod\": \"{}\",\n      \"weightUpdatePeriod\": \"{}\",\n      \
             \"errorUtilizationPenalty\": {}\n    }} }}",
            scenario.out_of_band,
            duration(scenario.report_period),
            duration(scenario.blackout),
            duration(scenario.expiration),
            duration(scenario.weight_period),
            scenario.error_penalty,
        ),
        None => {
            notes.push(format!("{}: not in gRPC; round_robin is written instead", request.rule.id()));
            String::from("{ \"round_robin\": {} }")
        }
    };
    let mut out = String::new();
    if request.full {
        out += "# lbsim config --for grpc --full: a service config, the JSON below these # lines\n";
    }
    for note in &notes {
        let _ = writeln!(out, "# {note}");
    }
    let _ = writeln!(out, "{{\n  \"loadBalancingConfig\": [\n    {policies}\n  ]\n}}");
    out
}

/// `ring_hash_experimental` with the ring lbsim builds: as many points as
/// `vnodes` a weight unit gives, as both the least and the greatest size,
/// so gRPC places `vnodes` x weight points a server as lbsim does (gRFC
/// A42's scaling gives each host its weight's share of the size). The key
/// is a header gRPC hashes (`requestHashHeader`, gRFC A76).
fn ring_hash(scenario: &Scenario, request: &Request, notes: &mut alloc::vec::Vec<String>) -> String {
    let weights: u64 = (0..scenario.servers as usize).map(|i| u64::from(scenario.weight(i))).sum();
    let wanted = weights * u64::from(scenario.vnodes);
    let size = wanted.min(RING_UPPER_BOUND);
    if size < wanted {
        notes
            .push(format!("ring of {wanted} points (vnodes): gRPC's largest is {RING_UPPER_BOUND}, written"));
    }
    if size > RING_CAP {
        notes.push(format!(
            "a ring of {size} points: gRPC caps rings at {RING_CAP} unless the client raises it \
             (GRPC_RING_HASH_CAP in grpc-go, grpc.lb.ring_hash.ring_size_cap in C-core)"
        ));
    }
    notes.push(
        "gRPC places ring points by its own hash of each address: lbsim's shares hold, its placement differs"
            .into(),
    );
    let header = match &request.key {
        Key::Header(name) => format!(",\n      \"requestHashHeader\": \"{}\"", name.to_ascii_lowercase()),
        Key::Arg(_) => {
            notes.push(
                "the key (key): gRPC hashes a header (requestHashHeader) or xDS's hash policy, not a query \
                 argument; --key header:NAME writes it"
                    .into(),
            );
            String::new()
        }
    };
    format!(
        "{{ \"ring_hash_experimental\": {{\n      \"minRingSize\": {size},\n      \"maxRingSize\": {size}{header}\n    }} }}"
    )
}
