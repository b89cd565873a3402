//! `cargo xtask conformance`: the real NGINX and HAProxy decide, not our
//! reading of their source. For each case the suite writes the balancer's
//! config, starts Debian's `nginx-light` or `haproxy` in the foreground on
//! loopback high ports under a private prefix (one process each, HAProxy
//! with `nbthread 1`, so one balancer's state), sends a bounded sequence of
//! requests, reads which backend answered each one, and compares that,
//! request by request, with what `lbsim trace` predicts for the same pool.
//! The upstream and backend blocks are the ones `lbsim config --for nginx`
//! and `--for haproxy` write; and every rule's whole config must pass
//! `nginx -t` and `haproxy -c`.
//!
//! The backends are the suite's own loopback servers (`backends.rs`): each
//! answers its own `address:port`, and holds a request open until told to
//! answer when the case asks, so the counting rules are compared while
//! requests are in flight. They are up before either balancer starts.
//! Each balancer is installed when missing (as root: `apt-get install`,
//! with a `policy-rc.d` that keeps the packaged service from starting).
//! Each balancer's cases and checks stand alone: where one cannot be had,
//! the other's still run, and then the suite fails naming what did not
//! run, unless that balancer was skipped by name (`--skip nginx`,
//! `--skip haproxy`; never under `CI=true`), so a run that compared
//! nothing never passes.
//!
//! The parts: the cases each balancer runs (`cases.rs`), how a case's
//! requests are played (`play.rs`) over a small HTTP client (`http.rs`),
//! the balancers started and stopped (`processes.rs`) and installed
//! (`install.rs`), a fuzzed sample of whole configs (`fuzzed.rs`), gRPC's
//! own parser over `lbsim config --for grpc` (`grpc.rs`, a part of the
//! gate of its own); the configs and the comparison are here.

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use lbsim_core::access_log::LogKind;

use crate::tools::{output, root, run, step};

mod backends;
mod cases;
mod fuzzed;
mod grpc;
mod http;
pub(crate) mod install;
mod logs;
mod play;
pub(crate) mod processes;

use backends::Backends;
use cases::{Case, Play, HAPROXY_CASES, NGINX_CASES};
use http::address;
use play::{held_sequence, held_steps, sequence, timed_sequence, timed_steps};
use processes::{haproxy_path, nginx_command, nginx_path, Running};

/// The backends' ports; NGINX's balancers listen from `FRONT`, HAProxy's
/// from `HAPROXY_FRONT`.
const BACKENDS: [u16; 7] = [18281, 18282, 18283, 18284, 18285, 18286, 18287];
const FRONT: u16 = 18301;
const HAPROXY_FRONT: u16 = 18341;

/// The port of a server that refuses connections: nothing listens there.
const REFUSING: u16 = 18288;

/// The balancers a run holds lbsim to; one left out was skipped by name.
#[derive(Clone, Copy, Debug)]
pub struct Balancers {
    pub nginx: bool,
    pub haproxy: bool,
}

/// Runs every case of every balancer in `wanted` against the real
/// program; fails when one of them could not be had.
pub fn conformance(wanted: Balancers) -> Result<(), String> {
    let missing = run_balancers(wanted)?;
    if missing.is_empty() {
        return Ok(());
    }
    Err(not_run(&missing))
}

/// Why a run did not hold lbsim to every balancer it was asked for.
pub fn not_run(missing: &[(&str, String)]) -> String {
    let why: Vec<String> = missing.iter().map(|(name, why)| format!("{name}: {why}")).collect();
    format!(
        "conformance did not run every balancer ({}); `--skip nginx` or `--skip haproxy` (in the gate also \
         `--skip conformance`) leaves one out by name",
        why.join("; ")
    )
}

/// Runs the cases of the balancers in `wanted` that can be had; those
/// that could not (`nginx`, `haproxy`) and why, their cases not run.
pub fn run_balancers(wanted: Balancers) -> Result<Vec<(&'static str, String)>, String> {
    step("conformance: the real NGINX and HAProxy against lbsim trace, request by request");
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if ci && !(wanted.nginx && wanted.haproxy) {
        return Err("conformance: CI runs every balancer; --skip is refused when CI=true".into());
    }
    let nginx_program = nginx_path().to_string_lossy().into_owned();
    let haproxy_program = haproxy_path().to_string_lossy().into_owned();
    // Each balancer installed, or why not; the other's cases run either way.
    let mut missing = Vec::new();
    let mut available = |wanted: bool, name: &'static str, program: &str, package: &str, variable: &str| {
        if !wanted {
            eprintln!("  {name}: skipped by name (--skip)");
            return false;
        }
        match install::ensure(program, package, "-v", variable) {
            Ok(()) => true,
            Err(why) => {
                eprintln!("\n!!! conformance cannot run {name}'s cases: {why}\n");
                missing.push((name, why));
                false
            }
        }
    };
    let nginx_ok = available(wanted.nginx, "nginx", &nginx_program, "nginx-light", "LBSIM_NGINX");
    let haproxy_ok = available(wanted.haproxy, "haproxy", &haproxy_program, "haproxy", "LBSIM_HAPROXY");
    if nginx_ok || haproxy_ok {
        run_cases(nginx_ok, haproxy_ok)?;
    }
    Ok(missing)
}

