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
//! Where one cannot be had, CI (`CI=true`) fails and elsewhere its cases
//! are skipped with a loud line.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{have, output, root, run, step};

mod backends;
use backends::Backends;

/// The backends' ports; NGINX's balancers listen from `FRONT`, HAProxy's
/// from `HAPROXY_FRONT`.
const BACKENDS: [u16; 7] = [18281, 18282, 18283, 18284, 18285, 18286, 18287];
const FRONT: u16 = 18301;
const HAPROXY_FRONT: u16 = 18341;

/// The port of a server that refuses connections: nothing listens there.
const REFUSING: u16 = 18288;

/// One comparison: a rule over a pool (the flags `lbsim config` and
/// `lbsim trace` both take), and how many requests, request i carrying the
/// key `?user=user-{i+1}` (the rule may ignore it), played as `play` says.
struct Case {
    name: &'static str,
    weights: &'static [u32],
    picks: usize,
    flags: &'static [&'static str],
    play: Play,
}

/// How a case's requests go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Play {
    /// One at a time.
    Idle,
    /// As the steps of [`held_steps`]: held open at their backend and
    /// finished in a shuffled order, so the counting rules' choices while
    /// requests are in flight are compared.
    Held,
    /// One at a time at the times of [`timed_steps`], server `refuses` (0-based)
    /// refusing every connection (it is `REFUSING`, and the scenario's
    /// events crash it at 0 s): the passive checks' windows, on the
    /// balancer's own clock, and its retries are compared, attempt by attempt.
    Timed { refuses: usize },
}

/// A hashing case over user-1 .. user-2000.
const fn keys(name: &'static str, weights: &'static [u32], flags: &'static [&'static str]) -> Case {
    Case { name, weights, picks: 2000, flags, play: Play::Idle }
}

/// A case of `picks` requests one at a time.
const fn picks(
    name: &'static str,
    weights: &'static [u32],
    picks: usize,
    flags: &'static [&'static str],
) -> Case {
    Case { name, weights, picks, flags, play: Play::Idle }
}

/// A case of `picks` requests held open and finished out of order.
const fn held(
    name: &'static str,
    weights: &'static [u32],
    picks: usize,
    flags: &'static [&'static str],
) -> Case {
    Case { name, weights, picks, flags, play: Play::Held }
}

/// A case of `picks` requests one at a time, five a second, server
/// `refuses` refusing.
const fn timed(
    name: &'static str,
    weights: &'static [u32],
    refuses: usize,
    picks: usize,
    flags: &'static [&'static str],
) -> Case {
    Case { name, weights, picks, flags, play: Play::Timed { refuses } }
}

