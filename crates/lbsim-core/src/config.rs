//! The scenario as a real balancer's configuration (`lbsim config`): the
//! NGINX `upstream` block, the HAProxy `backend` or the Envoy cluster that
//! realises one rule over the scenario's servers, weights, health checks,
//! retries and slow start. What the balancer cannot express is written as
//! a comment, never dropped: a reader sees what their balancer would not
//! do. The hash key is the user id, from a query argument (`user`) or a
//! header.
//!
//! Servers named as addresses (`10.0.0.1:8080`) keep their names; others
//! (`s1`) become `127.0.0.1:8081`, `127.0.0.1:8082`, ... with the name as
//! a comment, so every output is a config the program takes (`nginx -t`,
//! `haproxy -c`; Envoy's is not run here).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use crate::balancer::builder::Builder;
use crate::balancer::row::{Envoy, Haproxy, Nginx};
use crate::balancer::AlgorithmId;
use crate::hash::HashFn;
use crate::scenario::{CheckKind, Expression, InConfig, Layer, Scenario, FIELDS, IN_CONFIG};

/// The programs a scenario can be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// NGINX 1.22 open source (`nginx-light`).
    Nginx,
    /// HAProxy 2.6.
    Haproxy,
    /// Envoy (a cluster in YAML).
    Envoy,
}

impl Program {
    /// Every program, as `--for` lists them.
    pub const ALL: [Program; 3] = [Program::Nginx, Program::Haproxy, Program::Envoy];

    /// The program's name in `--for`.
    pub fn id(self) -> &'static str {
        match self {
            Program::Nginx => "nginx",
            Program::Haproxy => "haproxy",
            Program::Envoy => "envoy",
        }
    }

    /// Its name in prose, with the version lbsim follows.
    pub fn name(self) -> &'static str {
        match self {
            Program::Nginx => "NGINX 1.22",
            Program::Haproxy => "HAProxy 2.6",
            Program::Envoy => "Envoy",
        }
    }
}

impl core::str::FromStr for Program {
    type Err = ();
    fn from_str(s: &str) -> Result<Program, ()> {
        Program::ALL.into_iter().find(|b| b.id() == s).ok_or(())
    }
}

/// Where the hash key comes from: a query argument or a request header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// `?NAME=...`
    Arg(String),
    /// A header `NAME: ...`.
    Header(String),
}

/// The longest key name taken: NGINX reads a directive's parameter into a
/// 4 KiB buffer ("too long parameter" beyond), and a key this long is
/// already far from any real argument or header.
pub const MAX_KEY_NAME: usize = 256;

impl Key {
    /// Reads `arg:NAME` or `header:NAME` (NAME of letters, digits, `-`
    /// and `_`, at most [`MAX_KEY_NAME`]); the reason when it cannot.
    pub fn parse(text: &str) -> Result<Key, String> {
        let (kind, name) = text.split_once(':').ok_or_else(|| String::from("arg:NAME or header:NAME"))?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err("arg:NAME or header:NAME, NAME of letters, digits, - and _".into());
        }
        if name.len() > MAX_KEY_NAME {
            return Err(format!("a NAME of at most {MAX_KEY_NAME} characters"));
        }
        match kind {
            "arg" => Ok(Key::Arg(name.to_string())),
            "header" => Ok(Key::Header(name.to_string())),
            _ => Err("arg:NAME or header:NAME".into()),
        }
    }

    /// The NGINX variable that reads the key whole: `$arg_NAME`, or
    /// `$http_NAME` with the header's name lowercased and `-` as `_`, as
    /// NGINX names header variables.
    fn nginx_variable(&self) -> String {
        match self {
            Key::Arg(name) => format!("$arg_{name}"),
            Key::Header(name) => format!("$http_{}", name.to_ascii_lowercase().replace('-', "_")),
        }
    }
}

/// What to write: for which balancer, which rule, whether a whole config
/// file (listening on `port`) or the block alone, the hash key.
#[derive(Clone, Debug)]
pub struct Request {
    /// The program the configuration is for.
    pub program: Program,
    /// The rule.
    pub rule: AlgorithmId,
    /// A whole runnable config rather than the block.
    pub full: bool,
    /// The hash key's source.
    pub key: Key,
    /// The port a whole config listens on.
    pub port: u16,
}

/// The servers' addresses, and the comment a renamed one carries. A name
/// with a colon is an address (the name grammar, docs/cli.md#server-names-and-keys,
/// allows a colon only there); the others take `127.0.0.1:8081`, ...,
/// passing over the ports the given addresses and the listening `port`
/// take, so no two servers share an address and the balancer is never its
/// own backend.
fn addresses(scenario: &Scenario, port: u16) -> Vec<(String, Option<String>)> {
    let names: Vec<String> = (0..scenario.servers as usize).map(|i| scenario.server_name(i)).collect();
    let taken = |p: u32| p == u32::from(port) || names.iter().any(|n| is_local(n, p));
    let mut next = 8081u32;
    names
        .iter()
        .map(|name| {
            if name.contains(':') {
                return (name.clone(), None);
            }
            while taken(next) {
                next += 1;
            }
            next += 1;
            (format!("127.0.0.1:{}", next - 1), Some(name.clone()))
        })
        .collect()
}

/// Whether the address `name` is this machine's port `port`.
fn is_local(name: &str, port: u32) -> bool {
    name.rsplit_once(':').is_some_and(|(host, p)| {
        matches!(host, "127.0.0.1" | "localhost" | "0.0.0.0" | "[::1]" | "[::]") && p.parse() == Ok(port)
    })
}