/// gRPC's own parser (grpcio, installed when missing) over every rule's
/// `lbsim config --for grpc` (`grpc.rs`).
pub fn grpc_configs() -> Result<(), String> {
    run("cargo", &["build", "-q", "-p", "lbsim-cli"])?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    grpc::check(&target.join("debug/lbsim"), &target)
}

/// The cases and config checks of the balancers that are here.
fn run_cases(nginx_ok: bool, haproxy_ok: bool) -> Result<(), String> {
    run("cargo", &["build", "-q", "-p", "lbsim-cli"])?;
    let backends = Backends::start(&BACKENDS)?;
    // The timed cases' refusing server: nothing may listen there.
    if TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], REFUSING)), Duration::from_secs(1))
        .is_ok()
    {
        return Err(format!(
            "port {REFUSING} must refuse connections for the timed cases, but something listens there"
        ));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let lbsim = target.join("debug/lbsim");
    let mut nginx = None;
    if nginx_ok {
        let prefix = target.join("conformance/nginx");
        let _ = std::fs::remove_dir_all(&prefix);
        std::fs::create_dir_all(prefix.join("logs")).map_err(|e| e.to_string())?;
        std::fs::write(prefix.join("nginx.conf"), config(&prefix, &lbsim)?).map_err(|e| e.to_string())?;
        nginx = Some(Running::start(nginx_command(&prefix), &prefix, FRONT + NGINX_CASES.len() as u16 - 1)?);
        let (mut sent, started) = (Vec::new(), Instant::now());
        let agree = compare("nginx", &lbsim, &backends, NGINX_CASES, FRONT, &mut sent)?;
        eprintln!("nginx: {agree} agree");
        let log =
            std::fs::read(prefix.join("logs/access.log")).map_err(|e| format!("nginx's access log: {e}"))?;
        let read =
            logs::check("nginx", LogKind::Nginx, &log, &sent, started.elapsed(), |s| Some(s.to_string()))?;
        eprintln!("nginx's access log: {read} requests, each at the server that answered it");
        eprintln!(
            "nginx, fuzzed configs: {} agree",
            fuzzed::route("nginx", &lbsim, &target.join("conformance"), &BACKENDS)?
        );
    }
    // HAProxy in front of the same backends, which stay up.
    if haproxy_ok {
        let dir = target.join("conformance/haproxy");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let cfg = dir.join("haproxy.cfg");
        std::fs::write(&cfg, haproxy_config(&dir, &lbsim)?).map_err(|e| e.to_string())?;
        let mut command = Command::new(haproxy_path());
        command.arg("-db").arg("-f").arg(&cfg);
        let last = HAPROXY_FRONT + HAPROXY_CASES.len() as u16 - 1;
        let syslog = logs::Syslog::listen()?;
        let mut haproxy = Running::start(command, &dir, last)?;
        let (mut sent, started) = (Vec::new(), Instant::now());
        let agree = compare("haproxy", &lbsim, &backends, HAPROXY_CASES, HAPROXY_FRONT, &mut sent)?;
        let span = started.elapsed();
        let log = syslog.take(sent.len());
        haproxy.stop();
        eprintln!("haproxy: {agree} agree");
        std::fs::write(dir.join("access.log"), &log).map_err(|e| e.to_string())?;
        // HAProxy logs `case{i}/s{j}`: server j of a case is its j-th backend.
        let server = |name: &str| {
            let j: usize = name.rsplit('/').next()?.strip_prefix('s')?.parse().ok()?;
            Some(address(*BACKENDS.get(j.checked_sub(1)?)?))
        };
        let read = logs::check("haproxy", LogKind::HaproxyHttp, &log, &sent, span, server)?;
        eprintln!("haproxy's access log: {read} requests, each at the server that answered it");
        let agree = fuzzed::route("haproxy", &lbsim, &target.join("conformance"), &BACKENDS)?;
        eprintln!("haproxy, fuzzed configs: {agree} agree");
    }
    if let Some(nginx) = &mut nginx {
        nginx.stop();
    }
    configs_pass_their_checks(&lbsim, &target.join("conformance"), nginx_ok, haproxy_ok)
}

