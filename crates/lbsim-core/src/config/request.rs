//! What a configuration is asked for (the program, the key, the port) and
//! the pieces every program's writer shares: the servers' addresses, the
//! notes on what a program cannot express, and its time syntax.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::balancer::row::Grpc;
use crate::balancer::AlgorithmId;
use crate::scenario::{Expression, InConfig, Scenario, FIELDS, IN_CONFIG};

/// The programs a scenario can be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    /// NGINX 1.22 open source (`nginx-light`).
    Nginx,
    /// HAProxy 2.6.
    Haproxy,
    /// Envoy (a cluster in YAML).
    Envoy,
    /// gRPC (a service config's `loadBalancingConfig`, in JSON).
    Grpc,
}

impl Program {
    /// Every program, as `--for` lists them.
    pub const ALL: [Program; 4] = [Program::Nginx, Program::Haproxy, Program::Envoy, Program::Grpc];

    /// The program's name in `--for`.
    pub fn id(self) -> &'static str {
        match self {
            Program::Nginx => "nginx",
            Program::Haproxy => "haproxy",
            Program::Envoy => "envoy",
            Program::Grpc => "grpc",
        }
    }

    /// Its name in prose, with the version lbsim follows.
    pub fn name(self) -> &'static str {
        match self {
            Program::Nginx => "NGINX 1.22",
            Program::Haproxy => "HAProxy 2.6",
            Program::Envoy => "Envoy",
            Program::Grpc => "gRPC",
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
    pub(super) fn nginx_variable(&self) -> String {
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
pub(super) fn addresses(scenario: &Scenario, port: u16) -> Vec<(String, Option<String>)> {
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
pub(super) fn is_local(name: &str, port: u32) -> bool {
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
    if request.program == Program::Grpc && request.rule.in_programs().grpc == Some(Grpc::RingHash) {
        if let Key::Header(name) = &request.key {
            if name.to_ascii_lowercase().ends_with("-bin") {
                return Err((
                    "key",
                    format!("header:{name}"),
                    "a header not ending in -bin: gRPC's ring hash refuses binary headers (gRFC A76)".into(),
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
pub(super) fn time(ms: u32) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Milliseconds as protobuf's JSON mapping writes a `Duration`, which
/// Envoy's YAML takes: seconds with up to three decimals, `1.5s`.
pub(super) fn duration(ms: u32) -> String {
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
pub(super) fn quoted(text: &str) -> String {
    format!("\"{text}\"")
}

/// How `program`'s configuration expresses a field (its row says).
pub(super) fn expression(in_config: &InConfig, program: Program) -> Expression {
    match program {
        Program::Nginx => in_config.nginx,
        Program::Haproxy => in_config.haproxy,
        Program::Envoy => in_config.envoy,
        Program::Grpc => in_config.grpc,
    }
}

/// What the scenario asks that the program does not do, as comment lines
/// (without the comment sign): every field whose row says the program
/// lacks it, when the scenario uses it with `rule`, each note once.
pub(super) fn unexpressed(scenario: &Scenario, program: Program, rule: AlgorithmId) -> Vec<String> {
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
    // gRPC's service config names no server, so it renames none.
    if program != Program::Grpc
        && (0..scenario.servers as usize).any(|i| !scenario.server_name(i).contains(':'))
    {
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