/// What the scenario and the request ask that the balancer would read
/// otherwise, as `(field, value, why)`: the config is refused rather than
/// written to route elsewhere than lbsim predicts.
pub fn check(scenario: &Scenario, request: &Request) -> Result<(), (&'static str, String, String)> {
    if request.program == Program::Nginx {
        if let Key::Arg(name) = &request.key {
            if name.contains('-') {
                return Err((
                    "key",
                    format!("arg:{name}"),
                    format!(
                        "NGINX reads $arg_{name} as the variable up to the first - and the rest as text, so every \
                         request would hash alike; name the argument with letters, digits and _ (HAProxy and \
                         Envoy take it as it is)"
                    ),
                ));
            }
        }
    }
    if request.full {
        let names: Vec<String> = (0..scenario.servers as usize).map(|i| scenario.server_name(i)).collect();
        if let Some(name) = names.iter().find(|n| is_local(n, u32::from(request.port))) {
            return Err((
                "port",
                request.port.to_string(),
                format!("a port no server has: {name} is a server, so the balancer would send to itself"),
            ));
        }
    }
    Ok(())
}

/// Milliseconds as NGINX and HAProxy write a time: `10s` when whole
/// seconds, else `1500ms`.
fn time(ms: u32) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Milliseconds as protobuf's JSON mapping writes a `Duration`, which
/// Envoy's YAML takes: seconds with up to three decimals, `1.5s`.
fn duration(ms: u32) -> String {
    let (whole, part) = (ms / 1000, ms % 1000);
    if part == 0 {
        format!("{whole}s")
    } else {
        let decimals = format!("{part:03}");
        format!("{whole}.{}s", decimals.trim_end_matches('0'))
    }
}

/// A string as a YAML double-quoted scalar, so that no YAML 1.1 reader
/// takes it for a number, a boolean or null (`0x10`, `yes`, `null`,
/// `.inf`); names hold no quote or backslash (the name grammar).
fn quoted(text: &str) -> String {
    format!("\"{text}\"")
}

/// The configuration `request` asks for.
pub fn write(scenario: &Scenario, request: &Request) -> String {
    match request.program {
        Program::Nginx => nginx(scenario, request),
        Program::Haproxy => haproxy(scenario, request),
        Program::Envoy => envoy(scenario, request),
    }
}

/// How `program`'s configuration expresses a field (its row says).
fn expression(in_config: &InConfig, program: Program) -> Expression {
    match program {
        Program::Nginx => in_config.nginx,
        Program::Haproxy => in_config.haproxy,
        Program::Envoy => in_config.envoy,
    }
}

/// What the scenario asks that the program does not do, as comment lines
/// (without the comment sign): every field whose row says the program
/// lacks it, when the scenario uses it with `rule`, each note once.
fn unexpressed(scenario: &Scenario, program: Program, rule: AlgorithmId) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (field, in_config) in FIELDS.iter().zip(IN_CONFIG) {
        let note = match expression(in_config, program) {
            Expression::Missing(note) if field.is_set(scenario) => note,
            Expression::MissingWhen(note, asked) if asked(scenario, rule) => note,
            Expression::Missing(_)
            | Expression::MissingWhen(..)
            | Expression::Written
            | Expression::Outside => continue,
        };
        if !out.iter().any(|n| n == note) {
            out.push(note.to_string());
        }
    }
    if (0..scenario.servers as usize).any(|i| !scenario.server_name(i).contains(':')) {
        out.push(
            "servers not named as addresses are written as 127.0.0.1:8081..; a hashing balancer hashes those, \
             so name them as your config does (--names) for lbsim's prediction to hold"
                .to_string(),
        );
    }
    if program == Program::Haproxy && scenario.weights.iter().any(|&w| w > 256) {
        out.push("weights above 256: HAProxy's largest, written as 256".to_string());
    }
    out
}

fn nginx(scenario: &Scenario, request: &Request) -> String {
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

fn haproxy(scenario: &Scenario, request: &Request) -> String {
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

fn envoy(scenario: &Scenario, request: &Request) -> String {
    let mut notes = unexpressed(scenario, Program::Envoy, request.rule);
    notes.insert(0, "not checked against Envoy itself: lbsim's tests run NGINX and HAProxy only".into());
    let policy = match request.rule.in_programs().envoy {
        Some(Envoy::RoundRobin) => "ROUND_ROBIN",
        Some(Envoy::LeastRequest) => "LEAST_REQUEST",
        Some(Envoy::Random) => "RANDOM",
        Some(Envoy::RingHash) => "RING_HASH",
        Some(Envoy::Maglev) => "MAGLEV",
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
    let _ = writeln!(out, "name: lbsim\nconnect_timeout: 5s\ntype: {kind}\nlb_policy: {policy}");
    if policy == "MAGLEV" && u64::from(scenario.maglev_size) != crate::balancer::maglev::TABLE_SIZE {
        let _ = writeln!(out, "maglev_lb_config:\n  table_size: {}", scenario.maglev_size);
    }
    if scenario.slow_start_ms > 0 && !matches!(policy, "ROUND_ROBIN" | "LEAST_REQUEST") {
        let _ =
            writeln!(out, "# slow start (slow-start-ms): Envoy's is for round robin and least request only");
    }
    if scenario.slow_start_ms > 0 && matches!(policy, "ROUND_ROBIN" | "LEAST_REQUEST") {
        let config =
            if policy == "ROUND_ROBIN" { "round_robin_lb_config" } else { "least_request_lb_config" };
        let _ = writeln!(
            out,
            "{config}:\n  slow_start_config:\n    slow_start_window: {}\n    aggression: {{ default_value: {}, runtime_key: lbsim }}",
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

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;
    use crate::scenario::{Field, FieldKind};

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
                        AlgorithmId::ALL.iter().any(|&rule| variants.iter().any(|v| directives(&seen(
                            v, rule
                        )) != directives(
                            &seen(&base, rule)
                        ))),
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
}
