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
use crate::scenario::{CheckKind, Expression, InConfig, Scenario, FIELDS, IN_CONFIG};

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

impl Key {
    /// Reads `arg:NAME` or `header:NAME` (NAME of letters, digits, `-`
    /// and `_`).
    pub fn parse(text: &str) -> Option<Key> {
        let (kind, name) = text.split_once(':')?;
        let fine =
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        match kind {
            "arg" if fine => Some(Key::Arg(name.to_string())),
            "header" if fine => Some(Key::Header(name.to_string())),
            _ => None,
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

/// The servers' addresses, and the comment a renamed one carries.
fn addresses(scenario: &Scenario) -> Vec<(String, Option<String>)> {
    (0..scenario.servers as usize)
        .map(|i| {
            let name = scenario.server_name(i);
            let is_address = name.rsplit_once(':').is_some_and(|(host, port)| {
                !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
            });
            if is_address {
                (name, None)
            } else {
                (format!("127.0.0.1:{}", 8081 + i), Some(name))
            }
        })
        .collect()
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
    if addresses(scenario).iter().any(|(_, renamed)| renamed.is_some()) {
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
    let key = match &request.key {
        Key::Arg(name) => format!("$arg_{name}"),
        Key::Header(name) => format!("$http_{}", name.to_ascii_lowercase().replace('-', "_")),
    };
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
    for (i, (address, renamed)) in addresses(scenario).iter().enumerate() {
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
    let location = format!(
        "        location / {{\n            proxy_pass http://lbsim;\n            proxy_next_upstream {next};\n            \
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
        if scenario.count_5xx {
            let _ = writeln!(block, "    retry-on conn-failure empty-response 500");
        }
    }
    if scenario.check_ms > 0 && scenario.check == CheckKind::Http {
        let _ = writeln!(block, "    option httpchk GET /");
    }
    for (i, (address, renamed)) in addresses(scenario).iter().enumerate() {
        let name = renamed.clone().unwrap_or_else(|| format!("s{}", i + 1));
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
         defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\n\
         frontend lbsim_front\n    bind 127.0.0.1:{port}\n    default_backend lbsim\n\n{block}",
        port = request.port
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
            Key::Arg(name) => format!("query_parameter: {{ name: {name} }}"),
            Key::Header(name) => format!("header: {{ header_name: {name} }}"),
        };
        let _ = writeln!(out, "# the route hashes on the key: hash_policy: [ {{ {key} }} ]");
    }
    if matches!(policy, "RING_HASH" | "MAGLEV" | "ROUND_ROBIN") && scenario.builder != Builder::Envoy {
        let _ = writeln!(
            out,
            "# lbsim predicts Envoy's picks with builder=envoy (--builder envoy; round robin up to Envoy's random start)"
        );
    }
    let _ = writeln!(out, "name: lbsim\nconnect_timeout: 5s\ntype: STATIC\nlb_policy: {policy}");
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
            time(scenario.slow_start_ms),
            scenario.slow_start_aggression
        );
    }
    if scenario.outlier_5xx > 0 {
        let _ = writeln!(
            out,
            "outlier_detection:\n  consecutive_5xx: {}\n  base_ejection_time: {}\n  max_ejection_percent: {}",
            scenario.outlier_5xx,
            time(scenario.ejection_ms),
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
            time(scenario.check_ms),
            scenario.fall,
            scenario.rise
        );
    }
    out += "load_assignment:\n  cluster_name: lbsim\n  endpoints:\n  - lb_endpoints:\n";
    for (i, (address, renamed)) in addresses(scenario).iter().enumerate() {
        // Every written address has a port (`addresses`).
        let (host, port) = address.rsplit_once(':').unwrap_or((address, ""));
        let comment = renamed.as_ref().map(|n| format!("  # {n}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "    - load_balancing_weight: {}{comment}\n      endpoint: {{ address: {{ socket_address: {{ address: {host}, port_value: {port} }} }} }}",
            scenario.weight(i)
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
