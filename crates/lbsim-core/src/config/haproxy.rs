//! The scenario as HAProxy's configuration (see the module above).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::balancer::builder::Builder;
use crate::balancer::row::Haproxy;
use crate::hash::HashFn;
use crate::scenario::{CheckKind, Layer, Scenario};

use super::request::*;

pub(super) fn haproxy(scenario: &Scenario, request: &Request) -> String {
    let mut notes = unexpressed(scenario, Program::Haproxy, request.rule);
    let source = match &request.key {
        Key::Arg(name) => format!("url_param {name}"),
        Key::Header(name) => format!("hdr({name})"),
    };
    let (balance, hashing): (String, Option<String>) = match request.rule.in_programs().haproxy {
        Some(Haproxy::RoundRobin) => ("roundrobin".into(), None),
        Some(Haproxy::LeastConn) => ("leastconn".into(), None),
        Some(Haproxy::Random) => ("random(1)".into(), None),
        Some(Haproxy::RandomTwo) => ("random(2)".into(), None),
        Some(Haproxy::HashMapBased) => (source.clone(), Some("hash-type map-based".into())),
        Some(kind @ (Haproxy::HashConsistent | Haproxy::HashConsistentBounded)) => {
            if scenario.builder != Builder::Haproxy {
                notes.push("lbsim predicts HAProxy's ring with builder=haproxy (--builder haproxy)".into());
            }
            // Unnamed, HAProxy's default: sdbm with avalanche.
            let function = match scenario.hash {
                Some(h) if HashFn::HAPROXY.contains(&h) => format!(" {}", h.id()),
                _ => String::new(),
            };
            let mut hashing = format!("hash-type consistent{function}");
            if kind == Haproxy::HashConsistentBounded {
                let _ = write!(hashing, "\n    hash-balance-factor {}", scenario.balance_factor);
            }
            (source.clone(), Some(hashing))
        }
        None => {
            notes.push(format!("{}: not in HAProxy; round robin is written instead", request.rule.id()));
            ("roundrobin".into(), None)
        }
    };
    // Layer 4 is HAProxy's mode tcp, where no query argument or header is
    // read: a hashing balance hashes the client's address instead.
    let layer4 = scenario.layer == Layer::L4;
    let balance = if layer4 && hashing.is_some() {
        notes.push(
            "layer 4: mode tcp reads no query argument or header, so the client's address is hashed \
             (balance source), not the user's key lbsim hashes"
                .into(),
        );
        "source".into()
    } else {
        balance
    };
    let mut block = String::from("backend lbsim\n");
    for note in &notes {
        let _ = writeln!(block, "    # {note}");
    }
    let _ = writeln!(block, "    balance {balance}");
    if let Some(h) = hashing {
        let _ = writeln!(block, "    {h}");
    }
    if scenario.retries > 0 {
        let _ = writeln!(block, "    retries {}\n    option redispatch", scenario.retries);
        if scenario.count_5xx && !layer4 {
            let _ = writeln!(block, "    retry-on conn-failure empty-response 500");
        }
    }
    if scenario.check_ms > 0 && scenario.check == CheckKind::Http {
        let _ = writeln!(block, "    option httpchk GET /");
    }
    let servers = addresses(scenario, request.port);
    // Renamed servers keep their names; an address takes `s{i}`, or
    // `server{i}` when another server is named so: HAProxy refuses two
    // servers of one name.
    let own: Vec<&String> = servers.iter().filter_map(|(_, renamed)| renamed.as_ref()).collect();
    let mut taken: Vec<String> = Vec::new();
    for (i, (address, renamed)) in servers.iter().enumerate() {
        let name = match renamed {
            Some(name) => name.clone(),
            None => [format!("s{}", i + 1), format!("server{}", i + 1)]
                .into_iter()
                .find(|n| !own.contains(&n) && !taken.contains(n))
                .unwrap_or_else(|| format!("server{}-{}", i + 1, taken.len())),
        };
        taken.push(name.clone());
        let mut line = format!("    server {name} {address} weight {}", scenario.weight(i).min(256));
        if scenario.check_ms > 0 {
            let _ = write!(
                line,
                " check inter {} fall {} rise {}",
                time(scenario.check_ms),
                scenario.fall,
                scenario.rise
            );
        }
        if scenario.slow_start_ms > 0 {
            let _ = write!(line, " slowstart {}", time(scenario.slow_start_ms));
        }
        block += &line;
        block.push('\n');
    }
    if !request.full {
        return block;
    }
    format!(
        "# lbsim config --for haproxy --full: listening on 127.0.0.1:{port}\nglobal\n    nbthread 1\n\n\
         defaults\n    mode {mode}\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\n\
         frontend lbsim_front\n    bind 127.0.0.1:{port}\n    default_backend lbsim\n\n{block}",
        port = request.port,
        mode = if layer4 { "tcp" } else { "http" }
    )
}