/// Sends each case's requests to its front (from `front`) and compares the
/// backends that answered with `lbsim trace`'s picks; the requests that
/// agree, or the first that does not.
fn compare(
    balancer: &str,
    lbsim: &Path,
    backends: &Backends,
    cases: &[Case],
    front: u16,
    sent: &mut Vec<String>,
) -> Result<usize, String> {
    let mut agree = 0;
    for (i, case) in cases.iter().enumerate() {
        let steps = held_steps(i as u64, case);
        let front = front + i as u16;
        let (seen, predicted) = match case.play {
            Play::Held => {
                (held_sequence(backends, front, &steps)?, predict(lbsim, case, &["--steps", &steps])?)
            }
            Play::Idle => {
                (sequence(front, case.picks)?, predict(lbsim, case, &["--picks", &case.picks.to_string()])?)
            }
            Play::Timed { .. } => {
                let steps = timed_steps(case);
                (timed_sequence(front, &steps)?, predict(lbsim, case, &["--steps", &steps])?)
            }
        };
        if let Some(at) = seen.iter().zip(&predicted).position(|(a, b)| a != b) {
            // The steps up to the request that went elsewhere, to replay it.
            let upto = format!("arrive:user-{},", at + 1);
            let head = (steps.clone() + ",")
                .find(&upto)
                .map_or(steps.as_str(), |end| &steps[..end + upto.len() - 1]);
            let what = if case.play == Play::Held {
                format!(" (lbsim trace --steps {head})")
            } else {
                String::new()
            };
            return Err(format!(
                "{balancer}, {}: request {} (user-{}) went to {} in {balancer}, to {} in lbsim trace{what}",
                case.name,
                at + 1,
                at + 1,
                seen[at],
                predicted[at]
            ));
        }
        if seen.len() != predicted.len() {
            return Err(format!(
                "{balancer}, {}: {} answers against {} picks",
                case.name,
                seen.len(),
                predicted.len()
            ));
        }
        eprintln!("  {}: {} requests agree", case.name, seen.len());
        agree += seen.len();
        sent.extend(seen);
    }
    Ok(agree)
}

/// HAProxy's config: one thread, in the foreground, a frontend per case
/// whose backend is the block `lbsim config --for haproxy` writes.
fn haproxy_config(dir: &Path, lbsim: &Path) -> Result<String, String> {
    let mut out = format!(
        "global\n    nbthread 1\n    pidfile {}/haproxy.pid\n{}\ndefaults\n    mode http\n    timeout connect 2s\n    \
         timeout client 5s\n    timeout server 5s\n{}\n",
        dir.display(),
        logs::haproxy_global(),
        logs::HAPROXY_DEFAULTS
    );
    for (i, case) in HAPROXY_CASES.iter().enumerate() {
        let block = run_lbsim(lbsim, "config", case, &["--for", "haproxy"])?;
        out += &format!(
            "frontend front{i}\n    bind {}\n    default_backend case{i}\n\n",
            address(HAPROXY_FRONT + i as u16)
        );
        out += &block.replacen("backend lbsim", &format!("backend case{i}"), 1);
        out.push('\n');
    }
    Ok(out)
}

