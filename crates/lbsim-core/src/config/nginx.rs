//! The scenario as NGINX's configuration (see the module above).

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use crate::balancer::builder::Builder;
use crate::balancer::row::Nginx;
use crate::balancer::AlgorithmId;
use crate::scenario::Scenario;

use super::request::*;

pub(super) fn nginx(scenario: &Scenario, request: &Request) -> String {
    let key = request.key.nginx_variable();
    let mut notes = unexpressed(scenario, Program::Nginx, request.rule);
    let directive = match request.rule.in_programs().nginx {
        Some(Nginx::RoundRobin) => String::new(),
        Some(Nginx::LeastConn) => "least_conn;".into(),
        Some(Nginx::Random) => "random;".into(),
        Some(Nginx::RandomTwoLeastConn) => "random two least_conn;".into(),
        Some(Nginx::Hash) => {
            if scenario.builder != Builder::Nginx {
                notes.push(
                    "lbsim predicts NGINX's hash (its CRC-32 form) with builder=nginx (--builder nginx)"
                        .into(),
                );
            }
            format!("hash {key};")
        }
        Some(Nginx::HashConsistent) => {
            if scenario.builder != Builder::Nginx {
                notes.push(
                    "lbsim predicts this ring with builder=nginx (--builder nginx); the scenario's differs"
                        .into(),
                );
            }
            format!("hash {key} consistent;")
        }
        None => {
            notes.push(format!("{}: not in NGINX; round robin is written instead", request.rule.id()));
            String::new()
        }
    };
    let mut block = String::from("upstream lbsim {\n");
    for note in &notes {
        let _ = writeln!(block, "    # {note}");
    }
    if !directive.is_empty() {
        let _ = writeln!(block, "    {directive}");
    }
    for (i, (address, renamed)) in addresses(scenario, request.port).iter().enumerate() {
        let mut line = format!("    server {address}");
        if scenario.weight(i) != 1 {
            let _ = write!(line, " weight={}", scenario.weight(i));
        }
        // NGINX's defaults are max_fails=1 fail_timeout=10s.
        if scenario.max_fails != 1 {
            let _ = write!(line, " max_fails={}", scenario.max_fails);
        }
        if scenario.fail_timeout_ms != 10_000 {
            // NGINX counts the timeout in whole seconds.
            let _ = write!(line, " fail_timeout={}s", scenario.fail_timeout_ms.div_ceil(1000));
        }
        line.push(';');
        if let Some(name) = renamed {
            let _ = write!(line, "  # {name}");
        }
        block += &line;
        block.push('\n');
    }
    block += "}\n";
    let mut next = String::from("error timeout");
    if scenario.count_5xx {
        next += " http_500";
    }
    // NGINX drops a header whose name has `_` unless told otherwise, and
    // the key would be empty (NGINX's hash then falls back to round robin).
    let underscores = match &request.key {
        Key::Header(name) if name.contains('_') && nginx_hashes(request.rule) => {
            "        underscores_in_headers on;\n"
        }
        _ => "",
    };
    let location = format!(
        "{underscores}        location / {{\n            proxy_pass http://lbsim;\n            proxy_next_upstream {next};\n            \
         proxy_next_upstream_tries {};\n        }}\n",
        scenario.retries + 1
    );
    if !request.full {
        return block
            + "# in the server block:\n"
            + &location.lines().map(|l| format!("# {}\n", l.get(8..).unwrap_or(l))).collect::<String>();
    }
    let indented: String = block.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "# lbsim config --for nginx --full: one process, listening on 127.0.0.1:{port}\n\
         worker_processes 1;\nevents {{ worker_connections 1024; }}\nhttp {{\n{indented}    server {{\n        \
         listen 127.0.0.1:{port};\n{location}    }}\n}}\n",
        port = request.port
    )
}

/// Whether NGINX's directive for `rule` reads the key.
fn nginx_hashes(rule: AlgorithmId) -> bool {
    matches!(rule.in_programs().nginx, Some(Nginx::Hash | Nginx::HashConsistent))
}
