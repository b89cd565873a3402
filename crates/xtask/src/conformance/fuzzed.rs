//! Fuzzed configs through the real balancers: a deterministic sample of
//! scenarios (which backends and in what order, weights, the key's name,
//! the listening port, the rule and its builder's options) is written by
//! `lbsim config --full` exactly as a reader would get it, loaded by the
//! real NGINX or HAProxy, and every request routed through it is compared
//! with `lbsim trace`. The rules are the deterministic ones, where request
//! by request agreement is meaningful: round robin, least connections one
//! request at a time, the hashes and bounded loads.

use std::path::Path;
use std::process::Command;

use super::http::{address, get};
use super::processes::{haproxy_path, nginx_command, Running};
use crate::tools::output;

/// Cases per balancer, and the first port their fronts may take.
const CASES: u64 = 12;
const FRONTS: u16 = 18_401;

/// One fuzzed scenario: the flags `lbsim config` and `lbsim trace` both
/// take, the key's query argument, the front's port and the requests.
struct Fuzzed {
    flags: Vec<String>,
    key: String,
    port: u16,
    picks: usize,
}

/// xorshift, seeded: the same sample on every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len() as u64) as usize]
    }
}

/// The `i`-th scenario for `program` (`nginx` or `haproxy`).
fn scenario(program: &str, i: u64, draw: &mut Draw, backends: &[u16]) -> Fuzzed {
    // Two or more of the backends, in a shuffled order, weighted 1 to 5.
    let mut ports: Vec<u16> = backends.to_vec();
    for k in (1..ports.len()).rev() {
        ports.swap(k, draw.below(k as u64 + 1) as usize);
    }
    let n = 2 + draw.below(backends.len() as u64 - 1) as usize;
    let names: Vec<String> = ports[..n].iter().map(|&p| address(p)).collect();
    let weights: Vec<String> = (0..n).map(|_| (1 + draw.below(5)).to_string()).collect();
    // A key name of letters, digits and `_` (HAProxy also takes `-`).
    let alphabet: &[u8] = if program == "nginx" {
        b"abcdefghijklmnopqrstuvwxyz0123456789_"
    } else {
        b"abcdefghijklmnopqrstuvwxyz0123456789_-"
    };
    let key: String = std::iter::once(b'k')
        .chain((0..draw.below(10)).map(|_| alphabet[draw.below(alphabet.len() as u64) as usize]))
        .map(char::from)
        .collect();
    let mut flags: Vec<String> = Vec::new();
    let rule = if program == "nginx" {
        draw.pick(&["round-robin", "least-connections", "user-hash", "consistent-hash"])
    } else {
        draw.pick(&["round-robin", "least-connections", "consistent-hash", "bounded-load"])
    };
    flags.extend(["--algorithm".into(), rule.into(), "--builder".into(), program.into()]);
    if program == "haproxy" && rule != "round-robin" && rule != "least-connections" {
        let hash = draw.pick(&["", "sdbm", "djb2", "wt6", "crc32"]);
        if !hash.is_empty() {
            flags.extend(["--hash".into(), hash.into()]);
        }
    }
    if rule == "bounded-load" {
        flags.extend(["--balance-factor".into(), (100 + 5 * draw.below(41)).to_string()]);
    }
    flags.extend([
        "--servers".into(),
        n.to_string(),
        "--names".into(),
        names.join(","),
        "--weights".into(),
        weights.join(","),
    ]);
    let hashes = matches!(rule, "user-hash" | "consistent-hash" | "bounded-load");
    let port = FRONTS + if program == "nginx" { 0 } else { 50 } + i as u16 * 3 + draw.below(3) as u16;
    Fuzzed { flags, key, port, picks: if hashes { 300 } else { 60 } }
}

/// Runs the fuzzed sample through `program` (`nginx` or `haproxy`) in
/// `dir`, one process per scenario, over the backends listening on
/// `backends`; the requests that agree, or the first
/// that does not.
pub(super) fn route(program: &str, lbsim: &Path, dir: &Path, backends: &[u16]) -> Result<usize, String> {
    let lbsim = lbsim.to_string_lossy();
    let mut draw = Draw(0x2545_F491_4F6C_DD1D ^ program.len() as u64);
    let mut agree = 0;
    for i in 0..CASES {
        let case = scenario(program, i, &mut draw, backends);
        let flags: Vec<&str> = case.flags.iter().map(String::as_str).collect();
        let key = format!("arg:{}", case.key);
        let port = case.port.to_string();
        let config =
            [&["config", "--for", program, "--full", "--port", &port, "--key", &key][..], &flags].concat();
        let text = output(&lbsim, &config, None)?;
        let mut running = match program {
            "nginx" => {
                let prefix = dir.join(format!("fuzzed-nginx-{i}"));
                std::fs::create_dir_all(prefix.join("logs")).map_err(|e| e.to_string())?;
                std::fs::write(prefix.join("nginx.conf"), &text).map_err(|e| e.to_string())?;
                let mut command = nginx_command(&prefix);
                let p = prefix.display();
                command.arg("-g").arg(format!(
                    "daemon off; master_process off; pid {p}/nginx.pid; error_log {p}/logs/error.log warn;"
                ));
                Running::start(command, &prefix, case.port)?
            }
            _ => {
                let cfg = dir.join(format!("fuzzed-haproxy-{i}.cfg"));
                std::fs::write(&cfg, &text).map_err(|e| e.to_string())?;
                let mut command = Command::new(haproxy_path());
                command.arg("-db").arg("-f").arg(&cfg);
                Running::start(command, dir, case.port)?
            }
        };
        let seen: Vec<String> = (1..=case.picks)
            .map(|user| get(case.port, &format!("/?{}=user-{user}", case.key)))
            .collect::<Result<_, _>>()?;
        running.stop();
        let picks = case.picks.to_string();
        let trace = [&["trace"][..], &flags, &["--picks", &picks, "--format", "json"]].concat();
        let json: serde_json::Value =
            serde_json::from_str(&output(&lbsim, &trace, None)?).map_err(|e| format!("lbsim trace: {e}"))?;
        let predicted: Vec<&str> = json["picks"]
            .as_array()
            .ok_or("lbsim trace printed no picks")?
            .iter()
            .filter_map(|p| p.as_str())
            .collect();
        let command = format!("lbsim {}", config.join(" "));
        if let Some(at) = (0..case.picks).find(|&k| predicted.get(k) != Some(&seen[k].as_str())) {
            return Err(format!(
                "{program}, fuzzed case {i} ({command}): request {} (?{}=user-{}) went to {} in {program}, to {} in lbsim trace",
                at + 1,
                case.key,
                at + 1,
                seen[at],
                predicted.get(at).unwrap_or(&"nothing")
            ));
        }
        eprintln!("  fuzzed {i}: {} requests agree ({command})", seen.len());
        agree += seen.len();
    }
    Ok(agree)
}