/// Every rule's whole config, with health checks, retries, 5xx counting
/// and slow start set, passes `nginx -t` and `haproxy -c` (of the
/// balancers that are here).
fn configs_pass_their_checks(lbsim: &Path, dir: &Path, nginx: bool, haproxy: bool) -> Result<(), String> {
    let lbsim = lbsim.to_string_lossy();
    let mut checked = 0;
    for rule in lbsim_core::AlgorithmId::ALL {
        let flags = [
            "config",
            "--full",
            // The rule among the scenario's, as a current rule runs only
            // when named.
            "--algorithms",
            rule.id(),
            "--algorithm",
            rule.id(),
            "--weights",
            "2,1,1,3",
            "--retries",
            "2",
            "--count-5xx",
            "true",
            "--max-fails",
            "3",
            "--fail-timeout-ms",
            "1500",
            "--check-ms",
            "2000",
            "--check",
            "http",
            "--slow-start-ms",
            "5000",
            "--for",
        ];
        if nginx {
            let nginx_conf = dir.join("check-nginx.conf");
            let text = output(&lbsim, &[&flags[..], &["nginx"]].concat(), None)?;
            std::fs::write(&nginx_conf, text).map_err(|e| e.to_string())?;
            let conf = nginx_conf.to_string_lossy();
            let globals = format!("pid {}/check.pid; error_log {}/check.err;", dir.display(), dir.display());
            output(&nginx_path().to_string_lossy(), &["-q", "-t", "-c", &conf, "-g", &globals], None)
                .map_err(|e| format!("lbsim config --for nginx --algorithm {}: nginx -t: {e}", rule.id()))?;
            checked += 1;
        }
        if haproxy {
            let cfg = dir.join("check-haproxy.cfg");
            let text = output(&lbsim, &[&flags[..], &["haproxy"]].concat(), None)?;
            std::fs::write(&cfg, text).map_err(|e| e.to_string())?;
            output(&haproxy_path().to_string_lossy(), &["-q", "-c", "-f", &cfg.to_string_lossy()], None)
                .map_err(|e| {
                    format!("lbsim config --for haproxy --algorithm {}: haproxy -c: {e}", rule.id())
                })?;
            checked += 1;
        }
    }
    let checks = match (nginx, haproxy) {
        (true, true) => "nginx -t and haproxy -c",
        (true, false) => "nginx -t (haproxy -c not run)",
        _ => "haproxy -c (nginx -t not run)",
    };
    eprintln!("configs: {checked} pass {checks}");
    Ok(())
}

/// The whole config: one process, paths under `prefix`, the backends, and
/// one balancer per case, its upstream block the one `lbsim config --for
/// nginx` writes for the case.
fn config(prefix: &Path, lbsim: &Path) -> Result<String, String> {
    let p = prefix.display();
    let mut out = format!(
        "master_process off;\nworker_processes 1;\ndaemon off;\npid {p}/nginx.pid;\nerror_log {p}/logs/error.log warn;\n\
         events {{ worker_connections 512; }}\n\
         http {{\n{}  client_body_temp_path {p}/client_body;\n  proxy_temp_path {p}/proxy;\n  \
         fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n",
        logs::nginx_directives(prefix)
    );
    for (i, case) in NGINX_CASES.iter().enumerate() {
        let block = run_lbsim(lbsim, "config", case, &["--for", "nginx"])?;
        // The block alone (its comments say what goes in the server block).
        let upstream: String =
            block.lines().take_while(|l| !l.starts_with('}')).map(|l| format!("  {l}\n")).collect();
        out += &upstream.replacen("upstream lbsim", &format!("upstream case{i}"), 1);
        // The location the block's comments give (its retries), answering
        // with the attempts NGINX made.
        let location: String = block
            .lines()
            .filter_map(|l| l.strip_prefix("#     "))
            .map(|l| l.replace("http://lbsim", &format!("http://case{i}")) + " ")
            .collect();
        out += &format!(
            "  }}\n  server {{ listen {}; location / {{ {location}add_header X-Upstream $upstream_addr always; }} }}\n",
            address(FRONT + i as u16)
        );
    }
    Ok(out + "}\n")
}

/// `lbsim COMMAND` for a case's pool: its flags, the backends as names,
/// its weights, and `extra`.
fn run_lbsim(lbsim: &Path, command: &str, case: &Case, extra: &[&str]) -> Result<String, String> {
    let mut names: Vec<String> = BACKENDS.iter().take(case.weights.len()).map(|&p| address(p)).collect();
    let mut events = String::new();
    if let Play::Timed { refuses } = case.play {
        names[refuses] = address(REFUSING);
        events = format!("0s:{}:crash", names[refuses]);
    }
    let weights: Vec<String> = case.weights.iter().map(u32::to_string).collect();
    let (names, weights, servers) = (names.join(","), weights.join(","), case.weights.len().to_string());
    let mut args: Vec<&str> = vec![command];
    args.extend(case.flags);
    args.extend(["--servers", &servers, "--names", &names, "--weights", &weights]);
    if !events.is_empty() {
        args.extend(["--events", &events]);
    }
    args.extend(extra);
    output(&lbsim.to_string_lossy(), &args, None)
}

/// What `lbsim trace` predicts for a case (`how`: its picks or steps):
/// the server of each pick.
fn predict(lbsim: &Path, case: &Case, how: &[&str]) -> Result<Vec<String>, String> {
    let text = run_lbsim(lbsim, "trace", case, &[how, &["--format", "json"]].concat())?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("lbsim trace: {e}"))?;
    let picks = json["picks"].as_array().ok_or("lbsim trace printed no picks")?;
    Ok(picks.iter().map(|p| p.as_str().unwrap_or_default().to_string()).collect())
}