/// HAProxy's cases: `hash-type consistent` alone (sdbm with avalanche) and
/// with each of its key hashes named (no avalanche), weighted and not;
/// bounded loads one request at a time (the allowance never binds: the
/// home point is compared) and held (the allowance and the walk);
/// `leastconn` held, weighted and not; `balance roundrobin` for the
/// weightings NGINX's round robin is held to.
const HAPROXY_CASES: &[Case] = &[
    keys(
        "hash-type consistent (sdbm, avalanche), 4 servers",
        &[1, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy"],
    ),
    keys(
        "hash-type consistent (sdbm, avalanche), 7 servers weighted 2,1,1,3,1,1,1",
        &[2, 1, 1, 3, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy"],
    ),
    keys(
        "hash-type consistent sdbm, 4 servers",
        &[1, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "sdbm"],
    ),
    keys(
        "hash-type consistent djb2, 5 servers weighted 1,4,1,2,1",
        &[1, 4, 1, 2, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "djb2"],
    ),
    keys(
        "hash-type consistent wt6, 5 servers",
        &[1, 1, 1, 1, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "wt6"],
    ),
    keys(
        "hash-type consistent crc32, 6 servers weighted 3,1,1,1,2,1",
        &[3, 1, 1, 1, 2, 1],
        &["--algorithm", "consistent-hash", "--builder", "haproxy", "--hash", "crc32"],
    ),
    keys(
        "hash-balance-factor 125, one request at a time, 4 servers",
        &[1, 1, 1, 1],
        &["--algorithm", "bounded-load", "--builder", "haproxy"],
    ),
    held(
        "hash-balance-factor 125, held, 4 servers",
        &[1, 1, 1, 1],
        300,
        &["--algorithm", "bounded-load", "--builder", "haproxy"],
    ),
    held(
        "hash-balance-factor 150, held, 5 servers weighted 2,1,1,3,1",
        &[2, 1, 1, 3, 1],
        300,
        &["--algorithm", "bounded-load", "--builder", "haproxy", "--balance-factor", "150"],
    ),
    held(
        "leastconn, held, 4 servers",
        &[1, 1, 1, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "haproxy"],
    ),
    held(
        "leastconn, held, 4 servers weighted 3,1,2,1",
        &[3, 1, 2, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 1,1,1,1",
        &[1, 1, 1, 1],
        40,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 5,1,1",
        &[5, 1, 1],
        70,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 3,2,1,1,4",
        &[3, 2, 1, 1, 4],
        110,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
    picks(
        "balance roundrobin 7,3,2",
        &[7, 3, 2],
        120,
        &["--algorithm", "round-robin", "--builder", "haproxy"],
    ),
];

/// NGINX's cases: smooth weighted round robin (its default) for several
/// weightings, `hash $arg_user consistent` over four, five and seven
/// servers and `hash $arg_user` over four and five, with user-1 ..
/// user-2000 as keys (`lbsim trace` sends pick i to user i+1),
/// `least_conn` held, weighted and not, and passive checks (`max_fails`,
/// `fail_timeout`, the trial after it) with retries past a server that
/// refuses, over four seconds of NGINX's whole-second clock.
const CASES: &[Case] = &[
    picks("round robin 5,1,1", &[5, 1, 1], 70, &["--algorithm", "round-robin"]),
    picks("round robin 3,2,1,1,4", &[3, 2, 1, 1, 4], 110, &["--algorithm", "round-robin"]),
    picks("round robin 1,1,1,1", &[1, 1, 1, 1], 40, &["--algorithm", "round-robin"]),
    picks("round robin 7,3,2", &[7, 3, 2], 120, &["--algorithm", "round-robin"]),
    picks(
        "hash $arg_user consistent, 4 servers",
        &[1, 1, 1, 1],
        2000,
        &["--algorithm", "consistent-hash", "--builder", "nginx"],
    ),
    picks(
        "hash $arg_user consistent, 5 servers",
        &[1, 1, 1, 1, 1],
        2000,
        &["--algorithm", "consistent-hash", "--builder", "nginx"],
    ),
    picks(
        "hash $arg_user consistent, 7 servers weighted 2,1,1,3,1,1,1",
        &[2, 1, 1, 3, 1, 1, 1],
        2000,
        &["--algorithm", "consistent-hash", "--builder", "nginx"],
    ),
    keys("hash $arg_user, 4 servers", &[1, 1, 1, 1], &["--algorithm", "user-hash", "--builder", "nginx"]),
    keys(
        "hash $arg_user, 5 servers weighted 2,1,3,1,1",
        &[2, 1, 3, 1, 1],
        &["--algorithm", "user-hash", "--builder", "nginx"],
    ),
    held(
        "least_conn, held, 4 servers",
        &[1, 1, 1, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "nginx"],
    ),
    held(
        "least_conn, held, 4 servers weighted 3,1,2,1",
        &[3, 1, 2, 1],
        300,
        &["--algorithm", "least-connections", "--builder", "nginx"],
    ),
    timed(
        "max_fails=1 fail_timeout=1s, one retry, s2 refuses, 3 servers",
        &[1, 1, 1],
        1,
        20,
        &["--algorithm", "round-robin", "--builder", "nginx", "--fail-timeout-ms", "1000", "--retries", "1"],
    ),
    timed(
        "max_fails=2 fail_timeout=1s, two retries, s1 refuses, 4 servers weighted 2,1,3,1",
        &[2, 1, 3, 1],
        0,
        20,
        &[
            "--algorithm",
            "round-robin",
            "--builder",
            "nginx",
            "--max-fails",
            "2",
            "--fail-timeout-ms",
            "1000",
            "--retries",
            "2",
        ],
    ),
];

fn address(port: u16) -> String {
    format!("127.0.0.1:{port}")
}

/// Runs every case against the real NGINX.
pub fn conformance() -> Result<(), String> {
    step("conformance: the real NGINX and HAProxy against lbsim trace, request by request");
    if !ensure(&nginx_path().to_string_lossy(), "nginx-light", "-v")? {
        return Ok(());
    }
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
    let prefix = target.join("conformance/nginx");
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::create_dir_all(prefix.join("logs")).map_err(|e| e.to_string())?;
    std::fs::write(prefix.join("nginx.conf"), config(&prefix, &lbsim)?).map_err(|e| e.to_string())?;
    let mut nginx = Running::start(nginx_command(&prefix), &prefix, FRONT + CASES.len() as u16 - 1)?;
    let agree = compare("nginx", &lbsim, &backends, CASES, FRONT)?;
    eprintln!("nginx: {agree} agree");
    // HAProxy in front of the same backends, which stay up.
    if ensure("haproxy", "haproxy", "-v")? {
        let dir = target.join("conformance/haproxy");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let cfg = dir.join("haproxy.cfg");
        std::fs::write(&cfg, haproxy_config(&dir, &lbsim)?).map_err(|e| e.to_string())?;
        let mut command = Command::new("haproxy");
        command.arg("-db").arg("-f").arg(&cfg);
        let last = HAPROXY_FRONT + HAPROXY_CASES.len() as u16 - 1;
        let mut haproxy = Running::start(command, &dir, last)?;
        let agree = compare("haproxy", &lbsim, &backends, HAPROXY_CASES, HAPROXY_FRONT)?;
        haproxy.stop();
        eprintln!("haproxy: {agree} agree");
    }
    nginx.stop();
    configs_pass_their_checks(&lbsim, &target.join("conformance"))
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
    }
    Ok(agree)
}

/// HAProxy's config: one thread, in the foreground, a frontend per case
/// whose backend is the block `lbsim config --for haproxy` writes.
fn haproxy_config(dir: &Path, lbsim: &Path) -> Result<String, String> {
    let mut out = format!(
        "global\n    nbthread 1\n    pidfile {}/haproxy.pid\n\ndefaults\n    mode http\n    timeout connect 2s\n    \
         timeout client 5s\n    timeout server 5s\n\n",
        dir.display()
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
/// and slow start set, passes `nginx -t` and `haproxy -c`.
fn configs_pass_their_checks(lbsim: &Path, dir: &Path) -> Result<(), String> {
    let haproxy = have("haproxy", "-v");
    let lbsim = lbsim.to_string_lossy();
    let mut checked = 0;
    for rule in lbsim_core::AlgorithmId::ALL {
        let flags = [
            "config",
            "--full",
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
        let nginx_conf = dir.join("check-nginx.conf");
        let text = output(&lbsim, &[&flags[..], &["nginx"]].concat(), None)?;
        std::fs::write(&nginx_conf, text).map_err(|e| e.to_string())?;
        let conf = nginx_conf.to_string_lossy();
        let globals = format!("pid {}/check.pid; error_log {}/check.err;", dir.display(), dir.display());
        output(&nginx_path().to_string_lossy(), &["-q", "-t", "-c", &conf, "-g", &globals], None)
            .map_err(|e| format!("lbsim config --for nginx --algorithm {}: nginx -t: {e}", rule.id()))?;
        checked += 1;
        if haproxy {
            let cfg = dir.join("check-haproxy.cfg");
            let text = output(&lbsim, &[&flags[..], &["haproxy"]].concat(), None)?;
            std::fs::write(&cfg, text).map_err(|e| e.to_string())?;
            output("haproxy", &["-q", "-c", "-f", &cfg.to_string_lossy()], None).map_err(|e| {
                format!("lbsim config --for haproxy --algorithm {}: haproxy -c: {e}", rule.id())
            })?;
            checked += 1;
        }
    }
    let checks = if haproxy { "nginx -t and haproxy -c" } else { "nginx -t (haproxy skipped)" };
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
         http {{\n  access_log off;\n  client_body_temp_path {p}/client_body;\n  proxy_temp_path {p}/proxy;\n  \
         fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n"
    );
    for (i, case) in CASES.iter().enumerate() {
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

/// NGINX in the foreground, its paths under `prefix`.
fn nginx_command(prefix: &Path) -> Command {
    let mut command = Command::new(nginx_path());
    command.arg("-p").arg(prefix).arg("-c").arg(prefix.join("nginx.conf"));
    command
}

/// The backend that answers each of `n` requests to `front`, request i
/// carrying `?user=user-{i+1}`.
fn sequence(front: u16, n: usize) -> Result<Vec<String>, String> {
    (1..=n).map(|user| get(front, &format!("/?user=user-{user}"))).collect()
}

/// A held case's steps, as `lbsim trace --steps` reads them: `case.picks`
/// arrivals (user i for the i-th), at most twice the servers plus one in
/// flight, each finish a pseudo-random one of those in flight (xorshift,
/// seeded by the case's index, so the sequence is the same every run).
fn held_steps(index: u64, case: &Case) -> String {
    let mut state = 0x9E37_79B9_7F4A_7C15 ^ (index + 1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let most = 2 * case.weights.len() + 1;
    let (mut steps, mut in_flight, mut arrived) = (Vec::new(), Vec::new(), 0);
    while arrived < case.picks || !in_flight.is_empty() {
        let arrive =
            arrived < case.picks && (in_flight.is_empty() || (in_flight.len() < most && next() % 3 != 0));
        if arrive {
            arrived += 1;
            in_flight.push(arrived);
            steps.push(format!("arrive:user-{arrived}"));
        } else {
            let k = in_flight.swap_remove((next() % in_flight.len() as u64) as usize);
            steps.push(format!("finish:{k}"));
        }
    }
    steps.join(",")
}

/// Plays `steps` against `front`: each arrival is a request held open at
/// its backend (`hold=K` for the K-th), recorded as soon as it gets there;
/// each finish releases one and reads its answer to the end, after which
/// the balancer has closed the request. The backend of each arrival.
fn held_sequence(backends: &Backends, front: u16, steps: &str) -> Result<Vec<String>, String> {
    // A new id space per case, so a request released earlier never matches.
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let base = NEXT_ID.fetch_add(1_000_000, std::sync::atomic::Ordering::Relaxed);
    let mut open: Vec<Option<TcpStream>> = Vec::new();
    let mut seen = Vec::new();
    for step in steps.split(',') {
        if let Some(user) = step.strip_prefix("arrive:") {
            let id = base + open.len() as u64 + 1;
            let addr = SocketAddr::from(([127, 0, 0, 1], front));
            let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))
                .map_err(|e| format!("{addr}: {e}"))?;
            stream.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
            send(&mut stream, &format!("/?user={user}&hold={id}"))?;
            seen.push(address(backends.arrival(id)?));
            open.push(Some(stream));
        } else if let Some(k) = step.strip_prefix("finish:").and_then(|k| k.parse::<usize>().ok()) {
            let mut stream =
                open.get_mut(k - 1).and_then(Option::take).ok_or(format!("step {step}: not open"))?;
            backends.release(base + k as u64);
            let body = read_answer(&mut stream, front)?;
            if body != seen[k - 1] {
                return Err(format!("request {k} reached {} but was answered by {body}", seen[k - 1]));
            }
            // The balancer closes its side once it has let the request go;
            // a moment more for its bookkeeping on loopback.
            std::thread::sleep(Duration::from_millis(15));
        }
    }
    Ok(seen)
}

/// A timed case's steps: request k at `at:T`, five a second, each at
/// least 120 ms from a whole second (so NGINX's second and lbsim's agree
/// whatever the few milliseconds a request takes), answered at once.
fn timed_steps(case: &Case) -> String {
    (1..=case.picks)
        .map(|k| {
            let t = 1000 * ((k - 1) / 5) + 120 + 170 * ((k - 1) % 5);
            format!("at:{t},arrive:user-{k},finish:{k}")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Plays timed `steps` against `front` from the start of a wall-clock
/// second (NGINX's `ngx_time()` counts them): each request is sent at its
/// time and read to its end. For each, the attempts NGINX made
/// (`$upstream_addr`), `>`-separated, ending `>502` if none answered.
fn timed_sequence(front: u16, steps: &str) -> Result<Vec<String>, String> {
    let into_second = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .subsec_nanos();
    std::thread::sleep(Duration::from_nanos(u64::from(1_000_000_000 - into_second)));
    let start = Instant::now();
    let mut seen = Vec::new();
    let mut at_ms = 0;
    for step in steps.split(',') {
        if let Some(t) = step.strip_prefix("at:").and_then(|t| t.parse::<u64>().ok()) {
            at_ms = t;
            let at = start + Duration::from_millis(t);
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
        } else if let Some(user) = step.strip_prefix("arrive:") {
            seen.push(attempts(front, &format!("/?user={user}"))?);
            // Answered well inside its second, or NGINX's clock and the
            // prediction's may differ: a busy machine, not a disagreement.
            let late = start.elapsed().as_millis() as u64 - at_ms;
            if late > 100 {
                return Err(format!(
                    "{user} was answered {late} ms after its time, too near a whole second to compare: \
                     the machine is too busy; run again"
                ));
            }
        }
    }
    Ok(seen)
}

/// One GET to `front`, answered 200 or 502: the attempts its
/// `X-Upstream` header lists.
fn attempts(front: u16, path: &str) -> Result<String, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], front));
    let mut response = Vec::new();
    request(front, path)?.take(4096).read_to_end(&mut response).map_err(|e| format!("{addr}: {e}"))?;
    let text = String::from_utf8_lossy(&response);
    let head = text.split("\r\n\r\n").next().unwrap_or_default();
    let status = head.lines().next().unwrap_or_default();
    let upstream = head
        .lines()
        .find_map(|l| l.strip_prefix("X-Upstream: "))
        .ok_or_else(|| format!("{addr}{path}: no X-Upstream header ({status})"))?;
    let mut tried = upstream.split(", ").collect::<Vec<_>>().join(">");
    if status.contains(" 502 ") {
        tried += ">502";
    } else if !status.contains(" 200 ") {
        return Err(format!("{addr}{path}: {status}"));
    }
    Ok(tried)
}

/// A balancer running in the foreground, stopped by its own pid.
struct Running {
    child: Child,
}

impl Running {
    /// Starts `command` and waits (at most 10 s) until port `last`, its
    /// last front, answers; `dir` holds its logs.
    fn start(mut command: Command, dir: &Path, last: u16) -> Result<Running, String> {
        let program = command.get_program().to_string_lossy().into_owned();
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("could not start {program}: {e}"))?;
        let mut running = Running { child };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", last)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                running.stop();
                return Err(format!("{program} did not listen within 10 s (see {})", dir.display()));
            }
            if let Ok(Some(status)) = running.child.try_wait() {
                return Err(format!("{program} exited at once ({status}; see {})", dir.display()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(running)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One HTTP/1.0 GET on loopback, its body (bounded: 2 s, 4 KiB).
fn get(port: u16, path: &str) -> Result<String, String> {
    read_answer(&mut request(port, path)?, port).map_err(|e| format!("{path}: {e}"))
}

/// A GET of `path` sent to `port`, its answer to be read within 2 s.
fn request(port: u16, path: &str) -> Result<TcpStream, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).map_err(|e| e.to_string())?;
    send(&mut stream, path)?;
    Ok(stream)
}

/// An HTTP/1.0 GET of `path`, in one write (pieces would wait on Nagle
/// for the balancer's delayed ACK, 40 ms a request).
fn send(stream: &mut TcpStream, path: &str) -> Result<(), String> {
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: conformance\r\n\r\n").as_bytes())
        .map_err(|e| e.to_string())
}

/// A response read to its end (bounded: 4 KiB, the stream's timeout): its
/// body, which must come with a 200.
fn read_answer(stream: &mut TcpStream, port: u16) -> Result<String, String> {
    let mut response = Vec::new();
    stream.take(4096).read_to_end(&mut response).map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) =
        text.split_once("\r\n\r\n").ok_or_else(|| format!("127.0.0.1:{port}: no HTTP response"))?;
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return Err(format!("127.0.0.1:{port}: {}", head.lines().next().unwrap_or_default()));
    }
    Ok(body.trim().to_string())
}

fn nginx_path() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .unwrap_or("nginx".into())
}

/// `program` (`version` prints its version), installed from Debian's
/// `package` if missing; `false`: not to be had here (skipped, loudly),
/// an error under CI.
fn ensure(program: &str, package: &str, version: &str) -> Result<bool, String> {
    if have(program, version) {
        return Ok(true);
    }
    step(&format!("installing {package} (apt-get, once; its service is not started)"));
    let installed = install_without_starting(package);
    if installed.is_ok() && have(program, version) {
        return Ok(true);
    }
    let why = installed.err().unwrap_or_else(|| format!("{program} still does not run"));
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return Err(format!("conformance: {package} is needed in CI and could not be installed: {why}"));
    }
    eprintln!("\n!!! conformance SKIPPED ({package}): it could not be installed here ({why}); CI runs it\n");
    Ok(false)
}

/// `apt-get install` with a `policy-rc.d` that answers 101, so no packaged
/// service starts (and none takes the ports).
fn install_without_starting(package: &str) -> Result<(), String> {
    let policy = Path::new("/usr/sbin/policy-rc.d");
    let ours = !policy.exists();
    if ours {
        std::fs::write(policy, "#!/bin/sh\nexit 101\n").map_err(|e| format!("{}: {e}", policy.display()))?;
        let _ = Command::new("chmod").arg("755").arg(policy).status();
    }
    let result = run("apt-get", &["install", "-y", "-q", "--no-install-recommends", package]).or_else(|_| {
        run("apt-get", &["update", "-q"])?;
        run("apt-get", &["install", "-y", "-q", "--no-install-recommends", package])
    });
    if ours {
        let _ = std::fs::remove_file(policy);
    }
    result
}
